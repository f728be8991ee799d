//! `&&` and `||` evaluate their right operand only where the left one requires it, as
//! in C: while the right operand is checked, the bool under which it runs is the
//! checker's guard. A load there is traced with the guard (lowering predicates it, so a
//! guard such as `i < n && x[i] > 0.0` keeps the load in bounds), a store, an atomic
//! without a result or run-time control flow is traced inside an `if` on the guard,
//! and pure work runs unguarded, its value unused where the guard is false. Anything
//! else (a shuffle, an atomic whose result is used, a barrier, a copy) cannot be skipped
//! by some threads only and is E0229.

use std::sync::Arc;

use lang::ast::{BinaryOp, Expr, UnaryOp};
use lang::{Diagnostic, Span};

use crate::check::{Checker, Context};
use crate::trace::{Effect, Term, effect_span, term_of};
use crate::value::{Known, Value};

impl<'a> Checker<'a> {
    /// The right operand `rhs` of `op` (whose left operand evaluated to `left`),
    /// under the guard C's short-circuit rule gives it when `op` is `&&` or `||`.
    pub(crate) fn eval_short_circuit(
        &mut self,
        op: BinaryOp,
        left: &Value,
        rhs: &'a Expr,
    ) -> Value {
        if !matches!(op, BinaryOp::And | BinaryOp::Or) || self.frame.context != Context::Device {
            return self.eval(rhs);
        }
        let runs_when = op == BinaryOp::And;
        let guard = match left {
            Value::Bool(Known::Const(value)) if *value == runs_when => None,
            Value::Bool(Known::Const(_)) => Some(Arc::new(Term::Bool(false))),
            // Without a trace (`cukc check`) the guard's term is not known, but what it
            // guards is still checked.
            Value::Bool(Known::Dyn(_)) => {
                let term = term_of(left).unwrap_or_else(|| Arc::new(Term::Bool(true)));
                Some(if runs_when {
                    term
                } else {
                    Arc::new(Term::Unary(UnaryOp::Not, term))
                })
            }
            _ => None,
        };
        let Some(guard) = guard else {
            return self.eval(rhs);
        };
        let outer = self.tracing.guard.clone();
        let combined = match &outer {
            Some(outer) => Arc::new(Term::Binary {
                op: BinaryOp::And,
                dtype: cute::Dtype::Bool,
                left: outer.clone(),
                right: guard,
            }),
            None => guard,
        };
        self.tracing.guard = Some(combined);
        let right = self.eval(rhs);
        self.tracing.guard = outer;
        right
    }

    /// `effect` as it is traced under the current guard: itself, inside an `if` on the
    /// guard, or `None` after E0229 when it cannot be skipped.
    pub(crate) fn guarded(&mut self, effect: Effect) -> Option<Effect> {
        let Some(guard) = self.tracing.guard.clone() else {
            return Some(effect);
        };
        match effect {
            Effect::Load { .. }
            | Effect::Define { .. }
            | Effect::ReadCell { .. }
            | Effect::WriteCell { .. }
            | Effect::Registers(..) => Some(effect),
            Effect::StoreElement { .. }
            | Effect::StoreFragment { .. }
            | Effect::Atomic { old: None, .. }
            | Effect::OnElement { result: None, .. }
            | Effect::For { .. }
            | Effect::Loop { .. }
            | Effect::If { .. } => {
                let span = effect_span(&effect);
                Some(Effect::If {
                    condition: guard,
                    then: vec![effect],
                    otherwise: Vec::new(),
                    span,
                })
            }
            other => {
                self.cannot_skip(effect_span(&other));
                None
            }
        }
    }

    /// E0229 at `span` when a shuffle or an atomic whose result is used is checked in a
    /// guarded operand without a trace (with one, [`Checker::guarded`] reports it).
    pub(crate) fn check_unguarded(&mut self, span: Span) {
        if self.tracing.guard.is_some() && !self.tracing_kernel() {
            self.cannot_skip(span);
        }
    }

    fn cannot_skip(&mut self, span: Span) {
        self.report(
            Diagnostic::error(
                "E0229",
                "this cannot run in the right operand of `&&` or `||`, which runs only where the left operand requires it",
            )
            .with_primary(span, "runs only on some threads")
            .with_help("compute it before the `&&` or `||`, or write an `if`"),
        );
    }
}
