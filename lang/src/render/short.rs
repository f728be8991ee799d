//! The one-line rendering: `path:line:col: severity[CODE]: message`.

use std::fmt::Write;

use crate::{Diagnostic, SourceFile};

/// Renders each diagnostic as one line, `path:line:col: error[E0101]: message`,
/// where `line:col` is the start of the primary span.
pub fn short(diagnostics: &[Diagnostic], file: &SourceFile) -> String {
    let diagnostics = super::capped(diagnostics);
    let mut rendered = String::new();
    for diagnostic in diagnostics.iter() {
        let start = file.clamp_span(diagnostic.span()).start;
        let location = file.line_column(u32::try_from(start).unwrap_or(u32::MAX));
        // Writing to a `String` cannot fail.
        let _ = writeln!(
            rendered,
            "{}:{}:{}: {}[{}]: {}",
            file.path(),
            location.line,
            location.column,
            diagnostic.severity,
            diagnostic.code,
            single_line(&diagnostic.message),
        );
    }
    rendered
}

/// `message` with line breaks replaced by spaces, so one diagnostic stays one line.
fn single_line(message: &str) -> String {
    message.replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::short;
    use crate::{Diagnostic, SourceFile, Span};

    #[test]
    fn names_the_start_of_the_primary_span() {
        let file = SourceFile::new("k.cuk", "fn f() {\n    let α = );\n}\n");
        let offset = file.text().rfind(')').map_or(0, |offset| offset as u32);
        let diagnostics = [
            Diagnostic::error("E0101", "unexpected `)`")
                .with_primary(Span::new(offset, offset + 1), ""),
            Diagnostic::warning("W0001", "two\nlines"),
        ];
        assert_eq!(
            short(&diagnostics, &file),
            "k.cuk:2:13: error[E0101]: unexpected `)`\nk.cuk:1:1: warning[W0001]: two lines\n"
        );
    }
}
