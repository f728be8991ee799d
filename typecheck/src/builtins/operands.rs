//! Operands of the layout built-ins: a layout operation applied to a layout, a
//! tensor's layout or a swizzled layout's domain; tilers; const tuples; and
//! `composition` with a layout or a tiler on the right.

use std::sync::Arc;

use lang::Span;
use layout::{ComposedLayout, Int, IntTuple, Layout, LayoutError, SymInt, Tiler, composition};

use crate::builtins::Arg;
use crate::builtins::layouts::LayoutOp;
use crate::check::Checker;
use crate::value::Value;

impl<'a> Checker<'a> {
    /// Applies a layout operation to a layout, a tensor's layout or a swizzled layout's
    /// domain.
    pub(crate) fn apply_op(
        &mut self,
        name: &str,
        target: &Value,
        target_span: Span,
        span: Span,
        op: LayoutOp,
    ) -> Value {
        self.apply_op_with(name, None, target, target_span, span, op)
    }

    /// [`Checker::apply_op`] for a call with a second operand, which errors name.
    pub(crate) fn apply_op_with(
        &mut self,
        name: &str,
        second: Option<String>,
        target: &Value,
        target_span: Span,
        span: Span,
        op: LayoutOp,
    ) -> Value {
        let call = |first: &dyn std::fmt::Display| match &second {
            Some(second) => format!("`{name}({first}, {second})`"),
            None => format!("`{name}({first})`"),
        };
        match target {
            Value::Unknown => Value::Unknown,
            Value::Layout(layout) => match op(layout) {
                Ok(result) => Value::Layout(result),
                Err(error) => self.layout_error(span, &call(layout), &error),
            },
            Value::Tensor(tensor) => match op(&tensor.layout.layout) {
                Ok(result) => Value::Tensor(Arc::new(cute::Tensor {
                    layout: cute::TensorLayout {
                        layout: result,
                        ..tensor.layout.clone()
                    },
                    ..(**tensor).clone()
                })),
                Err(error) => self.layout_error(
                    span,
                    &format!("{} on a tensor", call(&tensor.layout.layout)),
                    &error,
                ),
            },
            Value::Composed(composed) => {
                let domain = Layout::column_major(composed.shape().to_symbolic())
                    .and_then(|domain| op(&domain))
                    .and_then(|result| result.to_static())
                    .and_then(|result| composed.compose(&result));
                match domain {
                    Ok(result) => Value::Composed(result),
                    Err(error) => self.layout_error(span, &call(composed), &error),
                }
            }
            other => self.wrong_type(
                target_span,
                other,
                &format!("`{name}` takes a layout or tensor"),
                "wrong argument",
            ),
        }
    }

    pub(crate) fn layout_result(
        &mut self,
        result: Result<Layout<SymInt>, LayoutError>,
        span: Span,
        name: &str,
    ) -> Value {
        match result {
            Ok(layout) => Value::Layout(layout),
            Err(error) => self.layout_error(span, &format!("`{name}`"), &error),
        }
    }

    /// A tiler from a value: a layout, an integer, `_` or a tuple of them. A tensor's
    /// tiler must be const.
    pub(crate) fn tiler(&mut self, arg: &Arg, must_be_const: bool) -> Option<Tiler<SymInt>> {
        if must_be_const && let Some(origin) = self.dyn_origin(&arg.value) {
            self.require_const_failed("a tiler of a tensor", arg.span, &origin);
            return None;
        }
        self.tiler_of(&arg.value, arg.span)
    }

    pub(crate) fn tiler_of(&mut self, value: &Value, span: Span) -> Option<Tiler<SymInt>> {
        match value {
            Value::Layout(layout) => Some(Tiler::Layout(layout.clone())),
            Value::Int { value, .. } => match Tiler::extent(value.clone()) {
                Ok(tiler) => Some(tiler),
                Err(error) => {
                    self.layout_error(span, "this tiler", &error);
                    None
                }
            },
            Value::Wildcard => Some(Tiler::Keep),
            Value::Tuple(items) => items
                .iter()
                .map(|item| self.tiler_of(item, span))
                .collect::<Option<Vec<_>>>()
                .map(Tiler::Modes),
            Value::Unknown => None,
            other => {
                self.wrong_type(
                    span,
                    other,
                    "a tiler is a layout, an extent, `_` or a tuple of them",
                    "not a tiler",
                );
                None
            }
        }
    }

    pub(crate) fn static_tuple_arg(&mut self, arg: &Arg, what: &str) -> Option<IntTuple<i64>> {
        let tuple = self.int_tuple(&arg.value, arg.span, what)?;
        match static_tuple(&tuple) {
            Some(tuple) => Some(tuple),
            None => {
                let origin = self.dyn_origin(&arg.value)?;
                self.require_const_failed(what, arg.span, &origin);
                None
            }
        }
    }

    pub(crate) fn composition(&mut self, left: &Arg, right: &Arg, span: Span) -> Value {
        match (&left.value, &right.value) {
            (Value::Swizzle(swizzle), Value::Layout(layout)) => match layout.to_static() {
                Ok(layout) => Value::Composed(ComposedLayout::swizzled(*swizzle, layout)),
                Err(_) => {
                    let origin = self.dyn_origin(&right.value);
                    if let Some(origin) = origin {
                        self.require_const_failed("a swizzled layout", right.span, &origin);
                    }
                    Value::Unknown
                }
            },
            (Value::Swizzle(swizzle), Value::Composed(inner)) if inner.swizzle().is_identity() => {
                Value::Composed(ComposedLayout::new(
                    *swizzle,
                    inner.offset(),
                    inner.inner().clone(),
                ))
            }
            (Value::Composed(composed), _) => {
                let Some(tiler) = self.tiler(right, true) else {
                    return Value::Unknown;
                };
                let Ok(tiler) = static_tiler(&tiler) else {
                    return self.error(
                        "E0204",
                        right.span,
                        "a swizzled layout is composed with a const layout".to_owned(),
                        "not const",
                    );
                };
                match composed.compose(&tiler) {
                    Ok(result) => Value::Composed(result),
                    Err(error) => self.layout_error(
                        span,
                        &format!("composition of {composed} with {tiler}"),
                        &error,
                    ),
                }
            }
            (target @ (Value::Layout(_) | Value::Tensor(_)), _) => {
                let Some(tiler) = self.tiler(right, matches!(target, Value::Tensor(_))) else {
                    return Value::Unknown;
                };
                let target = target.clone();
                self.apply_op_with(
                    "composition",
                    Some(right.value.to_string()),
                    &target,
                    left.span,
                    span,
                    &|layout| composition(layout, &tiler),
                )
            }
            (other, _) => self.wrong_type(
                left.span,
                other,
                "composition takes a layout, swizzle or tensor first",
                "wrong argument",
            ),
        }
    }
}

/// A tuple's static values, if every leaf is const.
pub(crate) fn static_tuple(tuple: &IntTuple<SymInt>) -> Option<IntTuple<i64>> {
    tuple
        .try_map(&mut |leaf: &SymInt| {
            leaf.as_constant()
                .ok_or(LayoutError::DivisionByZero { operation: "" })
        })
        .ok()
}

pub(crate) fn static_tiler(tiler: &Tiler<SymInt>) -> Result<Tiler<i64>, LayoutError> {
    Ok(match tiler {
        Tiler::Layout(layout) => Tiler::Layout(layout.to_static()?),
        Tiler::Extent(extent) => Tiler::Extent(extent.static_value("composition")?),
        Tiler::Keep => Tiler::Keep,
        Tiler::Modes(modes) => {
            Tiler::Modes(modes.iter().map(static_tiler).collect::<Result<_, _>>()?)
        }
    })
}
