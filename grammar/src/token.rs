//! The tokens the parser consumes, and how diagnostics name them.

use std::fmt;

/// One token of `.cuk` text, with literal values already decoded.
///
/// Keywords are recognised after lexing (an identifier whose text is a
/// keyword), so `letter` is one name, never `let` followed by `ter`.
#[derive(Clone, Debug, PartialEq)]
#[expect(
    missing_docs,
    reason = "keyword and punctuation variants are named after their text"
)]
pub enum Token<'input> {
    /// An identifier (Unicode XID).
    Name(&'input str),
    /// An integer literal that fits in `i64`.
    Int(i64),
    /// A finite float literal.
    Float(f64),
    /// A string literal with its escapes decoded.
    String(String),
    /// Text the lexer rejected; the lexer already reported it.
    Error,

    Use,
    Const,
    Fn,
    Kernel,
    Atom,
    Test,
    Bench,
    Let,
    Mut,
    Return,
    If,
    Else,
    For,
    In,
    Static,
    While,
    Break,
    Continue,
    Launch,
    True,
    False,
    Gmem,
    Smem,
    Rmem,
    Tmem,
    Report,
    Against,
    Tune,
    Where,
    Underscore,

    OpenParen,
    CloseParen,
    OpenBracket,
    CloseBracket,
    OpenBrace,
    CloseBrace,
    Comma,
    Semicolon,
    Colon,
    PathSeparator,
    Dot,
    DotDot,
    Arrow,
    Assign,
    PlusAssign,
    MinusAssign,
    StarAssign,
    SlashAssign,
    PercentAssign,
    EqualEqual,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Bang,
    AndAnd,
    OrOr,
    Ampersand,
    Pipe,
    Caret,
    ShiftLeft,
    ShiftRight,
}

/// The keywords and the tokens they become, in one table so that the lexer
/// and the "keyword used as a name" diagnostic agree.
pub const KEYWORDS: &[(&str, Token<'static>)] = &[
    ("use", Token::Use),
    ("const", Token::Const),
    ("fn", Token::Fn),
    ("kernel", Token::Kernel),
    ("atom", Token::Atom),
    ("test", Token::Test),
    ("bench", Token::Bench),
    ("let", Token::Let),
    ("mut", Token::Mut),
    ("return", Token::Return),
    ("if", Token::If),
    ("else", Token::Else),
    ("for", Token::For),
    ("in", Token::In),
    ("static", Token::Static),
    ("while", Token::While),
    ("break", Token::Break),
    ("continue", Token::Continue),
    ("launch", Token::Launch),
    ("true", Token::True),
    ("false", Token::False),
    ("gmem", Token::Gmem),
    ("smem", Token::Smem),
    ("rmem", Token::Rmem),
    ("tmem", Token::Tmem),
    ("report", Token::Report),
    ("against", Token::Against),
    ("tune", Token::Tune),
    ("where", Token::Where),
];

/// The keyword token spelled `text`, if `text` is a keyword.
pub fn keyword(text: &str) -> Option<Token<'static>> {
    KEYWORDS
        .iter()
        .find(|(spelling, _)| *spelling == text)
        .map(|(_, token)| token.clone())
}

impl Token<'_> {
    /// The keyword's spelling, if this token is a keyword.
    pub fn keyword_text(&self) -> Option<&'static str> {
        KEYWORDS
            .iter()
            .find(|(_, token)| token == self)
            .map(|(spelling, _)| *spelling)
    }

    /// Whether this keyword begins an item (`use`, `const`, `fn`, `kernel`,
    /// `atom`, `test`, `bench`, `tune`) when it stands outside all brackets.
    pub fn starts_item(&self) -> bool {
        matches!(
            self,
            Token::Use
                | Token::Const
                | Token::Fn
                | Token::Kernel
                | Token::Atom
                | Token::Test
                | Token::Bench
                | Token::Tune
        )
    }

    /// The fixed spelling of a punctuation token.
    fn punctuation(&self) -> Option<&'static str> {
        let text = match self {
            Token::Underscore => "_",
            Token::OpenParen => "(",
            Token::CloseParen => ")",
            Token::OpenBracket => "[",
            Token::CloseBracket => "]",
            Token::OpenBrace => "{",
            Token::CloseBrace => "}",
            Token::Comma => ",",
            Token::Semicolon => ";",
            Token::Colon => ":",
            Token::PathSeparator => "::",
            Token::Dot => ".",
            Token::DotDot => "..",
            Token::Arrow => "->",
            Token::Assign => "=",
            Token::PlusAssign => "+=",
            Token::MinusAssign => "-=",
            Token::StarAssign => "*=",
            Token::SlashAssign => "/=",
            Token::PercentAssign => "%=",
            Token::EqualEqual => "==",
            Token::NotEqual => "!=",
            Token::Less => "<",
            Token::LessEqual => "<=",
            Token::Greater => ">",
            Token::GreaterEqual => ">=",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Star => "*",
            Token::Slash => "/",
            Token::Percent => "%",
            Token::Bang => "!",
            Token::AndAnd => "&&",
            Token::OrOr => "||",
            Token::Ampersand => "&",
            Token::Pipe => "|",
            Token::Caret => "^",
            Token::ShiftLeft => "<<",
            Token::ShiftRight => ">>",
            _ => return None,
        };
        Some(text)
    }
}

/// Describes a token for a diagnostic: "`;`", "keyword `let`", "integer `3`".
impl fmt::Display for Token<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(text) = self.punctuation() {
            return write!(formatter, "`{text}`");
        }
        if let Some(text) = self.keyword_text() {
            return write!(formatter, "keyword `{text}`");
        }
        match self {
            Token::Name(text) => write!(formatter, "name `{text}`"),
            Token::Int(value) => write!(formatter, "integer `{value}`"),
            Token::Float(value) => write!(formatter, "number `{value}`"),
            Token::String(_) => write!(formatter, "a string"),
            _ => write!(formatter, "invalid text"),
        }
    }
}
