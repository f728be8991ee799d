//! `cukc build FILE`: parse, typecheck and lower a file, emit PTX for a target, and
//! assemble it with ptxas into a cubin.
//!
//! Every kernel instantiation the file uses (each kernel with its default const
//! parameters, and each set a test passes) goes into one module. `--emit kir` and
//! `--emit ptx` stop early; the default writes `FILE.cubin` and `FILE.ptx` beside
//! the source (or at `-o`). ptxas is found as `backend_ptx::ptxas::find` says, and
//! installed with pip when there is none unless `--offline`. `--timings` reports
//! the front end, PTX emission and ptxas separately, on standard error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::output::{errln, out};
use backend_ptx::ptxas::{self, AssembleOptions, Environment};
use backend_ptx::{Arch, EmitOptions};
use clap::ValueEnum;
use lang::render;
use lang::{Diagnostic, SourceFile};

/// Arguments of `cukc build`.
#[derive(clap::Args)]
pub struct BuildArgs {
    /// The `.cuk` file to build.
    file: PathBuf,
    /// The architecture: `sm_80`, `sm_90a` or `sm_100a`.
    #[arg(long, default_value = "sm_90a", value_parser = crate::check::parse_target)]
    target: typecheck::Target,
    /// What to produce: a `cubin` (and its PTX beside it), `ptx` or `kir` text.
    #[arg(long, value_enum, default_value_t = Emit::Cubin)]
    emit: Emit,
    /// Where to write it (`-` for standard output, text forms only); by default
    /// beside the source, with the extension of what is emitted.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Put `.loc` line info in the PTX, so profilers map instructions to `.cuk` lines.
    #[arg(long)]
    lineinfo: bool,
    #[command(flatten)]
    ptxas: PtxasArgs,
    /// Report how long each stage took, on standard error.
    #[arg(long)]
    timings: bool,
}

/// How ptxas is found.
#[derive(clap::Args, Clone)]
pub struct PtxasArgs {
    /// The ptxas to use, instead of searching `CUKC_PTXAS`, `PATH`, `CUDA_HOME`,
    /// `/usr/local/cuda/bin`, python3's site-packages and the cache.
    #[arg(long = "ptxas", value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Never install ptxas with pip (as `CUKC_OFFLINE=1`).
    #[arg(long)]
    pub offline: bool,
}

/// What `cukc build` produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    Cubin,
    Ptx,
    Kir,
}

/// The PTX architecture of a typecheck target.
pub fn arch(target: typecheck::Target) -> Arch {
    match target {
        typecheck::Target::Sm80 => Arch::Sm80,
        typecheck::Target::Sm90a => Arch::Sm90a,
        typecheck::Target::Sm100a => Arch::Sm100a,
    }
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
    pub kernels: Vec<kir::Kernel>,
    /// Time spent loading, parsing, checking and lowering.
    pub front_end: Duration,
}

/// Loads, parses, typechecks and lowers the file at `path`.
pub fn compile(path: &Path, target: typecheck::Target) -> Compiled {
    let start = Instant::now();
    let crate::check::Parsed {
        file,
        mut diagnostics,
        module,
        parsed,
        ..
    } = crate::check::load_and_parse(path);
    let mut kernels = Vec::new();
    if parsed {
        let lowered = lower::lower_file(&module, target);
        diagnostics.extend(lowered.diagnostics);
        kernels = lowered.kernels;
    }
    if diagnostics.iter().any(Diagnostic::is_error) {
        kernels.clear();
    }
    Compiled {
        file,
        module,
        diagnostics,
        kernels,
        front_end: start.elapsed(),
    }
}

/// The PTX of compiled kernels.
pub fn ptx(
    compiled: &Compiled,
    target: typecheck::Target,
    lineinfo: bool,
) -> Result<String, String> {
    let line_of = |offset: u32| {
        let position = compiled.file.line_column(offset);
        (position.line, position.column)
    };
    let options = EmitOptions {
        source_name: Some(compiled.file.path().to_owned()),
        line_info: lineinfo.then_some(&line_of as &dyn Fn(u32) -> (u32, u32)),
    };
    backend_ptx::emit_module(&compiled.kernels, arch(target), &options)
}

/// The ptxas the arguments and the environment lead to (installing it if need be,
/// with pip's progress on standard error), or why there is none.
pub fn find_ptxas(args: &PtxasArgs) -> Result<ptxas::Ptxas, String> {
    let env = Environment::from_process(args.path.clone(), args.offline);
    ptxas::find(&env, &mut |progress| errln!("cukc: {progress}")).map_err(|error| error.to_string())
}

/// The diagnostic for a file that cannot be assembled because there is no ptxas.
pub fn no_ptxas(reason: &str, at: lang::Span) -> Diagnostic {
    Diagnostic::error("E0303", format!("no ptxas: {reason}"))
        .with_primary(at, "cannot assemble this file")
}

/// Assembles `ptx` for `target`; the error is a diagnostic for the file.
pub fn assemble(
    found: &ptxas::Ptxas,
    ptx: &str,
    target: typecheck::Target,
    lineinfo: bool,
    at: lang::Span,
) -> Result<ptxas::Assembled, Box<Diagnostic>> {
    let options = AssembleOptions {
        line_info: lineinfo,
        ..AssembleOptions::default()
    };
    found
        .assemble(ptx, arch(target).name(), &options)
        .map_err(|failure| {
            let mut diagnostic = Diagnostic::error(
                "E0303",
                format!(
                    "ptxas rejected the PTX cukc generated for {}",
                    arch(target).name()
                ),
            )
            .with_primary(at, "in this file")
            .with_note("this is a compiler bug; please report it with the file");
            for message in failure.errors() {
                let line = message
                    .line
                    .and_then(|line| ptx.lines().nth(line as usize - 1));
                diagnostic = diagnostic.with_note(match line {
                    Some(text) => format!("{message}: `{}`", text.trim()),
                    None => message.to_string(),
                });
            }
            if failure.errors().next().is_none() {
                diagnostic = diagnostic.with_note(failure.to_string());
            }
            Box::new(diagnostic)
        })
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

/// Runs `cukc build`.
pub fn run(args: &BuildArgs) -> ExitCode {
    let compiled = compile(&args.file, args.target);
    report(&compiled.file, &compiled.diagnostics);
    if compiled.diagnostics.iter().any(Diagnostic::is_error) {
        return ExitCode::FAILURE;
    }
    let written = |path: &Path| errln!("cukc: wrote {}", path.display());
    let output = |extension: &str| {
        args.output
            .clone()
            .unwrap_or_else(|| args.file.with_extension(extension))
    };
    if args.emit == Emit::Kir {
        let line_of = |offset: u32| compiled.file.line_column(offset).line;
        let text: String = compiled
            .kernels
            .iter()
            .map(|kernel| kir::to_text(kernel, &line_of))
            .collect();
        return write_text(&output("kir"), &text, &written);
    }
    let emit_start = Instant::now();
    let ptx = match ptx(&compiled, args.target, args.lineinfo) {
        Ok(ptx) => ptx,
        Err(problem) => {
            errln!(
                "error[E0303]: cukc could not emit PTX for {}: {problem}",
                compiled.file.path()
            );
            return ExitCode::FAILURE;
        }
    };
    let emit_time = emit_start.elapsed();
    if args.timings {
        errln!(
            "cukc: front end {:.2} ms, PTX {:.2} ms",
            compiled.front_end.as_secs_f64() * 1e3,
            emit_time.as_secs_f64() * 1e3
        );
    }
    if args.emit == Emit::Ptx {
        return write_text(&output("ptx"), &ptx, &written);
    }
    let cubin_path = output("cubin");
    let ptx_path = cubin_path.with_extension("ptx");
    if let Err(error) = std::fs::write(&ptx_path, &ptx) {
        errln!("error: cannot write {}: {error}", ptx_path.display());
        return ExitCode::from(2);
    }
    written(&ptx_path);
    let at = compiled
        .kernels
        .first()
        .map_or(lang::Span::empty(0), |kernel| kernel.span);
    let assembled = find_ptxas(&args.ptxas)
        .map_err(|reason| Box::new(no_ptxas(&reason, at)))
        .and_then(|found| assemble(&found, &ptx, args.target, args.lineinfo, at));
    match assembled {
        Ok(assembled) => {
            if args.timings {
                errln!(
                    "cukc: ptxas {:.1} ms",
                    assembled.elapsed.as_secs_f64() * 1e3
                );
            }
            match std::fs::write(&cubin_path, &assembled.cubin) {
                Ok(()) => {
                    written(&cubin_path);
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    errln!("error: cannot write {}: {error}", cubin_path.display());
                    ExitCode::from(2)
                }
            }
        }
        Err(diagnostic) => {
            report(&compiled.file, &[*diagnostic]);
            ExitCode::FAILURE
        }
    }
}

fn write_text(path: &Path, text: &str, written: &dyn Fn(&Path)) -> ExitCode {
    if path == Path::new("-") {
        out!("{text}");
        return ExitCode::SUCCESS;
    }
    match std::fs::write(path, text) {
        Ok(()) => {
            written(path);
            ExitCode::SUCCESS
        }
        Err(error) => {
            errln!("error: cannot write {}: {error}", path.display());
            ExitCode::from(2)
        }
    }
}
