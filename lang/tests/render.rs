//! Snapshot tests of the three renderings, on diagnostics built by hand.
//!
//! The human rendering is snapshotted with insta (plain style, trailing spaces
//! trimmed by the renderer); the short and JSON forms are asserted exactly in
//! the renderers' unit tests, and here only where they meet the human form.

use lang::ast::Module;
use lang::render::{Style, human, json, short};
use lang::{Diagnostic, SourceFile, Span, source};

const KERNEL: &str = "\
kernel copy(a: gmem f32[(4,3):(1,4)]) {
    let tile = local_tile(a, (2,2) (0,0));
    let α = size(tile);
}
";

fn span_of(text: &str, needle: &str) -> Span {
    let start = text.find(needle).unwrap_or(0);
    Span::from_range(start..start + needle.len())
}

fn typo() -> Diagnostic {
    let comma_position = span_of(KERNEL, "(2,2)").end;
    Diagnostic::error("E0101", "expected `,` or `)`, found `(`")
        .with_primary(
            Span::new(comma_position + 1, comma_position + 2),
            "expected `,` here",
        )
        .with_secondary(
            span_of(KERNEL, "local_tile("),
            "in the arguments of this call",
        )
        .with_help("insert `,` between the two arguments")
}

#[test]
fn typo_with_secondary_label_and_help() {
    let file = SourceFile::new("copy.cuk", KERNEL);
    insta::assert_snapshot!(human(&[typo()], &file, Style::Plain));
}

#[test]
fn header_names_path_line_and_character_column() {
    let file = SourceFile::new("copy.cuk", KERNEL);
    let diagnostic = Diagnostic::warning("W0101", "unused binding")
        .with_primary(span_of(KERNEL, "size"), "after a two-byte identifier")
        .with_note("columns count characters");
    let rendered = human(std::slice::from_ref(&diagnostic), &file, Style::Plain);
    assert!(rendered.contains("[ copy.cuk:3:13 ]"), "{rendered}");
    assert_eq!(
        short(&[diagnostic], &file),
        "copy.cuk:3:13: warning[W0101]: unused binding\n"
    );
    insta::assert_snapshot!(rendered);
}

#[test]
fn empty_span_at_end_of_file() {
    let text = "fn f() {\n    let x = (1, 2\n";
    let file = SourceFile::new("eof.cuk", text);
    let end = Span::empty(u32::try_from(text.len()).unwrap_or(0));
    let diagnostic = Diagnostic::error("E0102", "unexpected end of file")
        .with_primary(end, "expected `)`")
        .with_secondary(span_of(text, "(1"), "this `(` is not closed")
        .with_secondary(span_of(text, "{"), "nor this `{`");
    insta::assert_snapshot!(human(&[diagnostic], &file, Style::Plain));
}

#[test]
fn multi_line_primary_span() {
    let text = "let l = (4,3)\n      : (1,4,2);\n";
    let file = SourceFile::new("layout.cuk", text);
    let diagnostic = Diagnostic::error("E0120", "shape and stride are not congruent").with_primary(
        Span::from_range(8..text.len() - 2),
        "shape `(4,3)` has rank 2, stride `(1,4,2)` rank 3",
    );
    insta::assert_snapshot!(human(&[diagnostic], &file, Style::Plain));
}

#[test]
fn file_level_diagnostics_render() {
    let empty = source::load("empty.cuk", b"// only a comment\n".to_vec());
    let mut empty_diagnostics = empty.diagnostics.clone();
    empty_diagnostics.extend(source::no_items_warning(&Module { items: Vec::new() }, &[]));
    let empty = source::Loaded {
        diagnostics: empty_diagnostics,
        ..empty
    };
    let not_utf8 = source::load("latin1.cuk", b"// caf\xE9\nfn f() {}\n".to_vec());
    let binary = source::load("a.out", vec![0x7F, b'E', b'L', b'F', 0, 0]);
    let unreadable =
        source::Loaded::unreadable("missing.cuk", "No such file or directory (os error 2)");
    let rendered: Vec<String> = [empty, not_utf8, binary, unreadable]
        .iter()
        .map(|loaded| human(&loaded.diagnostics, &loaded.file, Style::Plain))
        .collect();
    insta::assert_snapshot!(rendered.join("\n"));
}

#[test]
fn spans_out_of_range_are_clamped_not_panicking() {
    let file = SourceFile::new("short.cuk", "aαb");
    let diagnostic = Diagnostic::error("E0101", "odd span")
        .with_primary(Span::new(2, 400), "inside `α` and past the end")
        .with_secondary(Span { start: 9, end: 1 }, "reversed");
    let rendered = human(std::slice::from_ref(&diagnostic), &file, Style::Plain);
    assert!(rendered.contains("short.cuk:1:2"), "{rendered}");
    assert_eq!(
        short(std::slice::from_ref(&diagnostic), &file),
        "short.cuk:1:2: error[E0101]: odd span\n"
    );
    assert!(json(&[diagnostic], &file).contains(r#""span":{"start":1,"end":4}"#));
}

#[test]
fn colour_only_when_asked() {
    let file = SourceFile::new("copy.cuk", KERNEL);
    assert!(!human(&[typo()], &file, Style::Plain).contains('\u{1b}'));
    assert!(human(&[typo()], &file, Style::Colored).contains('\u{1b}'));
}

#[test]
fn several_diagnostics_render_in_order() {
    let file = SourceFile::new("copy.cuk", KERNEL);
    let second = Diagnostic::error("E0103", "second").with_primary(span_of(KERNEL, "α"), "");
    let rendered = short(&[typo(), second.clone()], &file);
    assert_eq!(
        rendered,
        "copy.cuk:2:36: error[E0101]: expected `,` or `)`, found `(`\ncopy.cuk:3:9: error[E0103]: second\n"
    );
    let human_text = human(&[typo(), second], &file, Style::Plain);
    let first_at = human_text.find("[E0101]").unwrap_or(usize::MAX);
    let second_at = human_text.find("[E0103]").unwrap_or(0);
    assert!(first_at < second_at, "{human_text}");
}

#[test]
fn spans_ending_in_or_made_of_a_newline_render() {
    let text = "abc\n\ndef\n";
    let file = SourceFile::new("lines.cuk", text);
    for span in [
        Span::new(0, 4),
        Span::new(3, 4),
        Span::new(4, 5),
        Span::new(3, 6),
        Span::new(9, 10),
    ] {
        let diagnostic = Diagnostic::error("E0101", "newline span").with_primary(span, "here");
        let rendered = human(&[diagnostic], &file, Style::Plain);
        assert!(rendered.contains("newline span"), "{span}: {rendered}");
    }
}

#[test]
fn newlines_and_carriage_returns_alone_end_lines_in_every_rendering() {
    let text = "a\rb\u{0B}c\u{0C}d\u{85}e\u{2028}f\u{2029}g $\r\nnext $\n";
    let file = SourceFile::new("breaks.cuk", text);
    let dollars: Vec<Span> = text
        .match_indices('$')
        .map(|(offset, _)| Span::from_range(offset..offset + 1))
        .collect();
    let diagnostics: Vec<Diagnostic> = dollars
        .iter()
        .map(|&span| Diagnostic::error("E0101", "unexpected character `$`").with_primary(span, ""))
        .collect();
    assert_eq!(
        short(&diagnostics, &file),
        "breaks.cuk:2:13: error[E0101]: unexpected character `$`\n\
         breaks.cuk:3:6: error[E0101]: unexpected character `$`\n"
    );
    let rendered = human(&diagnostics, &file, Style::Plain);
    assert!(rendered.contains("[ breaks.cuk:2:13 ]"), "{rendered}");
    assert!(rendered.contains("[ breaks.cuk:3:6 ]"), "{rendered}");
}

#[test]
fn a_file_shows_at_most_two_hundred_diagnostics_then_how_many_more() {
    // 200,000 diagnostics on one 200,000-character line: each rendering shows the
    // first 200 and says how many more there are.
    let text = "é".repeat(200_000);
    let file = SourceFile::new("long.cuk", &text);
    let diagnostics: Vec<Diagnostic> = (0..200_000)
        .map(|i| {
            Diagnostic::error("E0101", "unexpected `é`")
                .with_primary(Span::new(2 * i, 2 * i + 2), "")
        })
        .collect();
    let more = "and 199800 more diagnostics, not shown (at most 200 are)";
    let lines = short(&diagnostics, &file);
    assert_eq!(lines.lines().count(), lang::render::MAX_DIAGNOSTICS + 1);
    assert!(
        lines.contains("long.cuk:1:200: error[E0101]"),
        "columns count characters"
    );
    assert!(
        lines.ends_with(&format!("long.cuk:1:201: note[N0001]: {more}\n")),
        "{}",
        &lines[lines.len() - 200..]
    );
    let objects = json(&diagnostics, &file);
    assert_eq!(objects.lines().count(), 201);
    assert!(
        objects
            .lines()
            .last()
            .is_some_and(|last| last.contains(more))
    );
    let rendered = human(&diagnostics, &file, Style::Plain);
    assert_eq!(rendered.matches("error[E0101]").count(), 200);
    assert_eq!(
        rendered
            .matches("= line 1 is 400000 bytes long, too long to show")
            .count(),
        201,
        "no excerpt of the long line"
    );
    assert!(rendered.contains(more));
    assert!(rendered.len() < 100_000);
}

#[test]
fn excerpts_are_numbered_by_file_line_and_deep_lines_render_without_one() {
    let depth = lang::render::MAX_EXCERPT_DEPTH;
    let text = format!(
        "{}x = 1;\n{}y = 2;\n",
        "\n".repeat(depth - 1),
        "\n".repeat(10)
    );
    let file = SourceFile::new("deep.cuk", text.as_str());
    let at = |needle: &str| {
        Diagnostic::error("E0107", "unexpected").with_primary(span_of(&text, needle), "here")
    };
    let shown = human(&[at("x")], &file, Style::Plain);
    assert!(shown.contains(&format!("deep.cuk:{depth}:1")), "{shown}");
    assert!(shown.contains(&format!("{depth} │ x = 1;")), "{shown}");
    let deep = human(&[at("y")], &file, Style::Plain);
    let line = depth + 11;
    assert!(
        deep.contains(&format!("deep.cuk:{line}:1: error[E0107]")),
        "{deep}"
    );
    assert!(
        deep.contains(&format!(
            "= line {line} is past line {depth}, too deep to show"
        )),
        "{deep}"
    );
    assert!(!deep.contains("y = 2;"), "{deep}");
}
