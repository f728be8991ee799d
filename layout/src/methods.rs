//! Method forms of the free functions, for call chains such as
//! `a.logical_divide(&tiler)?.coalesce()?`, and the static/symbolic conversions.

use crate::{AsTiler, Coord, Int, IntTuple, Layout, LayoutError, SymInt};

impl<I: Int> Layout<I> {
    /// [`coalesce`](crate::coalesce) of this layout.
    pub fn coalesce(&self) -> Result<Layout<I>, LayoutError> {
        crate::coalesce(self)
    }

    /// [`filter`](crate::filter) of this layout.
    pub fn filter(&self) -> Result<Layout<I>, LayoutError> {
        crate::filter(self)
    }

    /// [`composition`](crate::composition): `self ∘ tiler`.
    pub fn compose(&self, tiler: &impl AsTiler<I>) -> Result<Layout<I>, LayoutError> {
        crate::composition(self, tiler)
    }

    /// [`complement`](crate::complement) with an optional cotarget.
    pub fn complement(&self, cotarget: Option<&IntTuple<I>>) -> Result<Layout<I>, LayoutError> {
        crate::complement(self, cotarget)
    }

    /// [`right_inverse`](crate::right_inverse) of this layout.
    pub fn right_inverse(&self) -> Result<Layout<I>, LayoutError> {
        crate::right_inverse(self)
    }

    /// [`left_inverse`](crate::left_inverse) of this layout.
    pub fn left_inverse(&self) -> Result<Layout<I>, LayoutError> {
        crate::left_inverse(self)
    }

    /// [`logical_divide`](crate::logical_divide) of this layout by `tiler`.
    pub fn logical_divide(&self, tiler: &impl AsTiler<I>) -> Result<Layout<I>, LayoutError> {
        crate::logical_divide(self, tiler)
    }

    /// [`logical_product`](crate::logical_product) of this layout and `tiler`.
    pub fn logical_product(&self, tiler: &impl AsTiler<I>) -> Result<Layout<I>, LayoutError> {
        crate::logical_product(self, tiler)
    }

    /// [`slice_and_offset`](crate::slice_and_offset): the modes under `_` and the
    /// offset of the fixed coordinates.
    pub fn slice(&self, coord: &Coord<I>) -> Result<(Layout<I>, I), LayoutError> {
        crate::slice_and_offset(coord, self)
    }
}

impl<I: Int> Layout<I> {
    /// Whether every extent and stride is known at compile time.
    pub fn is_static(&self) -> bool {
        self.shape().is_static() && self.stride().is_static()
    }

    /// This layout with `i64` leaves, or [`LayoutError::Dynamic`] naming the first
    /// run-time leaf.
    pub fn to_static(&self) -> Result<Layout<i64>, LayoutError> {
        self.try_map(&mut |value: &I| value.static_value("to_static"))
    }
}

impl Layout<SymInt> {
    /// Replaces the variables for which `value_of` gives a value, folding the result.
    pub fn substitute(
        &self,
        value_of: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<Layout<SymInt>, LayoutError> {
        self.try_map(&mut |value: &SymInt| value.substitute(value_of))
    }
}
