//! The `.cuk` lexer and parser: text in, AST and diagnostics out.
//!
//! [`parse`] is the interface the compiler uses: it never fails and never
//! panics. Bad input gives a (possibly partial) [`Module`] plus diagnostics
//! with codes E0101-E0115. [`lexer`], [`token`] and [`nesting`] are public
//! for tools that want tokens (highlighting) and for tests. Only this crate
//! knows logos and lalrpop; no lalrpop type appears in its interface.
//!
//! The pipeline inside [`parse`]: [`lexer`] turns text into tokens (bad text
//! becomes an error token and a diagnostic); `keyword_names` turns keywords
//! written where a name must stand into names, reporting each once; [`nesting`]
//! checks bracket balance and depth; the lalrpop grammar
//! (`grammar.lalrpop`) builds the tree through the helpers in `actions`,
//! recovering at item and statement boundaries; `syntax_error` words
//! lalrpop's errors, and cascades (a second error in the same statement)
//! are dropped.

mod actions;
mod congruence;
mod keyword_names;
pub mod lexer;
mod literal;
pub mod nesting;
mod syntax_error;
pub mod token;

lalrpop_util::lalrpop_mod!(
    #[allow(missing_docs, unused_qualifications, clippy::all, clippy::pedantic)]
    parser,
    "/grammar.rs"
);

use lang::Diagnostic;
use lang::ast::Module;

use crate::actions::Context;
use crate::token::Token;

/// Parses one `.cuk` file.
///
/// Returns the module (items the parser could not read are
/// [`ItemKind::Error`](lang::ast::ItemKind::Error) nodes) and every
/// diagnostic, sorted by position. An empty diagnostic list means the text is
/// syntactically valid.
pub fn parse(source: &str) -> (Module, Vec<Diagnostic>) {
    let (mut tokens, mut diagnostics) = lexer::lex(source);
    keyword_names::rename_misused_keywords(source, &mut tokens, &mut diagnostics);
    if lexer::stopped(&diagnostics) {
        sort(&mut diagnostics);
        return (Module::default(), diagnostics);
    }
    let scan = nesting::scan(&tokens);
    if let Some(too_deep) = scan.too_deep {
        diagnostics.push(too_deep);
        sort(&mut diagnostics);
        return (Module::default(), diagnostics);
    }
    let end_of_input = source.len();
    let boundaries = statement_boundaries(&tokens);
    let mut context = Context::default();
    // The parser takes its tokens one at a time from the list, which
    // `syntax_error` reads afterwards: no second copy of the token list.
    let result = parser::ModuleParser::new().parse(&mut context, tokens.iter().cloned().map(Ok));
    let parsed_tokens = tokens;
    let mut syntax_errors: Vec<Diagnostic> = context
        .recovered
        .into_iter()
        .filter_map(|error| syntax_error::describe(error, source, &parsed_tokens))
        .collect();
    let module = match result {
        Ok(module) => module,
        Err(error) => {
            syntax_errors.extend(syntax_error::describe(error, source, &parsed_tokens));
            Module::default()
        }
    };
    drop_cascades(&mut syntax_errors, &boundaries);
    // Errors between an unbalanced bracket and the next item are almost
    // always caused by it.
    syntax_errors.retain(|diagnostic| {
        !scan
            .disturbed
            .iter()
            .any(|stretch| stretch.contains(&diagnostic.primary.span.start))
    });
    debug_assert!(
        syntax_errors
            .iter()
            .all(|diagnostic| diagnostic.primary.span.fits_in(end_of_input))
    );
    diagnostics.extend(syntax_errors);
    diagnostics.extend(scan.diagnostics);
    diagnostics.extend(context.diagnostics);
    sort(&mut diagnostics);
    (module, diagnostics)
}

/// The offsets of the tokens that end or open a statement: `;`, `{`, `}`.
fn statement_boundaries(tokens: &[lexer::Spanned<'_>]) -> Vec<usize> {
    tokens
        .iter()
        .filter(|(_, token, _)| {
            matches!(
                token,
                Token::Semicolon | Token::OpenBrace | Token::CloseBrace
            )
        })
        .map(|(start, _, _)| *start)
        .collect()
}

/// Keeps one syntax error per statement: an error with no statement boundary
/// between it and the previous kept error is a consequence of that error's
/// recovery, not a new mistake.
fn drop_cascades(syntax_errors: &mut Vec<Diagnostic>, boundaries: &[usize]) {
    sort(syntax_errors);
    let mut previous: Option<usize> = None;
    syntax_errors.retain(|diagnostic| {
        let start = diagnostic.primary.span.start as usize;
        let independent = previous.is_none_or(|previous| {
            let first_boundary_after = boundaries.partition_point(|&boundary| boundary < previous);
            boundaries
                .get(first_boundary_after)
                .is_some_and(|&boundary| boundary < start)
        });
        if independent {
            previous = Some(start);
        }
        independent
    });
}

fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|diagnostic| (diagnostic.primary.span.start, diagnostic.code));
}
