//! `cukc layout show`: a layout's offset table as text or SVG.

use std::process::ExitCode;

/// Arguments of `cukc layout show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// The layout in CuTe notation, e.g. `((2,2),3):((1,4),8)`.
    layout: String,
}

/// Runs `cukc layout show`.
pub fn run(args: &ShowArgs) -> ExitCode {
    eprintln!("cukc layout show {}: not built yet", args.layout);
    ExitCode::from(2)
}
