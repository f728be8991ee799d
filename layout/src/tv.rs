//! Thread-value (TV) layouts from a thread layout and a value layout: CuTe DSL's
//! `make_layout_tv`.
//!
//! A TV layout maps `(thread, value)` to a cell of a tile: thread `t`'s value `v` lives
//! at `layout_tv(t, v)`, the column-major index of an `(m, n)` cell of the tile. It is
//! what partitioning composes with a tensor's layout to give each thread its elements.
//!
//! `make_layout_tv(thr, val)` builds it from two compact layouts over the tile's modes:
//! `thr : (thread_m, thread_n) -> thread` arranges the threads, `val : (value_m,
//! value_n) -> value` arranges one thread's values. Each thread owns a contiguous
//! `size(val_m) x size(val_n)` patch, and the patches are arranged as `thr` says:
//!
//! 1. `layout_mn = raked_product(thr, val)` maps a tile cell `(m, n)` to
//!    `thread + size(thr) * value`, mode `i` being `(value mode i, thread mode i)`;
//! 2. `tiler_mn = product_each(shape(layout_mn))` is the tile's shape;
//! 3. `layout_tv = right_inverse(layout_mn) ∘ (size(thr), size(val)):(1, size(thr))`
//!    reads `(thread, value)` as the index `thread + size(thr) * value` and inverts.
//!
//! Example (the DSL's documentation): `thr = (2,3):(3,1)`, `val = (2,2):(2,1)` give
//! `tiler_mn = (4,6)` and `layout_tv = ((3,2),(2,2)):((8,2),(4,1))`: thread 1 owns
//! columns 2 and 3 of rows 0 and 1. With `thr = (8,16):(16,1)` and `val = (1,8):(0,1)`
//! (128 threads, 8 consecutive values each along a 128-wide row) the result is
//! seed 004's hand-written `((16,8),8):((64,1),8)` over an `(8,128)` tile.

use crate::{
    Int, IntTuple, Layout, LayoutError, composition, product_each, raked_product, right_inverse,
};

/// CuTe DSL's `make_layout_tv(thr_layout, val_layout)`: the tile shape `tiler_mn` and
/// the layout `(thread, value) -> column-major index in tiler_mn`.
///
/// Both layouts must be compact (each a bijection onto `0..size`), as the DSL requires;
/// otherwise an error is returned.
pub fn make_layout_tv<I: Int>(
    thr_layout: &Layout<I>,
    val_layout: &Layout<I>,
) -> Result<(IntTuple<I>, Layout<I>), LayoutError> {
    check_compact("thread", thr_layout)?;
    check_compact("value", val_layout)?;
    let layout_mn = raked_product(thr_layout, val_layout)?;
    let tiler_mn = product_each(layout_mn.shape())?;
    let inverse = right_inverse(&layout_mn)?;
    let thread_value = Layout::column_major(IntTuple::Tuple(vec![
        IntTuple::Int(thr_layout.size()?),
        IntTuple::Int(val_layout.size()?),
    ]))?;
    let layout_tv = composition(&inverse, &thread_value)?;
    Ok((tiler_mn, layout_tv))
}

/// Errors unless `layout` maps its domain onto `0..size` one to one (its right inverse
/// is as large as the layout).
fn check_compact<I: Int>(role: &str, layout: &Layout<I>) -> Result<(), LayoutError> {
    if right_inverse(layout)?.size()? == layout.size()? {
        return Ok(());
    }
    Err(LayoutError::Unsupported {
        operation: "make_layout_tv",
        reason: format!(
            "the {role} layout {layout} must be compact (map onto 0..{} one to one)",
            layout.size()?
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(text: &str) -> Layout {
        text.parse().unwrap()
    }

    #[test]
    fn documented_example() {
        let (tiler, tv) = make_layout_tv(&layout("(2,3):(3,1)"), &layout("(2,2):(2,1)")).unwrap();
        assert_eq!(tiler, IntTuple::ints(&[4, 6]));
        assert_eq!(tv, layout("((3,2),(2,2)):((8,2),(4,1))"));
    }

    #[test]
    fn seed_004_copy_layout() {
        let (tiler, tv) = make_layout_tv(&layout("(8,16):(16,1)"), &layout("(1,8):(0,1)")).unwrap();
        assert_eq!(tiler, IntTuple::ints(&[8, 128]));
        assert_eq!(tv, layout("((16,8),8):((64,1),8)"));
    }

    #[test]
    fn rank_one_layouts_give_consecutive_values_per_thread() {
        let (tiler, tv) = make_layout_tv(&layout("4:1"), &layout("2:1")).unwrap();
        assert_eq!(tiler.product(), Ok(8));
        for (thread, value) in [(0, 0), (0, 1), (1, 0), (3, 1)] {
            let coord = IntTuple::ints(&[thread, value]);
            assert_eq!(tv.evaluate(&coord), Ok(2 * thread + value));
        }
    }

    #[test]
    fn non_compact_layouts_are_rejected() {
        let gaps = make_layout_tv(&layout("(2,3):(6,1)"), &layout("(2,2):(2,1)"));
        assert!(matches!(gaps, Err(LayoutError::Unsupported { .. })));
        let broadcast = make_layout_tv(&layout("(2,3):(3,1)"), &layout("(2,2):(0,1)"));
        assert!(matches!(broadcast, Err(LayoutError::Unsupported { .. })));
    }
}
