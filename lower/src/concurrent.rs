//! Lowering a file's kernel instantiations concurrently: each on a thread of its own,
//! started as soon as the typechecker has traced it (`typecheck::trace_each`), so
//! lowering one overlaps checking the next and lowering the others.
//!
//! The result is what [`lower_traces`](crate::lower_traces) gives for the same traces:
//! each instantiation is lowered alone, and the results are gathered in the order the
//! instantiations were traced. An instantiation whose check found errors is not
//! lowered, as the file's errors stop every lowering anyway.

use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

use lang::Diagnostic;
use trace::KernelTrace;

use crate::Lowered;

/// Bytes of stack for a lowering thread: lowering recurses as deep as the checker's
/// walk did, so it gets as much as the checker's thread. The memory is reserved, not
/// touched, until used.
const LOWERING_STACK_BYTES: usize = 512 << 20;

/// A kernel instantiation lowered, or why it could not be.
type Lowering = Result<kir::Verified, Vec<Diagnostic>>;

/// The kernel instantiations started, in the order they were traced, each with the
/// thread lowering it (none when its check found errors or no thread could be made).
pub struct ConcurrentLowering<'scope, 'env> {
    scope: &'scope Scope<'scope, 'env>,
    started: Vec<(Arc<KernelTrace>, Option<ScopedJoinHandle<'scope, Lowering>>)>,
}

impl<'scope, 'env> ConcurrentLowering<'scope, 'env> {
    /// Lowers on threads of `scope`.
    pub fn new(scope: &'scope Scope<'scope, 'env>) -> ConcurrentLowering<'scope, 'env> {
        ConcurrentLowering {
            scope,
            started: Vec::new(),
        }
    }

    /// Starts lowering `trace`, the next instantiation traced, on a thread of its own.
    pub fn start(&mut self, trace: &Arc<KernelTrace>) {
        let thread = (!trace.has_errors)
            .then(|| {
                let trace = Arc::clone(trace);
                std::thread::Builder::new()
                    .name("cukc-lower".to_owned())
                    .stack_size(LOWERING_STACK_BYTES)
                    .spawn_scoped(self.scope, move || crate::lower_trace(&trace))
                    .ok()
            })
            .flatten();
        self.started.push((Arc::clone(trace), thread));
    }

    /// The typechecker's `diagnostics`, then every instantiation started, lowered (or
    /// why it could not be), as [`lower_traces`](crate::lower_traces) gives them. One
    /// no thread lowered is lowered here; a panic while lowering is resumed here.
    pub fn finish(self, diagnostics: Vec<Diagnostic>) -> Lowered {
        let lowerings = (self.started.into_iter()).map(|(trace, thread)| match thread {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => crate::lower_trace(&trace),
        });
        crate::gather(diagnostics, lowerings)
    }
}
