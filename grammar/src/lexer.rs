//! The lexer: logos recognises raw tokens, [`lex`] decodes literals, maps
//! keywords and turns bad text into [`Token::Error`] plus a diagnostic.
//!
//! Lexing never stops early: a stray character, an unterminated string or
//! comment, or a malformed number becomes one error token (which the parser
//! recovers from silently) and one diagnostic.

use lang::{BYTE_ORDER_MARK, Diagnostic, Span};
use logos::Logos;

use crate::literal::{float, integer, string};
use crate::token::{Token, keyword};

/// A token with the byte offsets of its first and one-past-last byte.
pub type Spanned<'input> = (usize, Token<'input>, usize);

/// Why logos rejected some text.
#[derive(Clone, Debug, Default, PartialEq)]
enum RawError {
    /// A character that starts no token.
    #[default]
    UnexpectedCharacter,
    /// `/*` without its matching `*/`.
    UnterminatedComment,
}

/// Token kinds as logos sees them, before keywords and literal values.
#[derive(Clone, Copy, Debug, Logos, PartialEq)]
#[logos(error = RawError)]
enum Raw {
    /// Blanks between tokens. Blanks and line comments are tokens that
    /// [`lex`] drops, not logos skips: logos re-enters its state machine
    /// once per skipped stretch, so 300,000 comment lines overflowed the stack.
    #[regex(r"[ \t\r\n\f]+")]
    Blank,
    /// `// ...` to the end of the line.
    #[regex(r"//[^\r\n]*", allow_greedy = true)]
    LineComment,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", continue_identifier)]
    #[regex(r"[^\x00-\x7F]", unicode_identifier)]
    Identifier,
    #[regex(r"[0-9][0-9A-Za-z_]*")]
    Integer,
    #[regex(r"[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9_]+)?", priority = 4)]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9_]+", priority = 4)]
    Float,
    #[regex(r#""([^"\\\r\n]|\\[^\r\n])*""#)]
    String,
    #[regex(r#""([^"\\\r\n]|\\[^\r\n])*\\?"#)]
    UnterminatedString,
    #[token("/*", block_comment)]
    BlockComment,
    /// `'a'`: C's character literal, which CuK does not have.
    #[regex(r"'[^'\r\n]*'")]
    SingleQuoted,
    /// A `'` that closes nothing on its line: a stray character on its own.
    #[token("'")]
    Apostrophe,
    #[token("_", priority = 10)]
    Underscore,
    #[token("(")]
    OpenParen,
    #[token(")")]
    CloseParen,
    #[token("[")]
    OpenBracket,
    #[token("]")]
    CloseBracket,
    #[token("{")]
    OpenBrace,
    #[token("}")]
    CloseBrace,
    #[token(",")]
    Comma,
    #[token(";")]
    Semicolon,
    #[token(":")]
    Colon,
    #[token("::")]
    PathSeparator,
    #[token(".")]
    Dot,
    #[token("..")]
    DotDot,
    #[token("->")]
    Arrow,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusAssign,
    #[token("-=")]
    MinusAssign,
    #[token("*=")]
    StarAssign,
    #[token("/=")]
    SlashAssign,
    #[token("%=")]
    PercentAssign,
    #[token("==")]
    EqualEqual,
    #[token("!=")]
    NotEqual,
    #[token("<")]
    Less,
    #[token("<=")]
    LessEqual,
    #[token(">")]
    Greater,
    #[token(">=")]
    GreaterEqual,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("!")]
    Bang,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("&")]
    Ampersand,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("<<")]
    ShiftLeft,
    #[token(">>")]
    ShiftRight,
}

/// Whether `character` may continue an identifier.
fn is_identifier_continue(character: char) -> bool {
    character.is_ascii_alphanumeric()
        || character == '_'
        || unicode_ident::is_xid_continue(character)
}

/// Extends an ASCII identifier over any non-ASCII XID characters that follow.
fn continue_identifier(lexer: &mut logos::Lexer<'_, Raw>) {
    let extra: usize = lexer
        .remainder()
        .chars()
        .take_while(|&character| is_identifier_continue(character))
        .map(char::len_utf8)
        .sum();
    lexer.bump(extra);
}

/// Accepts an identifier that starts with a non-ASCII XID_Start character.
fn unicode_identifier(lexer: &mut logos::Lexer<'_, Raw>) -> Result<(), RawError> {
    let starts_identifier = lexer
        .slice()
        .chars()
        .next()
        .is_some_and(unicode_ident::is_xid_start);
    if !starts_identifier {
        return Err(RawError::UnexpectedCharacter);
    }
    continue_identifier(lexer);
    Ok(())
}

/// Skips a (nested) block comment after its opening `/*`.
fn block_comment(lexer: &mut logos::Lexer<'_, Raw>) -> Result<(), RawError> {
    let bytes = lexer.remainder().as_bytes();
    let mut depth = 1usize;
    let mut position = 0;
    while position < bytes.len() {
        match (bytes[position], bytes.get(position + 1)) {
            (b'/', Some(b'*')) => {
                depth += 1;
                position += 2;
            }
            (b'*', Some(b'/')) => {
                depth -= 1;
                position += 2;
                if depth == 0 {
                    lexer.bump(position);
                    return Ok(());
                }
            }
            _ => position += 1,
        }
    }
    lexer.bump(bytes.len());
    Err(RawError::UnterminatedComment)
}

/// The most lexical errors reported before the lexer gives up on a file: past
/// it the text is not a `.cuk` file gone slightly wrong, and a token and a
/// diagnostic for each of its bad characters would cost hundreds of bytes
/// per source byte.
pub const MAX_LEXICAL_ERRORS: usize = 100;

/// The code of the diagnostic that says the lexer gave up (see
/// [`MAX_LEXICAL_ERRORS`]).
pub const GAVE_UP: &str = "E0116";

/// The most tokens a file may have: about a million, fifty times the largest
/// kernel file here. Every token is held (40 bytes) while the parser runs, and
/// lalrpop's recovery copies the tokens it skips, so a 6 MB file of valid
/// tokens cost 360 MB; past this limit the file is refused.
pub const MAX_TOKENS: usize = 1 << 20;

/// The code of the diagnostic that says a file has more than [`MAX_TOKENS`].
pub const TOO_MANY_TOKENS: &str = "E0117";

/// Whether the lexer stopped early ([`GAVE_UP`] or [`TOO_MANY_TOKENS`]): the
/// tokens it returned are not the file's, and are not worth parsing.
pub fn stopped(diagnostics: &[Diagnostic]) -> bool {
    diagnostics
        .last()
        .is_some_and(|last| last.code == GAVE_UP || last.code == TOO_MANY_TOKENS)
}

/// Lexes `source`: the tokens for the parser (comments removed, bad text as
/// [`Token::Error`]) and one diagnostic per piece of bad text. After
/// [`MAX_LEXICAL_ERRORS`] diagnostics it stops with a [`GAVE_UP`] diagnostic
/// at the place it stopped, and after [`MAX_TOKENS`] tokens with a
/// [`TOO_MANY_TOKENS`] one.
pub fn lex(source: &str) -> (Vec<Spanned<'_>>, Vec<Diagnostic>) {
    let mut tokens = Vec::new();
    let mut diagnostics = Vec::new();
    let mut raw_lexer = Raw::lexer(source);
    if source.starts_with(BYTE_ORDER_MARK) {
        raw_lexer.bump(BYTE_ORDER_MARK.len_utf8());
    }
    while let Some(raw) = raw_lexer.next() {
        let range = raw_lexer.span();
        let text = raw_lexer.slice();
        let span = Span::from_range(range.clone());
        let token = match raw {
            Ok(raw) => match cook(raw, text, span, &mut diagnostics) {
                Some(token) => token,
                None => continue,
            },
            Err(RawError::UnterminatedComment) => {
                diagnostics.push(
                    Diagnostic::error("E0102", "unterminated block comment")
                        .with_primary(
                            Span::from_range(range.start..range.start + 2),
                            "this comment is never closed",
                        )
                        .with_note("block comments nest: each `/*` needs its own `*/`"),
                );
                continue;
            }
            Err(RawError::UnexpectedCharacter) => {
                diagnostics.push(unexpected_character(text, span));
                Token::Error
            }
        };
        if diagnostics.len() > MAX_LEXICAL_ERRORS {
            diagnostics.truncate(MAX_LEXICAL_ERRORS);
            diagnostics.push(gave_up(Span::from_range(range.start..range.start)));
            break;
        }
        if tokens.len() == MAX_TOKENS {
            diagnostics.push(too_many_tokens(span));
            break;
        }
        tokens.push((range.start, token, range.end));
    }
    (tokens, diagnostics)
}

/// The diagnostic for a file with too many lexical errors to go on.
fn gave_up(at: Span) -> Diagnostic {
    Diagnostic::error(
        GAVE_UP,
        format!("more than {MAX_LEXICAL_ERRORS} lexical errors; the rest of the file is not read"),
    )
    .with_primary(at, "reading stopped here")
    .with_note("is this a `.cuk` file? fix the errors above and check again")
}

/// The diagnostic for the token past [`MAX_TOKENS`].
fn too_many_tokens(at: Span) -> Diagnostic {
    Diagnostic::error(
        TOO_MANY_TOKENS,
        format!("the file has more than {MAX_TOKENS} tokens"),
    )
    .with_primary(at, "reading stopped here")
    .with_help("split the file: `use` brings in the items of another file")
}

/// Turns a raw token into a parser token, reporting malformed literals;
/// `None` for a comment, which the parser never sees.
fn cook<'input>(
    raw: Raw,
    text: &'input str,
    span: Span,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Token<'input>> {
    let token = match raw {
        Raw::Blank | Raw::LineComment | Raw::BlockComment => return None,
        Raw::Identifier => keyword(text).unwrap_or(Token::Name(text)),
        Raw::Integer => integer(text, span, diagnostics),
        Raw::Float => float(text, span, diagnostics),
        Raw::String => string(text, span, diagnostics),
        Raw::UnterminatedString => {
            diagnostics.push(
                Diagnostic::error("E0103", "unterminated string literal")
                    .with_primary(span, "this string has no closing `\"` on its line")
                    .with_help("strings end on the line they start; split long text into adjacent literals \"..\" \"..\""),
            );
            Token::Error
        }
        Raw::SingleQuoted => {
            diagnostics.push(
                Diagnostic::error("E0101", "unexpected character `'`")
                    .with_primary(span, "CuK has no single-quoted literals")
                    .with_help(format!(
                        "strings use double quotes: \"{}\"",
                        &text[1..text.len() - 1]
                    )),
            );
            Token::Error
        }
        Raw::Apostrophe => {
            diagnostics.push(unexpected_character(text, span));
            Token::Error
        }
        Raw::Underscore => Token::Underscore,
        Raw::OpenParen => Token::OpenParen,
        Raw::CloseParen => Token::CloseParen,
        Raw::OpenBracket => Token::OpenBracket,
        Raw::CloseBracket => Token::CloseBracket,
        Raw::OpenBrace => Token::OpenBrace,
        Raw::CloseBrace => Token::CloseBrace,
        Raw::Comma => Token::Comma,
        Raw::Semicolon => Token::Semicolon,
        Raw::Colon => Token::Colon,
        Raw::PathSeparator => Token::PathSeparator,
        Raw::Dot => Token::Dot,
        Raw::DotDot => Token::DotDot,
        Raw::Arrow => Token::Arrow,
        Raw::Assign => Token::Assign,
        Raw::PlusAssign => Token::PlusAssign,
        Raw::MinusAssign => Token::MinusAssign,
        Raw::StarAssign => Token::StarAssign,
        Raw::SlashAssign => Token::SlashAssign,
        Raw::PercentAssign => Token::PercentAssign,
        Raw::EqualEqual => Token::EqualEqual,
        Raw::NotEqual => Token::NotEqual,
        Raw::Less => Token::Less,
        Raw::LessEqual => Token::LessEqual,
        Raw::Greater => Token::Greater,
        Raw::GreaterEqual => Token::GreaterEqual,
        Raw::Plus => Token::Plus,
        Raw::Minus => Token::Minus,
        Raw::Star => Token::Star,
        Raw::Slash => Token::Slash,
        Raw::Percent => Token::Percent,
        Raw::Bang => Token::Bang,
        Raw::AndAnd => Token::AndAnd,
        Raw::OrOr => Token::OrOr,
        Raw::Ampersand => Token::Ampersand,
        Raw::Pipe => Token::Pipe,
        Raw::Caret => Token::Caret,
        Raw::ShiftLeft => Token::ShiftLeft,
        Raw::ShiftRight => Token::ShiftRight,
    };
    Some(token)
}

/// Whether `character` shows as nothing or as blank space: controls, spaces
/// other than the ones CuK skips, and the zero-width format characters.
fn is_invisible(character: char) -> bool {
    character.is_control()
        || character.is_whitespace()
        || matches!(
            character,
            '\u{AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}'
        )
}

/// The diagnostic for a character that starts no token.
fn unexpected_character(text: &str, span: Span) -> Diagnostic {
    let character = text.chars().next().unwrap_or('\u{FFFD}');
    let code_point = format!("U+{:04X}", u32::from(character));
    let invisible = is_invisible(character);
    let shown = if invisible {
        code_point.clone()
    } else {
        format!("`{character}`")
    };
    let diagnostic = Diagnostic::error("E0101", format!("unexpected character {shown}"))
        .with_primary(span, "not part of any token");
    match (character.is_ascii(), invisible) {
        (true, _) => diagnostic,
        (false, true) => diagnostic.with_note(format!(
            "{code_point} is an invisible character; delete it, or write it as an escape inside a string"
        )),
        (false, false) => diagnostic.with_note(format!(
            "`{character}` ({code_point}) may appear only in strings and comments; names use letters, digits and `_`"
        )),
    }
}
