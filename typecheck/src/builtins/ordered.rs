//! Ordered accesses to one element of a global `i32` or `u32` tensor: `load_acquire`,
//! `store_release`, and `atomic_add`/`atomic_fetch_add` with an `order` (`"release"`,
//! `"acq_rel"`), each with a `scope` (`"cta"`, `"cluster"`, `"gpu"`, `"sys"`, the
//! default): the signals by which blocks, and devices through peer memory, hand data
//! over (PTX ISA, "Memory Consistency Model"). Each is a `kir::Intrinsic::Ordered` on the
//! element, traced as `Effect::OnElement`.
//!
//! Checked at the line: an order or scope that is not one of these (E0240), a scope
//! narrower than `"sys"` on a peer's tensor (E0241), an element that is not a global
//! `i32` or `u32` (E0242), a `cluster` scope before sm_90 (E0212).

use cute::{Base, Dtype, MemorySpace};
use kir::{Intrinsic, MemoryScope, Ordered};
use lang::Span;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::trace::{Effect, term_of};
use crate::value::Value;

impl Checker<'_> {
    /// `load_acquire(t, coord, scope)`, `store_release(t, coord, value, scope)`, and
    /// `atomic_add` or `atomic_fetch_add` given an `order`.
    pub(crate) fn ordered(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        let Some(access) = self.ordered_access(name, args.named("order"), span) else {
            return Value::Unknown;
        };
        let Some(scope) = self.memory_scope(args.named("scope")) else {
            return Value::Unknown;
        };
        let what = format!("`{name}` accesses a tensor's element");
        let Some(tensor) = self.expect_tensor(&p[0].value, p[0].span, "E0242", &what) else {
            return Value::Unknown;
        };
        let dtype = tensor.dtype.unwrap_or(Dtype::F32);
        if tensor.space != MemorySpace::Global || !matches!(dtype, Dtype::I32 | Dtype::U32) {
            let message = format!(
                "`{name}` orders an access to a global i32 or u32 element (a signal), not a {}",
                tensor.type_name()
            );
            return self.error(
                "E0242",
                p[0].span,
                message,
                "not a global i32 or u32 tensor",
            );
        }
        if matches!(tensor.base, Base::Peer { .. }) && scope != MemoryScope::System {
            let message = format!(
                "`{name}` on a peer's tensor needs `scope = \"sys\"`: an order at scope \"{}\" does not reach another GPU",
                scope.name()
            );
            return self.error(
                "E0241",
                args.named("scope").map_or(span, |arg| arg.span),
                message,
                "too narrow for a peer",
            );
        }
        let intrinsic = Intrinsic::Ordered { access, scope };
        if !self.require_arch(name, intrinsic.row().target.sm, span) {
            return Value::Unknown;
        }
        self.tracing.target_only = true;
        let (element, index) = self.index_element(
            p[0].value.clone(),
            (p[1].value.clone(), p[1].span),
            p[0].span,
            p[1].span,
        );
        self.tracing.target_only = false;
        if let Value::Tensor(_) = element {
            let message = format!("`{name}` accesses one element; this coordinate selects a slice");
            return self.error("E0242", p[1].span, message, "not one element");
        }
        let value = p.get(2).map(|arg| (arg, term_of(&arg.value)));
        if let Some((arg, _)) = value {
            self.check_element_store(&element, &arg.value, arg.span);
        }
        if matches!(element, Value::Unknown) {
            return Value::Unknown;
        }
        let (result, origin) = self.memory_old_value(name, access.returns(), span);
        if self.tracing_kernel() {
            let effect = match (index, value) {
                (Some(index), None) => Some((index, None)),
                (Some(index), Some((_, Some(term)))) => Some((index, Some(term))),
                _ => None,
            };
            match effect {
                Some((index, value)) => self.emit(Effect::OnElement {
                    intrinsic,
                    tensor,
                    index,
                    value,
                    result: result.clone(),
                    span,
                }),
                None => self.emit(Effect::Unsupported(format!("this `{name}`"), span)),
            }
        }
        self.old_value(result, dtype, origin)
    }

    /// The access `name` makes with the `order` argument given (the atomics need one).
    fn ordered_access(&mut self, name: &str, order: Option<&Arg>, span: Span) -> Option<Ordered> {
        let (access, wanted) = match name {
            "load_acquire" => return Some(Ordered::LoadAcquire),
            "store_release" => return Some(Ordered::StoreRelease),
            "atomic_add" => (Ordered::AddRelease, "release"),
            _ => (Ordered::FetchAddAcqRel, "acq_rel"),
        };
        let Some(order) = order else {
            let message = format!(
                "`{name}` with a `scope` needs `order = \"{wanted}\"`: a relaxed atomic has the device's scope"
            );
            self.error("E0240", span, message, "a scope without an order");
            return None;
        };
        match &order.value {
            Value::Str(text) if text == wanted => Some(access),
            Value::Unknown => None,
            other => {
                let found = other.contents().unwrap_or_else(|| other.type_name());
                let message = format!(
                    "`{name}` takes `order = \"{wanted}\"` (or no order: relaxed), not {found}"
                );
                self.error("E0240", order.span, message, "no such order here");
                None
            }
        }
    }

    /// The scope the `scope` argument names (`"sys"` without one).
    fn memory_scope(&mut self, scope: Option<&Arg>) -> Option<MemoryScope> {
        let Some(scope) = scope else {
            return Some(MemoryScope::System);
        };
        match &scope.value {
            Value::Str(text) if MemoryScope::named(text).is_some() => MemoryScope::named(text),
            Value::Unknown => None,
            other => {
                let found = other.contents().unwrap_or_else(|| other.type_name());
                let message = format!(
                    "a memory scope is \"cta\", \"cluster\", \"gpu\" or \"sys\", not {found}"
                );
                self.error("E0240", scope.span, message, "no such scope");
                None
            }
        }
    }
}
