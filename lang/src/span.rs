//! Byte-offset spans into one source file.
//!
//! A [`Span`] is a half-open range `start..end` of byte offsets into a file's
//! text. Offsets are `u32`: source files are limited to 4 GiB (the loader in
//! [`crate::source`] rejects larger files with a diagnostic), which halves the size
//! of every span stored in the AST compared with `usize`. Line and column numbers
//! are derived on demand through [`crate::LineIndex`]; nothing else in the
//! compiler stores them.

use std::fmt;
use std::ops::Range;

/// A half-open range of byte offsets `start..end` into a source file's text.
///
/// Invariant: `start <= end`. The constructors keep it by ordering their
/// arguments, so a span built from any two offsets is well formed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// Offset of the first byte covered.
    pub start: u32,
    /// Offset one past the last byte covered.
    pub end: u32,
}

impl Span {
    /// The span `start..end`; the two offsets are swapped if given in reverse.
    pub const fn new(start: u32, end: u32) -> Self {
        if start <= end {
            Span { start, end }
        } else {
            Span {
                start: end,
                end: start,
            }
        }
    }

    /// The empty span at `offset`, used to point between two characters
    /// (for example at the end of the file, where a token is missing).
    pub const fn empty(offset: u32) -> Self {
        Span {
            start: offset,
            end: offset,
        }
    }

    /// The span of a `usize` range such as logos reports. Offsets past
    /// `u32::MAX` saturate; the source loader guarantees they do not occur.
    pub fn from_range(range: Range<usize>) -> Self {
        let clamp = |offset: usize| u32::try_from(offset).unwrap_or(u32::MAX);
        Span::new(clamp(range.start), clamp(range.end))
    }

    /// The number of bytes covered.
    pub const fn len(self) -> u32 {
        self.end - self.start
    }

    /// Whether the span covers no byte.
    pub const fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The span as a `usize` range, ready to index the source text with
    /// `text.get(span.range())`.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The smallest span covering both `self` and `other`.
    pub fn cover(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Whether `offset` lies inside the span (`start <= offset < end`).
    pub const fn contains(self, offset: u32) -> bool {
        self.start <= offset && offset < self.end
    }

    /// Whether the span lies entirely within a text of `len` bytes.
    pub const fn fits_in(self, len: usize) -> bool {
        (self.end as usize) <= len
    }
}

impl From<Range<usize>> for Span {
    fn from(range: Range<usize>) -> Self {
        Span::from_range(range)
    }
}

impl fmt::Display for Span {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}..{}", self.start, self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::Span;

    #[test]
    fn new_orders_its_offsets() {
        assert_eq!(Span::new(7, 3), Span { start: 3, end: 7 });
        assert_eq!(Span::new(3, 7).len(), 4);
    }

    #[test]
    fn cover_spans_both_operands() {
        let joined = Span::new(4, 6).cover(Span::new(1, 2));
        assert_eq!(joined, Span::new(1, 6));
        assert!(joined.contains(1) && joined.contains(5) && !joined.contains(6));
    }

    #[test]
    fn from_range_saturates_instead_of_wrapping() {
        let huge = u32::MAX as usize + 10;
        assert_eq!(Span::from_range(5..huge), Span::new(5, u32::MAX));
        assert_eq!(Span::from(2..9).range(), 2..9);
    }

    #[test]
    fn empty_span_has_no_length() {
        let at_end = Span::empty(12);
        assert!(at_end.is_empty());
        assert!(at_end.fits_in(12) && !at_end.fits_in(11));
        assert_eq!(at_end.to_string(), "12..12");
    }
}
