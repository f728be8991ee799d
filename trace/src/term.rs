//! Run-time scalars as computations ([`Term`]), the float math functions they call, and
//! the identities of the values that are not pure functions of others (loads, cells,
//! shuffles, atomics).

use std::sync::Arc;

use cute::Dtype;
use lang::ast::{BinaryOp, UnaryOp};
use layout::SymInt;

/// The identity of one evaluation of a load: each evaluation, a loop's unrolled
/// iterations included, gets its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LoadId(pub u32);

/// A mutable local that changes under run-time control flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CellId(pub u32);

/// A warp shuffle's pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shuffle {
    /// `shfl_up(value, delta)`.
    Up,
    /// `shfl_down(value, delta)`.
    Down,
    /// `shfl_xor(value, mask)`.
    Xor,
    /// `shfl_idx(value, lane)`.
    Index,
}

/// An atomic read-modify-write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atomic {
    /// `atomic_add`.
    Add,
    /// `atomic_max`.
    Max,
    /// `atomic_min`.
    Min,
}

/// A run-time scalar (or, for fragment values, one element of it), as a computation.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// An integer over the kernel's run-time variables.
    Int(SymInt, Dtype),
    /// A float constant.
    Float(f64, Dtype),
    /// A bool constant.
    Bool(bool),
    /// A scalar kernel parameter (float or bool) at this index.
    Param(usize, Dtype),
    /// What the [`Effect::Load`] with this identity read: one value, or for a
    /// whole-fragment load the values in its layout's coordinate order (element `i` of
    /// the term is the `i`-th).
    Loaded(LoadId),
    /// `op a`.
    Unary(UnaryOp, Arc<Term>),
    /// The value of a named run-time variable that is not an integer: a float or bool
    /// cell's read, a shuffle's or an atomic's result.
    Variable(String, Dtype),
    /// `a op b`, arithmetic, comparison or logic; `dtype` is the operands' type.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// The operands' type.
        dtype: Dtype,
        /// The left operand.
        left: Arc<Term>,
        /// The right operand.
        right: Arc<Term>,
    },
    /// A conversion to `Dtype`.
    Convert(Dtype, Arc<Term>),
    /// A math function of floats of type `dtype`: one operand, two for `min` and `max`.
    Math {
        /// The function.
        function: MathFn,
        /// The operands' and the result's type.
        dtype: Dtype,
        /// The operands.
        operands: Vec<Arc<Term>>,
    },
}

/// A math function on floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    /// `exp(x)`.
    Exp,
    /// `exp2(x)`.
    Exp2,
    /// `log(x)`, the natural logarithm.
    Log,
    /// `log2(x)`.
    Log2,
    /// `sqrt(x)`.
    Sqrt,
    /// `rsqrt(x)`, `1 / sqrt(x)`.
    Rsqrt,
    /// `abs(x)`.
    Abs,
    /// `min(x, y)`.
    Min,
    /// `max(x, y)`.
    Max,
    /// `fma(x, y, z)`, `x * y + z` rounded once.
    Fma,
}

impl MathFn {
    /// The function a built-in's name calls.
    pub fn named(name: &str) -> Option<MathFn> {
        Some(match name {
            "exp" => MathFn::Exp,
            "exp2" => MathFn::Exp2,
            "log" => MathFn::Log,
            "log2" => MathFn::Log2,
            "sqrt" => MathFn::Sqrt,
            "rsqrt" => MathFn::Rsqrt,
            "abs" => MathFn::Abs,
            "min" => MathFn::Min,
            "max" => MathFn::Max,
            "fma" => MathFn::Fma,
            _ => return None,
        })
    }
}
