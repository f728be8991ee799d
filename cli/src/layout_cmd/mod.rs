//! `cukc layout`: print a layout's offset table, draw it as SVG, or answer the
//! JSON-lines queries of the batch interface.

mod batch;
mod show;

use std::process::ExitCode;

use crate::output::errln;
use clap::{Args, Subcommand};

/// Arguments of `cukc layout`.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct LayoutArgs {
    /// Answer JSON-lines queries (see LAYOUT-QUERIES) from standard input, one
    /// answer per line.
    #[arg(long)]
    batch: bool,
    #[command(subcommand)]
    command: Option<LayoutCommand>,
}

#[derive(Subcommand)]
enum LayoutCommand {
    /// Print a layout's offset table as CuTe's `print_layout` does, or draw it.
    Show(show::ShowArgs),
}

/// Runs `cukc layout`.
pub fn run(args: LayoutArgs) -> ExitCode {
    match (args.batch, args.command) {
        (true, _) => batch::run(),
        (false, Some(LayoutCommand::Show(show_args))) => show::run(&show_args),
        (false, None) => {
            errln!("error: `cukc layout` needs `show <layout>` or `--batch`");
            ExitCode::from(2)
        }
    }
}
