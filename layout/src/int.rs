//! The integers that int-tuples are made of.
//!
//! [`Int`] abstracts over a compile-time integer (`i64`) and a run-time symbolic
//! integer ([`SymInt`](crate::SymInt)). Algorithms are written once over `I: Int`; the
//! few that need concrete values call [`Int::static_value`], which turns a symbolic
//! operand into [`LayoutError::Dynamic`].

use std::fmt::{Debug, Display};
use std::hash::Hash;

use crate::LayoutError;
use crate::symbolic::SymInt;

/// An integer inside an int-tuple: either static (`i64`) or symbolic ([`SymInt`]).
///
/// All arithmetic is checked: overflow and division by zero are errors, never a wrap
/// or a panic. Division truncates toward zero, as C++ does.
pub trait Int: Clone + PartialEq + Eq + Hash + Debug + Display {
    /// The static integer `value` as a `Self`.
    fn from_static(value: i64) -> Self;

    /// The value if it is known at compile time.
    fn as_static(&self) -> Option<i64>;

    /// `self + other`.
    fn add(&self, other: &Self) -> Result<Self, LayoutError>;

    /// `self - other`.
    fn sub(&self, other: &Self) -> Result<Self, LayoutError>;

    /// `self * other`.
    fn mul(&self, other: &Self) -> Result<Self, LayoutError>;

    /// `self / other`, truncating toward zero.
    fn div(&self, other: &Self) -> Result<Self, LayoutError>;

    /// `self % other`, with the sign of `self` (C++ semantics).
    fn rem(&self, other: &Self) -> Result<Self, LayoutError>;

    /// `(self + other - 1) / other`: the number of `other`-sized pieces covering `self`.
    fn ceil_div(&self, other: &Self) -> Result<Self, LayoutError>;

    /// This integer as a symbolic integer.
    fn to_symbolic(&self) -> SymInt;

    /// Converts a symbolic integer, if `Self` can hold it (`i64` only holds constants).
    fn from_symbolic(value: &SymInt) -> Option<Self>;

    /// The static value, or [`LayoutError::Dynamic`] naming `operation` and this operand.
    fn static_value(&self, operation: &'static str) -> Result<i64, LayoutError> {
        self.as_static().ok_or_else(|| LayoutError::Dynamic {
            operation,
            operand: self.to_string(),
        })
    }

    /// Whether this is the static integer `value`.
    fn is_static(&self, value: i64) -> bool {
        self.as_static() == Some(value)
    }
}

/// Overflow error for `operation`, which computed `expression`.
pub(crate) fn overflow(operation: &'static str, expression: String) -> LayoutError {
    LayoutError::Overflow {
        operation,
        expression,
    }
}

impl Int for i64 {
    fn from_static(value: i64) -> Self {
        value
    }

    fn as_static(&self) -> Option<i64> {
        Some(*self)
    }

    fn add(&self, other: &Self) -> Result<Self, LayoutError> {
        self.checked_add(*other)
            .ok_or_else(|| overflow("addition", format!("{self} + {other}")))
    }

    fn sub(&self, other: &Self) -> Result<Self, LayoutError> {
        self.checked_sub(*other)
            .ok_or_else(|| overflow("subtraction", format!("{self} - {other}")))
    }

    fn mul(&self, other: &Self) -> Result<Self, LayoutError> {
        self.checked_mul(*other)
            .ok_or_else(|| overflow("multiplication", format!("{self} * {other}")))
    }

    fn div(&self, other: &Self) -> Result<Self, LayoutError> {
        if *other == 0 {
            return Err(LayoutError::DivisionByZero {
                operation: "division",
            });
        }
        self.checked_div(*other)
            .ok_or_else(|| overflow("division", format!("{self} / {other}")))
    }

    fn rem(&self, other: &Self) -> Result<Self, LayoutError> {
        if *other == 0 {
            return Err(LayoutError::DivisionByZero {
                operation: "modulo",
            });
        }
        self.checked_rem(*other)
            .ok_or_else(|| overflow("modulo", format!("{self} % {other}")))
    }

    fn ceil_div(&self, other: &Self) -> Result<Self, LayoutError> {
        if *other == 0 {
            return Err(LayoutError::DivisionByZero {
                operation: "ceil_div",
            });
        }
        let quotient = self.div(other)?;
        let remainder = self.rem(other)?;
        // Round toward positive infinity when the exact quotient is positive.
        if remainder != 0 && ((remainder > 0) == (*other > 0)) {
            quotient
                .checked_add(1)
                .ok_or_else(|| overflow("ceil_div", format!("ceil_div({self}, {other})")))
        } else {
            Ok(quotient)
        }
    }

    fn to_symbolic(&self) -> SymInt {
        SymInt::constant(*self)
    }

    fn from_symbolic(value: &SymInt) -> Option<Self> {
        value.as_constant()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_arithmetic_reports_overflow_and_zero_division() {
        assert!(matches!(
            i64::MAX.add(&1),
            Err(LayoutError::Overflow { .. })
        ));
        assert!(matches!(
            i64::MIN.div(&-1),
            Err(LayoutError::Overflow { .. })
        ));
        assert!(matches!(5.rem(&0), Err(LayoutError::DivisionByZero { .. })));
        assert_eq!(7.ceil_div(&2), Ok(4));
        assert_eq!(8.ceil_div(&2), Ok(4));
        assert_eq!(0.ceil_div(&3), Ok(0));
        assert_eq!((-7).ceil_div(&2), Ok(-3));
        assert_eq!(i64::MAX.ceil_div(&1), Ok(i64::MAX));
    }
}
