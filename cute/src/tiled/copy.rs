//! CuTe's `TiledCopy`: checked against its atom, and the partitioning of a tensor's
//! layout among its threads (`tidfrg_S`/`tidfrg_D`, `partition_S`/`partition_D`,
//! `retile`).

use std::sync::Arc;

use layout::{
    Coord, Int, IntTuple, Layout, LayoutError, SymInt, Tiler, coalesce_by, composition,
    logical_product, product_each, right_inverse, slice_and_offset, upcast, zipped_divide,
};

use crate::Error;
use crate::atom::{Atom, CopyAtom};

use super::{Side, SymLayout, TiledCopy, free_like, size_of_mode, zip_pairs};

impl TiledCopy {
    /// A tiled copy, after checking that the thread-value layout gives every atom
    /// instance whole instructions: the thread count and the values per thread must be
    /// multiples of the atom's.
    pub fn new(
        atom: Arc<Atom>,
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

    /// Whether [`TiledCopy::partition`] gives the same for `self` and `other`: the
    /// atoms' threads and source, destination and reference layouts, the thread-value
    /// layouts and the tiles agree (the atoms' names, element types, memory spaces
    /// and PTX may differ).
    pub fn partitions_like(&self, other: &TiledCopy) -> bool {
        let (atom, other_atom) = (self.copy_atom(), other.copy_atom());
        atom.threads == other_atom.threads
            && atom.src_layout == other_atom.src_layout
            && atom.dst_layout == other_atom.dst_layout
            && atom.ref_layout == other_atom.ref_layout
            && self.layout_tv == other.layout_tv
            && self.tiler == other.tiler
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
        let divided = zipped_divide(layout, &Tiler::from_shape(&self.tiler.to_symbolic())?)?;
        let atom_threads = copy.threads.size()?;
        let atom_values = copy.values_per_thread()?;
        let atom_tv = zipped_divide(
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
        thread_slice(&self.thread_value_fragment(layout, side)?, thread)
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
        let fragment_v = zipped_divide(
            &logical_product(&values_layout, &right_inverse(&fragment_mn)?)?.to_symbolic(),
            &Tiler::Layout(Layout::column_major(IntTuple::Int(SymInt::constant(
                copy.values_per_thread()?,
            )))?),
        )?;
        let mut tile = vec![IntTuple::int(values)];
        tile.extend(product_each(fragment_mn.shape())?.modes());
        let tile = Tiler::from_shape(&IntTuple::Tuple(tile).to_symbolic())?;
        let tiled = zipped_divide(layout, &tile)?;
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

/// `thread`'s values of a [`TiledCopy::thread_value_fragment`], shaped
/// `(CPY, CPY_M, CPY_N, ...)`, and the offset where they start: the rest of
/// [`TiledCopy::partition`].
pub fn thread_slice(
    fragment: &SymLayout,
    thread: &SymInt,
) -> Result<(SymLayout, SymInt), LayoutError> {
    let rest = fragment.mode(2)?;
    let coord = Coord::Tuple(vec![
        Coord::Int(thread.clone()),
        Coord::Free,
        free_like(&rest),
    ]);
    slice_and_offset(&coord, fragment)
}
