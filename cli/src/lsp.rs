//! `cukc lsp`: the language server over standard input and output.
//!
//! All the work is in the `lsp` crate; this module only runs it and turns its
//! outcome into an exit code: 0 after `shutdown` and `exit` (or when the client
//! closed the stream), 1 when the protocol broke down.

use crate::output::errln;
use std::process::ExitCode;

/// Arguments of `cukc lsp` (none: editors start it as it is).
#[derive(clap::Args)]
pub struct LspArgs {}

/// Runs the server until the client says `exit`.
pub fn run(_args: &LspArgs) -> ExitCode {
    match ::lsp::run_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            errln!("cukc lsp: {error}");
            ExitCode::FAILURE
        }
    }
}
