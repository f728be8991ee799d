//! `cukc check FILE...`: parse (and later typecheck) files and report diagnostics.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `cukc check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// The `.cuk` files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// Runs `cukc check`.
pub fn run(args: &CheckArgs) -> ExitCode {
    eprintln!("cukc check: not built yet ({} files)", args.files.len());
    ExitCode::from(2)
}
