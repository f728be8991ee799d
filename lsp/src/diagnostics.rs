//! `lang::Diagnostic` to the protocol's `Diagnostic`.
//!
//! The headline becomes the message (with the help line after it, as the terminal
//! renderers print it); the primary label, the secondary labels and the notes
//! become `relatedInformation`, each at its span (a note, which has none, at the
//! primary span). Spans are clamped into the text before they are converted. At
//! most [`lang::render::MAX_DIAGNOSTICS`] are published, then a note of how many
//! more there are.

use lang::{Severity, Span};
use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Uri};

use crate::analysis::FileAnalysis;

/// The diagnostics of `analysis`, for the document `uri`: as many as the terminal
/// shows ([`lang::render::capped`]), with the same `N0001` note after them.
pub fn to_lsp(analysis: &FileAnalysis, uri: &Uri) -> Vec<lsp_types::Diagnostic> {
    lang::render::capped(&analysis.diagnostics)
        .iter()
        .map(|diagnostic| convert(analysis, uri, diagnostic))
        .collect()
}

fn convert(
    analysis: &FileAnalysis,
    uri: &Uri,
    diagnostic: &lang::Diagnostic,
) -> lsp_types::Diagnostic {
    let range = |span: Span| {
        let len = u32::try_from(analysis.text.len()).unwrap_or(u32::MAX);
        let span = Span::new(span.start.min(len), span.end.min(len));
        analysis.lines.range(&analysis.text, span)
    };
    let location = |span: Span| Location {
        uri: uri.clone(),
        range: range(span),
    };
    let mut related = Vec::new();
    for label in diagnostic.labels() {
        if !label.message.is_empty() {
            related.push(DiagnosticRelatedInformation {
                location: location(label.span),
                message: label.message.clone(),
            });
        }
    }
    for note in &diagnostic.notes {
        related.push(DiagnosticRelatedInformation {
            location: location(diagnostic.span()),
            message: format!("note: {note}"),
        });
    }
    let mut message = diagnostic.message.clone();
    if let Some(help) = &diagnostic.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    lsp_types::Diagnostic {
        range: range(diagnostic.span()),
        severity: Some(match diagnostic.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(diagnostic.code.to_owned())),
        source: Some("cukc".to_owned()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..lsp_types::Diagnostic::default()
    }
}

#[cfg(test)]
mod tests {
    use super::to_lsp;
    use crate::analysis::FileAnalysis;
    use lsp_types::{DiagnosticSeverity, NumberOrString, Position};

    #[test]
    fn an_unknown_name_becomes_an_error_at_its_line_with_related_labels() {
        let text = "const A: int = 1;\n// é\nconst B: int = missing;\n";
        let analysis = FileAnalysis::new(text.to_owned(), cute::Target::Sm90a);
        let uri = "file:///tmp/x.cuk".parse().expect("a valid URI");
        let diagnostics = to_lsp(&analysis, &uri);
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        let diagnostic = &diagnostics[0];
        assert_eq!(diagnostic.severity, Some(DiagnosticSeverity::ERROR));
        assert_eq!(
            diagnostic.code,
            Some(NumberOrString::String("E0201".to_owned()))
        );
        assert!(diagnostic.message.starts_with("cannot find `missing`"));
        assert_eq!(
            diagnostic.range.start,
            Position {
                line: 2,
                character: 15
            }
        );
        let related = diagnostic.related_information.clone().unwrap_or_default();
        assert!(related.iter().any(|info| info.message == "not found"));
    }

    #[test]
    fn a_line_of_a_hundred_thousand_errors_publishes_two_hundred_and_a_count() {
        // One syntax error a statement: `;` where an operand belongs, at column 12 of each
        // 13-character statement. (Stray characters stop at the lexer's 100-error limit.)
        let text = format!("fn f() {{ {}}}", "let a = 1 +; ".repeat(100_000));
        let analysis = FileAnalysis::new(text, cute::Target::Sm90a);
        let uri = "file:///tmp/x.cuk".parse().expect("a valid URI");
        let diagnostics = to_lsp(&analysis, &uri);
        assert_eq!(diagnostics.len(), lang::render::MAX_DIAGNOSTICS + 1);
        let last = diagnostics
            .last()
            .map(|d| (d.code.clone(), d.range.start, d.message.clone()));
        let left_out = analysis.diagnostics.len() - lang::render::MAX_DIAGNOSTICS;
        assert_eq!(
            last,
            Some((
                Some(NumberOrString::String("N0001".to_owned())),
                Position {
                    line: 0,
                    character: 9 + 13 * 200 + 11
                },
                format!("and {left_out} more diagnostics, not shown (at most 200 are)")
            ))
        );
    }
}
