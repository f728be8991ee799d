//! Int-tuples: an integer or a tuple of int-tuples, the shapes and strides of CuTe.
//!
//! This module holds the type and its structural queries (rank, depth, modes,
//! flattening, congruence). Arithmetic over int-tuples lives in
//! [`tuple_arith`](crate::tuple_arith).

use std::fmt;

use crate::{Int, LayoutError};

/// The deepest nesting an int-tuple may have; the parser and the layout constructor
/// reject deeper input so that recursion elsewhere stays bounded.
pub const MAX_DEPTH: usize = 32;

/// An integer or a (non-empty) tuple of int-tuples.
///
/// A 1-tuple `(4)` is distinct from the integer `4`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntTuple<I = i64> {
    /// A leaf.
    Int(I),
    /// A tuple of modes.
    Tuple(Vec<IntTuple<I>>),
}

impl<I: Int> IntTuple<I> {
    /// The static leaf `value`.
    pub fn int(value: i64) -> Self {
        IntTuple::Int(I::from_static(value))
    }

    /// A tuple of static leaves.
    pub fn ints(values: &[i64]) -> Self {
        IntTuple::Tuple(values.iter().map(|&value| IntTuple::int(value)).collect())
    }

    /// Whether this is a leaf.
    pub fn is_int(&self) -> bool {
        matches!(self, IntTuple::Int(_))
    }

    /// The leaf value, if this is a leaf.
    pub fn as_int(&self) -> Option<&I> {
        match self {
            IntTuple::Int(value) => Some(value),
            IntTuple::Tuple(_) => None,
        }
    }

    /// Number of top-level modes: 1 for an integer.
    pub fn rank(&self) -> usize {
        match self {
            IntTuple::Int(_) => 1,
            IntTuple::Tuple(modes) => modes.len(),
        }
    }

    /// Nesting depth: 0 for an integer, 1 for a flat tuple.
    pub fn depth(&self) -> usize {
        match self {
            IntTuple::Int(_) => 0,
            IntTuple::Tuple(modes) => 1 + modes.iter().map(IntTuple::depth).max().unwrap_or(0),
        }
    }

    /// The top-level modes: the tuple's elements, or the integer itself as one mode.
    pub fn modes(&self) -> Vec<IntTuple<I>> {
        match self {
            IntTuple::Int(_) => vec![self.clone()],
            IntTuple::Tuple(modes) => modes.clone(),
        }
    }

    /// Mode `index` (CuTe's `get<index>`); mode 0 of an integer is the integer.
    pub fn get(&self, index: usize) -> Result<&IntTuple<I>, LayoutError> {
        let found = match self {
            IntTuple::Int(_) if index == 0 => Some(self),
            IntTuple::Int(_) => None,
            IntTuple::Tuple(modes) => modes.get(index),
        };
        found.ok_or(LayoutError::ModeOutOfRange {
            operation: "get",
            index,
            rank: self.rank(),
        })
    }

    /// The leaves, left to right.
    pub fn leaves(&self) -> Vec<I> {
        let mut leaves = Vec::new();
        self.collect_leaves(&mut leaves);
        leaves
    }

    fn collect_leaves(&self, leaves: &mut Vec<I>) {
        match self {
            IntTuple::Int(value) => leaves.push(value.clone()),
            IntTuple::Tuple(modes) => modes.iter().for_each(|mode| mode.collect_leaves(leaves)),
        }
    }

    /// CuTe's `flatten`: an integer stays an integer, a tuple becomes the flat tuple of
    /// its leaves.
    pub fn flatten(&self) -> IntTuple<I> {
        match self {
            IntTuple::Int(_) => self.clone(),
            IntTuple::Tuple(_) => {
                IntTuple::Tuple(self.leaves().into_iter().map(IntTuple::Int).collect())
            }
        }
    }

    /// Product of all leaves (CuTe's `size` / `product`).
    pub fn product(&self) -> Result<I, LayoutError> {
        match self {
            IntTuple::Int(value) => Ok(value.clone()),
            IntTuple::Tuple(modes) => modes.iter().try_fold(I::from_static(1), |product, mode| {
                product.mul(&mode.product()?)
            }),
        }
    }

    /// Whether `self` and `other` have the same nesting (leaf values may differ).
    pub fn congruent<J: Int>(&self, other: &IntTuple<J>) -> bool {
        match (self, other) {
            (IntTuple::Int(_), IntTuple::Int(_)) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }

    /// Whether every leaf of `self` lines up with a sub-tree of `other` (an integer is
    /// weakly congruent with anything).
    pub fn weakly_congruent<J: Int>(&self, other: &IntTuple<J>) -> bool {
        match (self, other) {
            (IntTuple::Int(_), _) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.weakly_congruent(y))
            }
            (IntTuple::Tuple(_), IntTuple::Int(_)) => false,
        }
    }

    /// CuTe's `compatible(self, other)`: the sizes agree and every coordinate of `self`
    /// is also a coordinate of `other` (`self` is coarser or equal).
    pub fn compatible(&self, other: &IntTuple<I>) -> Result<bool, LayoutError> {
        match (self, other) {
            (IntTuple::Int(value), _) => Ok(*value == other.product()?),
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) if a.len() == b.len() => {
                for (x, y) in a.iter().zip(b) {
                    if !x.compatible(y)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Applies `convert` to every leaf, keeping the nesting.
    pub fn try_map<J: Int>(
        &self,
        convert: &mut impl FnMut(&I) -> Result<J, LayoutError>,
    ) -> Result<IntTuple<J>, LayoutError> {
        match self {
            IntTuple::Int(value) => Ok(IntTuple::Int(convert(value)?)),
            IntTuple::Tuple(modes) => {
                let modes = modes
                    .iter()
                    .map(|mode| mode.try_map(convert))
                    .collect::<Result<_, _>>()?;
                Ok(IntTuple::Tuple(modes))
            }
        }
    }

    /// This int-tuple with symbolic leaves.
    pub fn to_symbolic(&self) -> IntTuple<crate::SymInt> {
        match self {
            IntTuple::Int(value) => IntTuple::Int(value.to_symbolic()),
            IntTuple::Tuple(modes) => {
                IntTuple::Tuple(modes.iter().map(IntTuple::to_symbolic).collect())
            }
        }
    }

    /// Whether all leaves are static.
    pub fn is_static(&self) -> bool {
        match self {
            IntTuple::Int(value) => value.as_static().is_some(),
            IntTuple::Tuple(modes) => modes.iter().all(IntTuple::is_static),
        }
    }

    /// Errors unless the nesting is at most [`MAX_DEPTH`].
    pub fn check_depth(&self) -> Result<(), LayoutError> {
        if self.depth() > MAX_DEPTH {
            return Err(LayoutError::TooDeep { limit: MAX_DEPTH });
        }
        Ok(())
    }

    /// Unwraps a 1-element list into its element, otherwise makes a tuple (CuTe's
    /// `unwrap` of the result of a fold).
    pub(crate) fn from_modes_unwrapped(mut modes: Vec<IntTuple<I>>) -> IntTuple<I> {
        if modes.len() == 1 {
            modes.remove(0)
        } else {
            IntTuple::Tuple(modes)
        }
    }
}

impl<I: Int> From<I> for IntTuple<I> {
    fn from(value: I) -> Self {
        IntTuple::Int(value)
    }
}

impl<I: fmt::Display> fmt::Display for IntTuple<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntTuple::Int(value) => write!(f, "{value}"),
            IntTuple::Tuple(modes) => write_tuple(f, modes, |f, _, mode| write!(f, "{mode}")),
        }
    }
}

/// Writes `items` as CuTe writes a tuple, `(a,b,...)`, each item by `write_item`
/// (given its index).
pub(crate) fn write_tuple<T>(
    f: &mut fmt::Formatter<'_>,
    items: &[T],
    mut write_item: impl FnMut(&mut fmt::Formatter<'_>, usize, &T) -> fmt::Result,
) -> fmt::Result {
    f.write_str("(")?;
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            f.write_str(",")?;
        }
        write_item(f, index, item)?;
    }
    f.write_str(")")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuple(modes: Vec<IntTuple>) -> IntTuple {
        IntTuple::Tuple(modes)
    }

    #[test]
    fn structure_queries() {
        let nested = tuple(vec![IntTuple::ints(&[2, 2]), IntTuple::int(3)]);
        assert_eq!(nested.rank(), 2);
        assert_eq!(nested.depth(), 2);
        assert_eq!(nested.product(), Ok(12));
        assert_eq!(nested.flatten(), IntTuple::ints(&[2, 2, 3]));
        assert_eq!(nested.to_string(), "((2,2),3)");
        assert_eq!(IntTuple::<i64>::int(4).get(0), Ok(&IntTuple::int(4)));
        assert!(IntTuple::<i64>::int(4).get(1).is_err());
        assert!(IntTuple::<i64>::ints(&[4]) != IntTuple::int(4));
    }

    #[test]
    fn congruence_and_compatibility() {
        let nested = tuple(vec![IntTuple::ints(&[2, 2]), IntTuple::int(3)]);
        let flat = IntTuple::ints(&[4, 3]);
        assert!(!flat.congruent(&nested));
        assert!(flat.weakly_congruent(&nested));
        assert!(!nested.weakly_congruent(&flat));
        assert_eq!(flat.compatible(&nested), Ok(true));
        assert_eq!(nested.compatible(&flat), Ok(false));
        assert_eq!(IntTuple::<i64>::int(12).compatible(&nested), Ok(true));
    }
}
