//! Non-ASCII text: identifiers, comments and strings parse, and diagnostics
//! after them report the right line and character column.
//!
//! Identifiers follow Unicode `XID_Start`/`XID_Continue`; any other non-ASCII
//! character outside strings and comments is `E0101`. Spans are byte
//! offsets, columns count characters, so each test asserts the exact
//! `line:col` of the short rendering, computed by hand.

use lang::SourceFile;
use lang::render::{Style, short};

/// The short rendering of `text`'s diagnostics, file named `u.cuk`.
fn short_diagnostics(text: &str) -> String {
    let (_, diagnostics) = grammar::parse(text);
    short(&diagnostics, &SourceFile::new("u.cuk", text))
}

#[test]
fn non_ascii_identifiers_are_names() {
    let text = "const Größe: int = 4;\nfn θ(α: i32, βeta_2: i32) -> i32 { α + βeta_2 }\nconst 名前: int = Größe;\n";
    assert_eq!(short_diagnostics(text), "");
}

#[test]
fn non_ascii_comments_and_strings_are_ignored() {
    let text = "// café ∀x 🚀\n/* ✓ /* nested → */ ü */\natom a: copy { ptx = \"mov 🚀 %0\"; }\n";
    assert_eq!(short_diagnostics(text), "");
}

#[test]
fn column_after_a_multi_byte_identifier_counts_characters() {
    // `$` is the 26th character but the 30th byte.
    let text = "const Größe: int = Größe $ 2;\n";
    assert_eq!(
        short_diagnostics(text),
        "u.cuk:1:26: error[E0101]: unexpected character `$`\n"
    );
}

#[test]
fn non_identifier_character_is_reported_whole() {
    let text = "fn f() {\n    let 🚀 = 4 × 8;\n}\n";
    let (_, diagnostics) = grammar::parse(text);
    let rendered = short(&diagnostics, &SourceFile::new("u.cuk", text));
    assert!(
        rendered.starts_with("u.cuk:2:9: error[E0101]"),
        "{rendered}"
    );
    assert!(rendered.contains("u.cuk:2:15: error[E0101]"), "{rendered}");
    for diagnostic in &diagnostics {
        let covered = text.get(diagnostic.span().range()).unwrap_or_default();
        assert!(matches!(covered, "🚀" | "×"), "span covers {covered:?}");
    }
}

#[test]
fn error_after_a_block_comment_with_emoji() {
    let text = "/* 🚀🚀 */ const X: int = 1 +;\n";
    let rendered = short_diagnostics(text);
    assert!(
        rendered.starts_with("u.cuk:1:28: error[E0107]"),
        "{rendered}"
    );
}

#[test]
fn error_on_a_later_line_after_non_ascii_lines() {
    let text = "// ünïcödé\r\nconst Ä: int = 1;\r\nconst B: int = 9223372036854775808;\r\n";
    assert_eq!(
        short_diagnostics(text)
            .lines()
            .next()
            .map(|line| line.split(": ").take(2).collect::<Vec<_>>()),
        Some(vec!["u.cuk:3:16", "error[E0105]"])
    );
}

#[test]
fn non_ascii_before_an_unterminated_string_points_at_the_quote() {
    let text = "atom α: copy { ptx = \"ß\n}\n";
    assert_eq!(
        short_diagnostics(text),
        "u.cuk:1:22: error[E0103]: unterminated string literal\n"
    );
}

#[test]
fn a_byte_order_mark_is_skipped_and_takes_no_column() {
    assert_eq!(short_diagnostics("\u{FEFF}const A: int = 1;\n"), "");
    let without = "const A: int = 1 $ 2;\n";
    let with = format!("\u{FEFF}{without}");
    assert_eq!(
        short_diagnostics(&with),
        "u.cuk:1:18: error[E0101]: unexpected character `$`\n"
    );
    assert_eq!(short_diagnostics(&with), short_diagnostics(without));
    let human = |text: &str| {
        let (_, diagnostics) = grammar::parse(text);
        lang::render::human(&diagnostics, &SourceFile::new("u.cuk", text), Style::Plain)
    };
    assert_eq!(human(&with), human(without));
}

#[test]
fn invisible_characters_are_named_by_code_point() {
    assert_eq!(
        short_diagnostics("const A: int = 1 \u{200B}+ 2;\n"),
        "u.cuk:1:18: error[E0101]: unexpected character U+200B\n"
    );
}
