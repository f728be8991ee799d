//! The pre-scan run before parsing: brackets must balance, and nesting must
//! stay shallow enough for every later recursive pass over the tree.
//!
//! Two limits keep the tree's depth bounded: at most [`MAX_BRACKET_DEPTH`]
//! open brackets, and at most [`MAX_EXPRESSION_DEPTH`] for the bracket depth
//! plus the operators seen in the enclosing, unfinished expressions (each
//! operator may add a level to the tree, for example in `-(-(-x))` or
//! `a + b + c`, as does a call or index `f(x)(y)`). The count of a bracket
//! level restarts at `,` and `;`, and after a nested `{..}` closes.

use std::ops::Range;

use lang::{Diagnostic, Span};

use crate::lexer::Spanned;
use crate::token::Token;

/// The deepest bracket nesting accepted.
pub const MAX_BRACKET_DEPTH: usize = 256;

/// The deepest nesting of brackets and operators accepted.
pub const MAX_EXPRESSION_DEPTH: usize = 1024;

/// What the pre-scan found.
pub struct Scan {
    /// Unbalanced brackets, in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// The stretches of text whose syntax errors are most likely caused by a
    /// bracket problem: each runs from the problem to the next item keyword
    /// (`fn`, `kernel`, ...) outside all brackets, where parsing is back in
    /// step, or to the end of the text.
    pub disturbed: Vec<Range<u32>>,
    /// A nesting limit was crossed: the text must not be parsed.
    pub too_deep: Option<Diagnostic>,
}

struct Open {
    token: &'static str,
    span: Span,
    operators: usize,
}

/// Checks bracket balance and nesting depth of `tokens`.
pub fn scan(tokens: &[Spanned<'_>]) -> Scan {
    let mut stack: Vec<Open> = Vec::new();
    let mut top_operators = 0usize;
    let mut total_operators = 0usize;
    let mut diagnostics = Vec::new();
    let mut disturbed = Vec::new();
    let mut first_problem: Option<u32> = None;
    for (start, token, end) in tokens {
        let span = Span::from_range(*start..*end);
        if stack.is_empty()
            && token.starts_item()
            && let Some(problem) = first_problem.take()
        {
            disturbed.push(problem..span.start);
        }
        let current = stack
            .last_mut()
            .map_or(&mut top_operators, |open| &mut open.operators);
        match token {
            Token::OpenParen | Token::OpenBracket | Token::OpenBrace => {
                if !matches!(token, Token::OpenBrace) {
                    // A call or index applied to the expression before it.
                    *current += 1;
                    total_operators += 1;
                }
                if stack.len() >= MAX_BRACKET_DEPTH {
                    return too_deep(
                        span,
                        format!("brackets nested more than {MAX_BRACKET_DEPTH} deep"),
                        "each `(`, `[` or `{` that is still open adds a level",
                    );
                }
                stack.push(Open {
                    token: opening_text(token),
                    span,
                    operators: 0,
                });
            }
            Token::CloseParen | Token::CloseBracket | Token::CloseBrace => {
                let closing = closing_text(token);
                let Some(match_depth) = stack
                    .iter()
                    .rposition(|open| matching(open.token) == closing)
                else {
                    match stack.last() {
                        // `(1, 2]`: read as the innermost bracket's (wrong) closer.
                        Some(open) if open.token != "{" => {
                            first_problem.get_or_insert(open.span.start);
                            diagnostics.push(
                                Diagnostic::error(
                                    "E0111",
                                    format!("mismatched closing `{closing}`"),
                                )
                                .with_primary(
                                    span,
                                    format!("expected `{}` here", matching(open.token)),
                                )
                                .with_secondary(
                                    open.span,
                                    format!("this `{}` is closed by `{closing}`", open.token),
                                ),
                            );
                        }
                        // Closes nothing that is open: reported, then read on as if absent.
                        _ => {
                            first_problem.get_or_insert(span.start);
                            diagnostics.push(
                                Diagnostic::error(
                                    "E0111",
                                    format!("unmatched closing `{closing}`"),
                                )
                                .with_primary(
                                    span,
                                    format!("no `{}` is open here", opening_for(closing)),
                                ),
                            );
                            continue;
                        }
                    }
                    if let Some(open) = stack.pop() {
                        total_operators -= open.operators;
                    }
                    continue;
                };
                // Brackets opened after the one `closing` matches were never closed.
                for unclosed in stack.drain(match_depth + 1..).rev() {
                    total_operators -= unclosed.operators;
                    first_problem = Some(
                        first_problem
                            .map_or(unclosed.span.start, |first| first.min(unclosed.span.start)),
                    );
                    diagnostics.push(
                        Diagnostic::error("E0111", format!("unclosed `{}`", unclosed.token))
                            .with_primary(
                                span,
                                format!(
                                    "`{closing}` found while `{}` is still open",
                                    unclosed.token
                                ),
                            )
                            .with_secondary(
                                unclosed.span,
                                format!("this `{}` is never closed", unclosed.token),
                            ),
                    );
                }
                if let Some(open) = stack.pop() {
                    total_operators -= open.operators;
                }
                if closing == "}" {
                    let parent = stack
                        .last_mut()
                        .map_or(&mut top_operators, |open| &mut open.operators);
                    total_operators -= *parent;
                    *parent = 0;
                }
            }
            Token::Comma | Token::Semicolon => {
                total_operators -= *current;
                *current = 0;
            }
            token if is_operator(token) => {
                *current += 1;
                total_operators += 1;
            }
            _ => {}
        }
        if total_operators + stack.len() > MAX_EXPRESSION_DEPTH {
            return too_deep(
                span,
                format!("expression more than {MAX_EXPRESSION_DEPTH} operations deep"),
                "each operator, call or index adds a level until its expression ends \
                 at `,`, `;` or a closing bracket: `a + b + c` is two levels deep",
            );
        }
    }
    for open in stack.iter().rev() {
        first_problem =
            Some(first_problem.map_or(open.span.start, |first| first.min(open.span.start)));
        diagnostics.push(
            Diagnostic::error("E0111", format!("unclosed `{}`", open.token))
                .with_primary(open.span, format!("this `{}` is never closed", open.token)),
        );
    }
    if let Some(problem) = first_problem {
        disturbed.push(problem..u32::MAX);
    }
    diagnostics.sort_by_key(|diagnostic| diagnostic.primary.span.start);
    Scan {
        diagnostics,
        disturbed,
        too_deep: None,
    }
}

fn too_deep(span: Span, message: String, note: &str) -> Scan {
    let diagnostic = Diagnostic::error("E0110", message)
        .with_primary(span, "nesting limit crossed here")
        .with_note(note)
        .with_help("split the expression with `let` bindings or helper functions");
    Scan {
        diagnostics: Vec::new(),
        disturbed: Vec::new(),
        too_deep: Some(diagnostic),
    }
}

fn opening_text(token: &Token<'_>) -> &'static str {
    match token {
        Token::OpenParen => "(",
        Token::OpenBracket => "[",
        _ => "{",
    }
}

fn closing_text(token: &Token<'_>) -> &'static str {
    match token {
        Token::CloseParen => ")",
        Token::CloseBracket => "]",
        _ => "}",
    }
}

fn opening_for(closing: &str) -> &'static str {
    match closing {
        ")" => "(",
        "]" => "[",
        _ => "{",
    }
}

fn matching(opening: &str) -> &'static str {
    match opening {
        "(" => ")",
        "[" => "]",
        _ => "}",
    }
}

/// Tokens that can add a level to an expression tree.
fn is_operator(token: &Token<'_>) -> bool {
    matches!(
        token,
        Token::Colon
            | Token::Dot
            | Token::DotDot
            | Token::EqualEqual
            | Token::NotEqual
            | Token::Less
            | Token::LessEqual
            | Token::Greater
            | Token::GreaterEqual
            | Token::Plus
            | Token::Minus
            | Token::Star
            | Token::Slash
            | Token::Percent
            | Token::Bang
            | Token::AndAnd
            | Token::OrOr
            | Token::Ampersand
            | Token::Pipe
            | Token::Caret
            | Token::ShiftLeft
            | Token::ShiftRight
    )
}
