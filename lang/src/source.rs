//! Source files: their text, their line index, and the checks made on the raw
//! bytes before any parsing.
//!
//! The compiler core does no I/O. The driver reads a file's bytes and hands
//! them to [`load`], which decides whether they are text the parser may see:
//! a file that is binary (contains a NUL byte), not UTF-8, or too large for
//! `u32` spans is rejected with an `E00xx` error. A file the driver could not
//! read at all is reported through [`Loaded::unreadable`]; the driver reads
//! only regular files of at most [`MAX_FILE_BYTES`], so that a FIFO, a device
//! such as `/dev/zero` or a huge file is refused before it is read. After parsing,
//! [`no_items_warning`] flags a file that defines nothing (empty, blank or
//! only comments) with the warning `W0001`.

use crate::ast::Module;
use crate::{Diagnostic, LineColumn, LineIndex, Span};

/// The largest source file the driver reads: 16 MiB, far beyond any kernel, and
/// small enough that checking it stays fast. Larger files are refused with `E0001`
/// before they are read.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// One source file: its display path, its text and the index of its lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    path: String,
    text: String,
    line_index: LineIndex,
}

impl SourceFile {
    /// A source file named `path` (as shown to the user) holding `text`.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let line_index = LineIndex::new(&text);
        SourceFile {
            path: path.into(),
            text,
            line_index,
        }
    }

    /// The path as shown in diagnostics.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The full text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The index of line starts.
    pub fn line_index(&self) -> &LineIndex {
        &self.line_index
    }

    /// The 1-based line and character column of byte `offset`.
    pub fn line_column(&self, offset: u32) -> LineColumn {
        self.line_index.line_column(&self.text, offset)
    }

    /// `span` made safe to display: shrunk to lie inside the text, widened to
    /// character boundaries, and returned as a `usize` range that always
    /// slices the text. An empty span at the very end of a text that ends in a
    /// newline moves before that newline, so "end of file" is shown at the end
    /// of the last line, as every renderer (and ariadne) agrees.
    pub fn clamp_span(&self, span: Span) -> std::ops::Range<usize> {
        let start = self
            .text
            .floor_char_boundary(span.start.min(span.end) as usize);
        let end = self
            .text
            .ceil_char_boundary(span.end.max(span.start) as usize);
        if start == end && start == self.text.len() && self.text.ends_with('\n') {
            let before_newline = start - 1;
            return before_newline..before_newline;
        }
        start..end.max(start)
    }
}

/// The outcome of [`load`]: the file to report against, the diagnostics found
/// in its bytes, and whether its text should be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// The file. When the bytes were rejected it holds a text derived from
    /// them (or nothing) so that diagnostics still render.
    pub file: SourceFile,
    /// Problems with the bytes themselves.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether `file.text()` is the file's real content, ready for parsing.
    pub is_text: bool,
}

impl Loaded {
    /// The result for a file that could not be read; `reason` is the
    /// operating system's message.
    pub fn unreadable(path: impl Into<String>, reason: &str) -> Self {
        let diagnostic = Diagnostic::error("E0001", format!("cannot read the file: {reason}"))
            .with_primary(Span::empty(0), "");
        Loaded {
            file: SourceFile::new(path, ""),
            diagnostics: vec![diagnostic],
            is_text: false,
        }
    }
}

/// Checks the raw `bytes` of the file named `path` and turns them into a
/// [`SourceFile`].
pub fn load(path: impl Into<String>, bytes: Vec<u8>) -> Loaded {
    let path = path.into();
    if let Some(diagnostic) = too_large(bytes.len()) {
        return rejected(SourceFile::new(path, ""), diagnostic);
    }
    if let Some(nul_offset) = bytes.iter().position(|&byte| byte == 0) {
        let diagnostic = Diagnostic::error("E0003", "the file is binary, not CuK source")
            .with_note(format!(
                "it contains a NUL byte at byte offset {nul_offset}"
            ));
        return rejected(SourceFile::new(path, ""), diagnostic);
    }
    match String::from_utf8(bytes) {
        Ok(text) => Loaded {
            file: SourceFile::new(path, text),
            diagnostics: Vec::new(),
            is_text: true,
        },
        Err(error) => {
            let bad_offset = error.utf8_error().valid_up_to();
            let bad_length = error.utf8_error().error_len().unwrap_or(1);
            // The lossy text keeps the valid prefix byte for byte, so the first
            // replacement character sits exactly at `bad_offset`.
            let text = String::from_utf8_lossy(error.as_bytes()).into_owned();
            let replacement = Span::from_range(bad_offset..bad_offset + '\u{FFFD}'.len_utf8());
            let diagnostic = Diagnostic::error("E0002", "the file is not valid UTF-8")
                .with_primary(replacement, "this byte does not start a UTF-8 character")
                .with_note(format!(
                    "{bad_length} invalid byte(s) at byte offset {bad_offset}; \
                     CuK source files must be UTF-8"
                ));
            rejected(SourceFile::new(path, text), diagnostic)
        }
    }
}

/// The warning `W0001` for a file that holds no item: empty, blank or only
/// comments. It is given only when parsing found no error, since an error may
/// have swallowed the items.
pub fn no_items_warning(module: &Module, diagnostics: &[Diagnostic]) -> Option<Diagnostic> {
    if !module.items.is_empty() || diagnostics.iter().any(Diagnostic::is_error) {
        return None;
    }
    Some(
        Diagnostic::warning("W0001", "the file is empty")
            .with_primary(Span::empty(0), "no item in this file")
            .with_note("a module without items is valid, but defines nothing"),
    )
}

/// The error `E0004` for a file of `len` bytes when spans cannot address it.
fn too_large(len: usize) -> Option<Diagnostic> {
    u32::try_from(len).is_err().then(|| {
        Diagnostic::error(
            "E0004",
            format!("the file is {len} bytes long; at most 4 GiB are supported"),
        )
    })
}

fn rejected(file: SourceFile, diagnostic: Diagnostic) -> Loaded {
    Loaded {
        file,
        diagnostics: vec![diagnostic],
        is_text: false,
    }
}

#[cfg(test)]
mod tests {
    use super::{SourceFile, load, no_items_warning, too_large};
    use crate::ast::Module;
    use crate::{Diagnostic, LineColumn, Span};

    #[test]
    fn valid_text_loads_without_diagnostics() {
        let loaded = load("ok.cuk", b"fn main() {}\n".to_vec());
        assert!(loaded.is_text);
        assert!(loaded.diagnostics.is_empty());
        assert_eq!(loaded.file.path(), "ok.cuk");
    }

    #[test]
    fn only_an_error_free_module_without_items_warns() {
        let empty = Module { items: Vec::new() };
        let warning = no_items_warning(&empty, &[]).map(|diagnostic| diagnostic.code);
        assert_eq!(warning, Some("W0001"));
        let error = Diagnostic::error("E0107", "unexpected token");
        assert_eq!(no_items_warning(&empty, &[error]), None);
    }

    #[test]
    fn files_beyond_four_gibibytes_are_rejected_by_size() {
        assert_eq!(too_large(u32::MAX as usize).map(|d| d.code), None);
        assert_eq!(
            too_large(u32::MAX as usize + 1).map(|d| d.code),
            Some("E0004")
        );
    }

    #[test]
    fn invalid_utf8_points_at_the_first_bad_byte() {
        let loaded = load("bad.cuk", b"ok\nab\xFFcd\xFE".to_vec());
        assert!(!loaded.is_text);
        let diagnostic = &loaded.diagnostics[0];
        assert_eq!(diagnostic.code, "E0002");
        assert_eq!(diagnostic.span(), Span::new(5, 8));
        assert_eq!(
            loaded.file.line_column(diagnostic.span().start),
            LineColumn { line: 2, column: 3 }
        );
    }

    #[test]
    fn nul_bytes_mark_a_binary_file() {
        let loaded = load("a.out", vec![0x7F, b'E', b'L', b'F', 0, 1, 2]);
        assert!(!loaded.is_text);
        assert_eq!(loaded.diagnostics[0].code, "E0003");
        assert_eq!(loaded.file.text(), "");
    }

    #[test]
    fn clamp_span_stays_in_bounds_and_on_boundaries() {
        let file = SourceFile::new("x.cuk", "aαb");
        assert_eq!(
            file.clamp_span(Span::new(2, 2)),
            1..3,
            "widened to the whole `α`"
        );
        assert_eq!(file.clamp_span(Span::new(3, 3)), 3..3);
        assert_eq!(file.clamp_span(Span::new(0, 2)), 0..3);
        assert_eq!(file.clamp_span(Span::new(3, 50)), 3..4);
        assert_eq!(file.clamp_span(Span { start: 9, end: 1 }), 1..4);
        let ends_in_newline = SourceFile::new("y.cuk", "ab\n");
        assert_eq!(ends_in_newline.clamp_span(Span::empty(3)), 2..2);
        assert_eq!(ends_in_newline.clamp_span(Span::new(1, 3)), 1..3);
    }
}
