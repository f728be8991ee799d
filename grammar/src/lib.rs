//! The `.cuk` lexer and parser: text in, AST and diagnostics out.
//!
//! [`parse`] is the whole interface: it never fails and never panics. Bad
//! input gives a (possibly partial) [`Module`] plus diagnostics with codes
//! E0101-E0115. Only this crate knows logos and lalrpop; their types do not
//! appear in its interface.
//!
//! The pipeline inside: [`lexer`] turns text into tokens (bad text becomes an
//! error token and a diagnostic), [`nesting`] checks bracket balance and
//! depth, the lalrpop grammar builds the tree through the helpers in
//! `actions`, recovering at item and statement boundaries, and
//! `syntax_error` words lalrpop's errors.

mod actions;
mod congruence;
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

/// Parses one `.cuk` file.
///
/// Returns the module (items the parser could not read are
/// [`ItemKind::Error`](lang::ast::ItemKind::Error) nodes) and every
/// diagnostic, sorted by position. An empty diagnostic list means the text is
/// syntactically valid.
pub fn parse(source: &str) -> (Module, Vec<Diagnostic>) {
    let (tokens, mut diagnostics) = lexer::lex(source);
    let scan = nesting::scan(&tokens);
    if let Some(too_deep) = scan.too_deep {
        diagnostics.push(too_deep);
        sort(&mut diagnostics);
        return (Module::default(), diagnostics);
    }
    let end_of_input = source.len();
    let mut context = Context::default();
    let result = parser::ModuleParser::new().parse(&mut context, tokens.into_iter().map(Ok));
    let mut syntax_errors: Vec<Diagnostic> = context
        .recovered
        .into_iter()
        .filter_map(|recovery| syntax_error::describe(recovery.error))
        .collect();
    let module = match result {
        Ok(module) => module,
        Err(error) => {
            syntax_errors.extend(syntax_error::describe(error));
            Module::default()
        }
    };
    syntax_errors.dedup_by_key(|diagnostic| diagnostic.primary.span.start);
    if let Some(first_problem) = scan.first_problem {
        // Errors past an unbalanced bracket are almost always caused by it.
        syntax_errors.retain(|diagnostic| diagnostic.primary.span.start < first_problem);
    }
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

fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|diagnostic| (diagnostic.primary.span.start, diagnostic.code));
}
