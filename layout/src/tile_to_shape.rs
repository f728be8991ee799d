//! `tile_to_shape`: repeat a block (typically a swizzle atom's layout) until it covers
//! a target shape (C++ CuTe semantics).
//!
//! With `R = rank(target)`, the block is padded to rank `R` with `1:0` modes; the
//! number of copies along mode `i` is `size(target_i) / size(block_i)`, which must
//! divide exactly when both are static; the copies are laid out by
//! `make_ordered_layout(copies, order)` (column-major when no order is given, so the
//! block repeats along mode 0 first); the result is `blocked_product(block, copies)`.
//! Mode `i` of the result is (block mode `i`, copies along `i`), so its size is the
//! target's mode `i` size.

use crate::{Int, IntTuple, Layout, LayoutError, blocked_product, ceil_div, product_each};

/// Repeats `block` to cover `target_shape`, copies ordered by `order` (an int-tuple
/// weakly congruent with the flat tuple of copy counts; `None` means column-major).
pub fn tile_to_shape<I: Int>(
    block: &Layout<I>,
    target_shape: &IntTuple<I>,
    order: Option<&IntTuple<i64>>,
) -> Result<Layout<I>, LayoutError> {
    let rank = target_shape.rank();
    if block.rank() > rank {
        return Err(LayoutError::Unsupported {
            operation: "tile_to_shape",
            reason: format!(
                "block {block} has {} modes but the target shape {target_shape} only {rank}",
                block.rank()
            ),
        });
    }
    let padded_block = block.padded_to_rank(rank)?;
    let block_extents = product_each(padded_block.shape())?;
    let target_extents = product_each(target_shape)?;
    for (target_extent, block_extent) in target_extents.leaves().iter().zip(block_extents.leaves())
    {
        if let (Some(target_value), Some(block_value)) =
            (target_extent.as_static(), block_extent.as_static())
            && target_value.rem(&block_value)? != 0
        {
            return Err(LayoutError::NotDivisible {
                operation: "tile_to_shape",
                dividend: format!("target extent {target_value}"),
                divisor: format!("block extent {block_value}"),
            });
        }
    }
    let copies = ceil_div(&target_extents, &block_extents)?;
    let copies_layout = match order {
        None => Layout::column_major(copies)?,
        Some(order) => Layout::ordered(copies, order)?,
    };
    blocked_product(&padded_block, &copies_layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(text: &str) -> Layout {
        text.parse().unwrap()
    }

    fn tile(block: &str, target: &[i64], order: Option<&[i64]>) -> Result<Layout, LayoutError> {
        let order = order.map(IntTuple::ints);
        tile_to_shape(&layout(block), &IntTuple::ints(target), order.as_ref())
    }

    #[test]
    fn repeats_column_major_by_default() {
        let tiled = tile("(8,8):(8,1)", &[64, 64], None).unwrap();
        assert_eq!(product_each(tiled.shape()), Ok(IntTuple::ints(&[64, 64])));
        // Block copies along mode 0 first: the copy below the first starts at 64.
        assert_eq!(tiled.evaluate(&IntTuple::ints(&[8, 0])), Ok(64));
        assert_eq!(tiled.evaluate(&IntTuple::ints(&[0, 8])), Ok(512));
        assert_eq!(tiled.evaluate(&IntTuple::ints(&[9, 3])), Ok(64 + 8 + 3));
    }

    #[test]
    fn order_picks_the_mode_repeated_first() {
        let tiled = tile("(8,8):(8,1)", &[64, 64], Some(&[1, 0])).unwrap();
        assert_eq!(tiled.evaluate(&IntTuple::ints(&[0, 8])), Ok(64));
        assert_eq!(tiled.evaluate(&IntTuple::ints(&[8, 0])), Ok(512));
    }

    #[test]
    fn pads_the_block_and_rejects_uneven_targets() {
        let tiled = tile("(8,64):(64,1)", &[128, 64, 3], None).unwrap();
        assert_eq!(
            product_each(tiled.shape()),
            Ok(IntTuple::ints(&[128, 64, 3]))
        );
        assert_eq!(tiled.evaluate(&IntTuple::ints(&[0, 0, 1])), Ok(8192));
        assert!(matches!(
            tile("(8,8):(8,1)", &[60, 64], None),
            Err(LayoutError::NotDivisible { .. })
        ));
        assert!(matches!(
            tile("(2,2,2):(1,2,4)", &[4, 4], None),
            Err(LayoutError::Unsupported { .. })
        ));
    }
}
