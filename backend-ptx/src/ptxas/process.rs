//! Running ptxas (or its `--version`) as a child process with a time limit, a cap on
//! the output kept, and a way for the driver to stop it on Ctrl-C.
//!
//! Standard output and error are read on two threads, each keeping its first
//! [`MAX_OUTPUT_BYTES`] and discarding the rest (still reading, so the child never
//! blocks on a full pipe). The child is polled every few milliseconds with
//! `wait-timeout`; past the time limit, or once [`cancel_running`] was called, it is
//! killed and reaped before this returns, so the caller's temporary directory can go.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

/// How much of each of a child's standard output and error is kept: 1 MiB.
pub const MAX_OUTPUT_BYTES: usize = 1 << 20;

/// How often the child is checked for a cancellation.
const POLL: Duration = Duration::from_millis(20);

/// How long the output of a killed child is still waited for.
const KILLED_GRACE: Duration = Duration::from_secs(1);

/// Set by [`cancel_running`]: every child still running, or started later, is killed.
static CANCELLED: AtomicBool = AtomicBool::new(false);

/// How many children are running now.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Stops every ptxas this process is running, and any it starts later: each is
/// killed, its temporary directory removed, and its call returns an interruption.
/// For a Ctrl-C handler. Returns whether one was running (when none was, the caller
/// can simply exit).
pub fn cancel_running() -> bool {
    CANCELLED.store(true, Ordering::SeqCst);
    RUNNING.load(Ordering::SeqCst) > 0
}

/// What a child printed and how it ended.
#[derive(Debug)]
pub(super) struct Finished {
    pub status: ExitStatus,
    /// Standard output then standard error, each cut at [`MAX_OUTPUT_BYTES`].
    pub log: String,
}

/// Why a child gave no [`Finished`].
#[derive(Debug)]
pub(super) enum Stopped {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It ran past the limit and was killed.
    TimedOut(Duration),
    /// [`cancel_running`] was called.
    Interrupted,
}

/// Runs `command` (standard input closed) for at most `limit`.
pub(super) fn run(command: &mut Command, limit: Duration) -> Result<Finished, Stopped> {
    if CANCELLED.load(Ordering::SeqCst) {
        return Err(Stopped::Interrupted);
    }
    let mut child = spawn_piped(command).map_err(Stopped::Spawn)?;
    RUNNING.fetch_add(1, Ordering::SeqCst);
    let start = Instant::now();
    let stdout = read_in_background(child.stdout.take());
    let stderr = read_in_background(child.stderr.take());
    let outcome = loop {
        if let Ok(Some(status)) = child.wait_timeout(POLL) {
            break Ok(status);
        }
        if CANCELLED.load(Ordering::SeqCst) {
            break Err(Stopped::Interrupted);
        }
        if start.elapsed() >= limit {
            break Err(Stopped::TimedOut(limit));
        }
    };
    if outcome.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    RUNNING.fetch_sub(1, Ordering::SeqCst);
    // A child of the child may hold the pipes open after it is gone: wait for the
    // readers only until the time limit, or a moment after a kill.
    let reading_ends = match outcome {
        Ok(_) => (start + limit).max(Instant::now() + KILLED_GRACE),
        Err(_) => Instant::now() + KILLED_GRACE,
    };
    let text = |reader: Receiver<Vec<u8>>| {
        let wait = reading_ends.saturating_duration_since(Instant::now());
        String::from_utf8_lossy(&reader.recv_timeout(wait).unwrap_or_default()).into_owned()
    };
    let log = text(stdout) + &text(stderr);
    // A Ctrl-C also reaches the child (same process group): report the interruption,
    // not the signal that killed it.
    match outcome {
        Ok(_) if CANCELLED.load(Ordering::SeqCst) => Err(Stopped::Interrupted),
        Ok(status) => Ok(Finished { status, log }),
        Err(stopped) => Err(stopped),
    }
}

/// Starts `command` with standard input closed and its outputs piped.
pub(super) fn spawn_piped(command: &mut Command) -> std::io::Result<Child> {
    (command.stdin(Stdio::null()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
}

/// Reads `stream` on its own thread; its capped bytes arrive on the receiver.
fn read_in_background(stream: Option<impl Read + Send + 'static>) -> Receiver<Vec<u8>> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || sender.send(read_capped(stream)));
    receiver
}

/// The first [`MAX_OUTPUT_BYTES`] of a stream, the rest read and dropped.
fn read_capped(stream: Option<impl Read>) -> Vec<u8> {
    let mut kept = Vec::new();
    let Some(mut stream) = stream else {
        return kept;
    };
    let mut buffer = [0u8; 8192];
    while let Ok(read) = stream.read(&mut buffer) {
        if read == 0 {
            break;
        }
        let room = MAX_OUTPUT_BYTES.saturating_sub(kept.len());
        kept.extend_from_slice(&buffer[..read.min(room)]);
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::{MAX_OUTPUT_BYTES, Stopped, run};
    use std::process::Command;
    use std::time::{Duration, Instant};

    fn shell(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn a_child_past_its_limit_is_killed() {
        let start = Instant::now();
        let stopped = run(&mut shell("sleep 30"), Duration::from_millis(300));
        assert!(matches!(stopped, Err(Stopped::TimedOut(_))), "{stopped:?}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn output_is_capped_and_the_child_still_finishes() {
        let finished = run(
            &mut shell("head -c 5000000 /dev/zero | tr '\\0' x; echo done >&2"),
            Duration::from_secs(20),
        )
        .expect("it runs");
        assert!(finished.status.success());
        assert_eq!(finished.log.len(), MAX_OUTPUT_BYTES + "done\n".len());
    }
}
