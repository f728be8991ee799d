//! Slicing and dicing a layout with a coordinate whose leaves may be `_`.
//!
//! `slice` keeps the modes under `_` (flattened into one tuple, as CuTe's
//! `filter_tuple` does) and returns the offset of the fixed coordinates; `dice` keeps
//! the complementary modes.

use std::fmt;

use crate::int_tuple::write_tuple;
use crate::{Int, IntTuple, Layout, LayoutError};

/// A coordinate whose leaves are integers or `_` (a free mode).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Coord<I = i64> {
    /// A fixed coordinate.
    Int(I),
    /// `_`: keep the whole mode.
    Free,
    /// A hierarchical coordinate.
    Tuple(Vec<Coord<I>>),
}

impl<I: Int> Coord<I> {
    /// Whether some leaf is `_`.
    pub fn has_free(&self) -> bool {
        match self {
            Coord::Int(_) => false,
            Coord::Free => true,
            Coord::Tuple(items) => items.iter().any(Coord::has_free),
        }
    }

    /// Whether some leaf is an integer.
    pub fn has_fixed(&self) -> bool {
        match self {
            Coord::Int(_) => true,
            Coord::Free => false,
            Coord::Tuple(items) => items.iter().any(Coord::has_fixed),
        }
    }

    /// The coordinate with every `_` replaced by 0.
    pub fn with_free_as_zero(&self) -> IntTuple<I> {
        match self {
            Coord::Int(value) => IntTuple::Int(value.clone()),
            Coord::Free => IntTuple::int(0),
            Coord::Tuple(items) => {
                IntTuple::Tuple(items.iter().map(Coord::with_free_as_zero).collect())
            }
        }
    }
}

impl<I: Int> From<&IntTuple<I>> for Coord<I> {
    fn from(coord: &IntTuple<I>) -> Self {
        match coord {
            IntTuple::Int(value) => Coord::Int(value.clone()),
            IntTuple::Tuple(items) => Coord::Tuple(items.iter().map(Coord::from).collect()),
        }
    }
}

impl<I: fmt::Display> fmt::Display for Coord<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coord::Int(value) => write!(f, "{value}"),
            Coord::Free => f.write_str("_"),
            Coord::Tuple(items) => write_tuple(f, items, |f, _, item| write!(f, "{item}")),
        }
    }
}

/// Collects the sub-layouts kept by `keep_free` (slice) or by `!keep_free` (dice).
fn gather<I: Int>(
    coord: &Coord<I>,
    layout: &Layout<I>,
    keep_free: bool,
    kept: &mut Vec<Layout<I>>,
) -> Result<(), LayoutError> {
    match coord {
        Coord::Free if keep_free => kept.push(layout.clone()),
        Coord::Int(_) if !keep_free => kept.push(layout.clone()),
        Coord::Free | Coord::Int(_) => {}
        Coord::Tuple(items) => {
            if layout.shape().is_int() || items.len() != layout.rank() {
                return Err(LayoutError::Incongruent {
                    operation: if keep_free { "slice" } else { "dice" },
                    left: format!("coordinate {coord}"),
                    right: format!("shape {}", layout.shape()),
                });
            }
            for (item, mode) in items.iter().zip(layout.modes()) {
                gather(item, &mode, keep_free, kept)?;
            }
        }
    }
    Ok(())
}

/// The sub-layout of the modes under `_` in `coord` (CuTe's `slice`). A top-level `_`
/// returns the layout itself; otherwise the kept modes form a tuple.
pub fn slice<I: Int>(coord: &Coord<I>, layout: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    if let Coord::Free = coord {
        return Ok(layout.clone());
    }
    if !coord.has_free() {
        return Err(LayoutError::Unsupported {
            operation: "slice",
            reason: format!("coordinate {coord} has no `_`, so nothing is left to slice"),
        });
    }
    let mut kept = Vec::new();
    gather(coord, layout, true, &mut kept)?;
    Layout::from_modes(kept)
}

/// The slice and the offset of its origin: `layout(coord with _ as 0)` (CuTe's
/// `slice_and_offset`).
pub fn slice_and_offset<I: Int>(
    coord: &Coord<I>,
    layout: &Layout<I>,
) -> Result<(Layout<I>, I), LayoutError> {
    let sliced = slice(coord, layout)?;
    let offset = layout.evaluate(&coord.with_free_as_zero())?;
    Ok((sliced, offset))
}

/// The sub-layout of the modes under integer leaves of `coord` (CuTe's `dice`). A
/// top-level integer returns the layout itself.
pub fn dice<I: Int>(coord: &Coord<I>, layout: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    if let Coord::Int(_) = coord {
        return Ok(layout.clone());
    }
    if !coord.has_fixed() {
        return Err(LayoutError::Unsupported {
            operation: "dice",
            reason: format!("coordinate {coord} has no integer, so nothing is left to dice"),
        });
    }
    let mut kept = Vec::new();
    gather(coord, layout, false, &mut kept)?;
    Layout::from_modes(kept)
}
