//! `cukc test`, `cukc bench` and `cukc run`: build a file's kernels for the GPU and
//! run its `test` and `bench` blocks with the runtime's harness.
//!
//! Each file is compiled as `cukc build` does (for the GPU's architecture when there
//! is one), assembled by ptxas, or handed to the driver as PTX with `--jit`, and its
//! blocks run in source order. One line per block, then `N passed, N failed`.
//! Without a GPU, blocks that launch kernels are skipped with the reason. Exit code 1
//! when a file has errors or a block failed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use lang::Diagnostic;
use runtime::{BlockKind, CompiledKernel, Event, Image, Outcome, Selection, Summary};

use crate::assemble::{self, PtxasArgs};
use crate::build;
use crate::interrupt;
use crate::output::{errln, outln};
use crate::sources;

/// Arguments shared by `test`, `bench` and `run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// `.cuk` files, or folders whose `.cuk` files to take (default: the current folder).
    paths: Vec<PathBuf>,
    /// The architecture to build for; by default the GPU's (sm_80, sm_90a or sm_100a).
    #[arg(long, value_parser = crate::check::parse_target)]
    target: Option<cute::Target>,
    /// Run only blocks whose name contains this.
    #[arg(long)]
    filter: Option<String>,
    /// Give the driver PTX to compile instead of a cubin from ptxas.
    #[arg(long)]
    jit: bool,
    #[command(flatten)]
    ptxas: PtxasArgs,
}

/// What to run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `test` blocks.
    Tests,
    /// `bench` blocks.
    Benches,
    /// Both.
    All,
}

/// Runs `cukc test`, `cukc bench` or `cukc run`.
pub fn run(args: &RunArgs, mode: Mode) -> ExitCode {
    let files = match sources::files(&args.paths) {
        Ok(files) => files,
        Err(message) => {
            errln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let gpu = runtime::gpu_status();
    let gpu_target = match &gpu {
        Ok(info) => match info.compute_capability.0 {
            8 => cute::Target::Sm80,
            10.. => cute::Target::Sm100a,
            _ => cute::Target::Sm90a,
        },
        Err(_) => cute::Target::Sm90a,
    };
    let target = args.target.unwrap_or(gpu_target);
    match &gpu {
        Ok(info) => errln!("cukc: {info}; building for {}", target.name()),
        Err(reason) => errln!("cukc: no GPU ({reason}); blocks that launch kernels are skipped"),
    }
    let mut selection = match mode {
        Mode::Tests => Selection::tests(),
        Mode::Benches => Selection::benches(),
        Mode::All => Selection::all(),
    };
    if let Some(filter) = &args.filter {
        selection = selection.with_filter(filter.clone());
    }
    // Found once for all the files (finding it may run python3 and pip).
    let ptxas = (!args.jit).then(|| assemble::find_ptxas(&args.ptxas));
    let mut total = Summary::default();
    for file in &files {
        let summary = run_file(file, target, ptxas.as_ref(), &args.ptxas, &selection);
        if interrupt::happened() {
            return ExitCode::from(interrupt::EXIT_CODE);
        }
        total.passed += summary.passed;
        total.failed += summary.failed;
        total.skipped += summary.skipped;
    }
    outln!("{total}");
    if total.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Builds one file and runs its selected blocks; `ptxas` is `None` to hand the
/// driver PTX (`--jit`).
fn run_file(
    path: &Path,
    target: cute::Target,
    ptxas: Option<&Result<backend_ptx::ptxas::Ptxas, String>>,
    ptxas_args: &PtxasArgs,
    selection: &Selection,
) -> Summary {
    let failed = Summary {
        failed: 1,
        ..Summary::default()
    };
    let compiled = build::compile(path, target);
    build::report(&compiled.file, &compiled.diagnostics);
    if compiled.diagnostics.iter().any(Diagnostic::is_error) {
        outln!("{}: does not build", path.display());
        return failed;
    }
    let ptx = match build::ptx(&compiled, target, true, None) {
        Ok(ptx) => ptx,
        Err(problem) => {
            outln!("{}: cukc could not emit PTX: {problem}", path.display());
            return failed;
        }
    };
    let at = compiled
        .kernels
        .first()
        .map_or(lang::Span::empty(0), |kernel| kernel.span);
    let image = match ptxas {
        None => Image::Ptx(ptx),
        Some(Err(reason)) => {
            build::report(&compiled.file, &[assemble::no_ptxas(reason, at)]);
            return failed;
        }
        Some(Ok(found)) => match assemble::assemble(found, &ptx, target, true, ptxas_args, at) {
            Ok(assembled) => Image::Cubin(assembled.cubin),
            Err(diagnostic) => {
                build::report(&compiled.file, &[*diagnostic]);
                return failed;
            }
        },
    };
    let kernels: Vec<CompiledKernel> = compiled
        .kernels
        .iter()
        .map(|kernel| CompiledKernel {
            signature: kernel.signature.clone(),
            image: image.clone(),
        })
        .collect();
    let file = &compiled.file;
    runtime::run_blocks(
        &compiled.module,
        &kernels,
        selection,
        &mut |event: Event| {
            outln!("{}", event_line(file, &event));
        },
    )
}

/// One line for a block: `test name ... ok (3 ms)`.
fn event_line(file: &lang::SourceFile, event: &Event) -> String {
    let kind = match event.kind {
        BlockKind::Test => "test",
        BlockKind::Bench => "bench",
    };
    let millis = event.elapsed.as_secs_f64() * 1e3;
    match &event.outcome {
        Outcome::Passed => format!("{kind} {} ... ok ({millis:.0} ms)", event.name),
        Outcome::Measured(result) => format!("{kind} {} ... {result}", event.name),
        Outcome::Skipped(reason) => format!("{kind} {} ... skipped: {reason}", event.name),
        Outcome::Failed { message, span } => {
            let position = file.line_column(span.start);
            format!(
                "{kind} {} ... FAILED at {}:{}:{}: {message}",
                event.name,
                file.path(),
                position.line,
                position.column
            )
        }
    }
}
