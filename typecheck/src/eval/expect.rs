//! Expectations: a value required to be an integer, a const integer, a bool, an
//! int-tuple, a layout or a tensor, with the diagnostic when it is not; and the type an
//! integer operation takes.

use std::sync::Arc;

use cute::{Dtype, Tensor};
use lang::{Diagnostic, Span};
use layout::{IntTuple, Layout, LayoutError, SymInt};

use crate::check::Checker;
use crate::eval::arithmetic::contains_unknown;
use crate::value::{IntType, Value};

impl<'a> Checker<'a> {
    /// An int-tuple from a value: an integer or a tuple of them.
    pub(crate) fn int_tuple(
        &mut self,
        value: &Value,
        span: Span,
        what: &str,
    ) -> Option<IntTuple<SymInt>> {
        if matches!(value, Value::Unknown) {
            return None;
        }
        if let Some(tuple) = value.as_int_tuple() {
            return Some(tuple);
        }
        if contains_unknown(value) {
            return None;
        }
        self.error(
            "E0216",
            span,
            format!(
                "{what} is an integer or a tuple of integers, not a {}",
                value.type_name()
            ),
            &format!("this is a {}", value.type_name()),
        );
        None
    }

    /// The integer in `value`, reporting a type error otherwise.
    pub(crate) fn expect_int(&mut self, value: &Value, span: Span, what: &str) -> Option<SymInt> {
        match value {
            Value::Int { value, .. } => Some(value.clone()),
            Value::Unknown => None,
            other => {
                self.error(
                    "E0216",
                    span,
                    format!("{what} must be an integer, not a {}", other.type_name()),
                    &format!("this is a {}", other.type_name()),
                );
                None
            }
        }
    }

    /// A const integer, reporting a type error or a stage error otherwise.
    pub(crate) fn expect_const_int(
        &mut self,
        value: &Value,
        span: Span,
        what: &str,
    ) -> Option<i64> {
        let integer = self.expect_int(value, span, what)?;
        match self.symbolic_origin(&integer) {
            Some(origin) => {
                self.require_const_failed(what, span, &origin);
                None
            }
            None => integer.as_constant(),
        }
    }

    pub(crate) fn expect_bool(&mut self, value: &Value, span: Span, what: &str) {
        if !matches!(value, Value::Bool(_) | Value::Unknown) {
            self.error(
                "E0216",
                span,
                format!("{what} must be a bool, not a {}", value.type_name()),
                &format!("this is a {}", value.type_name()),
            );
        }
    }

    /// The layout in `value` (a layout, or a tensor's layout).
    pub(crate) fn expect_layout(&mut self, value: &Value, span: Span) -> Option<Layout<SymInt>> {
        match value {
            Value::Layout(layout) => Some(layout.clone()),
            Value::Unknown => None,
            other => {
                self.error(
                    "E0216",
                    span,
                    format!("expected a layout, found a {}", other.type_name()),
                    &format!("this is a {}", other.type_name()),
                );
                None
            }
        }
    }

    /// The tensor in `value`; otherwise, unless `value` is unknown already, error `code`
    /// at `span`: `{what}, not a {found}` (`what` saying what takes the tensor, as
    /// "`peer` takes a symmetric tensor").
    pub(crate) fn expect_tensor(
        &mut self,
        value: &Value,
        span: Span,
        code: &'static str,
        what: &str,
    ) -> Option<Arc<Tensor>> {
        match value {
            Value::Tensor(tensor) => Some(tensor.clone()),
            Value::Unknown => None,
            other => {
                let message = format!("{what}, not a {}", other.type_name());
                self.error(code, span, message, "not a tensor");
                None
            }
        }
    }

    /// Reports a failed layout operation at `span` and returns `Unknown`.
    pub(crate) fn layout_error(&mut self, span: Span, what: &str, error: &LayoutError) -> Value {
        let code = match error {
            LayoutError::Overflow { .. } | LayoutError::DivisionByZero { .. } => "E0223",
            LayoutError::CoordinateOutOfRange { .. } => "E0208",
            LayoutError::TooManyTerms { .. } => "E0222",
            _ => "E0205",
        };
        self.error(
            code,
            span,
            format!("{what} is not valid: {error}"),
            "rejected here",
        )
    }

    /// Reports E0214: an operation at `span` mixes the types `a` and `b`.
    pub(crate) fn mixed_types(&mut self, a: Dtype, b: Dtype, span: Span) {
        self.report(
            Diagnostic::error(
                "E0214",
                format!("this mixes {a} and {b} without a conversion"),
            )
            .with_primary(span, format!("{a} and {b}"))
            .with_help(format!(
                "convert one side first, for example with `.to({a})`"
            )),
        );
    }

    /// Joins two integer types: `int` adapts to a sized type; two different sized
    /// types are an error.
    pub(crate) fn unify_int_types(
        &mut self,
        left: IntType,
        right: IntType,
        span: Span,
    ) -> Option<IntType> {
        match (left, right) {
            (IntType::Int, other) | (other, IntType::Int) => Some(other),
            (IntType::Sized(a), IntType::Sized(b)) if a == b => Some(left),
            (IntType::Sized(a), IntType::Sized(b)) => {
                self.mixed_types(a, b, span);
                None
            }
        }
    }
}
