//! TMA (the Tensor Memory Accelerator, sm_90): what a tensor map over a global tensor
//! moves into shared memory, and the checks that a shared tile is exactly what it
//! writes.
//!
//! A box of a rank-`r` global tensor is copied in the map's dimension order (the
//! stride-1 mode innermost, then the other modes in order): box element
//! `(b_0, ..., b_{r-1})` lands at byte `swizzle(lin)` of the destination, where
//! `lin = (b_0 + box_0 * (b_1 + box_1 * ...)) * element bytes` and the swizzle of
//! `s` bytes (32, 64, 128) XORs address bits `[7, 7 + log2(s / 16))` into bits `[4, ...)`
//! (`x ^ (((x >> 7) & (s / 16 - 1)) << 4)`, HOPPER-BLACKWELL.md A.6, verified on an
//! H100 for 128 bytes). The swizzle works on absolute shared addresses, so the
//! destination must start at a multiple of its period (`8 * s` bytes).
//!
//! The hardware's limits (cuTensorMapEncodeTiled's rules, A.5): rank 1 to 5, box
//! extents 1 to 256, the inner box a multiple of 16 bytes and, swizzled, at most the
//! swizzle's span.

use layout::{Layout, SymInt};

use crate::{Codomain, Dtype, Error, Tensor, TensorLayout};

/// The swizzle spans TMA and wgmma know, in bytes (0: none).
pub const TMA_SWIZZLES: [u32; 4] = [0, 32, 64, 128];

/// The most elements one TMA box may have along a dimension.
pub const MAX_BOX_EXTENT: i64 = 256;

/// What one TMA copy moves: a box of a global tensor parameter into a shared tile.
#[derive(Clone, Debug, PartialEq)]
pub struct TmaBox {
    /// The element type.
    pub dtype: Dtype,
    /// The global tensor's modes in the map's dimension order, innermost first.
    pub modes: Vec<usize>,
    /// The box's extent along each mode of the global tensor (not in map order).
    pub extents: Vec<i64>,
    /// The swizzle span in bytes: 0, 32, 64 or 128.
    pub swizzle: u32,
    /// The shared tile's layout, whose values the destination's must equal.
    pub tile: Layout<SymInt>,
    /// What the tile's layout values mean (the allocation's swizzle).
    pub codomain: Codomain,
}

impl TmaBox {
    /// The box over `global` (a whole global tensor, flat modes) that writes exactly
    /// the shared tile `tile` (one box, starting at offset 0 of its buffer), or why
    /// none does.
    pub fn new(global: &Tensor, tile: &Tensor) -> Result<TmaBox, Error> {
        let fail = |sentence: String| Err(Error::Inconsistent(sentence));
        let Some(dtype) = global.dtype.filter(|_| tile.dtype == global.dtype) else {
            let name =
                |dtype: Option<Dtype>| dtype.map_or("no known type".to_owned(), |d| d.to_string());
            return fail(format!(
                "the shared tile holds {} and the global tensor {}: a TMA copy moves bytes, it does not convert",
                name(tile.dtype),
                name(global.dtype)
            ));
        };
        let rank = global.layout.layout.rank();
        if !(1..=5).contains(&rank) {
            return fail(format!(
                "a tensor map has 1 to 5 dimensions; this tensor has {rank} modes"
            ));
        }
        if tile.layout.layout.rank() != rank {
            return fail(format!(
                "the shared tile has {} modes, the global tensor {rank}: one box extent per mode",
                tile.layout.layout.rank()
            ));
        }
        let mut inner = None;
        for mode in 0..rank {
            let stride = global.layout.layout.mode(mode)?.stride().clone();
            if stride.as_int().and_then(SymInt::as_constant) == Some(1) {
                inner = Some(mode);
                break;
            }
        }
        let Some(inner) = inner else {
            return fail("a tensor map needs a mode of stride 1 (contiguous elements)".to_owned());
        };
        let modes: Vec<usize> = std::iter::once(inner)
            .chain((0..rank).filter(|mode| *mode != inner))
            .collect();
        let static_tile = tile.layout.layout.to_static()?;
        let extents = (0..rank)
            .map(|mode| static_tile.mode(mode).and_then(|mode| mode.size()))
            .collect::<Result<Vec<i64>, _>>()?;
        if let Some(extent) = extents
            .iter()
            .find(|extent| !(1..=MAX_BOX_EXTENT).contains(*extent))
        {
            return fail(format!(
                "a TMA box extent is 1 to {MAX_BOX_EXTENT} elements, not {extent}"
            ));
        }
        let bytes = dtype.bits() / 8;
        let inner_bytes = extents[inner] * bytes;
        if inner_bytes % 16 != 0 {
            return fail(format!(
                "the box's inner extent is {} {dtype} = {inner_bytes} bytes; TMA moves multiples of 16 bytes",
                extents[inner]
            ));
        }
        let written = tile_bytes(tile, &static_tile, bytes)?;
        let Some(swizzle) = TMA_SWIZZLES.into_iter().find(|swizzle| {
            (*swizzle == 0 || inner_bytes <= i64::from(*swizzle))
                && box_bytes(&modes, &extents, bytes, *swizzle) == written
        }) else {
            return fail(format!(
                "no TMA box writes this shared layout: a box of {} fills rows of {inner_bytes} bytes, which TMA writes unswizzled, or swizzled by 32, 64 or 128 bytes when a row is no wider than the swizzle (a wider row is split into panels, a box each)",
                extents
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" x ")
            ));
        };
        Ok(TmaBox {
            dtype,
            modes,
            extents,
            swizzle,
            tile: tile.layout.layout.clone(),
            codomain: tile.layout.codomain.clone(),
        })
    }

    /// The box's extents in the map's dimension order.
    pub fn box_shape(&self) -> Vec<u32> {
        self.modes
            .iter()
            .map(|mode| u32::try_from(self.extents[*mode]).unwrap_or(0))
            .collect()
    }

    /// Whether `tile` is laid out as the box's tile (wherever it starts).
    pub fn fits(&self, tile: &Tensor) -> bool {
        tile.layout.layout == self.tile && tile.layout.codomain == self.codomain
    }

    /// The tile's layout as a tensor's layout from offset 0, for messages.
    pub fn tile_layout(&self) -> TensorLayout {
        TensorLayout {
            layout: self.tile.clone(),
            offset: SymInt::constant(0),
            codomain: self.codomain.clone(),
        }
    }

    /// The bytes one copy moves.
    pub fn bytes(&self) -> i64 {
        self.extents.iter().product::<i64>() * (self.dtype.bits() / 8)
    }

    /// The destination's alignment in bytes: the swizzle's period, at least the 128
    /// bytes TMA requires.
    pub fn alignment(&self) -> i64 {
        i64::from(self.swizzle * 8).max(128)
    }
}

/// The byte offset of every element of the tile, in its colexicographic order, from
/// the tile's first element.
fn tile_bytes(tile: &Tensor, layout: &Layout<i64>, bytes: i64) -> Result<Vec<i64>, Error> {
    let values = layout.table(MAX_BOX_EXTENT.pow(2) as u64 * 4)?;
    let Some(start) = tile.layout.offset.as_constant() else {
        return Err(Error::Inconsistent(
            "the shared tile given to the tensor map must be a fixed one (its first stage)"
                .to_owned(),
        ));
    };
    let element = |value: i64| -> Result<i64, Error> {
        match &tile.layout.codomain {
            Codomain::Swizzled(composed) => Ok(composed.evaluate_index(start + value)?),
            Codomain::Offsets => Ok(start + value),
            Codomain::Coordinates(_) => Err(Error::Inconsistent(
                "a coordinate tensor is not shared memory".to_owned(),
            )),
        }
    };
    let first = element(0)?;
    values
        .into_iter()
        .map(|value| {
            (element(value)?.checked_sub(first))
                .and_then(|offset| offset.checked_mul(bytes))
                .ok_or_else(|| {
                    Error::Inconsistent(
                        "the tile's byte offsets overflow 64-bit integers".to_owned(),
                    )
                })
        })
        .collect()
}

/// Where TMA puts each element of the box, in the tile's colexicographic order of
/// the global modes, for a `swizzle`-byte swizzle.
fn box_bytes(modes: &[usize], extents: &[i64], bytes: i64, swizzle: u32) -> Vec<i64> {
    let size: i64 = extents.iter().product();
    (0..size)
        .map(|index| {
            let mut rest = index;
            let coordinate: Vec<i64> = extents
                .iter()
                .map(|extent| {
                    let coordinate = rest % extent;
                    rest /= extent;
                    coordinate
                })
                .collect();
            let linear = modes.iter().rev().fold(0, |linear, mode| {
                linear * extents[*mode] + coordinate[*mode]
            });
            swizzled(linear * bytes, swizzle)
        })
        .collect()
}

/// The byte offset `offset` as a `swizzle`-byte TMA or wgmma swizzle places it.
pub fn swizzled(offset: i64, swizzle: u32) -> i64 {
    if swizzle == 0 {
        return offset;
    }
    let mask = i64::from(swizzle / 16 - 1);
    offset ^ (((offset >> 7) & mask) << 4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Base, MemorySpace};
    use layout::{ComposedLayout, IntTuple, Swizzle};

    fn global(rows: i64, columns: i64) -> Tensor {
        let layout = Layout::<i64>::new(
            IntTuple::ints(&[rows, columns]),
            IntTuple::ints(&[columns, 1]),
        )
        .unwrap();
        Tensor {
            space: MemorySpace::Global,
            dtype: Some(Dtype::Bf16),
            layout: TensorLayout {
                layout: layout.to_symbolic(),
                offset: SymInt::constant(0),
                codomain: Codomain::Offsets,
            },
            read_only: false,
            base: Base::Param(0),
        }
    }

    fn shared(rows: i64, columns: i64, swizzle: Option<Swizzle>) -> Tensor {
        let inner = Layout::<i64>::new(
            IntTuple::ints(&[rows, columns]),
            IntTuple::ints(&[columns, 1]),
        )
        .unwrap();
        let codomain = match swizzle {
            Some(swizzle) => Codomain::Swizzled(ComposedLayout::swizzled(swizzle, inner.clone())),
            None => Codomain::Offsets,
        };
        let domain = Layout::column_major(inner.shape().clone()).unwrap();
        let layout = match swizzle {
            Some(_) => domain,
            None => inner,
        };
        Tensor {
            space: MemorySpace::Shared,
            dtype: Some(Dtype::Bf16),
            layout: TensorLayout {
                layout: layout.to_symbolic(),
                offset: SymInt::constant(0),
                codomain,
            },
            read_only: false,
            base: Base::Shared(0),
        }
    }

    #[test]
    fn a_k_major_tile_with_cute_swizzle_333_is_the_128_byte_box() {
        let tile = shared(128, 64, Some(Swizzle::new(3, 3, 3).unwrap()));
        let boxed = TmaBox::new(&global(1000, 512), &tile).unwrap();
        assert_eq!((boxed.swizzle, boxed.box_shape()), (128, vec![64, 128]));
        assert_eq!(
            (boxed.modes.clone(), boxed.bytes(), boxed.alignment()),
            (vec![1, 0], 16384, 1024)
        );
    }

    #[test]
    fn each_swizzle_is_found_from_its_layout_and_a_plain_tile_is_unswizzled() {
        for (bits, columns, bytes) in [(2, 32, 64), (1, 16, 32)] {
            let tile = shared(64, columns, Some(Swizzle::new(bits, 3, 3).unwrap()));
            assert_eq!(TmaBox::new(&global(64, 256), &tile).unwrap().swizzle, bytes);
        }
        let plain = shared(32, 64, None);
        assert_eq!(TmaBox::new(&global(64, 256), &plain).unwrap().swizzle, 0);
    }

    #[test]
    fn tiles_no_box_writes_are_refused_with_the_reason() {
        // A 128-byte swizzle on rows of 256 bytes: wider than the swizzle's span.
        let wide = shared(16, 128, Some(Swizzle::new(3, 3, 3).unwrap()));
        let error = TmaBox::new(&global(64, 512), &wide)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("no TMA box writes this shared layout"),
            "{error}"
        );
        // A swizzle TMA does not have (Swizzle<2,3,3> on 128-byte rows).
        let odd = shared(64, 64, Some(Swizzle::new(2, 3, 3).unwrap()));
        assert!(TmaBox::new(&global(64, 512), &odd).is_err());
        // 4 bf16 = 8 bytes of inner box.
        let narrow = shared(8, 4, None);
        let error = TmaBox::new(&global(64, 512), &narrow)
            .unwrap_err()
            .to_string();
        assert!(error.contains("multiples of 16 bytes"), "{error}");
        let tall = shared(512, 8, None);
        assert!(
            TmaBox::new(&global(1024, 512), &tall)
                .unwrap_err()
                .to_string()
                .contains("1 to 256")
        );
    }

    #[test]
    fn the_tma_swizzle_moves_16_byte_chunks_by_the_row_within_its_period() {
        assert_eq!(swizzled(128 + 16, 128), 128);
        assert_eq!(swizzled(7 * 128, 128), 7 * 128 + 7 * 16);
        assert_eq!(swizzled(4 * 128, 64), 4 * 128);
        assert_eq!(swizzled(3 * 128 + 2, 32), 3 * 128 + 16 + 2);
    }
}
