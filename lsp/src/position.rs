//! Byte offsets to LSP positions and back: the one place UTF-16 is counted.
//!
//! Everything in the compiler locates text by byte offsets ([`lang::Span`]); the
//! protocol counts lines from 0 and columns in UTF-16 code units. [`LineMap`]
//! converts at this edge only, on [`lang::LineIndex`], which already ends lines
//! where the protocol does (`\n`, `\r\n`, a lone `\r`) and counts characters; a
//! character outside the Basic Multilingual Plane is two UTF-16 units, so the map
//! adds one unit for each such character before a position. Both directions are
//! binary searches, never a walk along the line. Offsets inside a character snap
//! to its start, and positions past the end of a line or of the text clamp to that
//! end, so no input from a client can make a conversion fail.

use lang::{LineColumn, LineIndex, Span};
use lsp_types::{Position, Range};

/// The lines of one text and where its two-unit characters are, for conversions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineMap {
    lines: LineIndex,
    /// Byte offset of every character that is two UTF-16 units, in order.
    astral: Vec<u32>,
}

impl LineMap {
    /// Indexes `text`.
    pub fn new(text: &str) -> Self {
        let astral = text
            .char_indices()
            .filter(|(_, character)| character.len_utf16() == 2)
            .map(|(offset, _)| u32::try_from(offset).unwrap_or(u32::MAX))
            .collect();
        LineMap {
            lines: LineIndex::new(text),
            astral,
        }
    }

    /// The position of byte `offset` in `text`, the text this map was built from.
    pub fn position(&self, text: &str, offset: u32) -> Position {
        let offset = text.floor_char_boundary(offset as usize);
        let LineColumn { line, column } = self.lines.line_column(text, offset as u32);
        let line = line.saturating_sub(1);
        let start = self.lines.line_start(line as usize).unwrap_or(0);
        let astral =
            self.astral_before(offset as u32) - self.astral_before(start.min(offset as u32));
        Position {
            line,
            character: (column - 1).saturating_add(u32::try_from(astral).unwrap_or(u32::MAX)),
        }
    }

    /// The byte offset of `position` in `text`. A line past the last maps to the end
    /// of the text, a character past the end of its line to the line's end, and one
    /// inside a surrogate pair to the start of that character.
    pub fn offset(&self, text: &str, position: Position) -> u32 {
        let line = position.line as usize;
        let (Some(start), next) = (self.lines.line_start(line), self.lines.line_start(line + 1))
        else {
            return u32::try_from(text.len()).unwrap_or(u32::MAX);
        };
        let units = position.character as usize;
        let first = self.astral_before(start);
        let last = next.map_or(self.astral.len(), |next| self.astral_before(next));
        // The UTF-16 column where the line's `j`-th two-unit character starts.
        let unit_column = |j: usize| {
            let LineColumn { column, .. } = self.lines.line_column(text, self.astral[first + j]);
            column as usize - 1 + j
        };
        // How many of them end at or before `units`: a binary search.
        let (mut whole_before, mut high) = (0, last - first);
        while whole_before < high {
            let middle = whole_before + (high - whole_before) / 2;
            if unit_column(middle) + 2 <= units {
                whole_before = middle + 1;
            } else {
                high = middle;
            }
        }
        let column = if whole_before < last - first && unit_column(whole_before) < units {
            // Between the two units of a character: its start.
            unit_column(whole_before) - whole_before
        } else {
            units - whole_before
        };
        self.lines.offset(text, line, column)
    }

    /// The range of `span` in `text`.
    pub fn range(&self, text: &str, span: Span) -> Range {
        Range {
            start: self.position(text, span.start),
            end: self.position(text, span.end),
        }
    }

    /// How many two-unit characters start before byte `offset`.
    fn astral_before(&self, offset: u32) -> usize {
        self.astral.partition_point(|&at| at < offset)
    }
}

#[cfg(test)]
mod tests {
    use super::LineMap;
    use lang::Span;
    use lsp_types::Position;

    fn position(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn columns_count_utf16_code_units() {
        let text = "let α = 1;\nlet 𝔸 = 2;\n";
        let map = LineMap::new(text);
        let equals = text.find('=').unwrap_or(0) as u32;
        assert_eq!(map.position(text, equals), position(0, 6));
        let second_equals = text.rfind('=').unwrap_or(0) as u32;
        assert_eq!(
            map.position(text, second_equals),
            position(1, 7),
            "`𝔸` is two UTF-16 units"
        );
        assert_eq!(map.offset(text, position(1, 7)), second_equals);
        assert_eq!(map.offset(text, position(0, 6)), equals);
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line_as_the_protocol_says() {
        let text = "a\rb𝔸c\r\nd";
        let map = LineMap::new(text);
        assert_eq!(map.position(text, 2), position(1, 0));
        assert_eq!(map.position(text, 7), position(1, 3));
        assert_eq!(map.offset(text, position(1, 3)), 7);
        assert_eq!(map.offset(text, position(1, 99)), 8);
        assert_eq!(map.position(text, 10), position(2, 0));
    }

    #[test]
    fn conversions_on_a_long_line_are_searches_not_walks() {
        // 20,000 round trips on a 700,000-byte line of two-unit characters: a walk
        // along the line per conversion would be 10^10 steps.
        let text = "𝔸 é ".repeat(100_000);
        let map = LineMap::new(&text);
        for (offset, _) in text.char_indices().step_by(20).take(20_000) {
            let offset = offset as u32;
            assert_eq!(map.offset(&text, map.position(&text, offset)), offset);
        }
        assert_eq!(map.position(&text, text.len() as u32), position(0, 500_000));
    }

    #[test]
    fn out_of_range_positions_clamp() {
        let text = "ab\r\ncd";
        let map = LineMap::new(text);
        assert_eq!(map.offset(text, position(0, 99)), 2, "before the `\\r\\n`");
        assert_eq!(map.offset(text, position(7, 0)), 6);
        assert_eq!(map.offset(text, position(1, 1)), 5);
        assert_eq!(map.position(text, 99), position(1, 2));
    }

    #[test]
    fn a_position_inside_a_surrogate_pair_snaps_to_its_character() {
        let text = "𝔸b";
        let map = LineMap::new(text);
        assert_eq!(map.offset(text, position(0, 1)), 0);
        assert_eq!(map.offset(text, position(0, 2)), 4);
        assert_eq!(map.position(text, 2), position(0, 0));
    }

    #[test]
    fn spans_become_ranges() {
        let text = "x\nyz\n";
        let range = LineMap::new(text).range(text, Span::new(2, 5));
        assert_eq!((range.start, range.end), (position(1, 0), position(2, 0)));
    }
}
