//! The identity layout: CuTe's `make_identity_layout(shape)`, whose value at a
//! coordinate is that coordinate in the natural (congruent) form.
//!
//! CuTe represents it with basis-element strides `(1@0,1@1,...)`; here it is its own
//! small type whose evaluation returns an int-tuple instead of an offset.

use std::fmt;

use crate::int_tuple::write_tuple;
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
    /// congruent with the shape. As with CuTe's basis strides, an integer is split
    /// colexicographically and one past the end extends the last mode; a negative one
    /// is an error.
    pub fn evaluate(&self, coord: &IntTuple<I>) -> Result<IntTuple<I>, LayoutError> {
        natural_coordinate(coord, &self.shape)
    }
}

/// `coord` split over `shape` as `crd2idx` would split it, each leaf of the shape
/// receiving its own coordinate instead of a stride-weighted sum.
fn natural_coordinate<I: Int>(
    coord: &IntTuple<I>,
    shape: &IntTuple<I>,
) -> Result<IntTuple<I>, LayoutError> {
    match (coord, shape) {
        (IntTuple::Tuple(coords), IntTuple::Tuple(modes)) if coords.len() == modes.len() => {
            let split = coords
                .iter()
                .zip(modes)
                .map(|(coord, mode)| natural_coordinate(coord, mode));
            Ok(IntTuple::Tuple(split.collect::<Result<_, _>>()?))
        }
        (IntTuple::Int(index), IntTuple::Int(_)) => {
            if index.as_static().is_some_and(|value| value < 0) {
                return Err(LayoutError::CoordinateOutOfRange {
                    coordinate: index.to_string(),
                    shape: shape.to_string(),
                });
            }
            Ok(coord.clone())
        }
        (IntTuple::Int(index), IntTuple::Tuple(modes)) => {
            let mut rest = index.clone();
            let mut split = Vec::with_capacity(modes.len());
            for (position, mode) in modes.iter().enumerate() {
                if position + 1 == modes.len() {
                    split.push(natural_coordinate(&IntTuple::Int(rest.clone()), mode)?);
                } else {
                    let extent = mode.product()?;
                    split.push(natural_coordinate(
                        &IntTuple::Int(rest.rem(&extent)?),
                        mode,
                    )?);
                    rest = rest.div(&extent)?;
                }
            }
            Ok(IntTuple::Tuple(split))
        }
        _ => Err(LayoutError::Incongruent {
            operation: "identity layout evaluation",
            left: coord.to_string(),
            right: shape.to_string(),
        }),
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
        IntTuple::Tuple(modes) => write_tuple(f, modes, |f, index, mode| {
            path.push(index);
            write_basis(f, mode, path)?;
            path.pop();
            Ok(())
        }),
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
        // Past the end, the last mode extends, as CuTe's basis strides do.
        assert_eq!(
            identity.evaluate(&IntTuple::int(24)).unwrap().to_string(),
            "(0,(0,3))"
        );
        assert!(identity.evaluate(&IntTuple::int(-1)).is_err());
        assert!(identity.evaluate(&"(1,2,3)".parse().unwrap()).is_err());
    }
}
