//! `cukc tune FILE [--tune NAME]`: every point of a `tune` block's space compiled on
//! every core (checks, lowering, ptxas through the cubin cache), the points that fail
//! or exceed a block's registers or shared memory rejected, the rest timed on the GPU
//! with the benches the block names, a table printed and saved, and each bench's
//! fastest point stored in the cache directory for `cukc bench` and `cukc run`.
//!
//! Without a GPU (or with `--dry-run`) everything up to timing is done and the table
//! says which points compiled; nothing is timed and no winner is stored.
//!
//! The compiling, timing and storing are the `autotune` crate's, which the Python
//! package's `cuk.autotune` shares; this is the command line's face of it.

use std::path::PathBuf;
use std::process::ExitCode;

use autotune::winners::{self, NotStored};
use autotune::{Compiler, GpuTimer, Progress, Timer};
use lang::ast::{ItemKind, TuneBlock};
use lang::{Diagnostic, SourceFile};

use crate::assemble::{self, PtxasArgs};
use crate::build;
use crate::output::{errln, outln};

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
        runtime::gpu_status().map_err(String::from)
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
    let front_end = |file: &SourceFile, module, target| {
        let compiled = build::compile_module(file.clone(), module, target);
        autotune::Lowered {
            diagnostics: compiled.diagnostics,
            kernels: compiled.kernels,
            host: compiled.host,
        }
    };
    for block in blocks {
        let compiler = Compiler {
            front_end: &front_end,
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
    let mut progress = |progress: Progress| match progress {
        Progress::Compiled {
            kept,
            total,
            ready,
            elapsed,
        } => errln!(
            "cukc: `{}`: {kept} of {total} points kept by the conditions, {ready} compiled within the limits, in {:.2} s ({:.1} ms a point on {} threads)",
            block.name.text,
            elapsed.as_secs_f64(),
            elapsed.as_secs_f64() * 1e3 / kept.max(1) as f64,
            rayon::current_num_threads()
        ),
        Progress::Surveyed {
            timed,
            ready,
            elapsed,
        } => errln!(
            "cukc: surveyed {timed} of {ready} points ({:.1} s)",
            elapsed.as_secs_f64()
        ),
        Progress::Finalists { count, elapsed } => errln!(
            "cukc: timed {count} finalists again carefully ({:.1} s in all)",
            elapsed.as_secs_f64()
        ),
    };
    let Some(tuned) = autotune::tune(compiler, timer, &mut progress) else {
        return false;
    };
    outln!("{}", tuned.table);
    let report = args
        .report
        .clone()
        .unwrap_or_else(|| autotune::report::default_path(&args.file, block));
    match std::fs::write(&report, &tuned.table) {
        Ok(()) => errln!("cukc: wrote {}", report.display()),
        Err(error) => errln!("cukc: cannot write {}: {error}", report.display()),
    }
    if tuned.ready() == 0 {
        build::report(compiler.file, &[autotune::no_valid_point(block)]);
        return false;
    }
    let (Some(gpu_name), Some(won)) = (gpu_name, tuned.winners()) else {
        return true;
    };
    for (bench, winner) in tuned.benches.iter().zip(won) {
        let Some((index, timed)) = winner else {
            outln!("bench {bench}: no point was timed");
            continue;
        };
        let point = &tuned.built[index].point;
        outln!("bench {bench}: fastest {point} ({:.4} ms)", timed.kernel_ms);
        store(
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

/// Stores the winner of `bench`, saying where (or why it could not be stored).
fn store(
    file: &SourceFile,
    block: &TuneBlock,
    bench: &str,
    gpu: &str,
    point: &tune::Point,
    kernel_ms: f64,
) {
    match winners::store(file, block, bench, gpu, point, kernel_ms) {
        Ok(path) => errln!("cukc: stored the winner in {}", path.display()),
        Err(NotStored::NoCacheDir) => {
            errln!("cukc: no cache directory (set CUKC_CACHE_DIR): the winner is not stored")
        }
        Err(NotStored::Io(error)) => {
            errln!("cukc: cannot store the winner of `{bench}`: {error}")
        }
    }
}
