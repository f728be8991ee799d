//! Logical products and their rearrangements: `logical_product`, `zipped_product`,
//! `tiled_product`, `flat_product`, and the rank-preserving `blocked_product` and
//! `raked_product` (C++ CuTe semantics).
//!
//! `logical_product(a, b)` is `(a, complement(a, size(a)*cosize(b)) ∘ b)`: mode 0 is
//! the block `a`, mode 1 lays copies of it out as `b` says.

use crate::complement::complement;
use crate::composition::composition;
use crate::divide::{by_mode, unpack, unzip_by_tiler};
use crate::{AsTiler, Int, IntTuple, Layout, LayoutError, Tiler};

/// The rank-2 layout (block, block repeated as `tiler`); by mode for a by-mode tiler.
pub fn logical_product<I: Int>(
    block: &Layout<I>,
    tiler: &impl AsTiler<I>,
) -> Result<Layout<I>, LayoutError> {
    let tiler = tiler.as_tiler();
    match (tiler.as_ref(), tiler.as_layout()?) {
        (_, Some(repeat)) => {
            let cotarget = block.size()?.mul(&repeat.cosize()?)?;
            let rest = complement(block, Some(&IntTuple::Int(cotarget)))?;
            Layout::from_modes(vec![block.clone(), composition(&rest, &repeat)?])
        }
        (Tiler::Modes(tilers), None) => by_mode("logical_product", block, tilers, logical_product),
        _ => Ok(block.clone()),
    }
}

/// `((block modes...), (repeat modes...))`.
pub fn zipped_product<I: Int>(
    block: &Layout<I>,
    tiler: &impl AsTiler<I>,
) -> Result<Layout<I>, LayoutError> {
    zipped("zipped_product", block, &tiler.as_tiler())
}

/// `((block modes...), repeat mode 0, repeat mode 1, ...)`.
pub fn tiled_product<I: Int>(
    block: &Layout<I>,
    tiler: &impl AsTiler<I>,
) -> Result<Layout<I>, LayoutError> {
    unpack(&zipped("tiled_product", block, &tiler.as_tiler())?, false)
}

/// `(block mode 0, ..., repeat mode 0, ...)`.
pub fn flat_product<I: Int>(
    block: &Layout<I>,
    tiler: &impl AsTiler<I>,
) -> Result<Layout<I>, LayoutError> {
    unpack(&zipped("flat_product", block, &tiler.as_tiler())?, true)
}

/// The zipped product, its errors naming the operation `name` the caller asked for.
fn zipped<I: Int>(
    name: &'static str,
    block: &Layout<I>,
    tiler: &Tiler<I>,
) -> Result<Layout<I>, LayoutError> {
    let (blocks, repeats) = unzip_by_tiler(name, &logical_product(block, tiler)?, tiler)?;
    Layout::from_modes(vec![blocks, repeats])
}

/// CuTe's `zip` of two layouts: when the first is a tuple, mode `i` pairs mode `i` of
/// each (the second must be a tuple of the same rank); otherwise the result is the
/// single mode `(first, second)`.
fn zip<I: Int>(first: &Layout<I>, second: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    if first.shape().is_int() {
        return Layout::from_modes(vec![Layout::from_modes(vec![
            first.clone(),
            second.clone(),
        ])?]);
    }
    if second.shape().is_int() || second.rank() != first.rank() {
        return Err(LayoutError::Incongruent {
            operation: "zip",
            left: first.shape().to_string(),
            right: second.shape().to_string(),
        });
    }
    let pairs = first
        .modes()
        .into_iter()
        .zip(second.modes())
        .map(|(a, b)| Layout::from_modes(vec![a, b]));
    Layout::from_modes(pairs.collect::<Result<Vec<_>, _>>()?)
}

/// Pads both operands to a common rank, takes their logical product and zips its two
/// modes, block first or repeat first (C++ 3.8+: no coalescing).
fn zipped_by_rank<I: Int>(
    block: &Layout<I>,
    tiler: &Layout<I>,
    block_first: bool,
) -> Result<Layout<I>, LayoutError> {
    let rank = block.rank().max(tiler.rank());
    let product = logical_product(&block.padded_to_rank(rank)?, &tiler.padded_to_rank(rank)?)?;
    let (blocks, repeats) = (product.mode(0)?, product.mode(1)?);
    if block_first {
        zip(&blocks, &repeats)
    } else {
        zip(&repeats, &blocks)
    }
}

/// The block repeated as `tiler` says, mode by mode, each block contiguous: mode `i`
/// of the result is (block mode `i`, repeat mode `i`).
pub fn blocked_product<I: Int>(
    block: &Layout<I>,
    tiler: &Layout<I>,
) -> Result<Layout<I>, LayoutError> {
    zipped_by_rank(block, tiler, true)
}

/// Like [`blocked_product`] but interleaved: mode `i` is (repeat mode `i`, block mode
/// `i`), so the copies of the block are raked across each other.
pub fn raked_product<I: Int>(
    block: &Layout<I>,
    tiler: &Layout<I>,
) -> Result<Layout<I>, LayoutError> {
    zipped_by_rank(block, tiler, false)
}
