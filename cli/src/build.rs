//! `cukc build FILE`: parse, typecheck and lower a file, emit PTX for a target, and
//! assemble it with ptxas into a cubin.
//!
//! Every kernel instantiation the file uses (each kernel with its default const
//! parameters, and each set a test passes) goes into one module. `--emit kir` and
//! `--emit ptx` stop early; the default writes `FILE.cubin` and `FILE.ptx` beside
//! the source (or at `-o`; see `outputs.rs` for what `-o` may name and how files are
//! written). ptxas is found as `backend_ptx::ptxas::find` says, and
//! installed with pip when there is none unless `--offline`. `--timings` reports
//! the front end, PTX emission and ptxas separately, on standard error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use backend_ptx::EmitOptions;
use clap::ValueEnum;
use lang::render;
use lang::{Diagnostic, SourceFile};

use crate::assemble;
use crate::interrupt;
use crate::output::{errln, out};
use crate::outputs::{self, Destination};

/// Arguments of `cukc build`.
#[derive(clap::Args)]
pub struct BuildArgs {
    /// The `.cuk` file to build.
    file: PathBuf,
    /// The architecture: `sm_80`, `sm_90a` or `sm_100a`; by default the one the file's
    /// opening comment lines name (`// target: sm_100a`), else sm_90a.
    #[arg(long, value_parser = crate::check::parse_target)]
    target: Option<cute::Target>,
    /// What to produce: a `cubin` (and its PTX beside it), `ptx` or `kir` text, the
    /// `trace` (the residual program the checker leaves for the GPU), or a
    /// `manifest`: the cubin and its PTX with `FILE.manifest.json` beside them, the
    /// launch manifest any host can launch the kernels from (docs/manifest.md).
    #[arg(long, value_enum, default_value_t = Emit::Cubin)]
    emit: Emit,
    /// Where to write it; by default beside the source, with the extension of what
    /// is emitted. For a cubin, OUT names the cubin and its PTX goes beside it as OUT
    /// with `.ptx` (so OUT may not end in `.ptx` or be `-`); for `ptx`, `kir` and `trace`, `-`
    /// prints to standard output. Missing folders are created; OUT may not be the input.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Put `.loc` line info in the PTX, so profilers map instructions to `.cuk` lines;
    /// the source is named by its absolute path.
    #[arg(long)]
    lineinfo: bool,
    /// The source path line info names instead of the absolute path (for a profiler
    /// on another machine, say).
    #[arg(long, value_name = "PATH", requires = "lineinfo")]
    lineinfo_source: Option<PathBuf>,
    /// With `--emit kir`, the KIR after this stage of lowering instead of at its end:
    /// `translate` (before any pass) or a pass (`packs`, `wraps`, `selects`, `dead`, `uniform`; in
    /// order, `kir::passes`). The checks after the passes are not run then.
    #[arg(long, value_name = "PASS", value_parser = parse_stage, requires = "emit")]
    after: Option<&'static str>,
    #[command(flatten)]
    ptxas: assemble::PtxasArgs,
    /// Report how long each stage took, on standard error.
    #[arg(long)]
    timings: bool,
}

/// A stage of lowering `--after` names.
fn parse_stage(name: &str) -> Result<&'static str, NoSuchStage> {
    let stages = kir::passes::stage_names();
    (stages.iter().find(|stage| **stage == name))
        .copied()
        .ok_or_else(|| NoSuchStage(name.to_owned()))
}

/// `--after` named no stage of lowering.
#[derive(Debug)]
struct NoSuchStage(String);

impl std::fmt::Display for NoSuchStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stages = kir::passes::stage_names().join(", ");
        write!(
            f,
            "`{}` is no stage of lowering; the stages, in order: {stages}",
            self.0
        )
    }
}

impl std::error::Error for NoSuchStage {}

/// What `cukc build` produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    Cubin,
    Ptx,
    Kir,
    Trace,
    Manifest,
}

/// A file lowered: its source, the diagnostics, the kernels, and how long it took.
pub struct Compiled {
    /// The source.
    pub file: SourceFile,
    /// The parsed module (empty when the file was not text).
    pub module: lang::ast::Module,
    /// Every diagnostic.
    pub diagnostics: Vec<Diagnostic>,
    /// The kernels, when there was no error.
    pub kernels: Vec<kir::Verified>,
    /// What host code reads from the checker (consts, kernel instantiations).
    pub host: trace::HostFacts,
    /// The traces' text (`--emit trace`), when asked for.
    pub traces: Option<String>,
    /// Time spent loading, parsing, checking and lowering.
    pub front_end: Duration,
}

/// Loads, parses, typechecks and lowers the file at `path`.
pub fn compile(path: &Path, target: cute::Target) -> Compiled {
    compile_with(path, target, false)
}

/// [`compile`], also printing the kernels' traces when `with_traces`.
pub fn compile_with(path: &Path, target: cute::Target, with_traces: bool) -> Compiled {
    compile_until(path, target, with_traces, None)
}

/// [`compile_with`], each kernel's lowering stopped after the stage `last` when given.
fn compile_until(
    path: &Path,
    target: cute::Target,
    with_traces: bool,
    last: Option<&'static str>,
) -> Compiled {
    let start = Instant::now();
    // The stdlib's modules are parsed while the file is, on a thread of their own (the
    // checker waits for them if it needs them first; without a thread, it parses them).
    let _detached = std::thread::Builder::new()
        .name("cukc-stdlib".to_owned())
        .spawn(typecheck::stdlib::modules);
    let crate::check::Parsed {
        file,
        diagnostics,
        module,
        parsed,
        ..
    } = crate::check::load_and_parse(path);
    let mut compiled = compile_parsed(file, module, diagnostics, parsed, target, with_traces, last);
    compiled.front_end = start.elapsed();
    compiled
}

/// Checks and lowers a parsed `module` of `file` (one `cukc tune` made from the file:
/// a point's kernel defaults), for `target`.
pub fn compile_module(
    file: SourceFile,
    module: lang::ast::Module,
    target: cute::Target,
) -> Compiled {
    let start = Instant::now();
    let mut compiled = compile_parsed(file, module, Vec::new(), true, target, false, None);
    compiled.front_end = start.elapsed();
    compiled
}

/// The checker and lowering after parsing (only when `parsed`), `diagnostics` those
/// parsing gave.
fn compile_parsed(
    file: SourceFile,
    module: lang::ast::Module,
    mut diagnostics: Vec<Diagnostic>,
    parsed: bool,
    target: cute::Target,
    with_traces: bool,
    last: Option<&'static str>,
) -> Compiled {
    let mut kernels = Vec::new();
    let mut traces = None;
    let mut host = trace::HostFacts::default();
    if parsed {
        let line_of = |offset: u32| file.line_column(offset).line;
        let (lowered, text) = std::thread::scope(|scope| {
            let mut lowering = lower::ConcurrentLowering::new(scope).stopping_after(last);
            let (analysis, kernel_traces) =
                typecheck::trace_each(&module, target, |trace| lowering.start(trace));
            let text = with_traces.then(|| {
                (kernel_traces.iter())
                    .map(|kernel| trace::to_text(kernel, &line_of))
                    .collect::<String>()
            });
            drop_in_background(kernel_traces);
            host = analysis.host;
            (lowering.finish(analysis.diagnostics), text)
        });
        diagnostics.extend(lowered.diagnostics);
        kernels = lowered.kernels;
        traces = text;
    }
    if diagnostics.iter().any(Diagnostic::is_error) {
        kernels.clear();
    }
    Compiled {
        file,
        module,
        diagnostics,
        kernels,
        host,
        traces,
        front_end: Duration::ZERO,
    }
}

/// Frees `traces` on a thread of its own: they are large trees, which the build need
/// not wait for (the lowering threads free those they hold last, as they finish).
fn drop_in_background(traces: Vec<std::sync::Arc<trace::KernelTrace>>) {
    // When no thread can be made, the closure, and the traces with it, is dropped here.
    let _detached = std::thread::Builder::new()
        .name("cukc-free".to_owned())
        .spawn(move || drop(traces));
}

/// The PTX of `kernels` (all or some of `compiled`'s); with `lineinfo`, `.loc` lines
/// and a `.file` naming `source_path` (the source's absolute path when `None`), so
/// profilers run from any folder find the source.
pub fn ptx(
    compiled: &Compiled,
    kernels: &[kir::Verified],
    target: cute::Target,
    lineinfo: bool,
    source_path: Option<&Path>,
) -> Result<String, backend_ptx::EmitError> {
    let line_of = |offset: u32| {
        let position = compiled.file.line_column(offset);
        (position.line, position.column)
    };
    let line_info_path = source_path.map_or_else(
        || {
            let path = Path::new(compiled.file.path());
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
        },
        Path::to_owned,
    );
    let options = EmitOptions {
        source_name: Some(compiled.file.path().to_owned()),
        line_info_path: Some(line_info_path.display().to_string()),
        line_info: lineinfo.then_some(&line_of as &(dyn Fn(u32) -> (u32, u32) + Sync)),
    };
    backend_ptx::emit_module(kernels, target, &options)
}

/// Prints diagnostics to standard error.
pub fn report(file: &SourceFile, diagnostics: &[Diagnostic]) {
    if diagnostics.is_empty() {
        return;
    }
    errln!(
        "{}",
        render::human(diagnostics, file, crate::check::auto_style())
    );
}

impl BuildArgs {
    /// The target: `--target`'s, else the file's own.
    fn target(&self) -> cute::Target {
        (self.target).unwrap_or_else(|| crate::check::declared_target(&self.file))
    }
}

/// Runs `cukc build`: the destinations are settled first (exit 2 when they cannot
/// be), and a build that fails removes what an earlier one left there, except that
/// the PTX ptxas rejected is kept for the report.
pub fn run(args: &BuildArgs) -> ExitCode {
    let extension = match args.emit {
        Emit::Cubin | Emit::Manifest => "cubin",
        Emit::Ptx => "ptx",
        Emit::Kir => "kir",
        Emit::Trace => "trace",
    };
    let with_manifest = args.emit == Emit::Manifest;
    let plan = match outputs::plan(&args.file, args.output.as_deref(), extension, with_manifest) {
        Ok(plan) => plan,
        Err(message) => {
            errln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let failed = |code: u8| {
        outputs::remove_stale(plan.files());
        ExitCode::from(code)
    };
    let target = args.target();
    if args.after.is_some() && args.emit != Emit::Kir {
        errln!("error: `--after` shows KIR: use it with `--emit kir`");
        return ExitCode::from(2);
    }
    let compiled = compile_until(&args.file, target, args.emit == Emit::Trace, args.after);
    report(&compiled.file, &compiled.diagnostics);
    if compiled.diagnostics.iter().any(Diagnostic::is_error) {
        return failed(1);
    }
    if let Some(traces) = &compiled.traces {
        return write_output(&plan.main, traces.as_bytes()).unwrap_or_else(failed);
    }
    if args.emit == Emit::Kir {
        let line_of = |offset: u32| compiled.file.line_column(offset).line;
        let text: String = compiled
            .kernels
            .iter()
            .map(|kernel| kir::to_text(kernel, &line_of))
            .collect();
        return write_output(&plan.main, text.as_bytes()).unwrap_or_else(failed);
    }
    let emit_start = Instant::now();
    let ptx = match ptx(
        &compiled,
        &compiled.kernels,
        target,
        args.lineinfo,
        args.lineinfo_source.as_deref(),
    ) {
        Ok(ptx) => ptx,
        Err(problem) => {
            errln!(
                "error[E0303]: cukc could not emit PTX for {}: {problem}",
                compiled.file.path()
            );
            return failed(1);
        }
    };
    if args.timings {
        let emit_time = emit_start.elapsed();
        errln!(
            "cukc: front end {:.2} ms, PTX {:.2} ms",
            compiled.front_end.as_secs_f64() * 1e3,
            emit_time.as_secs_f64() * 1e3
        );
    }
    let (Destination::File(cubin_path), Some(ptx_path)) = (&plan.main, &plan.ptx_beside) else {
        return write_output(&plan.main, ptx.as_bytes()).unwrap_or_else(failed);
    };
    let at = compiled
        .kernels
        .first()
        .map_or(lang::Span::empty(0), |kernel| kernel.span);
    let assembled = assemble::find_ptxas(&args.ptxas)
        .map_err(|reason| Box::new(assemble::no_ptxas(&reason, at)))
        .and_then(|found| assemble::assemble(&found, &ptx, target, args.lineinfo, &args.ptxas, at));
    match assembled {
        Ok(assembled) => {
            report(
                &compiled.file,
                &crate::gmma_advice::warnings(&assembled.log, &compiled.kernels),
            );
            if args.timings {
                errln!(
                    "cukc: ptxas {:.1} ms",
                    assembled.elapsed.as_secs_f64() * 1e3
                );
            }
            let ptx_written = write_output(&Destination::File(ptx_path.clone()), ptx.as_bytes());
            ptx_written
                .and_then(|_| write_output(&plan.main, &assembled.cubin))
                .and_then(|written| match &plan.manifest_beside {
                    Some(path) => {
                        let manifest =
                            manifest(&args.file, cubin_path, target, &compiled, &assembled.cubin);
                        write_output(&Destination::File(path.clone()), manifest.as_bytes())
                    }
                    None => Ok(written),
                })
                .unwrap_or_else(failed)
        }
        Err(_) if interrupt::happened() => {
            errln!("cukc: interrupted");
            failed(interrupt::EXIT_CODE)
        }
        Err(diagnostic) => {
            let mut diagnostic = *diagnostic;
            if let Some(span) = rejected_line(&compiled, args, target) {
                diagnostic = diagnostic.with_primary(span, "ptxas rejected the code of this line");
            }
            outputs::remove_stale([cubin_path.as_path()]);
            if outputs::write_atomically(ptx_path, ptx.as_bytes()).is_ok() {
                diagnostic = diagnostic.with_note(format!(
                    "the PTX is in {}; no cubin was written",
                    ptx_path.display()
                ));
            }
            report(&compiled.file, &[diagnostic]);
            ExitCode::FAILURE
        }
    }
}

/// The source line whose PTX ptxas rejected, found through the `.loc` lines of the
/// PTX emitted again with line info.
fn rejected_line(
    compiled: &Compiled,
    args: &BuildArgs,
    target: cute::Target,
) -> Option<lang::Span> {
    let found = assemble::find_ptxas(&args.ptxas).ok()?;
    let with_lines = ptx(compiled, &compiled.kernels, target, true, None).ok()?;
    assemble::locate_rejection(&found, &with_lines, target, &args.ptxas, &compiled.file)
}

/// The launch manifest of `compiled`, whose cubin `cubin` is written at `cubin_path`.
fn manifest(
    source: &Path,
    cubin_path: &Path,
    target: cute::Target,
    compiled: &Compiled,
    cubin: &[u8],
) -> String {
    let cubin_name = cubin_path
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    let signatures: Vec<kir::Signature> = compiled
        .kernels
        .iter()
        .map(|kernel| kernel.signature.clone())
        .collect();
    runtime::manifest::Manifest::new(
        &source.display().to_string(),
        target.name(),
        (&cubin_name, "cubin", cubin),
        &signatures,
    )
    .to_json()
}

/// Writes an output (standard output or a file, atomically) and says so on standard
/// error; `Err(2)` when it cannot be written, after saying why.
fn write_output(destination: &Destination, bytes: &[u8]) -> Result<ExitCode, u8> {
    match destination {
        Destination::Stdout => {
            out!("{}", String::from_utf8_lossy(bytes));
            Ok(ExitCode::SUCCESS)
        }
        Destination::File(path) => match outputs::write_atomically(path, bytes) {
            Ok(()) => {
                errln!("cukc: wrote {}", path.display());
                Ok(ExitCode::SUCCESS)
            }
            Err(message) => {
                errln!("error: {message}");
                Err(2)
            }
        },
    }
}
