//! `cukc test`, `cukc bench` and `cukc run`: build a file's kernels for the GPU (or the
//! emulator) and run its `test` and `bench` blocks with the runtime's harness.
//!
//! Each file is compiled as `cukc build` does (for the GPU's architecture when there
//! is one), assembled by ptxas, or handed to the driver as PTX with `--jit`, and its
//! blocks run in source order. Without a GPU (or with `--emulate`) the kernels stay
//! verified KIR and run on the CPU emulator instead, which also reports races,
//! out-of-bounds accesses and barriers not every thread reaches; benches, which time a
//! GPU, are skipped; `--gpu` makes a missing GPU an error instead. One line per block
//! (saying what was emulated), a fault's diagnostic after its line, then `N passed, N
//! failed` and, when kernels were emulated, the emulator's total thread-instructions and
//! speed (`emulator: 43.1 M thread-instructions in 2011 ms, 21 M/s`). Exit code 1 when a
//! file has errors or a block failed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use lang::Diagnostic;
use runtime::{BlockKind, CompiledKernel, Emulated, Event, Image, Outcome, Selection, Summary};

use crate::assemble::{self, PtxasArgs};
use crate::build;
use crate::interrupt;
use crate::output::{errln, out, outln};
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
    /// With `--filter`: run only the block of exactly that name.
    #[arg(long, requires = "filter")]
    exact: bool,
    /// Give the driver PTX to compile instead of a cubin from ptxas.
    #[arg(long)]
    jit: bool,
    /// Run the kernels on the CPU emulator even when there is a GPU (benches are
    /// skipped); without a GPU they run there anyway.
    #[arg(long, conflicts_with = "gpu")]
    emulate: bool,
    /// Require a GPU: fail instead of emulating when there is none.
    #[arg(long)]
    gpu: bool,
    /// How long one kernel launch may run on the GPU before it is reported as hung and
    /// the run stops (a bench's launches add up), in seconds; 60 by default.
    #[arg(long = "kernel-timeout", value_name = "SECONDS", env = runtime::KERNEL_TIMEOUT_VARIABLE, value_parser = assemble::parse_seconds)]
    kernel_timeout: Option<std::time::Duration>,
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
        Ok(info) => autotune::winners::target_of(info),
        Err(_) => cute::Target::Sm90a,
    };
    let target = args.target.unwrap_or(gpu_target);
    let emulate = args.emulate || gpu.is_err();
    let emulated = "kernels run on the CPU emulator, benches are skipped";
    match &gpu {
        Err(reason) if args.gpu => {
            errln!("error: --gpu: no GPU ({reason})");
            return ExitCode::from(2);
        }
        Ok(info) if args.emulate => errln!("cukc: {info}; --emulate: {emulated}"),
        Ok(info) => errln!("cukc: {info}; building for {}", target.name()),
        Err(reason) => errln!("cukc: no GPU ({reason}); {emulated}"),
    }
    let mut selection = match mode {
        Mode::Tests => Selection::tests(),
        Mode::Benches => Selection::benches(),
        Mode::All => Selection::all(),
    };
    if let Some(filter) = &args.filter {
        selection = selection.with_filter(filter.clone());
        if args.exact {
            selection = selection.exactly();
        }
    }
    if let Some(limit) = args.kernel_timeout {
        selection = selection.with_kernel_timeout(limit);
    }
    // Found once for all the files (finding it may run python3 and pip).
    let ptxas = (!args.jit && !emulate).then(|| assemble::find_ptxas(&args.ptxas));
    let code = if emulate {
        Code::Kir
    } else {
        Code::Gpu(ptxas.as_ref())
    };
    let mut total = Summary::default();
    let mut work = Emulated::default();
    for file in &files {
        // Without `--target`, a file whose opening comments declare its target is built for
        // it; one the GPU cannot run (another architecture's `a` features) is emulated.
        let declared = (args.target.is_none())
            .then(|| cute::Target::declared_in(&sources::header(file, cute::Target::HEADER_BYTES)))
            .flatten();
        let (target, code) = match declared {
            Some(declared) if emulate => (declared, code),
            Some(declared) if declared != target && declared != cute::Target::Sm80 => {
                errln!(
                    "cukc: {} is for {}, not this GPU's {}: its tests run on the emulator, its benches are skipped",
                    file.display(),
                    declared.name(),
                    target.name()
                );
                (declared, Code::Kir)
            }
            _ => (target, code),
        };
        let gpu_name = gpu.as_ref().ok().map(|info| info.name.as_str());
        let summary = run_file(
            file,
            target,
            code,
            &args.ptxas,
            &selection,
            gpu_name,
            &mut work,
        );
        if interrupt::happened() {
            return ExitCode::from(interrupt::EXIT_CODE);
        }
        total.passed += summary.passed;
        total.failed += summary.failed;
        total.skipped += summary.skipped;
        total.emulated += summary.emulated;
        if summary.hung {
            outln!("{total}");
            errln!(
                "cukc: stopped: a kernel passed its time limit and may still be running on the GPU; the files after {} were not run",
                file.display()
            );
            runtime::leave_process(1);
        }
    }
    outln!("{total}");
    if work.launches > 0 {
        outln!("emulator: {}", rate(&work));
    }
    if total.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// What the kernels are compiled to.
#[derive(Clone, Copy)]
enum Code<'p> {
    /// Verified KIR, for the emulator.
    Kir,
    /// For the GPU: a cubin from this ptxas, or PTX for the driver (`--jit`) when `None`.
    Gpu(Option<&'p Result<backend_ptx::ptxas::Ptxas, backend_ptx::ptxas::FindError>>),
}

/// Builds one file and runs its selected blocks.
fn run_file(
    path: &Path,
    target: cute::Target,
    code: Code<'_>,
    ptxas_args: &PtxasArgs,
    selection: &Selection,
    gpu_name: Option<&str>,
    work: &mut Emulated,
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
    let file = &compiled.file;
    let mut report = |event: Event| {
        out!("{}", event.printed);
        outln!("{}", event_line(file, &event));
        if let Some(block) = event.emulated {
            work.launches += block.launches;
            work.instructions += block.instructions;
            work.elapsed += block.elapsed;
        }
        if let Outcome::Failed {
            diagnostic: Some(diagnostic),
            ..
        } = &event.outcome
        {
            build::report(file, &[(**diagnostic).clone()]);
        }
    };
    let Some(kernels) = code.kernels(&compiled, target, ptxas_args) else {
        return failed;
    };
    if let Code::Kir = code {
        return runtime::run_blocks(
            &compiled.module,
            &compiled.host,
            &kernels,
            selection,
            &mut report,
        );
    }
    let tuned = match gpu_name {
        Some(gpu) if selection.benches => {
            autotune::winners::stored(&compiled.file, &compiled.module, gpu)
        }
        _ => Vec::new(),
    };
    let untuned = autotune::winners::without(&compiled.module, &tuned);
    let mut summary =
        runtime::run_blocks(&untuned, &compiled.host, &kernels, selection, &mut report);
    for (bench, winner) in &tuned {
        if !selection.wants(BlockKind::Bench, bench) {
            continue;
        }
        outln!(
            "bench {bench}: using {} for `{}`, stored by `cukc tune` (block `{}`, {:.4} ms then)",
            winner.point,
            winner.kernel,
            winner.tune,
            winner.kernel_ms
        );
        let module = tune::specialise(
            &compiled.module,
            &winner.kernel,
            &winner.point,
            Some(&[bench]),
        );
        let variant = build::compile_module(compiled.file.clone(), module, target);
        build::report(&variant.file, &variant.diagnostics);
        let kernels = (!variant.diagnostics.iter().any(Diagnostic::is_error))
            .then(|| code.kernels(&variant, target, ptxas_args))
            .flatten();
        let Some(kernels) = kernels else {
            outln!("bench {bench}: the stored configuration does not build");
            summary.failed += 1;
            continue;
        };
        let more = runtime::run_blocks(
            &variant.module,
            &variant.host,
            &kernels,
            selection,
            &mut report,
        );
        summary.passed += more.passed;
        summary.failed += more.failed;
        summary.skipped += more.skipped;
        summary.hung |= more.hung;
    }
    summary
}

impl Code<'_> {
    /// The kernels of `compiled`: verified KIR for the emulator, or for the GPU a
    /// cubin each from ptxas (in parallel) or PTX for the driver; `None` after
    /// reporting why there are none.
    fn kernels(
        self,
        compiled: &build::Compiled,
        target: cute::Target,
        ptxas_args: &PtxasArgs,
    ) -> Option<Vec<CompiledKernel>> {
        let Code::Gpu(ptxas) = self else {
            let kernels = (compiled.kernels.iter())
                .map(|kernel| CompiledKernel {
                    signature: kernel.signature.clone(),
                    image: Image::Kir(Box::new(kernel.clone())),
                })
                .collect();
            return Some(kernels);
        };
        let mut modules = Vec::with_capacity(compiled.kernels.len());
        for kernel in &compiled.kernels {
            let alone = std::slice::from_ref(kernel);
            match build::ptx(compiled, alone, target, true, None) {
                Ok(ptx) => modules.push((ptx, kernel.span)),
                Err(problem) => {
                    outln!(
                        "{}: cukc could not emit PTX: {problem}",
                        compiled.file.path()
                    );
                    return None;
                }
            }
        }
        let images: Vec<Image> = match ptxas {
            None => modules
                .into_iter()
                .map(|(ptx, _)| Image::Ptx(ptx))
                .collect(),
            Some(Err(reason)) => {
                let at = modules
                    .first()
                    .map_or(lang::Span::empty(0), |(_, span)| *span);
                build::report(&compiled.file, &[assemble::no_ptxas(reason, at)]);
                return None;
            }
            Some(Ok(found)) => {
                let assembled = assemble::assemble_each(found, &modules, target, true, ptxas_args);
                let mut images = Vec::with_capacity(assembled.len());
                for result in assembled {
                    match result {
                        Ok(assembled) => images.push(Image::Cubin(assembled.cubin)),
                        Err(diagnostic) => {
                            build::report(&compiled.file, &[*diagnostic]);
                            return None;
                        }
                    }
                }
                images
            }
        };
        let kernels = (compiled.kernels.iter().zip(images))
            .map(|(kernel, image)| CompiledKernel {
                signature: kernel.signature.clone(),
                image,
            })
            .collect();
        Some(kernels)
    }
}

/// One line for a block: `test name ... ok (3 ms)`.
fn event_line(file: &lang::SourceFile, event: &Event) -> String {
    let kind = match event.kind {
        BlockKind::Test => "test",
        BlockKind::Bench => "bench",
    };
    let millis = event.elapsed.as_secs_f64() * 1e3;
    let emulated = event
        .emulated
        .map_or(String::new(), |work| format!(", emulated: {}", rate(&work)));
    match &event.outcome {
        Outcome::Passed => format!("{kind} {} ... ok ({millis:.0} ms{emulated})", event.name),
        Outcome::Measured(result) => format!("{kind} {} ... {result}", event.name),
        Outcome::Skipped(reason) => format!("{kind} {} ... skipped: {reason}", event.name),
        Outcome::Failed { message, span, .. } => {
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

/// `9.7 M thread-instructions in 383 ms, 25 M/s`: the emulator's speed (`3.2 k` below
/// 100,000; none for a launch that stopped before its first instruction).
fn rate(work: &Emulated) -> String {
    if work.instructions == 0 {
        return "no thread-instructions".to_owned();
    }
    let seconds = work.elapsed.as_secs_f64();
    let count = work.instructions as f64;
    let amount = if count < 1e5 {
        format!("{:.1} k", count / 1e3)
    } else {
        format!("{:.1} M", count / 1e6)
    };
    format!(
        "{amount} thread-instructions in {:.0} ms, {:.0} M/s",
        seconds * 1e3,
        count / seconds.max(1e-9) / 1e6
    )
}
