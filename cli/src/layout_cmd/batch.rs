//! `cukc layout --batch`: JSON-lines queries in, JSON-lines answers out.

use std::process::ExitCode;

/// Runs the batch loop over standard input.
pub fn run() -> ExitCode {
    eprintln!("cukc layout --batch: not built yet");
    ExitCode::from(2)
}
