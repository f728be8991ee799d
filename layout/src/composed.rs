//! Swizzled layouts: CuTe's `ComposedLayout<Swizzle, offset, Layout>`.
//!
//! A composed layout is the function `coord -> swizzle(offset + inner(coord))`: the
//! inner layout maps a coordinate to a linear offset, the constant `offset` is added,
//! and the [`Swizzle`] permutes the bits of the sum. Shared-memory layouts are written
//! this way (`composition(Swizzle<3,3,3>{}, (8,64):(64,1))` in C++), so the inner
//! layout is always static (`Layout<i64>`).
//!
//! The domain is the inner layout's: shape, rank and size are the inner layout's, and
//! the operations that act on the domain act on the inner layout alone:
//! - composing on the right, `composed ∘ b`, keeps the swizzle and offset and composes
//!   the inner layout with `b`;
//! - slicing keeps the swizzle, slices the inner layout and adds the sliced-off
//!   coordinates' offset to `offset` (it must stay inside the swizzle, which is not
//!   linear).
//!
//! The text form is CuTe's print: `Sw<3,3,3> o 0 o (8,64):(64,1)`, parsed back with
//! any whitespace around the parts.

mod cosize;

use std::fmt;
use std::str::FromStr;

use crate::swizzle::Swizzle;
use crate::{AsTiler, Coord, IntTuple, Layout, LayoutError, composition, parse_layout};

/// The function `coord -> swizzle(offset + inner(coord))`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ComposedLayout {
    swizzle: Swizzle,
    offset: i64,
    inner: Layout<i64>,
}

impl ComposedLayout {
    /// `swizzle ∘ offset ∘ inner`.
    pub fn new(swizzle: Swizzle, offset: i64, inner: Layout<i64>) -> ComposedLayout {
        ComposedLayout {
            swizzle,
            offset,
            inner,
        }
    }

    /// `swizzle ∘ inner` with offset 0 (C++'s `composition(Swizzle, Layout)`).
    pub fn swizzled(swizzle: Swizzle, inner: Layout<i64>) -> ComposedLayout {
        ComposedLayout::new(swizzle, 0, inner)
    }

    /// The outer function.
    pub fn swizzle(&self) -> Swizzle {
        self.swizzle
    }

    /// The constant added between the inner layout and the swizzle.
    pub fn offset(&self) -> i64 {
        self.offset
    }

    /// The inner layout.
    pub fn inner(&self) -> &Layout<i64> {
        &self.inner
    }

    /// The shape of the domain (the inner layout's).
    pub fn shape(&self) -> &IntTuple<i64> {
        self.inner.shape()
    }

    /// The number of top-level modes.
    pub fn rank(&self) -> usize {
        self.inner.rank()
    }

    /// The size of the domain.
    pub fn size(&self) -> Result<i64, LayoutError> {
        self.inner.size()
    }

    /// Mode `index`: same swizzle and offset over the inner layout's mode `index`.
    pub fn mode(&self, index: usize) -> Result<ComposedLayout, LayoutError> {
        Ok(self.with_inner(self.inner.mode(index)?, self.offset))
    }

    /// `swizzle(offset + inner(coord))` for an integer or hierarchical coordinate.
    pub fn evaluate(&self, coord: &IntTuple<i64>) -> Result<i64, LayoutError> {
        self.swizzled_offset(self.inner.evaluate(coord)?)
    }

    /// `swizzle(offset + inner(index))` for the integer coordinate `index`.
    pub fn evaluate_index(&self, index: i64) -> Result<i64, LayoutError> {
        self.swizzled_offset(self.inner.evaluate_index(&index)?)
    }

    /// The offsets of all indices `0..size`, for at most `limit` elements.
    pub fn table(&self, limit: u64) -> Result<Vec<i64>, LayoutError> {
        self.inner
            .table(limit)?
            .into_iter()
            .map(|inner_offset| self.swizzled_offset(inner_offset))
            .collect()
    }

    /// `self ∘ tiler`: the inner layout composed with `tiler`, swizzle and offset kept.
    pub fn compose(&self, tiler: &impl AsTiler<i64>) -> Result<ComposedLayout, LayoutError> {
        Ok(self.with_inner(composition(&self.inner, tiler)?, self.offset))
    }

    /// The modes under `_` in `coord`; the fixed coordinates' offset joins `offset`.
    pub fn slice(&self, coord: &Coord<i64>) -> Result<ComposedLayout, LayoutError> {
        let (sliced, sliced_offset) = self.inner.slice(coord)?;
        let offset = self.offset_plus(sliced_offset, "slice")?;
        Ok(self.with_inner(sliced, offset))
    }

    fn with_inner(&self, inner: Layout<i64>, offset: i64) -> ComposedLayout {
        ComposedLayout::new(self.swizzle, offset, inner)
    }

    fn swizzled_offset(&self, inner_offset: i64) -> Result<i64, LayoutError> {
        let linear = self.offset_plus(inner_offset, "composed layout evaluation")?;
        Ok(self.swizzle.apply(linear))
    }

    /// The offset plus `extra`, or an overflow error naming `operation`.
    fn offset_plus(&self, extra: i64, operation: &'static str) -> Result<i64, LayoutError> {
        self.offset
            .checked_add(extra)
            .ok_or_else(|| LayoutError::Overflow {
                operation,
                expression: format!("{} + {extra}", self.offset),
            })
    }
}

impl fmt::Display for ComposedLayout {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "{} o {} o {}",
            self.swizzle, self.offset, self.inner
        )
    }
}

impl FromStr for ComposedLayout {
    type Err = LayoutError;

    /// Parses `Sw<bits,base,shift> o offset o layout`, or `Sw<bits,base,shift> o layout`
    /// with offset 0. Neither a swizzle, an integer nor a static layout contains the letter
    /// `o`, so it separates the parts. The offset may be written as CuTe prints it (`_0`).
    fn from_str(text: &str) -> Result<ComposedLayout, LayoutError> {
        let parts: Vec<&str> = text.split('o').collect();
        let (swizzle_text, offset_text, layout_text) = match parts.as_slice() {
            [swizzle, offset, layout] => (*swizzle, Some(*offset), *layout),
            [swizzle, layout] => (*swizzle, None, *layout),
            _ => {
                return Err(LayoutError::Parse {
                    column: 1,
                    expected:
                        "`Sw<bits,base,shift> o offset o layout` or `Sw<bits,base,shift> o layout`"
                            .to_owned(),
                    found: format!("{} parts separated by `o`", parts.len()),
                });
            }
        };
        let swizzle = swizzle_text.parse::<Swizzle>()?;
        // 1-based column where the part after the swizzle starts.
        let offset_column = swizzle_text.chars().count() + 2;
        let (offset, layout_column) = match offset_text {
            None => (0, offset_column),
            Some(offset_text) => {
                let digits = offset_text.trim();
                let offset = digits
                    .strip_prefix('_')
                    .unwrap_or(digits)
                    .parse::<i64>()
                    .map_err(|_| LayoutError::Parse {
                        column: offset_column + leading_whitespace(offset_text),
                        expected: "an integer offset".to_owned(),
                        found: format!("`{digits}`"),
                    })?;
                (offset, offset_column + offset_text.chars().count() + 1)
            }
        };
        let inner = parse_layout::<i64>(layout_text).map_err(|error| match error {
            LayoutError::Parse {
                column,
                expected,
                found,
            } => LayoutError::Parse {
                column: column + layout_column - 1,
                expected,
                found,
            },
            other => other,
        })?;
        Ok(ComposedLayout::new(swizzle, offset, inner))
    }
}

fn leading_whitespace(text: &str) -> usize {
    text.chars().take_while(|c| c.is_whitespace()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sw333_row_major() -> ComposedLayout {
        let inner = "(8,64):(64,1)".parse::<Layout>().unwrap();
        ComposedLayout::swizzled(Swizzle::new(3, 3, 3).unwrap(), inner)
    }

    #[test]
    fn evaluates_swizzle_of_offset_plus_inner() {
        let composed = sw333_row_major();
        // Row 1, column 0: inner offset 64 = 0b1_000_000, so bit 0 of YYY flips bit 3.
        assert_eq!(composed.evaluate(&"(1,0)".parse().unwrap()), Ok(72));
        assert_eq!(composed.evaluate_index(1), Ok(72));
        assert_eq!(
            composed.evaluate(&"(3,9)".parse().unwrap()),
            Ok(3 * 64 + (9 ^ 24))
        );
        let shifted = ComposedLayout::new(composed.swizzle(), 64, composed.inner().clone());
        assert_eq!(shifted.evaluate_index(0), Ok(72));
        assert_eq!(composed.size(), Ok(512));
        assert_eq!(composed.rank(), 2);
    }

    #[test]
    fn slicing_folds_the_offset_in() {
        let composed = sw333_row_major();
        let row = composed
            .slice(&Coord::Tuple(vec![Coord::Int(5), Coord::Free]))
            .unwrap();
        assert_eq!(row.offset(), 320);
        assert_eq!(row.inner().to_string(), "(64):(1)");
        for column in 0..64 {
            let coord = IntTuple::ints(&[5, column]);
            assert_eq!(row.evaluate_index(column), composed.evaluate(&coord));
        }
    }

    #[test]
    fn composing_on_the_right_keeps_swizzle_and_offset() {
        let composed = ComposedLayout::new(
            Swizzle::new(2, 0, 2).unwrap(),
            4,
            "16:1".parse::<Layout>().unwrap(),
        );
        let strided = composed.compose(&"4:4".parse::<Layout>().unwrap()).unwrap();
        assert_eq!(strided.to_string(), "Sw<2,0,2> o 4 o 4:4");
        for index in 0..4 {
            assert_eq!(
                strided.evaluate_index(index),
                composed.evaluate_index(4 * index)
            );
        }
    }

    #[test]
    fn text_round_trips_and_reports_columns() {
        let composed = sw333_row_major();
        let text = composed.to_string();
        assert_eq!(text, "Sw<3,3,3> o 0 o (8,64):(64,1)");
        assert_eq!(text.parse::<ComposedLayout>(), Ok(composed.clone()));
        assert_eq!(
            "Sw<3,3,3>o0o(8,64):(64,1)".parse::<ComposedLayout>(),
            Ok(composed)
        );
        assert!(matches!(
            "Sw<3,3,3> o x o 8:1".parse::<ComposedLayout>(),
            Err(LayoutError::Parse { column: 13, .. })
        ));
        assert!(matches!(
            "Sw<3,3,3> o 0 o (8,:1".parse::<ComposedLayout>(),
            Err(LayoutError::Parse { column, .. }) if column > 16
        ));
        assert!("Sw<3,3,3> o 0".parse::<ComposedLayout>().is_err());
        // CuTe's printed form, and the form without an offset.
        let printed_by_cute = "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)";
        assert_eq!(printed_by_cute.parse(), Ok(sw333_row_major()));
        assert_eq!("Sw<3,3,3> o (8,64):(64,1)".parse(), Ok(sw333_row_major()));
        assert_eq!(
            "Sw<3,3,3> o 8:1 o 2 o 1".parse::<ComposedLayout>(),
            Err(LayoutError::Parse {
                column: 1,
                expected:
                    "`Sw<bits,base,shift> o offset o layout` or `Sw<bits,base,shift> o layout`"
                        .to_owned(),
                found: "4 parts separated by `o`".to_owned(),
            })
        );
        assert!("Sw<3,1,2> o 0 o 8:1".parse::<ComposedLayout>().is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "[Sw<>o:(),_0-9 -]{0,24}") {
            if let Ok(composed) = text.parse::<ComposedLayout>() {
                proptest::prop_assert_eq!(composed.to_string().parse(), Ok(composed));
            }
        }
    }
}
