//! `cukc layout`: print a layout's offset table, draw it as SVG, or answer the
//! JSON-lines queries of the batch interface.

use std::process::ExitCode;

use clap::{Args, Subcommand};

/// Arguments of `cukc layout`.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct LayoutArgs {
    /// Answer JSON-lines queries from standard input, one answer per line.
    #[arg(long)]
    batch: bool,
    #[command(subcommand)]
    command: Option<LayoutCommand>,
}

#[derive(Subcommand)]
enum LayoutCommand {
    /// Print a layout's offset table as CuTe's `print_layout` does.
    Show {
        /// The layout in CuTe notation, e.g. `((2,2),3):((1,4),8)`.
        layout: String,
    },
}

/// Runs `cukc layout`.
pub fn run(args: LayoutArgs) -> ExitCode {
    match (args.batch, args.command) {
        (true, _) => {
            eprintln!("cukc layout --batch: not built yet");
            ExitCode::from(2)
        }
        (false, Some(LayoutCommand::Show { layout })) => {
            eprintln!("cukc layout show {layout}: not built yet");
            ExitCode::from(2)
        }
        (false, None) => {
            eprintln!("cukc layout: give `show <layout>` or `--batch`");
            ExitCode::from(2)
        }
    }
}
