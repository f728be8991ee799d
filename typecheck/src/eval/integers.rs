//! Integer, tuple and unary operators: symbolic integer arithmetic (overflow and
//! division by zero checked), element-wise tuple arithmetic, negation and `!`.

use cute::Dtype;
use lang::Span;
use lang::ast::{BinaryOp, UnaryOp};
use layout::{Int, IntTuple, LayoutError, SymInt};

use crate::builtins::methods::wrap_integer;
use crate::check::Checker;
use crate::trace::{Term, held_dtype, stays_in_type, term_of, with_term, wraps_modulo};
use crate::value::{IntType, Known, Origin, Value};

impl<'a> Checker<'a> {
    pub(crate) fn integer_arithmetic(
        &mut self,
        op: BinaryOp,
        ty: IntType,
        x: &SymInt,
        y: &SymInt,
        span: Span,
    ) -> Value {
        use BinaryOp as B;
        if let Some(shift) = y.as_constant()
            && matches!(op, B::ShiftLeft | B::ShiftRight)
            && let Some(bits) = shift_width(ty)
            && !(0..bits).contains(&shift)
        {
            return self.error(
                "E0223",
                span,
                format!("a shift by {shift} is outside 0..{bits}, the width of the shifted type"),
                "shift out of range",
            );
        }
        let both_constant = x.as_constant().is_some() && y.as_constant().is_some();
        // A quotient or remainder of signed operands is C's of the operands wrapped to
        // their width; an exact sum or product that passed it would give another one
        // (`(3 * x) / 3` is not `x` where `3 * x` overflows).
        let (x, y) = &if matches!(op, B::Divide | B::Remainder)
            && !both_constant
            && matches!(held_dtype(ty), Dtype::I32 | Dtype::I64)
        {
            let held = held_dtype(ty);
            (self.held_in(x, held, span), self.held_in(y, held, span))
        } else {
            (x.clone(), y.clone())
        };
        let folded: Option<Result<SymInt, LayoutError>> = match op {
            // u32 and u64 values wrap (C's unsigned rules): sums and products fold
            // exactly and are wrapped where they are observed (compared, converted,
            // stored: `Term::Int` in its type), but a quotient or remainder of the
            // exact value would differ, so one is computed in the type.
            B::Divide | B::Remainder if wraps_modulo(ty) && !both_constant => None,
            B::Add => Some(x.add(y)),
            B::Subtract => Some(x.sub(y)),
            B::Multiply => Some(x.mul(y)),
            B::Divide => Some(Int::div(x, y)),
            B::Remainder => Some(Int::rem(x, y)),
            _ => match (x.as_constant(), y.as_constant()) {
                (Some(a), Some(b)) => Some(match ty {
                    IntType::Sized(_) => Ok(typed_bitwise(op, a, b, held_dtype(ty))),
                    IntType::Int => bitwise(op, a, b),
                }),
                _ => None,
            },
        };
        // Arithmetic of run-time values whose exact form passes 64 bits (a sum with a
        // large constant, a product of two) is computed on the GPU, where it wraps in
        // its register: C's rule for unsigned types and CuK's documented one for signed.
        let folded = match folded {
            Some(Err(LayoutError::Overflow { .. })) if !both_constant => None,
            folded => folded,
        };
        match folded {
            Some(Ok(value)) => {
                // 8- and 16-bit arithmetic is C's, in `int`.
                if let (IntType::Sized(_), Some(constant)) = (ty, value.as_constant())
                    && let Some((low, high)) = held_dtype(ty).integer_range()
                    && !(low..=high).contains(&i128::from(constant))
                {
                    // Arithmetic on a typed value wraps, unsigned as in C and signed as
                    // CuK defines it, also where the value is known while compiling
                    // (`let a: i32 = 2147483647; a + 1`, or `n - (n - 2147483648)`);
                    // a literal that does not fit the type it is given is E0223.
                    let wrapped = wrap_integer(i128::from(constant), held_dtype(ty));
                    return Value::Int {
                        ty,
                        value: SymInt::constant(wrapped),
                    };
                }
                Value::Int { ty, value }
            }
            Some(Err(error @ LayoutError::TooManyTerms { .. })) => self.error(
                "E0222",
                span,
                format!("this arithmetic is too large to track while compiling: {error}"),
                "expands too far",
            ),
            Some(Err(error)) => self.error(
                "E0223",
                span,
                format!("this arithmetic fails: {error}"),
                "fails",
            ),
            None => {
                let origin = self
                    .symbolic_origin(x)
                    .or_else(|| self.symbolic_origin(y))
                    .unwrap_or_else(|| Origin::computed(span));
                let dtype = held_dtype(ty);
                let term = Term::Binary {
                    op,
                    dtype,
                    left: std::sync::Arc::new(Term::Int(x.clone(), dtype)),
                    right: std::sync::Arc::new(Term::Int(y.clone(), dtype)),
                };
                let name = format!("({x}{}{y})", op.symbol());
                Value::Int {
                    ty,
                    value: self.defined_variable(&name, origin, term, span),
                }
            }
        }
    }

    /// `value` as a register of `dtype` holds it: the value itself where it is a
    /// constant or cannot leave the type (a variable, `i / 2`), else a value defined as
    /// its low bits (which lowering computes only where the bounds of `value` do not
    /// prove it fits).
    pub(crate) fn held_in(&mut self, value: &SymInt, dtype: Dtype, span: Span) -> SymInt {
        if value.as_constant().is_some() || stays_in_type(value) {
            return value.clone();
        }
        let origin = self
            .symbolic_origin(value)
            .unwrap_or_else(|| Origin::computed(span));
        let term = Term::Int(value.clone(), dtype);
        self.defined_variable("held", origin, term, span)
    }

    pub(crate) fn tuple_arithmetic(
        &mut self,
        op: BinaryOp,
        left: &Value,
        right: &Value,
        span: Span,
    ) -> Value {
        let (Some(x), Some(y)) = (left.as_int_tuple(), right.as_int_tuple()) else {
            return Value::Unknown;
        };
        let operation: fn(&SymInt, &SymInt) -> Result<SymInt, LayoutError> = match op {
            BinaryOp::Add => |a, b| a.add(b),
            BinaryOp::Subtract => |a, b| a.sub(b),
            BinaryOp::Multiply => |a, b| a.mul(b),
            _ => {
                return self.error(
                    "E0216",
                    span,
                    format!(
                        "`{}` does not apply to int-tuples; use shape_div or ceil_div",
                        op.symbol()
                    ),
                    "unsupported on tuples",
                );
            }
        };
        let result = zip_tuples(&x, &y, operation);
        match result {
            Ok(tuple) => Value::from_int_tuple(&tuple),
            Err(error) => self.layout_error(span, "this tuple arithmetic", &error),
        }
    }

    pub(crate) fn unary(&mut self, op: UnaryOp, value: Value, span: Span) -> Value {
        if !self.tracing_kernel() {
            return self.unary_value(op, value, span);
        }
        let term = term_of(&value).map(|operand| Term::Unary(op, operand));
        let result = self.unary_value(op, value, span);
        with_term(result, term)
    }

    pub(crate) fn unary_value(&mut self, op: UnaryOp, value: Value, span: Span) -> Value {
        match (op, value) {
            (_, Value::Unknown) => Value::Unknown,
            (UnaryOp::Negate, Value::Int { ty, value }) => match value.mul(&SymInt::constant(-1)) {
                Ok(value) => Value::Int { ty, value },
                // `-x` of a run-time value with an i64::MIN term: computed as `0 - x`
                // on the GPU, where it wraps.
                Err(LayoutError::Overflow { .. }) if value.as_constant().is_none() => self
                    .integer_arithmetic(BinaryOp::Subtract, ty, &SymInt::constant(0), &value, span),
                Err(error) => self.error(
                    "E0223",
                    span,
                    format!("this negation fails: {error}"),
                    "fails",
                ),
            },
            (UnaryOp::Negate, Value::Float { dtype, value }) => Value::Float {
                dtype,
                value: match value {
                    Known::Const(value) => Known::Const(-value),
                    dynamic => dynamic,
                },
            },
            (UnaryOp::Negate, value @ (Value::Vector { .. } | Value::HostTensor { .. })) => value,
            (UnaryOp::Not, Value::Bool(known)) => Value::Bool(match known {
                Known::Const(value) => Known::Const(!value),
                dynamic => dynamic,
            }),
            (op, value) => self.error(
                "E0216",
                span,
                format!(
                    "unary `{}` does not apply to a {}",
                    op.symbol(),
                    value.type_name()
                ),
                "unsupported operand",
            ),
        }
    }
}

/// The width a shift of a value of type `ty` must stay below: the type C computes it
/// in (32 bits for the promoted i8..i32 and u32, 64 for the rest).
fn shift_width(ty: IntType) -> Option<i64> {
    match held_dtype(ty) {
        Dtype::I32 | Dtype::U32 => Some(32),
        _ => Some(64),
    }
}

/// `x op y` leaf by leaf for congruent int-tuples; an integer operand meets every leaf.
pub(crate) fn zip_tuples(
    x: &IntTuple<SymInt>,
    y: &IntTuple<SymInt>,
    operation: fn(&SymInt, &SymInt) -> Result<SymInt, LayoutError>,
) -> Result<IntTuple<SymInt>, LayoutError> {
    match (x, y) {
        (IntTuple::Int(a), IntTuple::Int(b)) => Ok(IntTuple::Int(operation(a, b)?)),
        (IntTuple::Tuple(items), IntTuple::Int(_)) => Ok(IntTuple::Tuple(
            items
                .iter()
                .map(|item| zip_tuples(item, y, operation))
                .collect::<Result<_, _>>()?,
        )),
        (IntTuple::Int(_), IntTuple::Tuple(items)) => Ok(IntTuple::Tuple(
            items
                .iter()
                .map(|item| zip_tuples(x, item, operation))
                .collect::<Result<_, _>>()?,
        )),
        (IntTuple::Tuple(left), IntTuple::Tuple(right)) if left.len() == right.len() => {
            Ok(IntTuple::Tuple(
                left.iter()
                    .zip(right)
                    .map(|(a, b)| zip_tuples(a, b, operation))
                    .collect::<Result<_, _>>()?,
            ))
        }
        _ => Err(LayoutError::Incongruent {
            operation: "tuple arithmetic",
            left: x.to_string(),
            right: y.to_string(),
        }),
    }
}

/// A bitwise operator or shift of constants of `dtype` (whose shift counts the checker
/// has bounded by its width), as the GPU computes it: a u64 is its bits, `>>` is
/// logical for unsigned types, and a left shift wraps.
fn typed_bitwise(op: BinaryOp, a: i64, b: i64, dtype: Dtype) -> SymInt {
    let of_type = |value: i64| match dtype {
        Dtype::U64 => i128::from(value as u64),
        _ => i128::from(value),
    };
    let (a, b) = (of_type(a), of_type(b));
    let shift = u32::try_from(b).unwrap_or(0).min(127);
    let value = match op {
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::ShiftLeft => a << shift,
        _ => a >> shift,
    };
    SymInt::constant(wrap_integer(value, dtype))
}

pub(crate) fn bitwise(op: BinaryOp, a: i64, b: i64) -> Result<SymInt, LayoutError> {
    let shift = |b: i64| {
        u32::try_from(b)
            .ok()
            .filter(|shift| *shift < 64)
            .ok_or_else(|| LayoutError::Unsupported {
                operation: "shift",
                reason: format!("a shift by {b} is outside 0..64"),
            })
    };
    let value = match op {
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::ShiftLeft => {
            i64::try_from(i128::from(a) << shift(b)?).map_err(|_| LayoutError::Overflow {
                operation: "shift",
                expression: format!("{a} << {b}"),
            })?
        }
        _ => a >> shift(b)?,
    };
    Ok(SymInt::constant(value))
}
