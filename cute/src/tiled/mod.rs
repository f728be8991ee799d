//! Tiled copies and tiled MMAs: CuTe's `TiledCopy` and `TiledMMA`, and how they
//! partition a tensor among threads.
//!
//! The algorithms follow CuTe C++ (`include/cute/atom/copy_atom.hpp`,
//! `mma_atom.hpp`): a tiled copy divides a tensor by its tile (`zipped_divide`),
//! composes the tile mode with its thread-value layout rewritten into the atom's
//! source or destination view, and slices one thread's values out; a tiled MMA tiles
//! by its permutation and the atom's shape, composes with the atom's operand
//! thread-value layout and divides by the threads of each mode. Everything runs on
//! `Layout<SymInt>`, so a tensor with run-time extents is partitioned symbolically and
//! the thread index stays a variable in the offset.
//!
//! `copy.rs` partitions for a tiled copy, `mma.rs` for a tiled MMA; the helpers they
//! share are here.

mod copy;
pub use copy::thread_slice;
mod mma;

use std::sync::Arc;

use layout::{Coord, IntTuple, Layout, LayoutError, SymInt, Tiler};

use crate::atom::Atom;

/// A symbolic layout, the layout of a tensor being partitioned.
type SymLayout = Layout<SymInt>;

/// Which side of a copy a tensor is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The tensor read from (`partition_S`).
    Source,
    /// The tensor written to (`partition_D`).
    Destination,
}

/// A copy atom repeated over a tile by a thread-value layout.
#[derive(Clone, Debug, PartialEq)]
pub struct TiledCopy {
    /// The instruction.
    pub atom: Arc<Atom>,
    /// `(thread, value) -> column-major index into the tile`.
    pub layout_tv: Layout<i64>,
    /// The tile the copy covers, one extent per mode.
    pub tiler: IntTuple<i64>,
}

/// A tiled MMA: an MMA atom repeated over warps and permuted.
#[derive(Clone, Debug, PartialEq)]
pub struct TiledMma {
    /// The instruction.
    pub atom: Arc<Atom>,
    /// `(atom thread, M, N, K)` arrangement of the threads.
    pub thr_layout_vmnk: Layout<i64>,
    /// The permutation of each of M, N and K (`_` keeps the mode as is).
    pub permutation: [Tiler<i64>; 3],
}

/// The operands of an MMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// The `(M, K)` input.
    A,
    /// The `(N, K)` input.
    B,
    /// The `(M, N)` accumulator.
    C,
}

/// The size of mode `index` of a static layout.
fn size_of_mode(layout: &Layout<i64>, index: usize) -> Result<i64, LayoutError> {
    layout.mode(index).and_then(|mode| mode.size())
}

/// A coordinate of `_` congruent with the top level of `layout`'s shape.
fn free_like(layout: &SymLayout) -> Coord<SymInt> {
    match layout.shape() {
        IntTuple::Int(_) => Coord::Free,
        IntTuple::Tuple(modes) => Coord::Tuple(modes.iter().map(|_| Coord::Free).collect()),
    }
}

/// `((a, b), (c, d))` to `((a, c), (b, d))`: CuTe's `zip` of a rank-2 of rank-2s.
fn zip_pairs(layout: &SymLayout) -> Result<SymLayout, LayoutError> {
    let (outer_first, outer_second) = (layout.mode(0)?, layout.mode(1)?);
    let pair = |index: usize| -> Result<SymLayout, LayoutError> {
        Layout::from_modes(vec![outer_first.mode(index)?, outer_second.mode(index)?])
    };
    Layout::from_modes(vec![pair(0)?, pair(1)?])
}
