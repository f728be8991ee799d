//! Binary operators: comparisons, float arithmetic and the dispatch of each operator
//! on the kinds of its operands, const-folded when both are const.

use cute::Dtype;
use lang::ast::BinaryOp;
use lang::{Diagnostic, Span};

use crate::check::Checker;
use crate::trace::{Term, term_dtype, term_of, with_term};
use crate::value::{IntType, Known, Origin, Value};

impl<'a> Checker<'a> {
    pub(crate) fn binary(
        &mut self,
        op: BinaryOp,
        left: Value,
        right: Value,
        left_span: Span,
        right_span: Span,
        span: Span,
    ) -> Value {
        if !self.tracing_kernel() {
            return self.binary_value(op, left, right, left_span, right_span, span);
        }
        let operands = (term_of(&left), term_of(&right));
        // Untyped float operands on both sides (`total + 0.5` of an untyped `total`)
        // compute in f32, the type an untyped float literal defaults to.
        let untyped_float = |value: &Value| matches!(value, Value::Float { dtype: None, .. });
        let dtype = (term_dtype(&left).or_else(|| term_dtype(&right)))
            .or_else(|| (untyped_float(&left) || untyped_float(&right)).then_some(Dtype::F32));
        let result = self.binary_value(op, left, right, left_span, right_span, span);
        let term = match (operands, dtype) {
            ((Some(left), Some(right)), Some(dtype)) => Some(Term::Binary {
                op,
                dtype,
                left,
                right,
            }),
            _ => None,
        };
        with_term(result, term)
    }

    pub(crate) fn binary_value(
        &mut self,
        op: BinaryOp,
        left: Value,
        right: Value,
        left_span: Span,
        right_span: Span,
        span: Span,
    ) -> Value {
        use BinaryOp as B;
        match (&left, &right) {
            (Value::Unknown, _) | (_, Value::Unknown) => return Value::Unknown,
            _ => {}
        }
        match op {
            B::And | B::Or => {
                self.expect_bool(&left, left_span, "an operand of `&&` and `||`");
                self.expect_bool(&right, right_span, "an operand of `&&` and `||`");
                match (&left, &right) {
                    (Value::Bool(Known::Const(a)), Value::Bool(Known::Const(b))) => {
                        Value::Bool(Known::Const(if op == B::And { *a && *b } else { *a || *b }))
                    }
                    (Value::Bool(_), Value::Bool(_)) => {
                        Value::Bool(Known::Dyn(self.first_origin(&[&left, &right], span)))
                    }
                    _ => Value::Unknown,
                }
            }
            B::Equal | B::NotEqual | B::Less | B::LessEqual | B::Greater | B::GreaterEqual
                if matches!(left, Value::HostTensor { .. })
                    || matches!(right, Value::HostTensor { .. }) =>
            {
                self.elementwise(op, &left, &right, span)
            }
            B::Equal | B::NotEqual | B::Less | B::LessEqual | B::Greater | B::GreaterEqual => {
                self.compare(op, &left, &right, span)
            }
            _ => self.arithmetic(op, left, right, span),
        }
    }

    pub(crate) fn first_origin(&self, values: &[&Value], span: Span) -> Origin {
        values
            .iter()
            .find_map(|value| self.dyn_origin(value))
            .unwrap_or_else(|| Origin::computed(span))
    }

    pub(crate) fn compare(
        &mut self,
        op: BinaryOp,
        left: &Value,
        right: &Value,
        span: Span,
    ) -> Value {
        use BinaryOp as B;
        let ordering_only = !matches!(op, B::Equal | B::NotEqual);
        let result = match (left, right) {
            (Value::Int { ty: a, value: x }, Value::Int { ty: b, value: y }) => {
                self.unify_int_types(*a, *b, span);
                match (x.as_constant(), y.as_constant()) {
                    (Some(x), Some(y)) => Some(op.holds_for(x.cmp(&y))),
                    _ => None,
                }
            }
            (Value::Float { dtype: a, value: x }, Value::Float { dtype: b, value: y }) => {
                self.unify_float_types(*a, *b, span);
                match (x.as_const(), y.as_const()) {
                    (Some(x), Some(y)) => x.partial_cmp(&y).map(|ordering| op.holds_for(ordering)),
                    _ => None,
                }
            }
            (Value::Bool(x), Value::Bool(y)) if !ordering_only => {
                match (x.as_const(), y.as_const()) {
                    (Some(x), Some(y)) => Some((x == y) == (op == B::Equal)),
                    _ => None,
                }
            }
            (Value::Dtype(x), Value::Dtype(y)) if !ordering_only => {
                Some((x == y) == (op == B::Equal))
            }
            _ => {
                return self.error(
                    "E0216",
                    span,
                    format!(
                        "`{}` cannot compare a {} with a {}",
                        op.symbol(),
                        left.type_name(),
                        right.type_name()
                    ),
                    "incomparable operands",
                );
            }
        };
        match result {
            Some(result) => Value::Bool(Known::Const(result)),
            None => Value::Bool(Known::Dyn(self.first_origin(&[left, right], span))),
        }
    }

    pub(crate) fn unify_float_types(
        &mut self,
        left: Option<Dtype>,
        right: Option<Dtype>,
        span: Span,
    ) -> Option<Dtype> {
        match (left, right) {
            (None, other) | (other, None) => other,
            (Some(a), Some(b)) if a == b => Some(a),
            (Some(a), Some(b)) => {
                self.mixed_types(a, b, span);
                None
            }
        }
    }

    pub(crate) fn arithmetic(
        &mut self,
        op: BinaryOp,
        left: Value,
        right: Value,
        span: Span,
    ) -> Value {
        use BinaryOp as B;
        match (&left, &right) {
            (Value::Int { ty: a, value: x }, Value::Int { ty: b, value: y }) => {
                let ty = self.unify_int_types(*a, *b, span).unwrap_or(*a);
                self.integer_arithmetic(op, ty, x, y, span)
            }
            (Value::Float { .. } | Value::Int { .. }, Value::Float { .. } | Value::Int { .. })
                if matches!(op, B::Add | B::Subtract | B::Multiply | B::Divide) =>
            {
                let (Some((a, x)), Some((b, y))) =
                    (self.as_float(&left, span), self.as_float(&right, span))
                else {
                    return Value::Unknown;
                };
                let dtype = self.unify_float_types(a, b, span);
                let value = match (x, y) {
                    (Known::Const(x), Known::Const(y)) => Known::Const(match op {
                        B::Add => x + y,
                        B::Subtract => x - y,
                        B::Multiply => x * y,
                        _ => x / y,
                    }),
                    _ => Known::Dyn(self.first_origin(&[&left, &right], span)),
                };
                Value::Float { dtype, value }
            }
            (Value::Vector { .. } | Value::HostTensor { .. }, _)
            | (_, Value::Vector { .. } | Value::HostTensor { .. }) => {
                self.elementwise(op, &left, &right, span)
            }
            (Value::Tuple(_), Value::Tuple(_))
            | (Value::Tuple(_), Value::Int { .. })
            | (Value::Int { .. }, Value::Tuple(_))
                if left.as_int_tuple().is_some() && right.as_int_tuple().is_some() =>
            {
                self.tuple_arithmetic(op, &left, &right, span)
            }
            _ => self.error(
                "E0216",
                span,
                format!(
                    "`{}` does not apply to a {} and a {}",
                    op.symbol(),
                    left.type_name(),
                    right.type_name()
                ),
                "unsupported operands",
            ),
        }
    }

    /// A number as a float: floats, and `int`-kind integers (which adapt). A sized
    /// integer mixed with a float needs a conversion.
    pub(crate) fn as_float(
        &mut self,
        value: &Value,
        span: Span,
    ) -> Option<(Option<Dtype>, Known<f64>)> {
        match value {
            Value::Float { dtype, value } => Some((*dtype, value.clone())),
            Value::Int {
                ty: IntType::Int,
                value,
            } => {
                #[allow(clippy::cast_precision_loss)]
                let known = match value.as_constant() {
                    Some(constant) => Known::Const(constant as f64),
                    None => Known::Dyn(
                        self.symbolic_origin(value)
                            .unwrap_or_else(|| Origin::computed(span)),
                    ),
                };
                Some((None, known))
            }
            Value::Int {
                ty: IntType::Sized(dtype),
                ..
            } => {
                self.report(
                    Diagnostic::error(
                        "E0214",
                        format!("this mixes {dtype} with a float without a conversion"),
                    )
                    .with_primary(span, format!("{dtype} and a float"))
                    .with_help("convert the integer first, for example with `.to(f32)`"),
                );
                None
            }
            _ => None,
        }
    }
}

pub(crate) fn contains_unknown(value: &Value) -> bool {
    match value {
        Value::Unknown => true,
        Value::Tuple(items) => items.iter().any(contains_unknown),
        _ => false,
    }
}
