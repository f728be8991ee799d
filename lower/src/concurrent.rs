//! Lowering a file's kernel instantiations concurrently: each on a thread of its own,
//! started as soon as the typechecker gives its trace (`typecheck::trace_each`), so
//! lowering one overlaps lowering the others (and checking the next, when the
//! typechecker checks them one after another).
//!
//! The result is what [`lower_traces`](crate::lower_traces) gives for the same traces:
//! each instantiation is lowered on its own (sharing only the tables of swizzled
//! buffers, which are numbers, whichever thread makes them), and the results are
//! gathered in the order the instantiations were traced. An instantiation whose check found errors is not
//! lowered, as the file's errors stop every lowering anyway.

use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

use lang::Diagnostic;
use trace::KernelTrace;

use crate::Lowered;
use crate::builder::InnerTables;

/// Bytes of stack for a lowering thread: lowering recurses as deep as the checker's
/// walk did, so it gets as much as the checker's thread. The memory is reserved, not
/// touched, until used.
const LOWERING_STACK_BYTES: usize = 512 << 20;

/// A kernel instantiation lowered, or why it could not be.
type Lowering = Result<kir::Verified, Vec<Diagnostic>>;

/// The kernel instantiations started, in the order they were traced.
pub struct ConcurrentLowering<'scope, 'env> {
    scope: &'scope Scope<'scope, 'env>,
    /// The swizzled allocations' tables, which every instantiation shares.
    tables: Arc<InnerTables>,
    started: Vec<Started<'scope>>,
    /// The stage to stop after (`kir::passes`), if not the end.
    last: Option<&'static str>,
}

/// A kernel instantiation started.
enum Started<'scope> {
    /// The thread lowering it, which holds its trace.
    Lowering(ScopedJoinHandle<'scope, Lowering>),
    /// Its trace, not lowered yet: its check found errors, or no thread could be made.
    Waiting(Arc<KernelTrace>),
}

impl<'scope, 'env> ConcurrentLowering<'scope, 'env> {
    /// Lowers on threads of `scope`.
    pub fn new(scope: &'scope Scope<'scope, 'env>) -> ConcurrentLowering<'scope, 'env> {
        ConcurrentLowering {
            scope,
            tables: Arc::default(),
            started: Vec::new(),
            last: None,
        }
    }

    /// Stops each lowering after the stage `last` (`translate` or a pass of
    /// `kir::passes::PASSES`), without the checks that follow the passes: the KIR at
    /// that stage, for `cukc build --emit kir --after PASS`.
    pub fn stopping_after(mut self, last: Option<&'static str>) -> Self {
        self.last = last;
        self
    }

    /// Starts lowering `trace`, the next instantiation traced, on a thread of its own.
    pub fn start(&mut self, trace: &Arc<KernelTrace>) {
        let thread = (!trace.has_errors)
            .then(|| {
                let (trace, tables) = (Arc::clone(trace), Arc::clone(&self.tables));
                let last = self.last;
                std::thread::Builder::new()
                    .name("cukc-lower".to_owned())
                    .stack_size(LOWERING_STACK_BYTES)
                    .spawn_scoped(self.scope, move || {
                        crate::lower_trace_with(&trace, &tables, last)
                    })
                    .ok()
            })
            .flatten();
        self.started.push(match thread {
            Some(thread) => Started::Lowering(thread),
            None => Started::Waiting(Arc::clone(trace)),
        });
    }

    /// The typechecker's `diagnostics`, then every instantiation started, lowered (or
    /// why it could not be), as [`lower_traces`](crate::lower_traces) gives them. One
    /// no thread lowered is lowered here; a panic while lowering is resumed here.
    pub fn finish(self, diagnostics: Vec<Diagnostic>) -> Lowered {
        let lowerings = (self.started.into_iter()).map(|started| match started {
            Started::Lowering(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Started::Waiting(trace) => crate::lower_trace_with(&trace, &self.tables, self.last),
        });
        crate::gather(diagnostics, lowerings)
    }
}
