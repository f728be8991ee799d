//! The identity layout: CuTe's `make_identity_layout(shape)`, whose value at a
//! coordinate is that coordinate in the natural (congruent) form.
//!
//! CuTe represents it with basis-element strides `(1@0,1@1,...)`; here it is its own
//! small type whose evaluation returns an int-tuple instead of an offset.

use std::fmt;

use crate::tuple_arith::{compact_left, crd2idx, idx2crd};
use crate::{Int, IntTuple, Layout, LayoutError};

/// The identity function on the coordinates of a shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdentityLayout<I = i64> {
    shape: IntTuple<I>,
}

impl<I: Int> IdentityLayout<I> {
    /// The identity layout of `shape` (positive extents, bounded depth).
    pub fn new(shape: IntTuple<I>) -> Result<Self, LayoutError> {
        // Validates the shape exactly as a layout would.
        Layout::column_major(shape.clone())?;
        Ok(IdentityLayout { shape })
    }

    /// The shape (the domain, which is also the codomain).
    pub fn shape(&self) -> &IntTuple<I> {
        &self.shape
    }

    /// Number of coordinates.
    pub fn size(&self) -> Result<I, LayoutError> {
        self.shape.product()
    }

    /// The natural coordinate of `coord` (an integer or a hierarchical coordinate),
    /// congruent with the shape; coordinates outside the shape are errors.
    pub fn evaluate(&self, coord: &IntTuple<I>) -> Result<IntTuple<I>, LayoutError> {
        let compact = compact_left(&self.shape, &I::from_static(1))?;
        crd2idx(coord, &self.shape, &compact)?;
        idx2crd(coord, &self.shape)
    }
}

/// Writes the basis stride of every leaf: `1@i` for the leaf at path `i`, `1@i@j`
/// for a nested leaf.
fn write_basis<I>(
    f: &mut fmt::Formatter<'_>,
    shape: &IntTuple<I>,
    path: &mut Vec<usize>,
) -> fmt::Result {
    match shape {
        IntTuple::Int(_) if path.is_empty() => f.write_str("1@0"),
        IntTuple::Int(_) => {
            f.write_str("1")?;
            path.iter().try_for_each(|index| write!(f, "@{index}"))
        }
        IntTuple::Tuple(modes) => {
            f.write_str("(")?;
            for (index, mode) in modes.iter().enumerate() {
                if index > 0 {
                    f.write_str(",")?;
                }
                path.push(index);
                write_basis(f, mode, path)?;
                path.pop();
            }
            f.write_str(")")
        }
    }
}

impl<I: fmt::Display> fmt::Display for IdentityLayout<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.shape)?;
        write_basis(f, &self.shape, &mut Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_returns_the_natural_coordinate() {
        let identity = IdentityLayout::<i64>::new("(4,(2,3))".parse().unwrap()).unwrap();
        assert_eq!(identity.to_string(), "(4,(2,3)):(1@0,(1@1@0,1@1@1))");
        assert_eq!(
            identity.evaluate(&IntTuple::int(13)).unwrap().to_string(),
            "(1,(1,1))"
        );
        assert_eq!(
            identity
                .evaluate(&"(3,4)".parse().unwrap())
                .unwrap()
                .to_string(),
            "(3,(0,2))"
        );
        assert!(identity.evaluate(&IntTuple::int(24)).is_err());
    }
}
