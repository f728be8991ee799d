//! A file's kernel instantiations checked in parallel, for a build: each is deferred
//! when called, with a copy of the checker's state at the call, and checked on a
//! thread of its own once the file's items, tests and benches are checked.
//!
//! Each instantiation is checked in an id space of its own (`instantiations.rs`) and
//! the file's own code reads nothing an instantiation's check leaves behind, so a
//! deferred check traces what the serial check traces. The results are merged in call
//! order: bindings where the serial check records them (the first evaluation of each
//! still wins), the functions called, the work done, and the traces. What a deferred
//! check cannot reproduce exactly is left to a serial check of the whole file:
//! diagnostics (which the serial check reports once, in its own order) and work past
//! the budget. [`Checker::run_in_parallel`] then gives `None`.

use std::sync::Arc;

use lang::ast::Kernel;
use lang::{Diagnostic, Span};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::Binding;
use crate::callee::ItemId;
use crate::check::instantiations::IdSpace;
use crate::check::{
    Budgets, CheckedFile, Checker, Evaluated, Frame, Names, Reporting, Tracing, WORK_LIMIT,
};
use crate::trace::KernelTrace;
use crate::value::Value;

#[cfg(test)]
mod tests;

/// A kernel instantiation called, to be checked later from the state at the call.
pub(crate) struct Deferred<'a> {
    id: ItemId,
    kernel: &'a Kernel,
    const_arguments: Vec<(String, Value)>,
    call_span: Span,
    /// How many bindings were recorded before the call: its bindings go after them.
    bindings_at: usize,
    target: cute::Target,
    names: Names<'a>,
    /// The (code, span, message) of each diagnostic reported before the call.
    seen: FxHashSet<(&'static str, Span, String)>,
    /// The (span, name) of each binding recorded before the call.
    recorded: FxHashSet<(Span, String)>,
    anchor: Option<Span>,
    budgets: Budgets,
    evaluated: Evaluated,
    frame: Frame,
    ids: IdSpace,
}

/// What a deferred instantiation's check gives back.
struct Checked {
    bindings_at: usize,
    diagnostics: Vec<Diagnostic>,
    bindings: Vec<Binding>,
    called_functions: FxHashSet<(usize, usize)>,
    instantiated: Vec<trace::Instantiated>,
    /// Units of work it spent.
    work: u64,
    trace: Option<KernelTrace>,
}

impl<'a> Checker<'a> {
    /// [`Checker::run_traced`] with the kernel instantiations checked in parallel;
    /// `None` when only the serial check gives its result exactly.
    pub(crate) fn run_in_parallel(mut self) -> Option<CheckedFile> {
        self.tracing.deferred = Some(Vec::new());
        self.check_items_and_requests();
        let reproduced = self.check_deferred();
        self.check_uncalled_functions();
        (reproduced && self.budgets.work <= WORK_LIMIT).then(|| self.finish())
    }

    /// Defers checking a kernel instantiation to [`Checker::check_deferred`].
    pub(crate) fn defer_instantiation(
        &mut self,
        id: &ItemId,
        kernel: &'a Kernel,
        const_arguments: &[(String, Value)],
        call_span: Span,
    ) {
        let deferred = Deferred {
            id: id.clone(),
            kernel,
            const_arguments: const_arguments.to_vec(),
            call_span,
            bindings_at: self.reporting.bindings.len(),
            target: self.target,
            names: self.names.clone(),
            seen: self.reporting.seen.clone(),
            recorded: self.reporting.recorded.clone(),
            anchor: self.reporting.anchor,
            budgets: self.budgets.clone(),
            evaluated: self.evaluated.clone(),
            frame: self.frame.clone(),
            ids: self.id_space(),
        };
        if let Some(deferred_instantiations) = &mut self.tracing.deferred {
            deferred_instantiations.push(deferred);
        }
    }

    /// Checks the deferred instantiations, each on a thread of its own, and merges
    /// what they found in call order. False when the serial check could differ (a
    /// deferred check reported a diagnostic) or a thread could not be made.
    fn check_deferred(&mut self) -> bool {
        let Some(deferred) = self.tracing.deferred.take() else {
            return true;
        };
        let checked = std::thread::scope(|scope| {
            let threads: Vec<_> = (deferred.into_iter())
                .map(|deferred| {
                    std::thread::Builder::new()
                        .name("cukc-check".to_owned())
                        .stack_size(crate::stack::CHECKER_STACK_BYTES)
                        .spawn_scoped(scope, move || deferred.check())
                })
                .collect();
            (threads.into_iter())
                .map(|thread| {
                    let thread = thread.ok()?;
                    Some(
                        thread
                            .join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    )
                })
                .collect::<Option<Vec<Checked>>>()
        });
        let Some(checked) = checked else {
            return false;
        };
        let mut reproduced = true;
        let earlier = std::mem::take(&mut self.reporting.bindings);
        let mut bindings = Vec::with_capacity(earlier.len());
        let mut earlier = earlier.into_iter();
        let mut merged = 0;
        for instantiation in checked {
            reproduced &= instantiation.diagnostics.is_empty();
            bindings.extend(earlier.by_ref().take(instantiation.bindings_at - merged));
            merged = instantiation.bindings_at;
            bindings.extend(instantiation.bindings);
            (self.evaluated.called_functions).extend(instantiation.called_functions);
            (self.reporting.instantiated).extend(instantiation.instantiated);
            self.budgets.work += instantiation.work;
            if let Some(trace) = instantiation.trace {
                self.record_trace(trace);
            }
        }
        bindings.extend(earlier);
        let recorded = &mut self.reporting.recorded;
        recorded.clear();
        bindings.retain(|binding| recorded.insert((binding.span, binding.name.clone())));
        self.reporting.bindings = bindings;
        reproduced
    }
}

impl<'a> Deferred<'a> {
    /// Checks the instantiation as the serial check would have at its call.
    fn check(self) -> Checked {
        let mut checker = Checker {
            target: self.target,
            names: self.names,
            reporting: Reporting {
                seen: self.seen,
                recorded: self.recorded,
                anchor: self.anchor,
                ..Reporting::default()
            },
            budgets: self.budgets,
            evaluated: self.evaluated,
            tracing: Tracing {
                enabled: true,
                ..Tracing::default()
            },
            scopes: vec![FxHashMap::default()],
            origins: FxHashMap::default(),
            frame: self.frame,
            fresh: 0,
        };
        checker.restore_id_space(self.ids);
        let work_before = checker.budgets.work;
        checker.check_instantiation(&self.id, self.kernel, &self.const_arguments, self.call_span);
        Checked {
            bindings_at: self.bindings_at,
            diagnostics: checker.reporting.diagnostics,
            bindings: checker.reporting.bindings,
            called_functions: checker.evaluated.called_functions,
            instantiated: checker.reporting.instantiated,
            work: checker.budgets.work - work_before,
            trace: checker.tracing.traces.pop().map(Arc::unwrap_or_clone),
        }
    }
}
