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

use std::rc::Rc;

use layout::{
    Coord, Int, IntTuple, Layout, LayoutError, SymInt, Tiler, coalesce_by, composition,
    idx2crd_strided, logical_divide, logical_product, product_each, right_inverse,
    slice_and_offset, tiled_product, upcast,
};

use crate::Error;
use crate::atom::{Atom, CopyAtom, MmaAtom};

/// A symbolic layout, the layout of a tensor being partitioned.
type SymLayout = Layout<SymInt>;

/// Which side of a copy a tensor is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    pub atom: Rc<Atom>,
    /// `(thread, value) -> column-major index into the tile`.
    pub layout_tv: Layout<i64>,
    /// The tile the copy covers, one extent per mode.
    pub tiler: IntTuple<i64>,
}

/// A tiled MMA: an MMA atom repeated over warps and permuted.
#[derive(Clone, Debug, PartialEq)]
pub struct TiledMma {
    /// The instruction.
    pub atom: Rc<Atom>,
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

impl Operand {
    /// The two problem modes (M = 0, N = 1, K = 2) the operand spans.
    fn modes(self) -> (usize, usize) {
        match self {
            Operand::A => (0, 2),
            Operand::B => (1, 2),
            Operand::C => (0, 1),
        }
    }
}

impl TiledCopy {
    /// A tiled copy, after checking that the thread-value layout gives every atom
    /// instance whole instructions: the thread count and the values per thread must be
    /// multiples of the atom's.
    pub fn new(
        atom: Rc<Atom>,
        layout_tv: Layout<i64>,
        tiler: IntTuple<i64>,
    ) -> Result<TiledCopy, Error> {
        let copy = atom.as_copy().ok_or_else(|| {
            Error::Inconsistent(format!("`{}` is an MMA atom, not a copy atom", atom.name))
        })?;
        if layout_tv.rank() != 2 {
            return Err(Error::Inconsistent(format!(
                "a thread-value layout has two modes, (thread, value); {layout_tv} has {}",
                layout_tv.rank()
            )));
        }
        let threads = size_of_mode(&layout_tv, 0)?;
        let values = size_of_mode(&layout_tv, 1)?;
        let atom_threads = copy.threads.size()?;
        let atom_values = copy.values_per_thread()?;
        if threads % atom_threads != 0 {
            return Err(Error::Inconsistent(format!(
                "the layout has {threads} threads but `{}` is issued by {atom_threads} threads together",
                atom.name
            )));
        }
        if values % atom_values != 0 {
            return Err(Error::Inconsistent(format!(
                "each thread holds {values} value(s) of the tile, but one `{}` moves {atom_values} per thread",
                atom.display_name()
            )));
        }
        Ok(TiledCopy {
            atom,
            layout_tv,
            tiler,
        })
    }

    /// The copy atom's facts.
    pub fn copy_atom(&self) -> &CopyAtom {
        self.atom
            .as_copy()
            .unwrap_or_else(|| unreachable!("TiledCopy::new accepts copy atoms only"))
    }

    /// Threads the tiled copy needs.
    pub fn threads(&self) -> i64 {
        size_of_mode(&self.layout_tv, 0).unwrap_or(0)
    }

    /// One line for hovers and `--dump-types`.
    pub fn summary(&self) -> String {
        format!(
            "{} over tile {}, TV {}",
            self.atom.display_name(),
            self.tiler,
            self.layout_tv
        )
    }

    /// CuTe's `tidfrg_S` / `tidfrg_D`: the tensor layout rearranged to
    /// `(thread, value, rest)`, where `value` is `(atom values, repeats)`.
    pub fn thread_value_fragment(
        &self,
        layout: &SymLayout,
        side: Side,
    ) -> Result<SymLayout, LayoutError> {
        let copy = self.copy_atom();
        let divided = zipped_divide_guided(layout, &Tiler::from_shape(&self.tiler.to_symbolic())?)?;
        let atom_threads = copy.threads.size()?;
        let atom_values = copy.values_per_thread()?;
        let atom_tv = zipped_divide_guided(
            &self.layout_tv.to_symbolic(),
            &Tiler::Modes(vec![
                Tiler::extent(SymInt::constant(atom_threads))?,
                Tiler::extent(SymInt::constant(atom_values))?,
            ]),
        )?;
        let target = match side {
            Side::Source => &copy.src_layout,
            Side::Destination => &copy.dst_layout,
        };
        let ref_to_target = composition(&right_inverse(&copy.ref_layout)?, target)?.to_symbolic();
        let target_tv = composition(
            &atom_tv,
            &Tiler::Modes(vec![Tiler::Layout(ref_to_target), Tiler::Keep]),
        )?;
        let zipped = zip_pairs(&target_tv)?;
        let profile = IntTuple::Tuple(vec![
            IntTuple::int(1),
            IntTuple::Tuple(vec![IntTuple::int(1), IntTuple::int(1)]),
        ]);
        let thread_value_to_tile = coalesce_by(&zipped, &profile)?;
        let tv_tensor = composition(
            &divided,
            &Tiler::Modes(vec![Tiler::Layout(thread_value_to_tile), Tiler::Keep]),
        )?;
        let unfold = Coord::Tuple(vec![
            Coord::Tuple(vec![Coord::Free, Coord::Free]),
            Coord::Free,
        ]);
        layout::slice(&unfold, &tv_tensor)
    }

    /// CuTe's `ThrCopy::partition_S` / `partition_D`: `thread`'s values, shaped
    /// `(CPY, CPY_M, CPY_N, ...)`, and the offset where they start.
    pub fn partition(
        &self,
        layout: &SymLayout,
        side: Side,
        thread: &SymInt,
    ) -> Result<(SymLayout, SymInt), LayoutError> {
        let fragment = self.thread_value_fragment(layout, side)?;
        let rest = fragment.mode(2)?;
        let coord = Coord::Tuple(vec![
            Coord::Int(thread.clone()),
            Coord::Free,
            free_like(&rest),
        ]);
        slice_and_offset(&coord, &fragment)
    }

    /// CuTe's `ThrCopy::retile_S` / `retile_D`: a thread's register fragment (as some
    /// other partitioning shaped it) viewed as this copy's `(CPY, CPY_M, CPY_N, ...)`.
    pub fn retile(&self, layout: &SymLayout) -> Result<SymLayout, LayoutError> {
        let copy = self.copy_atom();
        let values = layout.shape().get(0)?.product()?.static_value("retile")?;
        let threads = self.threads();
        let tile_shape = self.tiler.clone();
        let inverse = right_inverse(&self.layout_tv)?;
        let reshaped = composition(&inverse, &Layout::column_major(tile_shape)?)?;
        let fragment_mn = upcast(&reshaped, threads * values)?;
        let values_layout = Layout::column_major(IntTuple::int(values))?;
        let fragment_v = zipped_divide_guided(
            &logical_product(&values_layout, &right_inverse(&fragment_mn)?)?.to_symbolic(),
            &Tiler::Layout(Layout::column_major(IntTuple::Int(SymInt::constant(
                copy.values_per_thread()?,
            )))?),
        )?;
        let mut tile = vec![IntTuple::int(values)];
        tile.extend(product_each(fragment_mn.shape())?.modes());
        let tile = Tiler::from_shape(&IntTuple::Tuple(tile).to_symbolic())?;
        let tiled = zipped_divide_guided(layout, &tile)?;
        let viewed = composition(
            &tiled,
            &Tiler::Modes(vec![Tiler::Layout(fragment_v.to_symbolic()), Tiler::Keep]),
        )?;
        let rest = viewed.mode(1)?;
        let mut rest_coord = vec![Coord::Int(SymInt::constant(0))];
        rest_coord.extend((1..rest.rank()).map(|_| Coord::Free));
        let coord = Coord::Tuple(vec![Coord::Free, Coord::Tuple(rest_coord)]);
        layout::slice(&coord, &viewed)
    }
}

impl TiledMma {
    /// CuTe's `make_tiled_mma(atom, atom_layout, permutation)`.
    pub fn new(
        atom: Rc<Atom>,
        atom_layout: &Layout<i64>,
        permutation: [Tiler<i64>; 3],
    ) -> Result<TiledMma, Error> {
        let mma = atom.as_mma().ok_or_else(|| {
            Error::Inconsistent(format!("`{}` is a copy atom, not an MMA atom", atom.name))
        })?;
        if atom_layout.rank() > 3 {
            return Err(Error::Inconsistent(format!(
                "the atom layout arranges atoms over (M, N, K); {atom_layout} has {} modes",
                atom_layout.rank()
            )));
        }
        let mut modes = atom_layout.modes();
        while modes.len() < 3 {
            modes.push(Layout::new(IntTuple::int(1), IntTuple::int(0))?);
        }
        let atom_layout = Layout::from_modes(modes)?;
        let thr_layout_vmnk = tiled_product(&mma.threads, &atom_layout)?;
        let tiled = TiledMma {
            atom: atom.clone(),
            thr_layout_vmnk,
            permutation,
        };
        for mode in 0..3 {
            let minimum = mma.shape_mnk[mode] * tiled.threads_along(mode);
            let size = tiled.tile_size(mode)?;
            if size % minimum != 0 {
                return Err(Error::Inconsistent(format!(
                    "the permutation of {} covers {size}, not a multiple of the {minimum} the atoms cover",
                    ["M", "N", "K"][mode]
                )));
            }
        }
        Ok(tiled)
    }

    /// The MMA atom's facts.
    pub fn mma_atom(&self) -> &MmaAtom {
        self.atom
            .as_mma()
            .unwrap_or_else(|| unreachable!("TiledMma::new accepts MMA atoms only"))
    }

    /// Threads the tiled MMA needs.
    pub fn threads(&self) -> i64 {
        self.thr_layout_vmnk.size().unwrap_or(0)
    }

    /// Atom instances along problem mode `mode` (M = 0, N = 1, K = 2).
    fn threads_along(&self, mode: usize) -> i64 {
        size_of_mode(&self.thr_layout_vmnk, mode + 1).unwrap_or(1)
    }

    /// CuTe's `tile_size<mode>`: the extent of M, N or K one step of the tiled MMA covers.
    pub fn tile_size(&self, mode: usize) -> Result<i64, LayoutError> {
        match &self.permutation[mode] {
            Tiler::Extent(extent) => Ok(*extent),
            Tiler::Layout(layout) => layout.size(),
            Tiler::Keep | Tiler::Modes(_) => {
                Ok(self.mma_atom().shape_mnk[mode] * self.threads_along(mode))
            }
        }
    }

    /// One line for hovers and `--dump-types`.
    pub fn summary(&self) -> String {
        let tile: Vec<String> = (0..3)
            .map(|mode| {
                self.tile_size(mode)
                    .map_or("?".to_owned(), |size| size.to_string())
            })
            .collect();
        format!(
            "{} x {} threads, tile ({})",
            self.atom.display_name(),
            self.threads(),
            tile.join(",")
        )
    }

    /// CuTe's `thrfrg_A/B/C`: `((ThrV, (Thr0, Thr1)), (FrgV, (Rest0, Rest1, ...)))`.
    fn thread_fragment(
        &self,
        operand: Operand,
        layout: &SymLayout,
    ) -> Result<SymLayout, LayoutError> {
        let mma = self.mma_atom();
        let (first, second) = operand.modes();
        let symbolic = |tiler: &Tiler<i64>| -> Result<Tiler<SymInt>, LayoutError> {
            Ok(match tiler {
                Tiler::Extent(extent) => Tiler::extent(SymInt::constant(*extent))?,
                Tiler::Layout(layout) => Tiler::Layout(layout.to_symbolic()),
                Tiler::Keep | Tiler::Modes(_) => Tiler::Keep,
            })
        };
        let permuted = logical_divide(
            layout,
            &Tiler::Modes(vec![
                symbolic(&self.permutation[first])?,
                symbolic(&self.permutation[second])?,
            ]),
        )?;
        let compact = |extent: i64| -> Result<Tiler<SymInt>, LayoutError> {
            Ok(Tiler::Layout(Layout::column_major(IntTuple::Int(
                SymInt::constant(extent),
            ))?))
        };
        let atom_tiles = zipped_divide_guided(
            &permuted,
            &Tiler::Modes(vec![
                compact(mma.shape_mnk[first])?,
                compact(mma.shape_mnk[second])?,
            ]),
        )?;
        let operand_tv = match operand {
            Operand::A => &mma.layout_a,
            Operand::B => &mma.layout_b,
            Operand::C => &mma.layout_c,
        };
        let thread_value = composition(
            &atom_tiles,
            &Tiler::Modes(vec![Tiler::Layout(operand_tv.to_symbolic()), Tiler::Keep]),
        )?;
        zipped_divide_guided(
            &thread_value,
            &Tiler::Modes(vec![
                Tiler::Keep,
                Tiler::Modes(vec![
                    compact(self.threads_along(first))?,
                    compact(self.threads_along(second))?,
                ]),
            ]),
        )
    }

    /// CuTe's `ThrMMA::partition_A/B/C`: `thread`'s values of the operand, shaped
    /// `(MMA, MMA_0, MMA_1, ...)`, and the offset where they start.
    pub fn partition(
        &self,
        operand: Operand,
        layout: &SymLayout,
        thread: &SymInt,
    ) -> Result<(SymLayout, SymInt), LayoutError> {
        let fragment = self.thread_fragment(operand, layout)?;
        let vmnk = idx2crd_strided(
            &IntTuple::Int(thread.clone()),
            &self.thr_layout_vmnk.shape().to_symbolic(),
            &self.thr_layout_vmnk.stride().to_symbolic(),
        )?;
        let component = |index: usize| -> Result<Coord<SymInt>, LayoutError> {
            Ok(Coord::Int(
                vmnk.get(index)?
                    .as_int()
                    .cloned()
                    .unwrap_or_else(|| SymInt::constant(0)),
            ))
        };
        let (first, second) = operand.modes();
        let rests = fragment.mode(1)?.mode(1)?;
        let coord = Coord::Tuple(vec![
            Coord::Tuple(vec![
                component(0)?,
                Coord::Tuple(vec![component(first + 1)?, component(second + 1)?]),
            ]),
            Coord::Tuple(vec![Coord::Free, free_like(&rests)]),
        ]);
        slice_and_offset(&coord, &fragment)
    }

    /// CuTe's `get_layoutA_TV` / `get_layoutB_TV`: `(thread index, value) -> (M, K)` or
    /// `(N, K)` of one tile step, and that tile; what `make_tiled_copy_A/B` copies with.
    pub fn operand_layout_tv(
        &self,
        operand: Operand,
    ) -> Result<(Layout<i64>, IntTuple<i64>), LayoutError> {
        let (first, second) = operand.modes();
        let tile = IntTuple::ints(&[self.tile_size(first)?, self.tile_size(second)?]);
        let reference = Layout::column_major(tile.to_symbolic())?;
        let fragment = self.thread_fragment(operand, &reference)?;
        let (m_threads, n_threads) = (self.threads_along(0), self.threads_along(1));
        // Spread the operand's thread modes over (M, N, K): the missing one gets stride 0.
        let spread = match operand {
            Operand::A => Layout::<i64>::new(
                IntTuple::ints(&[m_threads, n_threads]),
                IntTuple::ints(&[1, 0]),
            ),
            Operand::B => Layout::<i64>::new(
                IntTuple::ints(&[m_threads, n_threads]),
                IntTuple::ints(&[0, 1]),
            ),
            Operand::C => Layout::column_major(IntTuple::ints(&[m_threads, n_threads])),
        }?;
        let spread_tiler = Tiler::Modes(vec![
            Tiler::Modes(vec![
                Tiler::Keep,
                Tiler::Modes(vec![Tiler::Layout(spread.to_symbolic()), Tiler::Keep]),
            ]),
            Tiler::Keep,
        ]);
        let spread_fragment = composition(&fragment, &spread_tiler)?;
        let thread_index = right_inverse(&self.thr_layout_vmnk)?.to_symbolic();
        let layout_tv = composition(
            &spread_fragment,
            &Tiler::Modes(vec![Tiler::Layout(thread_index), Tiler::Keep]),
        )?;
        Ok((layout_tv.to_static()?, tile))
    }
}

/// CuTe's `make_fragment_like` on a layout: a compact layout of the same shape for a
/// register fragment. Mode 0 is column-major (keeping broadcast modes at stride 0),
/// the other modes follow the order of their strides after it.
pub(crate) fn fragment_layout(layout: &SymLayout) -> Result<Layout<i64>, LayoutError> {
    let shape = layout
        .shape()
        .try_map(&mut |extent: &SymInt| extent.static_value("make_fragment_like"))?;
    let first = column_major_keeping_zeros(&layout.mode(0)?, shape.get(0)?)?;
    if layout.rank() == 1 {
        return Ok(first);
    }
    let rest_shape = IntTuple::Tuple(shape.modes()[1..].to_vec());
    let rest_strides = IntTuple::Tuple(layout.stride().modes()[1..].to_vec());
    let order = stride_order(&rest_strides);
    let rest = match order {
        Some(order) => Layout::ordered(rest_shape, &order)?,
        None => Layout::column_major(rest_shape)?,
    };
    let scale = first.cosize()?.max(1);
    let mut modes = vec![first];
    for mode in rest.modes() {
        let stride = mode
            .stride()
            .try_map(&mut |stride: &i64| stride.mul(&scale))?;
        modes.push(Layout::new(mode.shape().clone(), stride)?);
    }
    Layout::from_modes(modes)
}

/// Column-major strides for `shape`, except where `layout` has stride 0.
fn column_major_keeping_zeros(
    layout: &SymLayout,
    shape: &IntTuple<i64>,
) -> Result<Layout<i64>, LayoutError> {
    let compact = Layout::column_major(shape.clone())?;
    let zero: Vec<bool> = layout
        .stride()
        .leaves()
        .iter()
        .map(|stride| stride.is_static(0))
        .collect();
    let mut leaf = 0;
    let mut next = 1i64;
    let stride = compact.stride().try_map(&mut |_: &i64| {
        let index = leaf;
        leaf += 1;
        let extent = shape.leaves().get(index).copied().unwrap_or(1);
        if zero.get(index).copied().unwrap_or(false) || extent == 1 {
            return Ok(0);
        }
        let stride = next;
        next = next.mul(&extent)?;
        Ok(stride)
    })?;
    Layout::new(shape.clone(), stride)
}

/// The rank of each leaf stride among all leaf strides (ties by position), when every
/// stride is static; shaped like the strides.
fn stride_order(strides: &IntTuple<SymInt>) -> Option<IntTuple<i64>> {
    let leaves: Vec<i64> = strides
        .leaves()
        .iter()
        .map(SymInt::as_constant)
        .collect::<Option<_>>()?;
    let mut sorted: Vec<(i64, usize)> = leaves.iter().copied().zip(0..).collect();
    sorted.sort();
    let mut rank = vec![0i64; leaves.len()];
    for (position, (_, leaf)) in sorted.into_iter().enumerate() {
        rank[leaf] = i64::try_from(position).ok()?;
    }
    let mut next = 0;
    strides
        .try_map(&mut |_: &SymInt| {
            let value = rank[next];
            next += 1;
            Ok::<i64, LayoutError>(value)
        })
        .ok()
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

/// CuTe's `zipped_divide` as `tile_unzip(logical_divide(..))` computes it: each mode
/// under a non-tuple guide entry, `_` included, must be a `(tile, rest)` pair.
fn zipped_divide_guided(
    layout: &SymLayout,
    tiler: &Tiler<SymInt>,
) -> Result<SymLayout, LayoutError> {
    let divided = logical_divide(layout, tiler)?;
    let (tiles, rests) = unzip(&divided, tiler)?;
    Layout::from_modes(vec![tiles, rests])
}

fn unzip(layout: &SymLayout, guide: &Tiler<SymInt>) -> Result<(SymLayout, SymLayout), LayoutError> {
    match guide {
        Tiler::Modes(guides) => {
            let modes = layout.modes();
            let mut tiles = Vec::with_capacity(guides.len());
            let mut rests = Vec::with_capacity(modes.len());
            for (mode, guide) in modes.iter().zip(guides) {
                let (tile, rest) = unzip(mode, guide)?;
                tiles.push(tile);
                rests.push(rest);
            }
            rests.extend(modes.iter().skip(guides.len()).cloned());
            Ok((Layout::from_modes(tiles)?, Layout::from_modes(rests)?))
        }
        _ => match layout.modes().as_slice() {
            [tile, rest] => Ok((tile.clone(), rest.clone())),
            _ => Err(LayoutError::Unsupported {
                operation: "zipped_divide",
                reason: format!("expected a (tile, rest) pair, found {layout}"),
            }),
        },
    }
}
