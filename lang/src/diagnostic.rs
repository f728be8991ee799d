//! The one diagnostic type every stage of the compiler reports through.
//!
//! A [`Diagnostic`] is plain data: an error code from the registry in
//! [`crate::codes`], a severity, a message, a primary labelled span, optional
//! secondary labels, notes and a help line. Stages build one with the builder
//! methods and hand it back in a `Vec`; how it is shown (ariadne for terminals,
//! one line for tools, JSON, LSP) is the business of [`crate::render`] and of
//! the editor integration, never of the stage that found the problem.
//!
//! ```
//! use lang::{Diagnostic, Span};
//!
//! let diagnostic = Diagnostic::error("E0101", "unexpected token `)`")
//!     .with_primary(Span::new(14, 15), "expected an expression here")
//!     .with_secondary(Span::new(3, 4), "this `(` is still open")
//!     .with_help("remove the `)` or add an operand before it");
//! assert!(diagnostic.is_error());
//! ```

use std::fmt;

use crate::Span;

/// How serious a diagnostic is. Only errors make `cukc check` fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The program is wrong; compilation stops before code generation.
    Error,
    /// The program is accepted but probably not what was meant.
    Warning,
    /// Information attached to the compilation, not a problem.
    Note,
}

impl Severity {
    /// The lower-case word used in every rendering: `error`, `warning`, `note`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// A span with the short message shown beside it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// The bytes the label underlines.
    pub span: Span,
    /// The text shown at the underline; may be empty.
    pub message: String,
}

impl Label {
    /// A label over `span` reading `message`.
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        Label {
            span,
            message: message.into(),
        }
    }
}

/// One problem found in one source file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// The registry code, such as `"E0101"` (see [`crate::codes`]).
    pub code: &'static str,
    /// How serious the problem is.
    pub severity: Severity,
    /// The headline, one sentence without a trailing period.
    pub message: String,
    /// Where the problem is. Its span's start decides the `line:col` reported.
    pub primary: Label,
    /// Other places that explain the problem (where a bracket was opened, where
    /// a name was declared).
    pub secondary: Vec<Label>,
    /// Free-standing remarks shown after the source excerpt.
    pub notes: Vec<String>,
    /// A suggestion for fixing the problem.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic of `severity` with `code` and `message`, pointing at the
    /// start of the file until [`Diagnostic::with_primary`] says where.
    pub fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            primary: Label::new(Span::empty(0), ""),
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    /// An error with `code` and `message`.
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, code, message)
    }

    /// A warning with `code` and `message`.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Warning, code, message)
    }

    /// A note with `code` and `message`.
    pub fn note(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Note, code, message)
    }

    /// Sets the primary span and its label.
    pub fn with_primary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.primary = Label::new(span, label);
        self
    }

    /// Adds a secondary span with its label.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push(Label::new(span, label));
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Sets the help line, replacing any earlier one.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The primary span.
    pub fn span(&self) -> Span {
        self.primary.span
    }

    /// Whether this diagnostic is an error (and so fails the compilation).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Every label, primary first.
    pub fn labels(&self) -> impl Iterator<Item = &Label> {
        std::iter::once(&self.primary).chain(&self.secondary)
    }
}

#[cfg(test)]
mod tests {
    use super::{Diagnostic, Severity};
    use crate::Span;

    #[test]
    fn builder_fills_every_field() {
        let diagnostic = Diagnostic::warning("W0001", "file is empty")
            .with_primary(Span::new(0, 0), "nothing here")
            .with_secondary(Span::new(1, 2), "other")
            .with_note("first note")
            .with_note("second note")
            .with_help("write an item");
        assert_eq!(diagnostic.severity, Severity::Warning);
        assert_eq!(diagnostic.code, "W0001");
        assert_eq!(diagnostic.primary.message, "nothing here");
        assert_eq!(diagnostic.notes, ["first note", "second note"]);
        assert_eq!(diagnostic.help.as_deref(), Some("write an item"));
        let spans: Vec<Span> = diagnostic.labels().map(|label| label.span).collect();
        assert_eq!(spans, [Span::new(0, 0), Span::new(1, 2)]);
        assert!(!diagnostic.is_error());
    }

    #[test]
    fn severities_print_lower_case() {
        assert_eq!(Severity::Error.to_string(), "error");
        assert_eq!(Severity::Note.as_str(), "note");
    }
}
