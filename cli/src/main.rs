//! `cukc`, the CuK compiler driver: thin glue over the pipeline's crates.
//!
//! Each subcommand lives in its own module; this file only parses the command
//! line and dispatches. Exit codes: 0 success, 1 the input had errors (diagnostics
//! were printed), 2 the command line or the environment was unusable, 130 interrupted
//! (see `interrupt.rs`).

mod assemble;
mod build;
mod check;
mod doctor;
mod gmma_advice;
mod interrupt;
mod layout_cmd;
mod lsp;
mod output;
mod outputs;
mod profile;
mod run;
mod sources;
mod tune;

use std::process::ExitCode;

/// The compiler allocates many small symbolic expressions; mimalloc serves them in
/// about half the time of the system allocator (the GEMM's front end spent a third
/// of its instructions in malloc and free).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};

/// The CuK compiler.
#[derive(Parser)]
#[command(
    name = "cukc",
    version,
    about = "The CuK compiler: CuTe's layout algebra as a kernel language"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile a `.cuk` file to a cubin (and PTX), or stop at PTX or KIR.
    Build(build::BuildArgs),
    /// Build files and run their `test` blocks on the GPU: one line each, then a count.
    Test(run::RunArgs),
    /// Build files and run their `bench` blocks, each against its reference.
    Bench(run::RunArgs),
    /// Build files and run their tests, then their benches.
    Run(run::RunArgs),
    /// Compile every point of a file's `tune` blocks, time them on the GPU and store
    /// each bench's fastest for `bench` and `run` (`--dry-run`: compile and check only).
    Tune(tune::TuneArgs),
    /// Where a test's or bench's kernels spend their work, line by line: under Nsight
    /// Compute on a GPU, else on the CPU emulator (a test).
    Profile(profile::ProfileArgs),
    /// Parse and check `.cuk` files, printing every diagnostic.
    Check(check::CheckArgs),
    /// Inspect layouts: print or draw one, or answer JSON-lines queries.
    Layout(layout_cmd::LayoutArgs),
    /// Show the ptxas cukc would use (installing it if need be), the cache
    /// directory, and the NVIDIA driver and GPUs.
    Doctor(doctor::DoctorArgs),
    /// Run the language server over standard input and output (for editors).
    Lsp(lsp::LspArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    interrupt::install();
    match cli.command {
        Command::Build(args) => build::run(&args),
        Command::Test(args) => run::run(&args, run::Mode::Tests),
        Command::Bench(args) => run::run(&args, run::Mode::Benches),
        Command::Run(args) => run::run(&args, run::Mode::All),
        Command::Tune(args) => tune::run(&args),
        Command::Profile(args) => profile::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Layout(args) => layout_cmd::run(args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Lsp(args) => lsp::run(&args),
    }
}
