//! The checker's own thread, with a stack sized for its limits.
//!
//! Checking recurses: an expression's operands, a const's value naming the next const,
//! an inlined call's body. [`EVAL_DEPTH_LIMIT`](crate::check::EVAL_DEPTH_LIMIT) bounds
//! that recursion (past it, `E0222` at the line), and [`on_checker_stack`] runs the
//! checker on a thread whose stack holds that many levels, so no input, however deep,
//! can overflow the caller's (often small) stack.

/// Bytes of stack for one check: room for the deepest evaluation the limits allow, in
/// an unoptimised build, with a margin. The memory is reserved, not touched, until used.
pub(crate) const CHECKER_STACK_BYTES: usize = 512 << 20;

/// Runs `check` on a thread with [`CHECKER_STACK_BYTES`] of stack and returns what it
/// returns. When no such thread can be made, runs it on the caller's thread. A panic
/// in `check` is resumed on the caller's thread, as if it had run there.
pub(crate) fn on_checker_stack<T: Send>(check: impl FnOnce() -> T + Send) -> T {
    let mut pending = Some(check);
    let slot = &mut pending;
    let joined = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("cukc-check".to_owned())
            .stack_size(CHECKER_STACK_BYTES)
            .spawn_scoped(scope, move || slot.take().map(|check| check()))
            .ok()
            .map(std::thread::ScopedJoinHandle::join)
    });
    match (joined, pending) {
        (Some(Ok(Some(result))), _) => result,
        (Some(Err(panic)), _) => std::panic::resume_unwind(panic),
        // The thread could not be made, so the check is still pending: run it here.
        (_, Some(check)) => check(),
        (Some(Ok(None)) | None, None) => {
            unreachable!("a check is either run on the thread or still pending")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::on_checker_stack;

    fn depth(n: u32) -> u32 {
        let padding = std::hint::black_box([n; 64]);
        if n == 0 {
            0
        } else {
            1 + depth(n - 1) + padding[0] - n
        }
    }

    #[test]
    fn recursion_deeper_than_a_default_thread_stack_fits() {
        assert_eq!(on_checker_stack(|| depth(200_000)), 200_000);
    }

    #[test]
    fn a_panic_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| on_checker_stack(|| panic!("inside")));
        assert!(caught.is_err());
    }
}
