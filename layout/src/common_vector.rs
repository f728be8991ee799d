//! `max_common_layout` and `max_common_vector`: how many leading elements two layouts
//! lay out the same way (C++ CuTe semantics). A copy between tensors of layouts `a`
//! and `b` can move that many elements with one vector instruction.
//!
//! `right_inverse(b)` maps an offset of `b` back to `b`'s logical index, so
//! `coalesce(a ∘ right_inverse(b))` maps `b`'s offsets to `a`'s offsets. If its first
//! mode has static stride 1, its shape `N` says that the first `N` offsets of `b`
//! correspond to the first `N` offsets of `a`, element for element:
//! `max_common_vector` is `N` (otherwise 1) and `max_common_layout` is
//! `right_inverse(b) ∘ (first mode)`, the logical indices of those `N` elements
//! (otherwise `1:0`).

use crate::{Int, IntTuple, Layout, LayoutError, coalesce, composition, right_inverse};

/// The layout of the longest run of logical elements that are contiguous in both `a`
/// and `b`, in the coordinates of `b` (`1:0` when there is none).
pub fn max_common_layout<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    let inverse_b = right_inverse(b)?;
    match common_unit_mode(a, &inverse_b)? {
        Some(common) => composition(&inverse_b, &common),
        None => Layout::new(IntTuple::int(1), IntTuple::int(0)),
    }
}

/// The number of leading elements that are contiguous and in the same order in both
/// `a` and `b`; at least 1.
pub fn max_common_vector<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<i64, LayoutError> {
    let inverse_b = right_inverse(b)?;
    match common_unit_mode(a, &inverse_b)? {
        Some(common) => common.size()?.static_value("max_common_vector"),
        None => Ok(1),
    }
}

/// The first mode of `coalesce(a ∘ inverse_b)` if it has a static shape and static
/// stride 1.
fn common_unit_mode<I: Int>(
    a: &Layout<I>,
    inverse_b: &Layout<I>,
) -> Result<Option<Layout<I>>, LayoutError> {
    let common = coalesce(&composition(a, inverse_b)?)?;
    let first = common.mode(0)?;
    let is_static_unit = first
        .stride()
        .as_int()
        .is_some_and(|stride| stride.is_static(1))
        && first
            .shape()
            .as_int()
            .is_some_and(|extent| extent.as_static().is_some());
    Ok(is_static_unit.then_some(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(text: &str) -> Layout {
        text.parse().unwrap()
    }

    #[test]
    fn row_major_against_column_major() {
        let row_major = layout("(4,8):(8,1)");
        let column_major = layout("(4,8):(1,4)");
        assert_eq!(max_common_vector(&row_major, &column_major), Ok(1));
        assert_eq!(max_common_vector(&column_major, &row_major), Ok(1));
        assert_eq!(
            max_common_layout(&row_major, &column_major),
            Ok(layout("1:0"))
        );
    }

    #[test]
    fn equal_layouts_share_everything() {
        let row_major = layout("(4,8):(8,1)");
        assert_eq!(max_common_vector(&row_major, &row_major), Ok(32));
        assert_eq!(
            max_common_layout(&row_major, &row_major),
            Ok(layout("(8,4):(4,1)"))
        );
        let column_major = layout("(4,8):(1,4)");
        assert_eq!(max_common_vector(&column_major, &column_major), Ok(32));
        assert_eq!(
            max_common_layout(&column_major, &column_major),
            Ok(layout("32:1"))
        );
    }

    #[test]
    fn partial_agreement() {
        let padded_columns = layout("(4,8):(1,8)");
        let column_major = layout("(4,8):(1,4)");
        assert_eq!(max_common_vector(&padded_columns, &column_major), Ok(4));
        assert_eq!(
            max_common_layout(&padded_columns, &column_major),
            Ok(layout("4:1"))
        );
        assert_eq!(
            max_common_vector(&layout("(2,4,8):(1,16,2)"), &layout("(2,4,8):(1,2,8)")),
            Ok(2)
        );
    }
}
