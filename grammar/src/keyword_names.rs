//! Keywords written where only a name can stand (`let kernel = 3;`,
//! `fn test()`, `t.for`, `(static: i32)`) are reported once (E0109) and read
//! as names, so that the parser carries on as if the name were valid instead
//! of unwinding to the next item and reporting a cascade.

use lang::{Diagnostic, Span};

use crate::lexer::Spanned;
use crate::token::Token;

/// Rewrites keywords in name-only positions into names, with a diagnostic
/// for each.
pub fn rename_misused_keywords<'input>(
    source: &'input str,
    tokens: &mut [Spanned<'input>],
    diagnostics: &mut Vec<Diagnostic>,
) {
    for index in 0..tokens.len() {
        let (start, token, end) = &tokens[index];
        let Some(keyword) = token.keyword_text() else {
            continue;
        };
        let previous = index.checked_sub(1).map(|before| &tokens[before].1);
        let before_previous = index.checked_sub(2).map(|before| &tokens[before].1);
        let next = tokens.get(index + 1).map(|(_, token, _)| token);
        let name_only = needs_name_after(previous, before_previous, token)
            || (names_before(next) && !introduces_name(token))
            || is_parameter_name(previous, next);
        if !name_only {
            continue;
        }
        let span = Span::from_range(*start..*end);
        diagnostics.push(
            Diagnostic::error(
                "E0109",
                format!("`{keyword}` is a keyword and cannot be used as a name"),
            )
            .with_primary(span, "expected a name, found a keyword")
            .with_help(format!("choose another name, such as `{keyword}_`")),
        );
        let text = source.get(*start..*end).unwrap_or(keyword);
        tokens[index].1 = Token::Name(text);
    }
}

/// Whether the token after `previous` must be a name.
fn needs_name_after(
    previous: Option<&Token<'_>>,
    before_previous: Option<&Token<'_>>,
    current: &Token<'_>,
) -> bool {
    match previous {
        Some(
            Token::Fn
            | Token::Kernel
            | Token::Atom
            | Token::Test
            | Token::Bench
            | Token::Tune
            | Token::For,
        ) => true,
        Some(Token::Dot | Token::PathSeparator) => true,
        // `let mut` is the one keyword that may follow `let`.
        Some(Token::Let) => *current != Token::Mut,
        Some(Token::Mut) => before_previous == Some(&Token::Let),
        // `const NAME` as an item or generic parameter, but `if const cond`.
        Some(Token::Const) => before_previous != Some(&Token::If),
        _ => false,
    }
}

/// Keywords that are followed by a name, so that `let = 3;` lacks the name
/// rather than misusing `let` as one: those of every item but `use`, and `let`,
/// `mut`, `for` and `report`.
fn introduces_name(keyword: &Token<'_>) -> bool {
    (keyword.starts_item() && *keyword != Token::Use)
        || matches!(
            keyword,
            Token::Let | Token::Mut | Token::For | Token::Report
        )
}

/// Whether a token followed by `next` must be a name: no keyword is ever
/// followed by `:` (type annotation, parameter) or `=` (binding, named argument).
fn names_before(next: Option<&Token<'_>>) -> bool {
    matches!(next, Some(Token::Colon | Token::Assign))
}

/// Whether a token between `previous` and `next` is a parameter's name:
/// `(let: i32, for: i32)`. Even a keyword that introduces a name (`let`)
/// cannot start a declaration there.
fn is_parameter_name(previous: Option<&Token<'_>>, next: Option<&Token<'_>>) -> bool {
    matches!(previous, Some(Token::OpenParen | Token::Comma)) && next == Some(&Token::Colon)
}
