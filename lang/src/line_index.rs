//! Mapping byte offsets to 1-based line and column numbers.
//!
//! [`LineIndex`] records where each line starts, so a lookup is a binary search
//! plus a count of the characters between the line's start and the offset.
//! Columns count Unicode scalar values (Rust `char`s), not bytes and not UTF-16
//! code units: `let α = 1;` puts `=` in column 7. The LSP edge converts to
//! UTF-16 itself.

/// A 1-based line and column; the column counts characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineColumn {
    /// The line number, starting at 1.
    pub line: u32,
    /// The column number in characters, starting at 1.
    pub column: u32,
}

/// U+FEFF, which some editors write at the start of a UTF-8 file.
pub const BYTE_ORDER_MARK: char = '\u{FEFF}';

/// The start offset of every line of one text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset of the first byte of each line; the first entry is 0, or
    /// 3 after a byte-order mark.
    line_starts: Vec<u32>,
}

impl LineIndex {
    /// Indexes `text`. Lines end at `\n`; a `\r` before it belongs to the line.
    /// A leading byte-order mark is not part of line 1, which editors show
    /// without it: the first character after it is column 1.
    pub fn new(text: &str) -> Self {
        let first_line_start = if text.starts_with(BYTE_ORDER_MARK) {
            BYTE_ORDER_MARK.len_utf8().try_into().unwrap_or(0)
        } else {
            0
        };
        let mut line_starts = vec![first_line_start];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, byte)| byte == b'\n')
                .map(|(offset, _)| u32::try_from(offset + 1).unwrap_or(u32::MAX)),
        );
        LineIndex { line_starts }
    }

    /// The number of lines; a text ending in `\n` has an empty last line.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The line and column of byte `offset` in `text`, the text this index was
    /// built from. An offset past the end maps to the end of the text; one
    /// inside a multi-byte character maps to that character.
    pub fn line_column(&self, text: &str, offset: u32) -> LineColumn {
        let offset = text.floor_char_boundary(offset as usize);
        let line_number = self
            .line_starts
            .partition_point(|&start| start as usize <= offset)
            .max(1);
        let line_start = self
            .line_starts
            .get(line_number - 1)
            .map_or(0, |&start| start as usize);
        let column = text
            .get(line_start..offset)
            .map_or(0, |prefix| prefix.chars().count());
        LineColumn {
            line: u32::try_from(line_number).unwrap_or(u32::MAX),
            column: u32::try_from(column + 1).unwrap_or(u32::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{LineColumn, LineIndex};

    fn locate(text: &str, offset: u32) -> (u32, u32) {
        let LineColumn { line, column } = LineIndex::new(text).line_column(text, offset);
        (line, column)
    }

    #[test]
    fn a_byte_order_mark_takes_no_column() {
        assert_eq!(locate("\u{FEFF}ab\ncd", 3), (1, 1));
        assert_eq!(locate("\u{FEFF}ab\ncd", 4), (1, 2));
        assert_eq!(locate("\u{FEFF}ab\ncd", 0), (1, 1));
        assert_eq!(locate("\u{FEFF}ab\ncd", 7), (2, 2));
    }

    #[test]
    fn first_byte_is_line_one_column_one() {
        assert_eq!(locate("", 0), (1, 1));
        assert_eq!(locate("abc", 0), (1, 1));
    }

    #[test]
    fn newline_starts_the_next_line() {
        let text = "ab\ncd\n";
        assert_eq!(locate(text, 2), (1, 3), "the newline itself is on line 1");
        assert_eq!(locate(text, 3), (2, 1));
        assert_eq!(locate(text, 4), (2, 2));
        assert_eq!(locate(text, 6), (3, 1), "end of a text ending in a newline");
        assert_eq!(LineIndex::new(text).line_count(), 3);
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "let α = 1; // é\n";
        assert_eq!(locate(text, 7), (1, 7), "`=` follows the two-byte `α`");
        let e_acute = text.find('é').map_or(0, |offset| offset as u32);
        assert_eq!(locate(text, e_acute), (1, 15));
    }

    #[test]
    fn offsets_inside_a_character_or_past_the_end_are_clamped() {
        let text = "aα";
        assert_eq!(locate(text, 2), (1, 2), "middle of `α` maps to `α`");
        assert_eq!(locate(text, 99), (1, 3));
    }

    #[test]
    fn carriage_return_stays_on_its_line() {
        let text = "a\r\nb";
        assert_eq!(locate(text, 1), (1, 2));
        assert_eq!(locate(text, 3), (2, 1));
    }
}
