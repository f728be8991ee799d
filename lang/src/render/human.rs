//! The terminal rendering: an ariadne report per diagnostic.
//!
//! ariadne is told to count bytes (`IndexType::Byte`), matching [`Span`]'s
//! offsets; it derives the `path:line:col` of its header and the character
//! columns of its underlines itself. Trailing spaces are trimmed from every
//! line so that snapshots and terminals see the same text.
//!
//! ariadne breaks lines at every Unicode line terminator, the compiler only at
//! `\n`, `\r\n` and a lone `\r` (see [`LineIndex`](crate::LineIndex)). So that the header's
//! `path:line:col` agrees with the short and JSON forms, ariadne is shown a
//! copy of the text in which the other terminators are replaced by
//! non-breaking characters of the same UTF-8 length, and the text after a
//! leading byte-order mark, which takes no column (see [`LineIndex`]).
//!
//! Each report is shown only the lines its labels touch, after as many empty
//! lines as precede them ([`MAX_EXCERPT_DEPTH`] at most), never the whole file:
//! ariadne indexes every line it is given.

use std::borrow::Cow;

use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};

use crate::{BYTE_ORDER_MARK, Diagnostic, Severity, SourceFile, Span};

/// Whether the report carries ANSI colour codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// No escape codes: for pipes, files and snapshot tests.
    Plain,
    /// ANSI colours: for a terminal.
    Colored,
}

/// Renders each diagnostic as an ariadne report, separated by blank lines.
pub fn human(diagnostics: &[Diagnostic], file: &SourceFile, style: Style) -> String {
    let diagnostics = super::capped(diagnostics);
    let path = file.path().to_owned();
    let config = Config::new()
        .with_index_type(IndexType::Byte)
        .with_color(style == Style::Colored);
    let mut rendered = String::new();
    for diagnostic in diagnostics.iter() {
        if let Some(line) = diagnostic
            .labels()
            .map(|label| line_of(file, label.span))
            .find(|line| line.1 > MAX_EXCERPT_LINE)
        {
            if !rendered.is_empty() {
                rendered.push('\n');
            }
            let reason = format!("line {} is {} bytes long, too long to show", line.0, line.1);
            rendered.push_str(&without_excerpt(diagnostic, file, &reason));
            continue;
        }
        let window = excerpt_window(diagnostic, file);
        if window.first_line > MAX_EXCERPT_DEPTH {
            if !rendered.is_empty() {
                rendered.push('\n');
            }
            let reason = format!(
                "line {} is past line {MAX_EXCERPT_DEPTH}, too deep to show",
                window.first_line + 1
            );
            rendered.push_str(&without_excerpt(diagnostic, file, &reason));
            continue;
        }
        let source = Source::from(excerpt_text(file, &window));
        let located = |span: Span| {
            let range = file.clamp_span(span);
            let shift = |offset: usize| offset.saturating_sub(window.start) + window.first_line;
            (path.clone(), shift(range.start)..shift(range.end))
        };
        let mut report =
            Report::build(report_kind(diagnostic.severity), located(diagnostic.span()))
                .with_config(config)
                .with_code(diagnostic.code)
                .with_message(&diagnostic.message);
        // ariadne starts a new excerpt whenever a label lies above the one
        // before it, so labels go in in source order; colour tells the primary
        // one apart.
        let mut labels: Vec<(&crate::Label, ariadne::Color)> =
            vec![(&diagnostic.primary, severity_color(diagnostic.severity))];
        labels.extend(
            diagnostic
                .secondary
                .iter()
                .map(|label| (label, ariadne::Color::Blue)),
        );
        labels.sort_by_key(|(label, _)| file.clamp_span(label.span).start);
        for (label, color) in labels {
            report = report.with_label(
                with_message(Label::new(located(label.span)), &label.message).with_color(color),
            );
        }
        for note in &diagnostic.notes {
            report = report.with_note(note);
        }
        if let Some(help) = &diagnostic.help {
            report = report.with_help(help);
        }
        let mut bytes = Vec::new();
        // Writing into a `Vec` only fails if ariadne cannot find the source,
        // which is always the one given here.
        if report
            .finish()
            .write((path.clone(), &source), &mut bytes)
            .is_ok()
        {
            if !rendered.is_empty() {
                rendered.push('\n');
            }
            for line in String::from_utf8_lossy(&bytes).lines() {
                rendered.push_str(line.trim_end_matches(' '));
                rendered.push('\n');
            }
        }
    }
    rendered
}

/// The lines a diagnostic's labels touch, as byte offsets into the file, and
/// the number of lines above them.
struct Window {
    start: usize,
    end: usize,
    first_line: usize,
}

/// The deepest line, counted from 0, shown as a source excerpt (100,000).
/// ariadne indexes every line of the text it is given (32 bytes a line) and
/// numbers its gutter from the text's first line, so the excerpt is the
/// diagnostic's lines after as many empty lines as come before them: given
/// the whole file, one diagnostic in a file of 8 million short lines cost
/// 256 MB; a diagnostic deeper than this is rendered without its excerpt.
pub const MAX_EXCERPT_DEPTH: usize = 100_000;

/// The [`Window`] of `diagnostic`'s labels. ariadne would count a byte-order
/// mark as a column of line 1, so a window on line 1 starts after it.
fn excerpt_window(diagnostic: &Diagnostic, file: &SourceFile) -> Window {
    let index = file.line_index();
    let line_of_offset = |offset: usize| {
        file.line_column(u32::try_from(offset).unwrap_or(u32::MAX))
            .line as usize
            - 1
    };
    let mut first = usize::MAX;
    let mut last = 0;
    for label in diagnostic.labels() {
        let range = file.clamp_span(label.span);
        first = first.min(line_of_offset(range.start));
        last = last.max(line_of_offset(range.end));
    }
    let first = first.min(last);
    let skipped = if file.text().starts_with(BYTE_ORDER_MARK) {
        BYTE_ORDER_MARK.len_utf8()
    } else {
        0
    };
    let start = (index.line_start(first).unwrap_or(0) as usize).max(skipped);
    let end = index
        .line_start(last + 1)
        .map_or(file.text().len(), |next| next as usize);
    Window {
        start,
        end: end.max(start),
        first_line: first,
    }
}

/// The text ariadne is shown for `window`: its lines after `first_line` empty ones.
fn excerpt_text(file: &SourceFile, window: &Window) -> String {
    let mut text = "\n".repeat(window.first_line);
    text.push_str(&without_extra_line_breaks(
        &file.text()[window.start..window.end],
    ));
    text
}

/// The longest line, in bytes, shown as a source excerpt (1,000). ariadne prints
/// each labelled line whole for each diagnostic, so a diagnostic on a longer line
/// is rendered as its `path:line:col` line, notes and help, without the excerpt:
/// two hundred diagnostics on one line of a megabyte must not print 200 MB.
pub const MAX_EXCERPT_LINE: usize = 1000;

/// The 1-based line holding the start of `span`, and its length in bytes.
fn line_of(file: &SourceFile, span: Span) -> (u32, usize) {
    let start = file.clamp_span(span).start;
    let line = file
        .line_column(u32::try_from(start).unwrap_or(u32::MAX))
        .line;
    let index = file.line_index();
    let line_start = index.line_start(line as usize - 1).unwrap_or(0) as usize;
    let next = index
        .line_start(line as usize)
        .map_or(file.text().len(), |next| next as usize);
    (line, next.saturating_sub(line_start))
}

/// `diagnostic` without its source excerpt, saying why (`reason`).
fn without_excerpt(diagnostic: &Diagnostic, file: &SourceFile, reason: &str) -> String {
    let mut text = super::short(std::slice::from_ref(diagnostic), file);
    text.push_str(&format!("  = {reason}\n"));
    for note in &diagnostic.notes {
        text.push_str(&format!("  = note: {note}\n"));
    }
    if let Some(help) = &diagnostic.help {
        text.push_str(&format!("  = help: {help}\n"));
    }
    text
}

/// `text` with every line terminator other than `\n`, `\r\n` and `\r` replaced by
/// a character of the same UTF-8 length that does not end a line.
fn without_extra_line_breaks(text: &str) -> Cow<'_, str> {
    let is_extra_break = |(_, character): (usize, char)| {
        matches!(
            character,
            '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
        )
    };
    if !text.char_indices().any(is_extra_break) {
        return Cow::Borrowed(text);
    }
    let replaced = text
        .char_indices()
        .map(
            |(offset, character)| match is_extra_break((offset, character)) {
                false => character,
                true => match character.len_utf8() {
                    1 => ' ',
                    2 => '\u{A0}',
                    _ => '\u{2007}',
                },
            },
        )
        .collect();
    Cow::Owned(replaced)
}

type SourceSpan = (String, std::ops::Range<usize>);

/// Attaches `message` unless it is empty (ariadne would draw an empty arrow).
fn with_message(label: Label<SourceSpan>, message: &str) -> Label<SourceSpan> {
    if message.is_empty() {
        label
    } else {
        label.with_message(message)
    }
}

fn report_kind(severity: Severity) -> ReportKind<'static> {
    match severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
        Severity::Note => ReportKind::Advice,
    }
}

fn severity_color(severity: Severity) -> ariadne::Color {
    match severity {
        Severity::Error => ariadne::Color::Red,
        Severity::Warning => ariadne::Color::Yellow,
        Severity::Note => ariadne::Color::Cyan,
    }
}
