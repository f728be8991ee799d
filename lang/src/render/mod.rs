//! The three text renderings of a [`Diagnostic`](crate::Diagnostic).
//!
//! | function | for | form |
//! | --- | --- | --- |
//! | [`human`] | terminals | an ariadne report: header with code and message, the source excerpt with labels, notes and help |
//! | [`short`] | editors' quickfix lists, grep | `path:line:col: error[E0101]: message`, one line each |
//! | [`json`] | tools (`--message-format json`) | one JSON object per line |
//!
//! All three are pure: they take diagnostics of one [`SourceFile`](crate::SourceFile)
//! and return a `String`; the driver decides where it goes. Lines and columns are
//! 1-based and count characters; spans are clamped to the text and to character
//! boundaries first, so a stage reporting a slightly wrong span cannot make a
//! renderer panic.

mod human;
mod json;
mod short;

pub use human::{Style, human};
pub use json::json;
pub use short::short;
