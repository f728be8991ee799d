//! Source files, spans, the `.cuk` AST and the one `Diagnostic` type.
//!
//! Everything here is pure data and pure functions: no file or terminal I/O.
//! [`Span`] locates text by byte offsets, [`Diagnostic`] carries one problem,
//! [`codes`] lists every diagnostic code.

pub mod codes;
mod diagnostic;
mod span;

pub use diagnostic::{Diagnostic, Label, Severity};
pub use span::Span;
