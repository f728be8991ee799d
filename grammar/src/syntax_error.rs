//! Turning lalrpop's parse errors into diagnostics that say, in words, what
//! was expected and what was found.

use std::convert::Infallible;

use lalrpop_util::ParseError;
use lang::{Diagnostic, Span};

use crate::token::Token;

/// Tokens that can start an expression.
const EXPRESSION_START: &[&str] = &[
    "name", "integer", "float", "string", "true", "false", "_", "(", "-", "!", "gmem", "smem",
    "rmem", "tmem",
];

/// Tokens that can start a statement but not an expression.
const STATEMENT_START: &[&str] = &[
    "let", "return", "if", "for", "while", "break", "continue", "report", ";",
];

/// Tokens that can start an item.
const ITEM_START: &[&str] = &["use", "const", "fn", "kernel", "atom", "test", "bench"];

/// Tokens that can continue an expression.
const OPERATORS: &[&str] = &[
    "||", "&&", "==", "!=", "<", "<=", ">", ">=", ":", "|", "^", "&", "<<", ">>", "+", "-", "*",
    "/", "%", ".", "(", "[", "=", "+=", "-=", "*=", "/=", "%=",
];

/// The diagnostic for one parse error, or `None` when the offending token is
/// text the lexer already reported.
pub fn describe(error: ParseError<usize, Token<'_>, Infallible>) -> Option<Diagnostic> {
    match error {
        ParseError::UnrecognizedToken {
            token: (start, token, end),
            expected,
        } => unexpected(token, Span::from_range(start..end), &expected),
        ParseError::ExtraToken {
            token: (start, token, end),
        } => unexpected(token, Span::from_range(start..end), &[]),
        ParseError::UnrecognizedEof { location, expected } => {
            let wanted = expected_in_words(&expected);
            Some(
                Diagnostic::error("E0108", "unexpected end of file").with_primary(
                    Span::from_range(location..location),
                    format!("expected {wanted}"),
                ),
            )
        }
        ParseError::InvalidToken { location } => Some(
            Diagnostic::error("E0107", "invalid token")
                .with_primary(Span::from_range(location..location), "here"),
        ),
        ParseError::User { error } => match error {},
    }
}

fn unexpected(token: Token<'_>, span: Span, expected: &[String]) -> Option<Diagnostic> {
    if token == Token::Error {
        return None;
    }
    let expects = |text: &str| expected.iter().any(|terminal| unquote(terminal) == text);
    // A name position, not the start of an expression or statement.
    let wants_name = expects("name") && !expects("integer");
    if let (true, Some(keyword)) = (wants_name, token.keyword_text()) {
        return Some(
            Diagnostic::error(
                "E0109",
                format!("`{keyword}` is a keyword and cannot be used as a name"),
            )
            .with_primary(span, "expected a name, found a keyword")
            .with_help(format!("choose another name, such as `{keyword}_`")),
        );
    }
    let wanted = expected_in_words(expected);
    let diagnostic = Diagnostic::error("E0107", format!("expected {wanted}, found {token}"))
        .with_primary(span, format!("unexpected {token}"));
    Some(with_hint(diagnostic, &token, expected))
}

/// Adds help for common slips.
fn with_hint(diagnostic: Diagnostic, token: &Token<'_>, expected: &[String]) -> Diagnostic {
    let expects = |text: &str| expected.iter().any(|terminal| unquote(terminal) == text);
    let is_comparison = matches!(
        token,
        Token::EqualEqual
            | Token::NotEqual
            | Token::Less
            | Token::LessEqual
            | Token::Greater
            | Token::GreaterEqual
    );
    if expects(",") && expects(")") && starts_expression(token) {
        diagnostic.with_help("elements of a tuple or argument list are separated by `,`")
    } else if is_comparison && expects("&&") {
        diagnostic.with_help("comparisons do not chain: write `a < b && b < c`")
    } else if *token == Token::Colon && expects("&&") {
        diagnostic.with_help(
            "a layout has one `:` between shape and stride; parenthesize a nested layout",
        )
    } else if expects(";") && (starts_expression(token) || token.keyword_text().is_some()) {
        diagnostic.with_help("a statement ends with `;`")
    } else {
        diagnostic
    }
}

fn starts_expression(token: &Token<'_>) -> bool {
    matches!(
        token,
        Token::Name(_)
            | Token::Int(_)
            | Token::Float(_)
            | Token::String(_)
            | Token::True
            | Token::False
            | Token::Underscore
            | Token::OpenParen
    )
}

fn unquote(terminal: &str) -> &str {
    terminal
        .strip_prefix('"')
        .and_then(|inner| inner.strip_suffix('"'))
        .unwrap_or(terminal)
}

/// "`;` or an operator", "a name", "an item or the end of the file".
pub fn expected_in_words(expected: &[String]) -> String {
    let terminals: Vec<&str> = expected.iter().map(|terminal| unquote(terminal)).collect();
    let has = |text: &str| terminals.contains(&text);
    let expression = has("name") && has("integer") && has("(");
    let statement = has("let") && has("if");
    let item = has("fn") && has("kernel");
    let operator = has("+") && has("*");
    let mut words: Vec<String> = Vec::new();
    for terminal in &terminals {
        let grouped = (expression && EXPRESSION_START.contains(terminal))
            || (statement && STATEMENT_START.contains(terminal))
            || (item && ITEM_START.contains(terminal))
            || (operator && OPERATORS.contains(terminal))
            || *terminal == "invalid text";
        if !grouped {
            words.push(terminal_in_words(terminal));
        }
    }
    if item {
        words.push("an item (`fn`, `kernel`, `const`, `use`, `atom`, `test`, `bench`)".to_owned());
    }
    if statement {
        words.push("a statement".to_owned());
    }
    if expression {
        words.push("an expression".to_owned());
    }
    if operator {
        words.push("an operator".to_owned());
    }
    match words.as_slice() {
        [] => "something else".to_owned(),
        [only] => only.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn terminal_in_words(terminal: &str) -> String {
    match terminal {
        "name" => "a name".to_owned(),
        "integer" => "an integer".to_owned(),
        "float" => "a number".to_owned(),
        "string" => "a string".to_owned(),
        other => format!("`{other}`"),
    }
}
