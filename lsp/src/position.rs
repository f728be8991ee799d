//! Byte offsets to LSP positions and back: the one place UTF-16 is counted.
//!
//! Everything in the compiler locates text by byte offsets ([`lang::Span`]); the
//! protocol counts lines from 0 and columns in UTF-16 code units. [`LineMap`]
//! converts at this edge only. Offsets inside a character snap to its start, and
//! positions past the end of a line or of the text clamp to that end, so no input
//! from a client can make a conversion fail.

use lang::Span;
use lsp_types::{Position, Range};

/// The start offset of every line of one text, for conversions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineMap {
    /// Byte offset of the first byte of each line; the first entry is 0.
    line_starts: Vec<u32>,
}

impl LineMap {
    /// Indexes `text`; lines end at `\n` (a `\r` before it belongs to the line).
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, byte)| byte == b'\n')
                .map(|(offset, _)| u32::try_from(offset + 1).unwrap_or(u32::MAX)),
        );
        LineMap { line_starts }
    }

    /// The position of byte `offset` in `text`, the text this map was built from.
    pub fn position(&self, text: &str, offset: u32) -> Position {
        let offset = text.floor_char_boundary(offset as usize);
        let line = self
            .line_starts
            .partition_point(|&start| start as usize <= offset)
            .saturating_sub(1);
        let line_start = self.line_start(line);
        let character: usize = text
            .get(line_start..offset)
            .map_or(0, |prefix| prefix.chars().map(char::len_utf16).sum());
        Position {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            character: u32::try_from(character).unwrap_or(u32::MAX),
        }
    }

    /// The byte offset of `position` in `text`. A line past the last maps to the end
    /// of the text, a character past the end of its line to the line's end, and one
    /// inside a surrogate pair to the start of that character.
    pub fn offset(&self, text: &str, position: Position) -> u32 {
        let line = position.line as usize;
        if line >= self.line_starts.len() {
            return u32::try_from(text.len()).unwrap_or(u32::MAX);
        }
        let line_start = self.line_start(line);
        let line_end = self
            .line_starts
            .get(line + 1)
            .map_or(text.len(), |&next| (next as usize).saturating_sub(1));
        let line_text = text.get(line_start..line_end).unwrap_or("");
        let line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
        let mut units = 0;
        let mut offset = line_start + line_text.len();
        for (index, character) in line_text.char_indices() {
            let next_units = units + character.len_utf16();
            if next_units > position.character as usize {
                offset = line_start + index;
                break;
            }
            units = next_units;
        }
        u32::try_from(offset).unwrap_or(u32::MAX)
    }

    /// The range of `span` in `text`.
    pub fn range(&self, text: &str, span: Span) -> Range {
        Range {
            start: self.position(text, span.start),
            end: self.position(text, span.end),
        }
    }

    fn line_start(&self, line: usize) -> usize {
        self.line_starts
            .get(line)
            .map_or(0, |&start| start as usize)
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
