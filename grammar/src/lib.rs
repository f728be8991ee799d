//! The `.cuk` lexer and parser: text in, AST and diagnostics out.
