//! The one error type of the layout algebra.
//!
//! Every fallible operation returns [`LayoutError`]. Each variant names the operation
//! that failed and, where there are operands, prints them in CuTe notation so that a
//! message can be shown to a user as is.

use std::fmt;

/// Why a layout or int-tuple operation was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// Two int-tuples that must have the same nesting (shape and stride, coordinate
    /// and shape, ...) do not.
    Incongruent {
        /// The operation that needed congruent operands.
        operation: &'static str,
        /// The first operand, in CuTe notation.
        left: String,
        /// The second operand, in CuTe notation.
        right: String,
    },
    /// Neither of two values divides the other where the operation requires it.
    NotDivisible {
        /// The operation that needed divisibility.
        operation: &'static str,
        /// What was being divided, in words with its value.
        dividend: String,
        /// What it was divided by, in words with its value.
        divisor: String,
    },
    /// A layout that must be injective (one-to-one) is not.
    NotInjective {
        /// The operation that needed an injective layout.
        operation: &'static str,
        /// The offending layout.
        layout: String,
    },
    /// A tiler or profile has more modes than the layout it is applied to.
    RankMismatch {
        /// The operation.
        operation: &'static str,
        /// What has too many modes: `"tiler"` or `"profile"`.
        operand: &'static str,
        /// Rank of the layout.
        layout_rank: usize,
        /// Rank of the tiler or profile.
        tiler_rank: usize,
    },
    /// A mode index (as in `get<i>`, `select`, `group_modes`) is out of range.
    ModeOutOfRange {
        /// The operation.
        operation: &'static str,
        /// The requested index.
        index: usize,
        /// The number of modes available.
        rank: usize,
    },
    /// A coordinate is negative (past the end is allowed: it extends the last mode).
    CoordinateOutOfRange {
        /// The coordinate (or coordinate component).
        coordinate: String,
        /// The shape (or shape component) it was checked against.
        shape: String,
    },
    /// Checked integer arithmetic overflowed `i64`.
    Overflow {
        /// The operation during which the overflow happened.
        operation: &'static str,
        /// The arithmetic that overflowed, with its operands (`4611686018427387904 * 4`).
        expression: String,
    },
    /// Division or modulo by zero.
    DivisionByZero {
        /// The operation during which the division happened.
        operation: &'static str,
    },
    /// An operation needs a compile-time value but got a run-time (symbolic) one.
    Dynamic {
        /// The operation that needs static values.
        operation: &'static str,
        /// The run-time operand, as printed.
        operand: String,
    },
    /// A shape extent is zero or negative.
    NonPositiveShape {
        /// The offending shape.
        shape: String,
    },
    /// An int-tuple nests deeper than [`MAX_DEPTH`](crate::MAX_DEPTH).
    TooDeep {
        /// The depth limit.
        limit: usize,
    },
    /// A product of symbolic integers would expand to more terms than
    /// [`MAX_SYMBOLIC_TERMS`](crate::MAX_SYMBOLIC_TERMS).
    TooManyTerms {
        /// The number of terms the product would have before like terms merge.
        terms: usize,
        /// The limit.
        limit: usize,
    },
    /// An operation would enumerate more elements than allowed.
    TooLarge {
        /// The operation.
        operation: &'static str,
        /// The requested number of elements, as printed.
        size: String,
        /// The limit.
        limit: u64,
    },
    /// An operand is outside what the operation supports (for instance a negative
    /// stride given to `complement`).
    Unsupported {
        /// The operation.
        operation: &'static str,
        /// What was wrong, in words.
        reason: String,
    },
    /// Text could not be parsed as CuTe notation.
    Parse {
        /// 1-based character column where parsing failed.
        column: usize,
        /// What the parser expected there.
        expected: String,
        /// What it found instead.
        found: String,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::Incongruent {
                operation,
                left,
                right,
            } => {
                write!(f, "{operation}: {left} and {right} are not congruent")
            }
            LayoutError::NotDivisible {
                operation,
                dividend,
                divisor,
            } => write!(
                f,
                "{operation}: {dividend} and {divisor} do not divide one another"
            ),
            LayoutError::NotInjective { operation, layout } => {
                write!(f, "{operation}: layout {layout} is not injective")
            }
            LayoutError::RankMismatch {
                operation,
                operand,
                layout_rank,
                tiler_rank,
            } => write!(
                f,
                "{operation}: the {operand} has {tiler_rank} modes but the layout only {layout_rank}"
            ),
            LayoutError::ModeOutOfRange {
                operation,
                index,
                rank,
            } => write!(
                f,
                "{operation}: mode {index} does not exist in a layout of rank {rank}"
            ),
            LayoutError::CoordinateOutOfRange { coordinate, shape } => {
                write!(
                    f,
                    "coordinate {coordinate} is negative; shape {shape} is indexed from 0"
                )
            }
            LayoutError::Overflow {
                operation,
                expression,
            } => {
                write!(f, "{operation}: {expression} does not fit in 64 bits")
            }
            LayoutError::DivisionByZero { operation } => write!(f, "{operation}: division by zero"),
            LayoutError::Dynamic { operation, operand } => write!(
                f,
                "{operation} needs a compile-time value, but `{operand}` is only known at run time"
            ),
            LayoutError::NonPositiveShape { shape } => {
                write!(f, "shape {shape} has an extent that is zero or negative")
            }
            LayoutError::TooDeep { limit } => {
                write!(f, "int-tuple nests deeper than the limit of {limit} levels")
            }
            LayoutError::TooManyTerms { terms, limit } => write!(
                f,
                "a product of run-time sums expands to {terms} terms, more than the limit of {limit}"
            ),
            LayoutError::TooLarge {
                operation,
                size,
                limit,
            } => write!(
                f,
                "{operation}: {size} elements is more than the limit of {limit}"
            ),
            LayoutError::Unsupported { operation, reason } => write!(f, "{operation}: {reason}"),
            LayoutError::Parse {
                column,
                expected,
                found,
            } => {
                write!(f, "at column {column}: expected {expected}, found {found}")
            }
        }
    }
}

impl std::error::Error for LayoutError {}
