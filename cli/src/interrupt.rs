//! Ctrl-C (and `SIGTERM`, `SIGHUP`) in `cukc`: while ptxas runs, the signal stops it
//! through `backend_ptx::ptxas::cancel_running`, so its private temporary directory is
//! removed before cukc exits; at any other moment cukc exits at once (and kills itself
//! 2 s later if exiting hangs, as the CUDA driver's exit handler does behind a kernel
//! hung on the GPU). Either way the exit code is 130, as a shell reports an interrupted
//! command (137 after the kill). pip, which
//! provisions ptxas, is not stopped this way: an interrupted install may leave a
//! `python.partial-*` folder in the cache, which is never used.

use std::sync::atomic::{AtomicBool, Ordering};

/// The exit code of an interrupted `cukc`.
pub const EXIT_CODE: u8 = 130;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler; without it (another handler is set, which cannot happen in
/// `cukc`) signals keep their default effect.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, Ordering::SeqCst);
        if !backend_ptx::ptxas::cancel_running() {
            // `exit` runs the process's exit handlers, the CUDA driver's among them,
            // which wait for a kernel hung on the GPU: past EXIT_GRACE the process
            // ends itself with SIGKILL, so one Ctrl-C or SIGTERM always ends it.
            std::thread::spawn(|| {
                std::thread::sleep(EXIT_GRACE);
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::this(),
                    nix::sys::signal::Signal::SIGKILL,
                );
            });
            std::process::exit(i32::from(EXIT_CODE));
        }
    });
}

/// How long an interrupted `cukc` may take to exit before it kills itself.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Whether a signal arrived (and stopped a ptxas); the caller cleans up and exits
/// with [`EXIT_CODE`].
pub fn happened() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
