//! CuTe's `TiledMMA`: atoms arranged over (M, N, K) and permuted, each operand's
//! thread-value layout, and the partitioning of a tensor's layout among its threads.

use std::sync::Arc;

use layout::{
    Coord, IntTuple, Layout, LayoutError, SymInt, Tiler, composition, idx2crd_strided,
    logical_divide, right_inverse, slice_and_offset, tiled_product, zipped_divide,
};

use crate::Error;
use crate::atom::{Atom, MmaAtom};

use super::{Operand, SymLayout, TiledMma, free_like, size_of_mode};

impl Operand {
    /// The two problem modes (M = 0, N = 1, K = 2) the operand spans.
    pub fn modes(self) -> (usize, usize) {
        match self {
            Operand::A => (0, 2),
            Operand::B => (1, 2),
            Operand::C => (0, 1),
        }
    }
}

impl TiledMma {
    /// CuTe's `make_tiled_mma(atom, atom_layout, permutation)`.
    pub fn new(
        atom: Arc<Atom>,
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
        let atom_tiles = zipped_divide(
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
        zipped_divide(
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
