//! Kernel instantiations, each checked once and apart from the others: in an id space
//! of its own (the names, loads, cells and fragments it gives out start where the
//! file's own code left them), so that its trace is the same whichever instantiations
//! were checked before it, and so that `parallel.rs` may check them all at once.

use std::sync::Arc;

use lang::Span;
use lang::ast::Kernel;
use rustc_hash::FxHashMap;

use crate::callee::ItemId;
use crate::check::findings::Instantiation;
use crate::check::kernels::const_arg;
use crate::check::{Checker, Context};
use crate::trace::KernelTrace;
use crate::value::{Origin, Value};

/// The code of a failed `static_assert`.
const STATIC_ASSERT: &str = "E0228";

/// The numbers and names the checker gives out while tracing: what an instantiation's
/// check takes from and gives back to the check around it.
#[derive(Clone)]
pub(crate) struct IdSpace {
    fresh: u64,
    origins: FxHashMap<String, Origin>,
    loads: u32,
    cells: u32,
    fragments: u32,
    fragment_origins: FxHashMap<u32, (Span, String)>,
}

impl<'a> Checker<'a> {
    /// Records what a launch giving `given` instantiates: every const parameter's
    /// value, for the runtime (`trace::Instantiated`).
    fn record_instantiated(&mut self, kernel: &Kernel, given: &[(String, Value)]) {
        let given = (given.iter())
            .filter_map(|(name, value)| Some((name.clone(), const_arg(value)?)))
            .collect();
        let const_args = self.bound_const_args(kernel);
        self.reporting.instantiated.push(trace::Instantiated {
            kernel: kernel.name.text.clone(),
            given,
            const_args,
        });
    }

    /// Checks a kernel with the given const arguments (the defaults for the rest).
    pub(crate) fn check_kernel(
        &mut self,
        id: &ItemId,
        kernel: &'a Kernel,
        const_arguments: &[(String, Value)],
        call_span: Span,
    ) {
        let key = format!(
            "{}<{}>",
            id.name,
            const_arguments
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        if !self.evaluated.instantiated.insert(key) {
            return;
        }
        if self.tracing.deferred.is_some() {
            self.defer_instantiation(id, kernel, const_arguments, call_span);
        } else {
            self.check_instantiation(id, kernel, const_arguments, call_span);
        }
    }

    /// Checks one kernel instantiation, in an id space of its own: the names, loads,
    /// cells and fragments it gives out are forgotten when it is done, so what it
    /// traces does not depend on which instantiations were checked before it.
    pub(crate) fn check_instantiation(
        &mut self,
        id: &ItemId,
        kernel: &'a Kernel,
        const_arguments: &[(String, Value)],
        call_span: Span,
    ) {
        let ids = self.id_space();
        let frame = self.frame_for(Context::Device, format!("kernel {}", kernel.name.text));
        let errors_before = self.error_count();
        let reported_before = self.reporting.diagnostics.len();
        let outer_repeats = self.reporting.repeated.replace(Vec::new());
        let (trace, frame) = self.isolated(id.module, frame, |checker| {
            checker.bind_generics(&kernel.generics, const_arguments, call_span);
            checker.record_instantiated(kernel, const_arguments);
            checker.bind_kernel_params(&kernel.params);
            let requested_shared = checker.check_launch(kernel);
            let trace = checker.tracing.enabled.then(|| {
                let mut trace = checker.start_trace(kernel);
                trace.is_default = const_arguments.is_empty();
                trace.requested_shared = requested_shared;
                trace
            });
            checker.tracing.trace = trace;
            checker.eval_block(&kernel.body);
            (checker.tracing.trace.take(), requested_shared)
        });
        let (trace, requested_shared) = trace;
        self.restore_id_space(ids);
        let mut repeated = std::mem::replace(&mut self.reporting.repeated, outer_repeats);
        if self.refuse_failed_static_assert(reported_before, &mut repeated) {
            // The rest are consequences of const arguments the kernel refuses.
        } else {
            self.check_shared_budget(kernel, &frame.shared, requested_shared);
        }
        if let Some(mut trace) = trace {
            trace.shared = frame
                .shared
                .iter()
                .map(|buffer| crate::trace::TraceBuffer {
                    name: buffer.name.clone(),
                    span: buffer.span,
                    bytes: buffer.bytes,
                    align: buffer.align,
                })
                .collect();
            trace.has_errors = self.error_count() > errors_before;
            // A kernel's own check leaves a const parameter without a default unbound:
            // that instantiation is the kernel's template, which launches name in full
            // (`never_instantiated` reports a template nothing instantiates).
            let template =
                trace.is_default && trace.const_args.iter().any(|(_, value)| value.is_none());
            if !template {
                self.record_trace(trace);
            }
        }
        let instantiation = Instantiation {
            kernel,
            const_arguments,
            call_span,
        };
        self.merge_findings(
            &instantiation,
            reported_before,
            repeated.unwrap_or_default(),
        );
    }

    /// When this instantiation failed a `static_assert` (E0228), keeps only those
    /// diagnostics of the ones it reported since `reported_before`: the kernel refuses
    /// these const arguments, so what else went wrong (a launch clause over the limits, a
    /// partition that does not divide) follows from arguments it never meant to support,
    /// and the assert's message says what it does. Returns whether it refused.
    fn refuse_failed_static_assert(
        &mut self,
        reported_before: usize,
        repeated: &mut Option<Vec<(&'static str, Span)>>,
    ) -> bool {
        // A failure another instantiation reported first at the same place is in
        // `repeated`, not among the diagnostics.
        let refused = self.reporting.diagnostics[reported_before..]
            .iter()
            .any(|diagnostic| diagnostic.code == STATIC_ASSERT)
            || repeated
                .iter()
                .flatten()
                .any(|(code, _)| *code == STATIC_ASSERT);
        if refused {
            let found = self.reporting.diagnostics.split_off(reported_before);
            self.reporting.diagnostics.extend(
                found
                    .into_iter()
                    .filter(|diagnostic| diagnostic.code == STATIC_ASSERT),
            );
            if let Some(repeated) = repeated {
                repeated.retain(|(code, _)| *code == STATIC_ASSERT);
            }
        }
        refused
    }

    /// Keeps a finished trace, unless calls that spell the same instantiation
    /// differently (a const argument given its default value) already traced it.
    pub(crate) fn record_trace(&mut self, trace: KernelTrace) {
        let known = self.tracing.traces.iter().any(|other| {
            other.name == trace.name
                && other.is_default == trace.is_default
                && other.const_args == trace.const_args
        });
        if !known {
            let trace = Arc::new(trace);
            if let Some(traced) = &mut self.tracing.traced {
                traced(&trace);
            }
            self.tracing.traces.push(trace);
        }
    }

    pub(crate) fn error_count(&self) -> usize {
        self.reporting
            .diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.severity == lang::Severity::Error)
            .count()
    }

    /// The id space as it is now.
    pub(crate) fn id_space(&self) -> IdSpace {
        IdSpace {
            fresh: self.fresh,
            origins: self.origins.clone(),
            loads: self.tracing.loads,
            cells: self.tracing.cells,
            fragments: self.tracing.fragments,
            fragment_origins: self.tracing.fragment_origins.clone(),
        }
    }

    /// Puts back an id space [`Checker::id_space`] gave.
    pub(crate) fn restore_id_space(&mut self, ids: IdSpace) {
        self.fresh = ids.fresh;
        self.origins = ids.origins;
        self.tracing.loads = ids.loads;
        self.tracing.cells = ids.cells;
        self.tracing.fragments = ids.fragments;
        self.tracing.fragment_origins = ids.fragment_origins;
    }
}
