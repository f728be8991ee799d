//! Ctrl-C (and `SIGTERM`, `SIGHUP`) in `cukc`: while ptxas runs, the signal stops it
//! through `backend_ptx::ptxas::cancel_running`, so its private temporary directory is
//! removed before cukc exits; at any other moment cukc exits at once, without the exit
//! handlers (`runtime::leave_process`: the CUDA driver's would wait for a kernel hung on
//! the GPU). Either way the exit code is 130, as a shell reports an interrupted command.
//! pip, which provisions ptxas, is not stopped this way: an interrupted install may
//! leave a `python.partial-*` folder in the cache, which is never used.

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
            runtime::leave_process(EXIT_CODE);
        }
    });
}

/// Whether a signal arrived (and stopped a ptxas); the caller cleans up and exits
/// with [`EXIT_CODE`].
pub fn happened() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
