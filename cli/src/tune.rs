//! `cukc tune FILE [--tune NAME]`: every point of a `tune` block's space compiled on
//! every core (checks, lowering, ptxas through the cubin cache), the points that fail
//! or exceed a block's registers or shared memory rejected, the rest timed on the GPU
//! with the benches the block names, a table printed and saved, and each bench's
//! fastest point stored in the cache directory for `cukc bench` and `cukc run`.
//!
//! Without a GPU (or with `--dry-run`) everything up to timing is done and the table
//! says which points compiled; nothing is timed and no winner is stored.

mod points;
mod timing;
pub mod winners;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use lang::Diagnostic;
use lang::ast::{ItemKind, TuneBlock};

use crate::assemble::{self, PtxasArgs};
use crate::build;
use crate::output::{errln, outln};
use points::Compiler;
use timing::{GpuTimer, Timer, Timings};

/// `cukc tune`'s arguments.
#[derive(clap::Args)]
pub struct TuneArgs {
    /// The `.cuk` file.
    file: PathBuf,
    /// Tune only this block (default: every `tune` block of the file).
    #[arg(long = "tune", value_name = "NAME")]
    only: Option<String>,
    /// The architecture to build for; by default the GPU's, else the file's.
    #[arg(long, value_parser = crate::check::parse_target)]
    target: Option<cute::Target>,
    /// Compile and check every point, but time nothing (as without a GPU).
    #[arg(long)]
    dry_run: bool,
    /// Where to save the table (default: `<file stem>.<block>.tune.txt` in the
    /// current folder).
    #[arg(long, value_name = "PATH")]
    report: Option<PathBuf>,
    /// How long one kernel launch may run on the GPU, in seconds (default 60).
    #[arg(long = "kernel-timeout", value_name = "SECONDS", env = runtime::KERNEL_TIMEOUT_VARIABLE, value_parser = assemble::parse_seconds)]
    kernel_timeout: Option<std::time::Duration>,
    #[command(flatten)]
    ptxas: PtxasArgs,
}

/// Runs `cukc tune`.
pub fn run(args: &TuneArgs) -> ExitCode {
    let gpu = if args.dry_run {
        Err("--dry-run".to_owned())
    } else {
        runtime::gpu_status()
    };
    let target = args.target.unwrap_or_else(|| match &gpu {
        Ok(info) => winners::target_of(info),
        Err(_) => crate::check::declared_target(&args.file),
    });
    let compiled = build::compile(&args.file, target);
    build::report(&compiled.file, &compiled.diagnostics);
    if compiled.diagnostics.iter().any(Diagnostic::is_error) {
        return ExitCode::FAILURE;
    }
    let blocks: Vec<&TuneBlock> = (compiled.module.items.iter())
        .filter_map(|item| match &item.kind {
            ItemKind::Tune(block) => Some(block),
            _ => None,
        })
        .filter(|block| {
            args.only
                .as_ref()
                .is_none_or(|name| block.name.text == *name)
        })
        .collect();
    if blocks.is_empty() {
        match &args.only {
            Some(name) => errln!("error: {} has no tune block `{name}`", args.file.display()),
            None => errln!("error: {} has no tune block", args.file.display()),
        }
        return ExitCode::from(2);
    }
    let found = match assemble::find_ptxas(&args.ptxas) {
        Ok(found) => found,
        Err(reason) => {
            errln!("error: no ptxas: {reason}");
            return ExitCode::from(2);
        }
    };
    match &gpu {
        Ok(info) => errln!("cukc: {info}; building for {}", target.name()),
        Err(reason) => errln!(
            "cukc: not timing ({reason}); compiling for {} and reporting which points are valid",
            target.name()
        ),
    }
    let cache = assemble::cache();
    let mut timer = gpu
        .as_ref()
        .ok()
        .map(|_| GpuTimer::new(args.kernel_timeout));
    let mut failed = false;
    for block in blocks {
        let compiler = Compiler {
            file: &compiled.file,
            module: &compiled.module,
            block,
            target,
            ptxas: &found,
            cache: cache.as_ref(),
            timeout: args.ptxas.timeout,
        };
        let timer = timer.as_mut().map(|timer| timer as &mut dyn Timer);
        let gpu_name = gpu.as_ref().ok().map(|info| info.name.as_str());
        failed |= !tune_block(args, &compiler, timer, gpu_name);
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Tunes one block; false when no point was valid.
fn tune_block(
    args: &TuneArgs,
    compiler: &Compiler<'_>,
    timer: Option<&mut dyn Timer>,
    gpu_name: Option<&str>,
) -> bool {
    let block = compiler.block;
    let Some(space) = tune::check(compiler.module, block).space else {
        return false;
    };
    let (built, elapsed) = compiler.compile_all(&space.points);
    let ready = built.iter().filter(|built| built.outcome.is_ok()).count();
    errln!(
        "cukc: `{}`: {} of {} points kept by the conditions, {ready} compiled within the limits, in {:.2} s ({:.1} ms a point on {} threads)",
        block.name.text,
        space.points.len(),
        space.total,
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e3 / space.points.len().max(1) as f64,
        rayon::current_num_threads()
    );
    let benches: Vec<String> = block
        .benches
        .iter()
        .map(|bench| bench.text.clone())
        .collect();
    let timings: Timings = match timer {
        Some(timer) if ready > 0 => {
            let started = std::time::Instant::now();
            let mut progress = |timed: usize| {
                if timed.is_multiple_of(100) || timed == ready {
                    errln!(
                        "cukc: surveyed {timed} of {ready} points ({:.1} s)",
                        started.elapsed().as_secs_f64()
                    );
                }
            };
            let timings = timing::time_all(&built, &benches, timer, &mut progress);
            errln!(
                "cukc: timed {} finalists again carefully ({:.1} s in all)",
                timings.finalists.len(),
                started.elapsed().as_secs_f64()
            );
            timings
        }
        _ => Timings {
            measured: vec![None; built.len()],
            finalists: Vec::new(),
        },
    };
    let table = timing::table(&built, &benches, &timings.measured);
    outln!("{table}");
    let report = args
        .report
        .clone()
        .unwrap_or_else(|| default_report(&args.file, block));
    match std::fs::write(&report, &table) {
        Ok(()) => errln!("cukc: wrote {}", report.display()),
        Err(error) => errln!("cukc: cannot write {}: {error}", report.display()),
    }
    if ready == 0 {
        let diagnostic = Diagnostic::error(
            "E0236",
            format!("the space of `{}` has no valid point", block.name.text),
        )
        .with_primary(block.name.span, "every point was rejected")
        .with_note("the table says why each point was rejected");
        build::report(compiler.file, &[diagnostic]);
        return false;
    }
    let (Some(gpu_name), Some(_)) = (gpu_name, timings.measured.iter().flatten().next()) else {
        return true;
    };
    let won = timing::winners(&benches, &timings);
    for (bench, winner) in benches.iter().zip(won) {
        let Some((index, timed)) = winner else {
            outln!("bench {bench}: no point was timed");
            continue;
        };
        let point = &built[index].point;
        outln!("bench {bench}: fastest {point} ({:.4} ms)", timed.kernel_ms);
        winners::store(
            compiler.file,
            block,
            bench,
            gpu_name,
            point,
            timed.kernel_ms,
        );
    }
    true
}

/// `<stem>.<block>.tune.txt` in the current folder.
fn default_report(file: &Path, block: &TuneBlock) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or_else(|| "tune".into(), |stem| stem.to_string_lossy().into_owned());
    PathBuf::from(format!("{stem}.{}.tune.txt", block.name.text))
}
