//! Assignments: `x = v`, `x op= v`, element and fragment stores, with the checks that
//! a store keeps the type and does not write a read-only tensor.

use cute::{Codomain, Tensor};
use lang::ast::{AssignOp, Expr, ExprKind};
use lang::{Diagnostic, Span};

use crate::check::Checker;
use crate::check::control::cell_dtype;
use crate::trace::{Effect, held_dtype, term_of};
use crate::value::{IntType, Value};

impl<'a> Checker<'a> {
    /// `target op= value` and `target = value`.
    pub(crate) fn assign(
        &mut self,
        op: AssignOp,
        target: &'a Expr,
        value_expr: &'a Expr,
        span: Span,
    ) {
        let value = self.eval(value_expr);
        match &target.kind {
            ExprKind::Path(path) if path.segments.len() == 1 => {
                let name = &path.segments[0];
                let Some(local) = self.lookup_local(&name.text).cloned() else {
                    self.resolve_name(name);
                    return;
                };
                self.refer_to_binding(name.span, local.span);
                if !local.mutable {
                    self.report(
                        Diagnostic::error(
                            "E0219",
                            format!("cannot assign to `{}`: it is not `mut`", name.text),
                        )
                        .with_primary(target.span, "assigned here")
                        .with_secondary(local.span, "declared without `mut` here")
                        .with_help(format!("declare it with `let mut {}`", name.text)),
                    );
                    return;
                }
                let new_value = match op.binary() {
                    Some(binary) => self.binary(
                        binary,
                        local.value.clone(),
                        value,
                        target.span,
                        value_expr.span,
                        span,
                    ),
                    None => {
                        self.check_same_type(&local.value, &value, value_expr.span);
                        value
                    }
                };
                let new_value = match &local.value {
                    Value::Int {
                        ty: IntType::Sized(dtype),
                        ..
                    }
                    | Value::Float {
                        dtype: Some(dtype), ..
                    } => self.coerce_literal(*dtype, new_value, value_expr.span),
                    // A local of the `int` kind keeps it (and its cell's type): the
                    // value is the integer its own type held (a sum of i32 values
                    // wrapped to 32 bits, as C's `int` local would hold it).
                    Value::Int {
                        ty: IntType::Int, ..
                    } => match new_value {
                        Value::Int { ty, value } => Value::Int {
                            ty: IntType::Int,
                            value: self.held_in(&value, held_dtype(ty), value_expr.span),
                        },
                        other => other,
                    },
                    _ => new_value,
                };
                if self.frame.dyn_control > 0
                    && cell_dtype(&new_value).is_none()
                    && !matches!(new_value, Value::Unknown | Value::Vector { .. })
                    && format!("{:?}", local.value) != format!("{new_value:?}")
                {
                    self.static_local_changed(&name.text, &local.value, &new_value, span);
                    return;
                }
                if let (Some(cell), Some(dtype)) = (local.cell, cell_dtype(&new_value))
                    && self.frame.dyn_control > 0
                {
                    self.write_cell(cell, dtype, &new_value, span);
                }
                if let Some(scope) = self
                    .scopes
                    .iter_mut()
                    .rev()
                    .find(|scope| scope.contains_key(&name.text))
                    && let Some(entry) = scope.get_mut(&name.text)
                {
                    entry.value = new_value;
                }
            }
            ExprKind::Index { base, indices } => {
                let base_value = self.eval(base);
                let coordinate = self.index_coordinate(indices);
                if let Value::Tensor(tensor) = &base_value {
                    if tensor.read_only {
                        self.read_only_error(tensor, target.span);
                        return;
                    }
                    // A plain store's target is a place, not a load; `+=` reads it.
                    self.tracing.target_only = op.binary().is_none();
                    let (element, index) =
                        self.index_element(base_value.clone(), coordinate, base.span, target.span);
                    self.tracing.target_only = false;
                    if let Value::Tensor(_) = element {
                        self.error(
                            "E0216",
                            target.span,
                            "this is a slice; store a whole fragment with `.store(...)` or use `copy`".to_owned(),
                            "not one element",
                        );
                        return;
                    }
                    let stored = match op.binary() {
                        Some(binary) => self.binary(
                            binary,
                            element.clone(),
                            value,
                            target.span,
                            value_expr.span,
                            span,
                        ),
                        None => value,
                    };
                    self.check_element_store(&element, &stored, value_expr.span);
                    self.emit(match (index, term_of(&stored)) {
                        (Some(index), Some(value)) => Effect::StoreElement {
                            tensor: tensor.clone(),
                            index,
                            value,
                            span,
                        },
                        _ => Effect::Unsupported("storing this value".to_owned(), span),
                    });
                } else {
                    self.index(base_value, coordinate, base.span, target.span);
                }
            }
            _ => {
                self.eval(target);
                self.error(
                    "E0216",
                    target.span,
                    "only a `let mut` name or a tensor element can be assigned".to_owned(),
                    "cannot assign to this",
                );
            }
        }
    }

    pub(crate) fn check_same_type(&mut self, old: &Value, new: &Value, span: Span) {
        let compatible = match (old, new) {
            (Value::Unknown, _) | (_, Value::Unknown) => true,
            (Value::Int { ty: a, .. }, Value::Int { ty: b, .. }) => {
                self.unify_int_types(*a, *b, span);
                true
            }
            (Value::Float { dtype: a, .. }, Value::Float { dtype: b, .. }) => {
                self.unify_float_types(*a, *b, span);
                true
            }
            (old, new) => old.type_name() == new.type_name(),
        };
        if !compatible {
            self.error(
                "E0216",
                span,
                format!(
                    "expected a {}, found a {}",
                    old.type_name(),
                    new.type_name()
                ),
                "type changes",
            );
        }
    }

    pub(crate) fn check_element_store(&mut self, element: &Value, stored: &Value, span: Span) {
        match (element, stored) {
            (Value::Float { dtype: a, .. }, Value::Float { dtype: b, .. }) => {
                self.unify_float_types(*a, *b, span);
            }
            (Value::Int { ty: a, .. }, Value::Int { ty: b, .. }) => {
                self.unify_int_types(*a, *b, span);
            }
            (Value::Bool(_), Value::Bool(_)) | (Value::Unknown, _) | (_, Value::Unknown) => {}
            (
                Value::Float {
                    dtype: Some(dtype), ..
                },
                Value::Int {
                    ty: IntType::Int, ..
                },
            ) if dtype.is_float() => {}
            (element, stored) => {
                self.report(
                    Diagnostic::error(
                        "E0214",
                        format!(
                            "this stores a {} into a {} element",
                            stored.type_name(),
                            element.type_name()
                        ),
                    )
                    .with_primary(span, format!("a {}", stored.type_name()))
                    .with_help(format!(
                        "convert it first with `.to({})`",
                        element.type_name()
                    )),
                );
            }
        }
    }

    pub(crate) fn read_only_error(&mut self, tensor: &Tensor, span: Span) {
        let why = match tensor.layout.codomain {
            Codomain::Coordinates(_) => {
                "its elements are coordinates computed from its layout (an identity tensor)"
            }
            _ => "it is read-only",
        };
        self.report(
            Diagnostic::error(
                "E0213",
                format!("cannot write through this {}: {why}", tensor.type_name()),
            )
            .with_primary(span, "written here"),
        );
    }
}
