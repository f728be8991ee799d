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
//!
//! Each renders at most [`MAX_DIAGNOSTICS`] diagnostics of a file and then one
//! note, `N0001`, saying how many more there are ([`capped`]); the language server
//! publishes the same list, so every front-end shows the same ones.

mod human;
mod json;
mod short;

use std::borrow::Cow;

use crate::Diagnostic;

pub use human::{MAX_EXCERPT_DEPTH, Style, human};
pub use json::json;
pub use short::short;

/// The most diagnostics shown for one file (200). Past a few hundred, more lines
/// help nobody, and each costs the renderers and the editor work.
pub const MAX_DIAGNOSTICS: usize = 200;

/// `diagnostics` as every front-end shows them: all of them when there are at
/// most [`MAX_DIAGNOSTICS`], else the first [`MAX_DIAGNOSTICS`] and an `N0001`
/// note, at the first one left out, that says how many more there are.
pub fn capped(diagnostics: &[Diagnostic]) -> Cow<'_, [Diagnostic]> {
    let Some(first_left_out) = diagnostics.get(MAX_DIAGNOSTICS) else {
        return Cow::Borrowed(diagnostics);
    };
    let left_out = diagnostics.len() - MAX_DIAGNOSTICS;
    let more = Diagnostic::note(
        "N0001",
        format!("and {left_out} more diagnostics, not shown (at most {MAX_DIAGNOSTICS} are)"),
    )
    .with_primary(first_left_out.span(), "");
    let mut shown = diagnostics[..MAX_DIAGNOSTICS].to_vec();
    shown.push(more);
    Cow::Owned(shown)
}
