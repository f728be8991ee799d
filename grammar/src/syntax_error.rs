//! Turning lalrpop's parse errors into diagnostics that say, in words, what
//! was expected and what was found.

use std::convert::Infallible;

use lalrpop_util::ParseError;
use lang::{Diagnostic, Span};

use crate::lexer::Spanned;
use crate::token::{Token, keyword};

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
const ITEM_START: &[&str] = &[
    "use", "const", "fn", "kernel", "atom", "test", "bench", "tune",
];

/// Tokens that can continue an expression.
const OPERATORS: &[&str] = &[
    "||", "&&", "==", "!=", "<", "<=", ">", ">=", ":", "|", "^", "&", "<<", ">>", "+", "-", "*",
    "/", "%", ".", "(", "[", "=", "+=", "-=", "*=", "/=", "%=", "::",
];

/// The diagnostic for one parse error, or `None` when the offending token is
/// text the lexer already reported.
///
/// `source` is the text and `tokens` the stream the parser read; they let the
/// description look at what precedes the offending token (`lett x = 3;` names
/// `let`; a `;` missing at the end of a line is reported on that line).
pub fn describe(
    error: ParseError<usize, Token<'_>, Infallible>,
    source: &str,
    tokens: &[Spanned<'_>],
) -> Option<Diagnostic> {
    match error {
        ParseError::UnrecognizedToken {
            token: (start, token, end),
            expected,
        } => {
            let span = Span::from_range(start..end);
            let index = token_index(tokens, start);
            if let Some(line_end) =
                semicolon_missing_at_line_end(source, tokens, index, start, &expected)
            {
                return missing_semicolon(token, span, line_end, &expected);
            }
            let position = Position::at(tokens, index);
            let slip = help_for_slip(source, tokens, index, &token, &expected);
            let diagnostic = unexpected(token, span, &expected, position)?;
            Some(match misspelled_statement_keyword(tokens, index) {
                Some((keyword, span)) => Diagnostic {
                    help: None,
                    ..diagnostic
                }
                .with_secondary(span, "this name is not a keyword")
                .with_help(format!("did you mean the keyword `{keyword}`?")),
                None => match slip {
                    Some(help) => Diagnostic {
                        help: None,
                        ..diagnostic
                    }
                    .with_help(help),
                    None => diagnostic,
                },
            })
        }
        ParseError::ExtraToken {
            token: (start, token, end),
        } => unexpected(
            token,
            Span::from_range(start..end),
            &[],
            Position::at(tokens, token_index(tokens, start)),
        ),
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

/// The index in `tokens` of the token that starts at byte `start`.
fn token_index(tokens: &[Spanned<'_>], start: usize) -> usize {
    tokens.partition_point(|(token_start, _, _)| *token_start < start)
}

/// Where the offending token stands relative to statement boundaries.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    /// First in the file, or right after `;`, `{` or `}`.
    StatementStart,
    /// After some other token.
    InsideStatement,
}

impl Position {
    /// The position of the token at `index` in `tokens`.
    fn at(tokens: &[Spanned<'_>], index: usize) -> Self {
        Self::after(index.checked_sub(1).map(|previous| &tokens[previous].1))
    }

    /// The position after `previous` (`None`: the start of the file).
    fn after(previous: Option<&Token<'_>>) -> Self {
        match previous {
            None | Some(Token::Semicolon | Token::OpenBrace | Token::CloseBrace) => {
                Self::StatementStart
            }
            Some(_) => Self::InsideStatement,
        }
    }
}

fn unexpected(
    token: Token<'_>,
    span: Span,
    expected: &[String],
    position: Position,
) -> Option<Diagnostic> {
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
    if let Some(keyword) = misspelled_keyword(&token, expected) {
        return Some(diagnostic.with_help(format!("did you mean the keyword `{keyword}`?")));
    }
    Some(with_hint(diagnostic, &token, expected, position))
}

/// For an error at `start` where a `;` would do: the end of the token before
/// it, when that token ends an earlier line. The mistake is then on that line
/// (`let x = a` followed by `let y = b;`), not where the parser noticed it.
fn semicolon_missing_at_line_end(
    source: &str,
    tokens: &[Spanned<'_>],
    index: usize,
    start: usize,
    expected: &[String],
) -> Option<usize> {
    if !expected.iter().any(|terminal| unquote(terminal) == ";") {
        return None;
    }
    let (_, previous, previous_end) = tokens.get(index.checked_sub(1)?)?;
    // After `;`, `{` or `}` a statement has just ended or begun: no `;` is
    // missing there, the next token itself is wrong.
    if Position::after(Some(previous)) == Position::StatementStart {
        return None;
    }
    source
        .get(*previous_end..start)?
        .contains('\n')
        .then_some(*previous_end)
}

/// The diagnostic for a `;` missing at `line_end`, noticed at `token`.
fn missing_semicolon(
    token: Token<'_>,
    span: Span,
    line_end: usize,
    expected: &[String],
) -> Option<Diagnostic> {
    if token == Token::Error {
        return None;
    }
    let wanted = expected_in_words(expected);
    Some(
        Diagnostic::error("E0107", format!("expected {wanted}, found {token}"))
            .with_primary(Span::from_range(line_end..line_end), "add `;` here")
            .with_secondary(span, format!("unexpected {token}")),
    )
}

/// Adds help for common slips.
fn with_hint(
    diagnostic: Diagnostic,
    token: &Token<'_>,
    expected: &[String],
    position: Position,
) -> Diagnostic {
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
    let is_launch_part = matches!(
        token,
        Token::Name("grid" | "block" | "cluster") | Token::Smem
    );
    if *token == Token::Name("as") {
        diagnostic.with_help("a value converts with `.to(T)`: `x.to(u32)`, not `x as u32`")
    } else if expects("launch") && is_launch_part {
        diagnostic.with_help("a launch clause starts with `launch`: `launch grid(..) block(..)`")
    } else if expects(",") && expects(")") && starts_expression(token) {
        diagnostic.with_help("elements of a tuple or argument list are separated by `,`")
    } else if is_comparison && expects("&&") {
        diagnostic.with_help("comparisons do not chain: write `a < b && b < c`")
    } else if *token == Token::Colon && expects("&&") {
        diagnostic.with_help(
            "a layout has one `:` between shape and stride; parenthesize a nested layout",
        )
    } else if *token == Token::Else && position == Position::StatementStart {
        diagnostic.with_help("`else` must follow the `}` that closes an `if` block")
    } else if expects(";")
        && position == Position::InsideStatement
        && (starts_expression(token) || token.keyword_text().is_some())
    {
        diagnostic.with_help("a statement ends with `;`")
    } else {
        diagnostic
    }
}

/// Help for a habit from C++ or Python that the parser notices only at
/// `token`, the one at `index`: template arguments (`get<0>(L)`,
/// `Swizzle<3,3,3>`), `=` in a condition, a float written `1.`.
fn help_for_slip(
    source: &str,
    tokens: &[Spanned<'_>],
    index: usize,
    token: &Token<'_>,
    expected: &[String],
) -> Option<String> {
    let expects = |text: &str| expected.iter().any(|terminal| unquote(terminal) == text);
    if *token == Token::Assign && expects("{") {
        return Some("`=` assigns; to compare, write `==`".to_owned());
    }
    if *token == Token::Where && matches!(tokens.get(index + 1), Some((_, Token::OpenParen, _))) {
        return Some(
            "`where` is a keyword (a `tune` block's condition): NumPy's `where(mask, a, b)` is `if_else(mask, a, b)`"
                .to_owned(),
        );
    }
    if let (Some((_, Token::Int(_), int_end)), Some((dot_start, Token::Dot, _))) = (
        index.checked_sub(2).and_then(|before| tokens.get(before)),
        index.checked_sub(1).and_then(|before| tokens.get(before)),
    ) && int_end == dot_start
        && !matches!(token, Token::Name(_))
    {
        let whole = &source[tokens[index - 2].0..*int_end];
        return Some(format!(
            "a float needs a digit after the point: write `{whole}.0`"
        ));
    }
    template_arguments(source, tokens, index).or_else(|| cute_layout_type(tokens, index))
}

/// For a parse error at a `<` after CuTe's `Layout`, `Shape` or `Stride` (`Layout<Shape<_8,
/// _32>, ...>`): CuK's layout literal.
fn cute_layout_type(tokens: &[Spanned<'_>], index: usize) -> Option<String> {
    let (_, Token::Less, _) = tokens.get(index)? else {
        return None;
    };
    let (_, Token::Name(name), _) = tokens.get(index.checked_sub(1)?)? else {
        return None;
    };
    matches!(*name, "Layout" | "Shape" | "Stride" | "Tile" | "Coord").then(|| {
        "CuK has no template arguments: CuTe's `Layout<Shape<_8, _32>, Stride<_32, _1>>{}` is the layout literal `(8, 32):(32, 1)`".to_owned()
    })
}

/// For a parse error at token `index` that is the `>` or a `,` of C++
/// template arguments written without spaces (`get<0>(L)`, `Swizzle<3,3,3>`):
/// how CuK spells the same thing.
fn template_arguments(source: &str, tokens: &[Spanned<'_>], index: usize) -> Option<String> {
    let is_argument = |token: &Token<'_>| {
        matches!(
            token,
            Token::Int(_) | Token::Name(_) | Token::Comma | Token::Minus
        )
    };
    if !matches!(tokens.get(index)?.1, Token::Greater | Token::Comma) {
        return None;
    }
    let first = tokens[..index]
        .iter()
        .rposition(|(_, token, _)| !is_argument(token))?
        + 1;
    let (less_start, Token::Less, less_end) = tokens.get(first.checked_sub(1)?)? else {
        return None;
    };
    let (name_start, Token::Name(name), name_end) = tokens.get(first.checked_sub(2)?)? else {
        return None;
    };
    let written_together = name_end == less_start && tokens.get(first)?.0 == *less_end;
    if first >= index || !written_together {
        return None;
    }
    let closing = first
        + tokens[first..]
            .iter()
            .position(|(_, token, _)| !is_argument(token))?;
    let (closing_start, Token::Greater, closing_end) = &tokens[closing] else {
        return None;
    };
    let arguments: Vec<&str> = source[*less_end..*closing_start]
        .split(',')
        .map(str::trim)
        .collect();
    let arguments = arguments.join(", ");
    let written = &source[*name_start..*closing_end];
    if *name == "Int" {
        return Some(format!(
            "CuK has no template arguments: CuTe's `Int<{arguments}>{{}}` is the integer `{arguments}`, known at compile time"
        ));
    }
    let spelled = if matches!(*name, "get" | "mode") {
        let operand = call_operand(source, tokens, closing + 1).unwrap_or("L");
        format!("{name}({operand}, {arguments})")
    } else if name.eq_ignore_ascii_case("swizzle") {
        format!("swizzle({arguments})")
    } else {
        return Some(format!(
            "CuK has no template arguments: pass `{arguments}` to `{name}` as ordinary arguments"
        ));
    };
    Some(format!(
        "CuK has no template arguments: instead of `{written}`, write `{spelled}`"
    ))
}

/// The text inside the parentheses of a call whose `(` is token `open`.
fn call_operand<'source>(
    source: &'source str,
    tokens: &[Spanned<'_>],
    open: usize,
) -> Option<&'source str> {
    let (_, Token::OpenParen, inside_start) = tokens.get(open)? else {
        return None;
    };
    let mut depth = 0usize;
    for (token_start, token, _) in &tokens[open..] {
        match token {
            Token::OpenParen => depth += 1,
            Token::CloseParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(source[*inside_start..*token_start].trim());
                }
            }
            _ => {}
        }
    }
    None
}

/// Statement keywords a misspelled name at the start of a statement may mean.
const STATEMENT_KEYWORDS: &[&str] = &[
    "let", "return", "for", "while", "if", "break", "continue", "report",
];

/// For an error at token `index`: the statement keyword meant by a name that
/// starts the statement just before it (`lett x`, `retrun x`), and that name's span.
fn misspelled_statement_keyword(
    tokens: &[Spanned<'_>],
    index: usize,
) -> Option<(&'static str, Span)> {
    let (name_start, Token::Name(text), name_end) = tokens.get(index.checked_sub(1)?)? else {
        return None;
    };
    let at_statement_start = Position::after(index.checked_sub(2).map(|before| &tokens[before].1))
        == Position::StatementStart;
    if !at_statement_start || text.chars().count() < 2 {
        return None;
    }
    let limit = if text.chars().count() <= 3 { 1 } else { 2 };
    STATEMENT_KEYWORDS
        .iter()
        .map(|candidate| (strsim::levenshtein(text, candidate), *candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min()
        .map(|(_, candidate)| (candidate, Span::from_range(*name_start..*name_end)))
}

/// The expected keyword a name is one or two edits away from (`kernal`).
fn misspelled_keyword(token: &Token<'_>, expected: &[String]) -> Option<&'static str> {
    let Token::Name(text) = token else {
        return None;
    };
    if text.chars().count() < 3 {
        return None;
    }
    expected
        .iter()
        .filter_map(|terminal| keyword(unquote(terminal)).and_then(|token| token.keyword_text()))
        .filter(|candidate| candidate.len() >= 3)
        .map(|candidate| (strsim::levenshtein(text, candidate), candidate))
        .filter(|(distance, _)| *distance <= 2)
        .min()
        .map(|(_, candidate)| candidate)
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
