//! The lexer's token boundaries, literal values and error tokens.

use grammar::lexer::lex;
use grammar::token::Token;

/// The tokens of `text`, without spans, asserting that no diagnostic was made.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let (tokens, diagnostics) = lex(text);
    assert!(diagnostics.is_empty(), "{text:?}: {diagnostics:#?}");
    tokens.into_iter().map(|(_, token, _)| token).collect()
}

/// The codes of the diagnostics for `text`.
fn codes(text: &str) -> Vec<&'static str> {
    lex(text)
        .1
        .iter()
        .map(|diagnostic| diagnostic.code)
        .collect()
}

#[test]
fn keywords_are_whole_words_only() {
    assert_eq!(tokens("let letter"), [Token::Let, Token::Name("letter")]);
    assert_eq!(
        tokens("kernel kernels _ _x"),
        [
            Token::Kernel,
            Token::Name("kernels"),
            Token::Underscore,
            Token::Name("_x")
        ]
    );
}

#[test]
fn ranges_are_not_floats() {
    assert_eq!(
        tokens("0..N"),
        [Token::Int(0), Token::DotDot, Token::Name("N")]
    );
    assert_eq!(
        tokens("1.5 1e-6 2.5E+3 1_000.0"),
        [
            Token::Float(1.5),
            Token::Float(1e-6),
            Token::Float(2500.0),
            Token::Float(1000.0)
        ]
    );
}

#[test]
fn integers_in_every_radix() {
    assert_eq!(
        tokens("0xff 0b101 1_000 9223372036854775807"),
        [
            Token::Int(255),
            Token::Int(5),
            Token::Int(1000),
            Token::Int(i64::MAX)
        ]
    );
    assert_eq!(codes("9223372036854775808"), ["E0105"]);
    assert_eq!(
        codes("0x 12abc 0b102 1e999"),
        ["E0106", "E0106", "E0106", "E0106"]
    );
}

#[test]
fn punctuation_takes_the_longest_match() {
    assert_eq!(
        tokens("::<<=>>->..:"),
        [
            Token::PathSeparator,
            Token::ShiftLeft,
            Token::Assign,
            Token::ShiftRight,
            Token::Arrow,
            Token::DotDot,
            Token::Colon
        ]
    );
}

#[test]
fn strings_decode_escapes() {
    assert_eq!(
        tokens(r#""a\tb\n\"q\" \\ \u{3b8}""#),
        [Token::String("a\tb\n\"q\" \\ θ".to_owned())]
    );
    assert_eq!(codes(r#""bad \q escape""#), ["E0104"]);
    assert_eq!(codes(r#""\u{110000}""#), ["E0104"]);
}

#[test]
fn an_unterminated_string_ends_at_its_line() {
    let (tokens, diagnostics) = lex("\"open\nlet x");
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].code, "E0103");
    assert_eq!(diagnostics[0].primary.span.range(), 0..5);
    let kinds: Vec<Token<'_>> = tokens.into_iter().map(|(_, token, _)| token).collect();
    assert_eq!(kinds, [Token::Error, Token::Let, Token::Name("x")]);
}

#[test]
fn block_comments_nest() {
    assert_eq!(
        tokens("a /* outer /* inner */ still */ b // rest\nc"),
        [Token::Name("a"), Token::Name("b"), Token::Name("c")]
    );
    assert_eq!(codes("a /* open /* nested */"), ["E0102"]);
}

#[test]
fn unicode_names_and_stray_characters() {
    assert_eq!(
        tokens("Größe θ 名前 aé"),
        [
            Token::Name("Größe"),
            Token::Name("θ"),
            Token::Name("名前"),
            Token::Name("aé")
        ]
    );
    let (tokens, diagnostics) = lex("a × b $ c");
    assert_eq!(
        diagnostics
            .iter()
            .map(|diagnostic| diagnostic.code)
            .collect::<Vec<_>>(),
        ["E0101", "E0101"]
    );
    assert_eq!(
        diagnostics[0].primary.span.range(),
        2..4,
        "the whole multi-byte character"
    );
    assert_eq!(
        tokens.len(),
        5,
        "bad characters stay in the stream as error tokens"
    );
}

#[test]
fn every_line_ending_ends_a_comment_and_a_string() {
    let lf = "// one\nconst A: int = 1;\n// two\nconst B: int = 2;\n";
    for text in [
        lf.to_owned(),
        lf.replace('\n', "\r\n"),
        lf.replace('\n', "\r"),
    ] {
        let (module, diagnostics) = grammar::parse(&text);
        assert!(diagnostics.is_empty(), "{text:?}: {diagnostics:#?}");
        assert_eq!(
            module.items.len(),
            2,
            "{text:?}: the comments end at their line"
        );
        let file = lang::SourceFile::new("endings.cuk", &text);
        let b = text.find('B').unwrap_or(0) as u32;
        assert_eq!(
            file.line_column(b),
            lang::LineColumn { line: 4, column: 7 },
            "{text:?}: the lexer and the line index agree on lines"
        );
    }
    assert_eq!(
        codes("\"open\rconst"),
        ["E0103"],
        "a string ends at a lone `\\r`"
    );
}
