//! Method forms of the free functions, for call chains such as
//! `a.logical_divide(&tiler)?.coalesce()?`.

use crate::{AsTiler, Coord, Int, IntTuple, Layout, LayoutError};

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
