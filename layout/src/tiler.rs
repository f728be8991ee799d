//! Tilers: the right-hand operand of composition, divides and products.

use std::borrow::Cow;
use std::fmt;

use crate::int_tuple::write_tuple;
use crate::{Int, IntTuple, Layout, LayoutError};

/// The right-hand operand of `composition`, the divides and the products.
///
/// An integer `n` is kept as [`Tiler::Extent`] because C++ treats it slightly
/// differently per operation: `composition` uses `n:1`, the divides and products use
/// `make_layout(n)` (which is `1:0` for `n = 1`). A shape used as a tiler is the by-mode
/// tuple of its extents: `(4,2)` is `<4,2>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tiler<I = i64> {
    /// A whole layout applied to the whole operand (or to one mode, inside `Modes`).
    Layout(Layout<I>),
    /// An integer `n`: the first `n` elements.
    Extent(I),
    /// `_`: leave this mode alone.
    Keep,
    /// A by-mode tuple: entry `i` applies to mode `i`; modes past the end are left
    /// alone (dropped, for `composition`, as in CuTe).
    Modes(Vec<Tiler<I>>),
}

impl<I: Int> Tiler<I> {
    /// The integer tiler `n` (which must be positive).
    pub fn extent(n: I) -> Result<Tiler<I>, LayoutError> {
        Layout::column_major(IntTuple::Int(n.clone()))?;
        Ok(Tiler::Extent(n))
    }

    /// The tiler as one layout: `n` becomes `make_layout(n)` (C++'s reading in the
    /// divides and products); `None` for `_` and by-mode tuples.
    pub(crate) fn as_layout(&self) -> Result<Option<Layout<I>>, LayoutError> {
        match self {
            Tiler::Layout(layout) => Ok(Some(layout.clone())),
            Tiler::Extent(n) => Ok(Some(Layout::column_major(IntTuple::Int(n.clone()))?)),
            Tiler::Keep | Tiler::Modes(_) => Ok(None),
        }
    }

    /// The by-mode tiler of a shape: each leaf an extent, each tuple a by-mode tuple.
    pub fn from_shape(shape: &IntTuple<I>) -> Result<Tiler<I>, LayoutError> {
        match shape {
            IntTuple::Int(n) => Tiler::extent(n.clone()),
            IntTuple::Tuple(modes) => Ok(Tiler::Modes(
                modes
                    .iter()
                    .map(Tiler::from_shape)
                    .collect::<Result<_, _>>()?,
            )),
        }
    }
}

impl<I> From<Layout<I>> for Tiler<I> {
    fn from(layout: Layout<I>) -> Self {
        Tiler::Layout(layout)
    }
}

/// Anything usable as a tiler argument: a [`Tiler`] or a [`Layout`] (used whole).
pub trait AsTiler<I: Int> {
    /// This operand as a tiler.
    fn as_tiler(&self) -> Cow<'_, Tiler<I>>;
}

impl<I: Int> AsTiler<I> for Tiler<I> {
    fn as_tiler(&self) -> Cow<'_, Tiler<I>> {
        Cow::Borrowed(self)
    }
}

impl<I: Int> AsTiler<I> for Layout<I> {
    fn as_tiler(&self) -> Cow<'_, Tiler<I>> {
        Cow::Owned(Tiler::Layout(self.clone()))
    }
}

impl<I: fmt::Display> fmt::Display for Tiler<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tiler::Layout(layout) => write!(f, "{layout}"),
            Tiler::Extent(n) => write!(f, "{n}"),
            Tiler::Keep => f.write_str("_"),
            Tiler::Modes(modes) => write_tuple(f, modes, |f, _, mode| write!(f, "{mode}")),
        }
    }
}
