//! Logical division and its rearrangements: `logical_divide`, `zipped_divide`,
//! `tiled_divide` and `flat_divide`.
//!
//! `logical_divide(a, b)` is `a ∘ (b, complement(b, shape(coalesce(a))))`: mode 0 walks one tile,
//! mode 1 walks the tiles. A by-mode tiler divides mode by mode and keeps the modes past
//! its rank; a `_` entry leaves its mode as it is. The zipped, tiled and flat forms
//! gather the tile modes and the rest modes by the tiler's profile, as C++'s `zip2_by`
//! does: the mode under a `_` must already be a (tile, rest) pair.

use crate::coalesce::coalesce;
use crate::complement::complement;
use crate::composition::composition;
use crate::{AsTiler, Int, Layout, LayoutError, Tiler};

/// `layout` divided by `tiler`: for a layout tiler, the rank-2 layout (tile, rest).
pub fn logical_divide<I: Int>(
    layout: &Layout<I>,
    tiler: &impl AsTiler<I>,
) -> Result<Layout<I>, LayoutError> {
    let tiler = tiler.as_tiler();
    match (tiler.as_ref(), tiler.as_layout()?) {
        (_, Some(tile)) => {
            let rest = complement(&tile, Some(coalesce(layout)?.shape()))?;
            composition(layout, &Layout::from_modes(vec![tile, rest])?)
        }
        (Tiler::Modes(tilers), None) => by_mode("logical_divide", layout, tilers, logical_divide),
        _ => Ok(layout.clone()),
    }
}

/// An operation applied to one mode of a layout and one entry of a tiler.
pub(crate) type ModeOperation<I> = fn(&Layout<I>, &Tiler<I>) -> Result<Layout<I>, LayoutError>;

/// Applies `operation` to mode `i` and tiler entry `i`, keeping the modes past the
/// tiler's rank.
pub(crate) fn by_mode<I: Int>(
    name: &'static str,
    layout: &Layout<I>,
    tilers: &[Tiler<I>],
    operation: ModeOperation<I>,
) -> Result<Layout<I>, LayoutError> {
    let modes = layout.modes();
    if tilers.len() > modes.len() {
        return Err(LayoutError::RankMismatch {
            operation: name,
            operand: "tiler",
            layout_rank: modes.len(),
            tiler_rank: tilers.len(),
        });
    }
    let mut result = Vec::with_capacity(modes.len());
    for (index, mode) in modes.iter().enumerate() {
        match tilers.get(index) {
            Some(tiler) => result.push(operation(mode, tiler)?),
            None => result.push(mode.clone()),
        }
    }
    Layout::from_modes(result)
}

/// Splits the result of a logical divide or product by the tiler's profile into
/// (all tile modes, all rest modes) (CuTe's `zip2_by`). Under a layout, an integer or
/// a `_` the mode must already be a rank-2 (tile, rest) pair and is split as it is: a
/// `_` leaves its mode undivided, so it names a pair the caller split before.
pub(crate) fn unzip_by_tiler<I: Int>(
    name: &'static str,
    layout: &Layout<I>,
    tiler: &Tiler<I>,
) -> Result<(Layout<I>, Layout<I>), LayoutError> {
    match tiler {
        Tiler::Layout(_) | Tiler::Extent(_) | Tiler::Keep => match layout.modes().as_slice() {
            [tile, rest] => Ok((tile.clone(), rest.clone())),
            _ if matches!(tiler, Tiler::Keep) => Err(LayoutError::Unsupported {
                operation: name,
                reason: format!(
                    "a `_` in the tiler leaves its mode as it is, which must then be a rank-2 \
                     (tile, rest) pair as in C++ CuTe; {layout} has rank {}",
                    layout.rank()
                ),
            }),
            _ => Err(LayoutError::Unsupported {
                operation: name,
                reason: format!("expected a rank-2 (tile, rest) layout, found {layout}"),
            }),
        },
        Tiler::Modes(tilers) => {
            let modes = layout.modes();
            let mut tiles = Vec::with_capacity(tilers.len());
            let mut rests = Vec::with_capacity(modes.len());
            for (mode, sub_tiler) in modes.iter().zip(tilers) {
                let (tile, rest) = unzip_by_tiler(name, mode, sub_tiler)?;
                tiles.push(tile);
                rests.push(rest);
            }
            rests.extend(modes.iter().skip(tilers.len()).cloned());
            Ok((Layout::from_modes(tiles)?, Layout::from_modes(rests)?))
        }
    }
}

/// `((tile modes...), (rest modes...))`.
pub fn zipped_divide<I: Int>(
    layout: &Layout<I>,
    tiler: &impl AsTiler<I>,
) -> Result<Layout<I>, LayoutError> {
    zipped("zipped_divide", layout, &tiler.as_tiler())
}

/// `((tile modes...), rest mode 0, rest mode 1, ...)`.
pub fn tiled_divide<I: Int>(
    layout: &Layout<I>,
    tiler: &impl AsTiler<I>,
) -> Result<Layout<I>, LayoutError> {
    unpack(&zipped("tiled_divide", layout, &tiler.as_tiler())?, false)
}

/// `(tile mode 0, tile mode 1, ..., rest mode 0, rest mode 1, ...)`.
pub fn flat_divide<I: Int>(
    layout: &Layout<I>,
    tiler: &impl AsTiler<I>,
) -> Result<Layout<I>, LayoutError> {
    unpack(&zipped("flat_divide", layout, &tiler.as_tiler())?, true)
}

/// The zipped divide, its errors naming the operation `name` the caller asked for.
fn zipped<I: Int>(
    name: &'static str,
    layout: &Layout<I>,
    tiler: &Tiler<I>,
) -> Result<Layout<I>, LayoutError> {
    let (tiles, rests) = unzip_by_tiler(name, &logical_divide(layout, tiler)?, tiler)?;
    Layout::from_modes(vec![tiles, rests])
}

/// Unpacks the second mode (and the first, if `unpack_first`) of a rank-2 layout one
/// level into the top level, as slicing with `(_, (_,...,_))` does: a mode of rank 1 is
/// kept whole.
pub(crate) fn unpack<I: Int>(
    zipped: &Layout<I>,
    unpack_first: bool,
) -> Result<Layout<I>, LayoutError> {
    let spliced = |mode: Layout<I>| {
        if mode.rank() == 1 {
            vec![mode]
        } else {
            mode.modes()
        }
    };
    let first = zipped.mode(0)?;
    let mut modes = if unpack_first {
        spliced(first)
    } else {
        vec![first]
    };
    modes.extend(spliced(zipped.mode(1)?));
    Layout::from_modes(modes)
}
