//! The compiler in-process: `.cuk` text to verified KIR (parse, typecheck with the
//! requested instantiations, lower), and KIR to a cubin (PTX, then ptxas).
//!
//! ptxas is found as `cukc` finds it (`CUKC_PTXAS`, `PATH`, `CUDA_HOME`, the CUDA
//! toolkit, the `nvidia-cuda-nvcc-cu12` package, or installed into cukc's cache with
//! pip, its progress on standard error), once per process. Cubins are cached by
//! content in the cache directory, and ptxas optimises a module's functions on every
//! core.

use std::fmt;
use std::io::Write;
use std::sync::Mutex;

use backend_ptx::ptxas::{
    self, AssembleOptions, AssemblyCache, Environment, FindError, Ptxas, PtxasFailure,
};
use backend_ptx::{EmitError, EmitOptions};
use cute::Target;
use lang::ast::Module;
use lang::{Diagnostic, SourceFile};
use typecheck::Instantiation;

/// A source read and parsed: the file (for line numbers and diagnostics) and its AST.
pub struct Parsed {
    /// The source.
    pub file: SourceFile,
    /// Its AST.
    pub module: Module,
}

/// A source that does not parse: the file, to render its diagnostics against, and them.
pub type Rejected = Box<(SourceFile, Vec<Diagnostic>)>;

/// Reads `text` as the `.cuk` file `path` and parses it; the error is every
/// diagnostic, with the file to render them against.
pub fn parse(path: &str, text: &str) -> Result<Parsed, Rejected> {
    let loaded = lang::source::load(path, text.as_bytes().to_vec());
    let mut diagnostics = loaded.diagnostics;
    let mut module = Module::default();
    if loaded.is_text {
        let (parsed, parse_diagnostics) = grammar::parse(loaded.file.text());
        diagnostics.extend(parse_diagnostics);
        module = parsed;
    }
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(Box::new((loaded.file, diagnostics)));
    }
    Ok(Parsed {
        file: loaded.file,
        module,
    })
}

/// Typechecks and lowers a parsed file for `target`, with the kernel instantiations
/// `requested` besides the file's own; the error is every diagnostic.
pub fn front_end(
    parsed: &Parsed,
    target: Target,
    requested: &[Instantiation],
) -> Result<Vec<kir::Verified>, Vec<Diagnostic>> {
    let lowered = typecheck::trace_with(&parsed.module, target, requested, |analysis, traces| {
        lower::lower_traces(analysis.diagnostics, &traces)
    });
    if lowered.has_errors() {
        return Err(lowered.diagnostics);
    }
    Ok(lowered.kernels)
}

/// No ptxas could be found or installed.
#[derive(Debug)]
pub struct NoPtxas(pub FindError);

impl fmt::Display for NoPtxas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no ptxas: {}", self.0)
    }
}

impl std::error::Error for NoPtxas {}

/// Why a file's kernels did not become a cubin.
#[derive(Debug)]
pub enum AssembleError {
    /// The PTX of the file (its path) could not be emitted.
    Emit { file: String, error: EmitError },
    /// There is no ptxas.
    NoPtxas(NoPtxas),
    /// ptxas refused the PTX of the file (its path) for the target (its name).
    Ptxas {
        file: String,
        target: &'static str,
        failure: PtxasFailure,
    },
}

impl fmt::Display for AssembleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssembleError::Emit { file, error } => {
                write!(f, "cukc could not emit PTX for {file}: {error}")
            }
            AssembleError::NoPtxas(none) => none.fmt(f),
            AssembleError::Ptxas {
                file,
                target,
                failure,
            } => write!(
                f,
                "ptxas did not assemble the PTX of {file} for {target}: {failure}"
            ),
        }
    }
}

impl std::error::Error for AssembleError {}

/// The cubin of `kernels` for `target`, or why there is none.
pub fn assemble(
    parsed: &Parsed,
    kernels: &[kir::Verified],
    target: Target,
) -> Result<Vec<u8>, AssembleError> {
    let line_of = |offset: u32| {
        let position = parsed.file.line_column(offset);
        (position.line, position.column)
    };
    let options = EmitOptions {
        source_name: Some(parsed.file.path().to_owned()),
        line_info_path: Some(parsed.file.path().to_owned()),
        line_info: Some(&line_of),
    };
    let ptx = backend_ptx::emit_module(kernels, target, &options).map_err(|error| {
        AssembleError::Emit {
            file: parsed.file.path().to_owned(),
            error,
        }
    })?;
    let found = find_ptxas().map_err(AssembleError::NoPtxas)?;
    let options = AssembleOptions {
        line_info: true,
        split_compile: Some(std::thread::available_parallelism().map_or(1, |n| n.get() as u32)),
        ..AssembleOptions::default()
    };
    let cache = Environment::from_process(None, true)
        .cache_dir
        .map(|dir| AssemblyCache::in_cache_dir(&dir));
    found
        .assemble_cached(&ptx, target.name(), &options, cache.as_ref())
        .map(|assembled| assembled.cubin)
        .map_err(|failure| AssembleError::Ptxas {
            file: parsed.file.path().to_owned(),
            target: target.name(),
            failure,
        })
}

/// The ptxas found by the first compile of this process.
static PTXAS: Mutex<Option<Ptxas>> = Mutex::new(None);

/// The ptxas this process compiles with, found (or installed) on first use.
pub fn find_ptxas() -> Result<Ptxas, NoPtxas> {
    let mut found = PTXAS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(ptxas) = found.as_ref() {
        return Ok(ptxas.clone());
    }
    let env = Environment::from_process(None, false);
    // pip's progress, when ptxas is installed; a closed standard error loses it quietly.
    let mut progress = |progress: &ptxas::Progress| {
        let _ = writeln!(std::io::stderr(), "cuk: {progress}");
    };
    let ptxas = ptxas::find(&env, &mut progress).map_err(NoPtxas)?;
    *found = Some(ptxas.clone());
    Ok(ptxas)
}
