//! Waiting for the GPU under a time limit. A kernel that never finishes (a spin on a
//! flag no thread sets, a barrier a warp never reaches) would block a plain
//! `cuStreamSynchronize` for ever, and the driver's exit handler behind it, so the
//! harness never blocks on the stream: it records an event after the work and polls it
//! until it completes, a kernel fails, or the limit passes. Past the limit the wait ends
//! with a message naming the kernel, and the [`Gpu`] is marked hung: the kernel still
//! occupies the GPU (nothing can stop one kernel of a context), so the harness stops
//! using it, and `cukc` ends its process without the driver's exit handler.
//!
//! The limit is per launch: a wait for several (a bench's warmup and timed runs) has an
//! event after each, and fails when one does not complete within the limit of the one
//! before it (or of the wait's start), so a bench whose second run hangs is stopped as
//! soon as a test would be. `--kernel-timeout` or `CUKC_KERNEL_TIMEOUT` seconds, 60
//! unless set.

use std::time::{Duration, Instant};

use cudarc::driver::CudaEvent;
use cudarc::driver::sys::CUevent_flags;

use super::{Gpu, GpuError};

/// The environment variable that sets the limit (`cukc --kernel-timeout` sets it too).
pub const KERNEL_TIMEOUT_VARIABLE: &str = "CUKC_KERNEL_TIMEOUT";

/// The limit when neither the flag nor the variable sets one.
pub const DEFAULT_KERNEL_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest pause between two polls: a finished kernel is seen within it.
const LONGEST_POLL_PAUSE: Duration = Duration::from_millis(1);

/// The limit `CUKC_KERNEL_TIMEOUT` gives, or why its value cannot be used.
pub fn kernel_timeout_from_environment() -> Result<Duration, GpuError> {
    crate::deadline::limit_from_environment(KERNEL_TIMEOUT_VARIABLE, DEFAULT_KERNEL_TIMEOUT)
        .map_err(GpuError::from)
}

impl Gpu {
    /// The time limit of one kernel launch.
    pub fn kernel_timeout(&self) -> Duration {
        self.kernel_timeout
    }

    /// Sets the time limit of one kernel launch.
    pub fn set_kernel_timeout(&mut self, limit: Duration) {
        self.kernel_timeout = limit;
    }

    /// The kernel that passed its time limit and may still be running (`kernel `name``),
    /// if one did: after it, nothing else can run on this GPU in this process.
    pub fn hung_kernel(&self) -> Option<&str> {
        self.hung.get().map(String::as_str)
    }

    /// Waits until every one of `steps` (events recorded in order, each after one launch
    /// or run of `what`) has completed, each within the limit of the one before; with
    /// no steps, until the work queued so far has, within the limit. `what` is `kernel
    /// `name``, or a reference's name.
    pub(super) fn wait(&self, what: &str, steps: &[&CudaEvent]) -> Result<(), GpuError> {
        if let Some(kernel) = self.hung_kernel() {
            return Err(GpuError::Refused(still_running(kernel)));
        }
        let failed = |error| GpuError::Driver {
            doing: format!("{what} failed"),
            error,
            after:
                " (the GPU context is unusable after this; later GPU work in this run fails too)"
                    .to_owned(),
        };
        let all_queued;
        let steps = if steps.is_empty() {
            all_queued = self
                .context
                .new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                .map_err(failed)?;
            all_queued.record(&self.stream).map_err(failed)?;
            &[&all_queued][..]
        } else {
            steps
        };
        let mut progress = Progress::starting(Instant::now());
        let mut pause = Duration::from_micros(20);
        while let Some(step) = steps.get(progress.done) {
            if step.try_is_complete().map_err(failed)? {
                progress.advance(Instant::now());
                pause = Duration::from_micros(20);
                continue;
            }
            if progress.overdue(Instant::now(), self.kernel_timeout) {
                let _ = self.hung.set(what.to_owned());
                let which = if steps.len() > 1 {
                    format!(" (run {} of {})", progress.done + 1, steps.len())
                } else {
                    String::new()
                };
                return Err(GpuError::Refused(format!(
                    "{what}{which} did not finish within {} s (the kernel time limit, \
                     --kernel-timeout) and is still running on the GPU: nothing else can \
                     run on it in this process",
                    self.kernel_timeout.as_secs_f64(),
                )));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(LONGEST_POLL_PAUSE);
        }
        // The work is done, so this returns at once; a synchronization, unlike a query,
        // flushes the kernels' `printf` buffer to standard output (CUDA C++ Programming
        // Guide, "Formatted Output"), where C's buffered stream then goes out.
        self.stream.synchronize().map_err(failed)?;
        flush_c_output();
        Ok(())
    }
}

/// Ends the process at once with exit status `code`, without the exit handlers (the
/// CUDA driver's among them, which would wait for a hung kernel): what a process that
/// may have a kernel running does instead of `std::process::exit`. The operating system
/// tears the GPU context down as the process goes.
#[allow(unsafe_code)]
pub fn leave_process(code: u8) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` has no preconditions; it ends the process without running the
    // exit handlers or the destructors of other threads' data, none of which this
    // process needs once its output is flushed.
    unsafe { libc::_exit(i32::from(code)) }
}

/// Writes out what C's buffered streams hold: the driver's `printf` text.
#[allow(unsafe_code)]
fn flush_c_output() {
    // SAFETY: `fflush(NULL)` flushes every open C output stream; it has no
    // preconditions.
    unsafe {
        libc::fflush(std::ptr::null_mut());
    }
}

/// How far a wait for several steps has come: the steps done, and when the last one
/// was seen done (or the wait started).
#[derive(Clone, Copy, Debug)]
struct Progress {
    done: usize,
    since: Instant,
}

impl Progress {
    fn starting(now: Instant) -> Progress {
        Progress {
            done: 0,
            since: now,
        }
    }

    /// One more step seen done at `now`: the next has the limit from then.
    fn advance(&mut self, now: Instant) {
        self.done += 1;
        self.since = now;
    }

    /// Whether the next step has taken `limit` or more since the last was seen done.
    fn overdue(&self, now: Instant, limit: Duration) -> bool {
        now.duration_since(self.since) >= limit
    }
}

/// Why nothing runs on a GPU a kernel hung on.
pub fn still_running(what: &str) -> String {
    format!("the GPU is still running {what}, which passed its time limit")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_has_the_limit_from_the_one_before() {
        let start = Instant::now();
        let limit = Duration::from_secs(60);
        let mut progress = Progress::starting(start);
        // Ten runs of 50 s each: never overdue, though 500 s pass in all.
        for run in 1..=10 {
            let now = start + Duration::from_secs(50 * run);
            assert!(!progress.overdue(now, limit));
            progress.advance(now);
        }
        assert_eq!(progress.done, 10);
        // The eleventh never completes: overdue 60 s after the tenth, not before.
        let tenth = start + Duration::from_secs(500);
        assert!(!progress.overdue(tenth + Duration::from_secs(59), limit));
        assert!(progress.overdue(tenth + Duration::from_secs(60), limit));
    }
}
