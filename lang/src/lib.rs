//! Source files, spans, the `.cuk` AST and the one `Diagnostic` type.
