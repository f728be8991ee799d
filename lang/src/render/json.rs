//! The JSON rendering: one object per diagnostic, one object per line.
//!
//! Each line is an object with the fields of [`JsonDiagnostic`]; field names are
//! stable. Lines and columns are 1-based, columns count characters, and
//! `span` holds byte offsets (`start` inclusive, `end` exclusive), so a tool
//! can use whichever it prefers.

use serde::Serialize;

use crate::{Diagnostic, Label, SourceFile, Span};

/// One diagnostic as written to JSON.
#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    severity: &'a str,
    message: &'a str,
    file: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    span: JsonSpan,
    labels: Vec<JsonLabel<'a>>,
    notes: &'a [String],
    help: Option<&'a str>,
}

/// A label: where it is, what it says, whether it is the primary one.
#[derive(Clone, Copy, Serialize)]
struct JsonLabel<'a> {
    primary: bool,
    message: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    span: JsonSpan,
}

#[derive(Clone, Copy, Serialize)]
struct JsonSpan {
    start: u32,
    end: u32,
}

/// Renders each diagnostic as a JSON object on its own line.
pub fn json(diagnostics: &[Diagnostic], file: &SourceFile) -> String {
    let diagnostics = super::capped(diagnostics);
    let mut rendered = String::new();
    for diagnostic in diagnostics.iter() {
        let primary = json_label(&diagnostic.primary, true, file);
        let mut labels = vec![primary];
        labels.extend(
            diagnostic
                .secondary
                .iter()
                .map(|label| json_label(label, false, file)),
        );
        let object = JsonDiagnostic {
            code: diagnostic.code,
            severity: diagnostic.severity.as_str(),
            message: &diagnostic.message,
            file: file.path(),
            line: primary.line,
            column: primary.column,
            end_line: primary.end_line,
            end_column: primary.end_column,
            span: primary.span,
            labels,
            notes: &diagnostic.notes,
            help: diagnostic.help.as_deref(),
        };
        // Serializing plain structs of strings and integers cannot fail.
        if let Ok(line) = serde_json::to_string(&object) {
            rendered.push_str(&line);
            rendered.push('\n');
        }
    }
    rendered
}

fn json_label<'a>(label: &'a Label, primary: bool, file: &SourceFile) -> JsonLabel<'a> {
    let span = Span::from_range(file.clamp_span(label.span));
    let start = file.line_column(span.start);
    let end = file.line_column(span.end);
    JsonLabel {
        primary,
        message: &label.message,
        line: start.line,
        column: start.column,
        end_line: end.line,
        end_column: end.column,
        span: JsonSpan {
            start: span.start,
            end: span.end,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::json;
    use crate::{Diagnostic, SourceFile, Span};

    #[test]
    fn one_object_per_line_with_every_field() {
        let file = SourceFile::new("k.cuk", "let é = (1,\n2;\n");
        let diagnostics = [
            Diagnostic::error("E0102", "unclosed `(`")
                .with_primary(Span::new(14, 14), "expected `)`")
                .with_secondary(Span::new(9, 10), "opened here")
                .with_note("a note")
                .with_help("add `)`"),
            Diagnostic::warning("W0001", "plain"),
        ];
        let rendered = json(&diagnostics, &file);
        let lines: Vec<&str> = rendered.lines().collect();
        assert_eq!(lines.len(), 2);
        let first: serde_json::Value = serde_json::from_str(lines[0]).unwrap_or_default();
        let expected = serde_json::json!({
            "code": "E0102", "severity": "error", "message": "unclosed `(`",
            "file": "k.cuk", "line": 2, "column": 2, "end_line": 2, "end_column": 2,
            "span": {"start": 14, "end": 14},
            "labels": [
                {"primary": true, "message": "expected `)`", "line": 2, "column": 2,
                 "end_line": 2, "end_column": 2, "span": {"start": 14, "end": 14}},
                {"primary": false, "message": "opened here", "line": 1, "column": 9,
                 "end_line": 1, "end_column": 10, "span": {"start": 9, "end": 10}},
            ],
            "notes": ["a note"], "help": "add `)`",
        });
        assert_eq!(first, expected);
        let second: serde_json::Value = serde_json::from_str(lines[1]).unwrap_or_default();
        assert_eq!(second["help"], serde_json::Value::Null);
        assert_eq!(second["severity"], "warning");
    }
}
