//! Source files, spans, the `.cuk` AST and the one `Diagnostic` type.
//!
//! Everything here is pure data and pure functions, no file or terminal I/O, except
//! [`read`]: the guarded read of a source file every front end shares.
//! [`Span`] locates text by byte offsets, [`SourceFile`] and [`LineIndex`] turn
//! offsets into lines and columns, [`Diagnostic`] carries one problem,
//! [`codes`] lists every diagnostic code, [`render`] turns diagnostics into
//! text for terminals, tools and JSON consumers, and [`ast`] is the tree the
//! parser builds.

pub mod ast;
pub mod codes;
mod diagnostic;
mod line_index;
pub mod read;
pub mod render;
pub mod source;
mod span;

pub use diagnostic::{Diagnostic, Label, Severity};
pub use line_index::{BYTE_ORDER_MARK, LineColumn, LineIndex};
pub use source::SourceFile;
pub use span::Span;
