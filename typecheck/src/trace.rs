//! The terms of checked values: how the GPU computes a dyn scalar or fragment value,
//! and the [`::trace`] types re-exported for the checker's use.

use std::sync::Arc;

use cute::Dtype;

pub use ::trace::*;

use crate::value::{IntType, Known, Value};

/// The term that computes `value` on the GPU, when there is one: integers are their
/// [`SymInt`], constants are themselves, and dyn scalars and fragment values carry the
/// term they were computed by.
pub(crate) fn term_of(value: &Value) -> Option<Arc<Term>> {
    match value {
        Value::Int { ty, value } => Some(Arc::new(Term::Int(value.clone(), held_dtype(*ty)))),
        Value::Float { dtype, value } => match value {
            Known::Const(constant) => Some(Arc::new(Term::Float(
                *constant,
                dtype.unwrap_or(Dtype::F32),
            ))),
            Known::Dyn(origin) => origin.term.clone(),
        },
        Value::Bool(Known::Const(constant)) => Some(Arc::new(Term::Bool(*constant))),
        Value::Bool(Known::Dyn(origin)) => origin.term.clone(),
        Value::Vector { term, .. } => term.clone(),
        _ => None,
    }
}

/// The dtype the GPU computes a dyn integer of type `ty` in, where it must compute one
/// rather than fold it (a comparison, a `min`, a bitwise operator): C's promotions, so
/// i8, i16, u8, u16 and i32 in i32; u32, u64 and i64 in themselves; `int` in i64.
pub(crate) fn held_dtype(ty: IntType) -> Dtype {
    match ty {
        IntType::Sized(Dtype::I8 | Dtype::I16 | Dtype::U8 | Dtype::U16 | Dtype::I32) => Dtype::I32,
        IntType::Sized(dtype @ (Dtype::U32 | Dtype::U64)) => dtype,
        _ => Dtype::I64,
    }
}

/// Whether C computes arithmetic on `ty` modulo its width: u32 and u64 (the narrower
/// unsigned types promote to int, as signed ones do). Their symbolic integers are exact
/// and their terms ([`Term::Int`] in the type) the value wrapped.
pub(crate) fn wraps_modulo(ty: IntType) -> bool {
    matches!(ty, IntType::Sized(Dtype::U32 | Dtype::U64))
}

/// Whether `value` is one run-time variable (a parameter, a load, a computed value),
/// which holds a value of its type, rather than arithmetic on some.
pub(crate) fn is_plain_variable(value: &layout::SymInt) -> bool {
    matches!(value.terms().as_slice(),
        [(1, factors)] if matches!(factors.as_slice(), [layout::SymFactor::Variable(_)]))
}

/// Whether `value` holds a value of its operands' type whatever they are: a variable,
/// or a quotient or remainder of one such by a positive constant (never larger in
/// magnitude than what it divides), so wrapping it to that type changes nothing.
pub(crate) fn stays_in_type(value: &layout::SymInt) -> bool {
    use layout::SymFactor;
    match value.terms().as_slice() {
        [(1, factors)] => match factors.as_slice() {
            [SymFactor::Variable(_)] => true,
            [SymFactor::Div(a, b) | SymFactor::Mod(a, b)] => {
                b.as_constant().is_some_and(|b| b > 0) && stays_in_type(a)
            }
            _ => false,
        },
        _ => false,
    }
}

/// The type of the values `value` computes, for the operands of a term.
pub(crate) fn term_dtype(value: &Value) -> Option<Dtype> {
    match value {
        Value::Int { ty, .. } => Some(held_dtype(*ty)),
        Value::Vector { dtype, .. }
        | Value::Float {
            dtype: Some(dtype), ..
        } => Some(*dtype),
        Value::Float { dtype: None, .. } => None,
        Value::Bool(_) => Some(Dtype::Bool),
        _ => None,
    }
}

/// `value` with `term` as the computation of its run-time part: set on dyn floats and
/// bools (through their origin) and on fragment values; other values are returned as
/// they are.
pub(crate) fn with_term(value: Value, term: Option<Term>) -> Value {
    match value {
        Value::Float {
            dtype,
            value: Known::Dyn(origin),
        } => Value::Float {
            dtype,
            value: Known::Dyn(origin.computing(term)),
        },
        Value::Bool(Known::Dyn(origin)) => Value::Bool(Known::Dyn(origin.computing(term))),
        Value::Vector { dtype, shape, .. } => Value::Vector {
            dtype,
            shape,
            term: term.map(Arc::new),
        },
        other => other,
    }
}
