//! The cosize of a swizzled layout: one past its largest offset.
//!
//! The plain way walks every offset (`ComposedLayout::table`). Most swizzles allow a
//! shorter walk: when the bits a swizzle reads (`yyy`) lie above the bits it changes
//! (`zzz`), as in every `Swizzle<B,M,S>` with `S >= B`, it maps each aligned block of
//! `2^(M+B)` offsets onto itself (the bits above the block are kept, and the `yyy` bits
//! among them fix the xor), so the largest swizzled offset is the swizzle of an offset
//! in the last block the layout reaches. Then only the offsets in that block are walked:
//! the modes, largest stride first, are searched and a branch that cannot reach the
//! block is cut.

use crate::LayoutError;
use crate::composed::ComposedLayout;

impl ComposedLayout {
    /// One past the largest offset (`None` where [`ComposedLayout::table`] has no
    /// largest); an error where the table gives one (more than `limit` elements, an
    /// overflow).
    pub fn cosize(&self, limit: u64) -> Result<Option<i64>, LayoutError> {
        if let Some(cosize) = self.cosize_by_last_block(limit)? {
            return Ok(cosize);
        }
        let Some(&max) = self.table(limit)?.iter().max() else {
            return Ok(None);
        };
        let cosize = max.checked_add(1).ok_or_else(|| LayoutError::Overflow {
            operation: "cosize",
            expression: format!("{max} + 1"),
        })?;
        Ok(Some(cosize))
    }

    /// [`ComposedLayout::cosize`] by the walk of the last block; `None` when the
    /// swizzle or the layout does not allow it: negative strides or offset, a swizzle
    /// that reads the bits it changes or bits below them, offsets near overflow.
    fn cosize_by_last_block(&self, limit: u64) -> Result<Option<Option<i64>>, LayoutError> {
        let size = self.size()?;
        if u64::try_from(size).map_or(true, |size| size > limit) {
            return Ok(None);
        }
        let swizzle = self.swizzle();
        let changed_bits_end = swizzle.base() + swizzle.bits();
        // A negative shift reads bits below those it changes (a swizzle's shift is never
        // smaller than its bits in magnitude, so a positive one reads bits above them).
        if swizzle.shift() < 0 || changed_bits_end >= 62 || self.offset() < 0 {
            return Ok(None);
        }
        let flat = self.inner().flatten();
        let (shapes, strides) = (flat.shape().leaves(), flat.stride().leaves());
        let mut modes: Vec<(i64, i64)> = shapes
            .iter()
            .copied()
            .zip(strides.iter().copied())
            .collect();
        if modes.iter().any(|&(shape, stride)| shape < 1 || stride < 0) {
            return Ok(None);
        }
        // Every offset, and every sum the table's walk forms, stays below this bound.
        let Some(bound) = (modes.iter()).try_fold(self.offset(), |sum, &(shape, stride)| {
            sum.checked_add(shape.checked_mul(stride)?)
        }) else {
            return Ok(None);
        };
        if bound > i64::MAX >> 1 {
            return Ok(None);
        }
        modes.retain(|&(shape, stride)| shape > 1 && stride > 0);
        modes.sort_by_key(|&(_, stride)| std::cmp::Reverse(stride));
        // `reach[index]`: the most the modes from `index` on add to an offset.
        let mut reach = vec![0; modes.len() + 1];
        for index in (0..modes.len()).rev() {
            let (shape, stride) = modes[index];
            reach[index] = reach[index + 1] + (shape - 1) * stride;
        }
        let largest = self.offset() + reach[0];
        let last_block = (largest >> changed_bits_end) << changed_bits_end;
        let mut search = LastBlock {
            modes: &modes,
            reach: &reach,
            last_block,
            largest: None,
        };
        search.walk(0, self.offset(), &|offset| swizzle.apply(offset));
        Ok(Some(search.largest.map(|largest| largest + 1)))
    }
}

/// The walk over the offsets at or past `last_block`.
struct LastBlock<'a> {
    /// (shape, stride) of each mode that moves the offset, largest stride first.
    modes: &'a [(i64, i64)],
    reach: &'a [i64],
    last_block: i64,
    /// The largest swizzled offset found.
    largest: Option<i64>,
}

impl LastBlock<'_> {
    fn walk(&mut self, mode: usize, offset: i64, swizzle: &impl Fn(i64) -> i64) {
        if offset + self.reach[mode] < self.last_block {
            return;
        }
        let Some(&(shape, stride)) = self.modes.get(mode) else {
            let swizzled = swizzle(offset);
            self.largest = Some(
                self.largest
                    .map_or(swizzled, |largest| largest.max(swizzled)),
            );
            return;
        };
        for coordinate in (0..shape).rev() {
            self.walk(mode + 1, offset + coordinate * stride, swizzle);
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::Layout;
    use crate::composed::ComposedLayout;
    use crate::swizzle::Swizzle;

    /// The cosize from every offset.
    fn cosize_from_table(layout: &ComposedLayout) -> Option<i64> {
        layout.table(1 << 20).ok()?.iter().max().map(|max| max + 1)
    }

    /// `Sw<swizzle> o offset o (shapes):(strides)`.
    fn layout(modes: &[(i64, i64)], swizzle: (i64, i64, i64), offset: i64) -> ComposedLayout {
        let text = format!(
            "({}):({})",
            modes
                .iter()
                .map(|mode| mode.0.to_string())
                .collect::<Vec<_>>()
                .join(","),
            modes
                .iter()
                .map(|mode| mode.1.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let inner: Layout<i64> = crate::parse_layout(&text).unwrap();
        let swizzle = Swizzle::new(swizzle.0, swizzle.1, swizzle.2).unwrap();
        ComposedLayout::new(swizzle, offset, inner)
    }

    #[test]
    fn a_shared_memory_tile_reaches_its_last_swizzled_element() {
        let tile = layout(&[(8, 64), (64, 1), (3, 512)], (3, 3, 3), 0);
        assert_eq!(tile.cosize(1 << 20), Ok(Some(1536)));
        assert_eq!(
            tile.cosize(1 << 20).ok().flatten(),
            cosize_from_table(&tile)
        );
    }

    /// Found by `swizzled_layouts_never_panic`: one past an offset of `i64::MAX` is an
    /// overflow, not a panic.
    #[test]
    fn a_cosize_past_i64_is_an_overflow_error() {
        let layout = layout(&[(1, 0)], (0, 0, 0), i64::MAX);
        assert!(matches!(
            layout.cosize(1 << 20),
            Err(crate::LayoutError::Overflow { .. })
        ));
    }

    proptest! {
        #[test]
        fn the_walk_of_the_last_block_finds_what_every_offset_does(
            modes in prop::collection::vec((1_i64..9, -3_i64..300), 1..5),
            (bits, base, beyond_bits, negative) in (0_i64..4, 0_i64..5, 0_i64..3, any::<bool>()),
            offset in -40_i64..400,
        ) {
            // A swizzle's shift is at least its bits in magnitude.
            let shift = if negative { -(bits + beyond_bits) } else { bits + beyond_bits };
            let layout = layout(&modes, (bits, base, shift), offset);
            prop_assert_eq!(layout.cosize(1 << 20).ok().flatten(), cosize_from_table(&layout));
        }
    }
}
