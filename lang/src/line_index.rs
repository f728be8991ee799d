//! Mapping byte offsets to 1-based line and column numbers, and back.
//!
//! Lines end at `\n`, `\r\n` or a lone `\r`, as in the Language Server Protocol
//! (and as the lexer ends a `//` comment), so every front-end counts the same
//! lines. Columns count Unicode scalar values (Rust `char`s), not bytes and not
//! UTF-16 code units: `let α = 1;` puts `=` in column 7. The LSP edge converts to
//! UTF-16 itself.
//!
//! [`LineIndex`] records where each line starts and where each character of more
//! than one byte is, with a running count of the bytes such characters add. A
//! lookup is then two binary searches and a subtraction, whatever the length of
//! the line: a file with a hundred thousand diagnostics on one line is located in
//! linear time overall, not quadratic.

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

/// The start offset of every line of one text, and where its wide characters are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset of the first byte of each line; the first entry is 0, or
    /// 3 after a byte-order mark.
    line_starts: Vec<u32>,
    /// Byte offset of every character of more than one byte, in order.
    wide_chars: Vec<u32>,
    /// `extra_bytes[i]`: the bytes beyond one per character that the first `i`
    /// wide characters take (one more entry than `wide_chars`).
    extra_bytes: Vec<u32>,
}

impl LineIndex {
    /// Indexes `text`. Lines end at `\n`, `\r\n` or a lone `\r`. A leading
    /// byte-order mark is not part of line 1, which editors show without it: the
    /// first character after it is column 1.
    pub fn new(text: &str) -> Self {
        let first_line_start = if text.starts_with(BYTE_ORDER_MARK) {
            BYTE_ORDER_MARK.len_utf8()
        } else {
            0
        };
        let offset = |offset: usize| u32::try_from(offset).unwrap_or(u32::MAX);
        let mut line_starts = vec![offset(first_line_start)];
        let mut wide_chars = Vec::new();
        let mut extra_bytes = vec![0];
        let bytes = text.as_bytes();
        for (at, character) in text.char_indices() {
            match character {
                '\n' => line_starts.push(offset(at + 1)),
                '\r' if bytes.get(at + 1) != Some(&b'\n') => line_starts.push(offset(at + 1)),
                _ if character.len_utf8() > 1 => {
                    wide_chars.push(offset(at));
                    let extra = extra_bytes.last().copied().unwrap_or(0);
                    extra_bytes.push(extra + offset(character.len_utf8() - 1));
                }
                _ => {}
            }
        }
        LineIndex {
            line_starts,
            wide_chars,
            extra_bytes,
        }
    }

    /// The number of lines; a text ending in a line break has an empty last line.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The byte offset where line `line` (counted from 0) starts, if it exists.
    pub fn line_start(&self, line: usize) -> Option<u32> {
        self.line_starts.get(line).copied()
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
        let line_start = self.line_starts[line_number - 1] as usize;
        let column = self.characters_between(line_start.min(offset), offset);
        LineColumn {
            line: u32::try_from(line_number).unwrap_or(u32::MAX),
            column: u32::try_from(column + 1).unwrap_or(u32::MAX),
        }
    }

    /// The byte offset of the character at `column` (counted from 0, in
    /// characters) of line `line` (from 0) of `text`. A line past the last maps to
    /// the end of the text, a column past the end of its line to the line's end
    /// (before its line break).
    pub fn offset(&self, text: &str, line: usize, column: usize) -> u32 {
        let Some(&start) = self.line_starts.get(line) else {
            return u32::try_from(text.len()).unwrap_or(u32::MAX);
        };
        let start = start as usize;
        let next = self
            .line_starts
            .get(line + 1)
            .map_or(text.len(), |&next| next as usize);
        let line_text = text.get(start..next).unwrap_or("");
        let line_text = line_text.strip_suffix('\n').unwrap_or(line_text);
        let end = start + line_text.strip_suffix('\r').unwrap_or(line_text).len();
        let first = self.wide_before(start);
        let last = self.wide_before(end);
        // The wide characters of the line that lie before the wanted column.
        let before = first
            + self.wide_chars[first..last]
                .partition_point(|&wide| self.characters_between(start, wide as usize) < column);
        let extra = (self.extra_bytes[before] - self.extra_bytes[first]) as usize;
        let offset = start.saturating_add(column).saturating_add(extra).min(end);
        u32::try_from(offset).unwrap_or(u32::MAX)
    }

    /// How many characters lie between byte offsets `from` and `to` (`from <= to`,
    /// both character boundaries).
    fn characters_between(&self, from: usize, to: usize) -> usize {
        let extra =
            self.extra_bytes[self.wide_before(to)] - self.extra_bytes[self.wide_before(from)];
        (to - from).saturating_sub(extra as usize)
    }

    /// How many wide characters start before byte `offset`.
    fn wide_before(&self, offset: usize) -> usize {
        self.wide_chars
            .partition_point(|&wide| (wide as usize) < offset)
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
    fn crlf_and_a_lone_carriage_return_each_end_one_line() {
        let text = "a\r\nb";
        assert_eq!(locate(text, 1), (1, 2));
        assert_eq!(locate(text, 3), (2, 1));
        let text = "a\rb\r\rc";
        assert_eq!(locate(text, 2), (2, 1));
        assert_eq!(locate(text, 4), (3, 1));
        assert_eq!(locate(text, 5), (4, 1));
        assert_eq!(LineIndex::new(text).line_count(), 4);
    }

    #[test]
    fn columns_map_back_to_offsets_clamped_to_the_line() {
        let text = "aé𝔸b\r\ncd\rx";
        let index = LineIndex::new(text);
        for offset in [0, 1, 3, 7, 10, 12] {
            let LineColumn { line, column } = index.line_column(text, offset);
            let back = index.offset(text, line as usize - 1, column as usize - 1);
            assert_eq!(back, offset, "{offset}");
        }
        assert_eq!(index.offset(text, 0, 99), 8, "before the `\\r\\n`");
        assert_eq!(index.offset(text, 1, 99), 12, "before the lone `\\r`");
        assert_eq!(index.offset(text, 9, 0), 14);
    }

    #[test]
    fn many_lookups_on_one_long_line_cost_no_walk_along_it() {
        // 200,000 lookups on a 600,000-byte line: quadratic work would be 10^11
        // steps; each lookup here is two binary searches.
        let text = "é x ".repeat(120_000);
        let index = LineIndex::new(&text);
        let mut total = 0u64;
        for offset in (0..text.len()).step_by(3).take(200_000) {
            total += u64::from(index.line_column(&text, offset as u32).column);
        }
        assert!(total > 0);
        let last = index.line_column(&text, text.len() as u32);
        assert_eq!(
            last,
            LineColumn {
                line: 1,
                column: 480_001
            }
        );
    }
}
