//! ptxas for `cukc build`, `test`, `bench`, `run` and `doctor`: the flags that say
//! which ptxas and how long it may run, finding it, and assembling PTX with its
//! failures turned into `E0303` diagnostics. Only a ptxas that rejects the PTX cukc
//! generated is called a compiler bug; one that timed out, was killed by a signal or
//! could not run says so. Cubins are cached by content in `<cache>/ptxas`
//! ([`AssemblyCache`]); a file's kernels are assembled one ptxas process per kernel,
//! across cores ([`assemble_each`]), or, when they must share one cubin (`cukc
//! build`), by one ptxas optimising its functions on every core (`-split-compile`).

use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, TryFromFloatSecsError};

use backend_ptx::ptxas::{
    self, AssembleOptions, AssemblyCache, Environment, FindError, PtxasFailure,
};
use lang::Diagnostic;

use crate::output::errln;

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
    /// How many seconds ptxas may run before it is stopped (default 300).
    #[arg(long = "ptxas-timeout", value_name = "SECONDS", env = "CUKC_PTXAS_TIMEOUT", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
}

/// `--ptxas-timeout`'s parser: seconds, fractions allowed, more than zero.
pub fn parse_seconds(text: &str) -> Result<Duration, SecondsError> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds.is_finite() => {
            Duration::try_from_secs_f64(seconds).map_err(SecondsError::TooLong)
        }
        _ => Err(SecondsError::NotSeconds(text.to_owned())),
    }
}

/// Why a command-line value is not a time limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecondsError {
    /// Not a number above zero: the text.
    NotSeconds(String),
    /// More seconds than a duration holds.
    TooLong(TryFromFloatSecsError),
}

impl fmt::Display for SecondsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecondsError::NotSeconds(text) => {
                write!(f, "`{text}` is not a number of seconds above zero")
            }
            SecondsError::TooLong(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for SecondsError {}

/// The ptxas the arguments and the environment lead to (installing it if need be,
/// with pip's progress on standard error), or why there is none.
pub fn find_ptxas(args: &PtxasArgs) -> Result<ptxas::Ptxas, FindError> {
    let env = Environment::from_process(args.path.clone(), args.offline);
    ptxas::find(&env, &mut |progress| errln!("cukc: {progress}"))
}

/// The cubin cache in cukc's cache directory (`CUKC_CACHE_DIR`, `XDG_CACHE_HOME`,
/// `HOME`), unless `CUKC_NO_CACHE` is set or there is none.
pub fn cache() -> Option<AssemblyCache> {
    if std::env::var_os("CUKC_NO_CACHE").is_some() {
        return None;
    }
    let env = Environment::from_process(None, true);
    env.cache_dir.as_deref().map(AssemblyCache::in_cache_dir)
}

/// How many threads one ptxas may optimise a module's functions on: the cores.
fn cores() -> u32 {
    std::thread::available_parallelism().map_or(1, |cores| cores.get() as u32)
}

/// The diagnostic for a file that cannot be assembled because there is no ptxas.
pub fn no_ptxas(reason: &FindError, at: lang::Span) -> Diagnostic {
    Diagnostic::error("E0303", format!("no ptxas: {reason}"))
        .with_primary(at, "cannot assemble this file")
}

/// Assembles `ptx`, a module of one or more kernels, for `target` into one cubin
/// (through the cache, ptxas using every core); the error is a diagnostic for the file.
pub fn assemble(
    found: &ptxas::Ptxas,
    ptx: &str,
    target: cute::Target,
    lineinfo: bool,
    args: &PtxasArgs,
    at: lang::Span,
) -> Result<ptxas::Assembled, Box<Diagnostic>> {
    let options = AssembleOptions {
        line_info: lineinfo,
        timeout: args.timeout,
        split_compile: Some(cores()),
        ..AssembleOptions::default()
    };
    let target = target.name();
    found
        .assemble_cached(ptx, target, &options, cache().as_ref())
        .map_err(|failure| Box::new(failure_diagnostic(&failure, ptx, target, at)))
}

/// Assembles each `(ptx, span)` of `modules` (one kernel's module each) into a cubin
/// of its own, one ptxas process per module across cores, through the cache; the
/// results are in the order of `modules`, a failure a diagnostic at its span.
pub fn assemble_each(
    found: &ptxas::Ptxas,
    modules: &[(String, lang::Span)],
    target: cute::Target,
    lineinfo: bool,
    args: &PtxasArgs,
) -> Vec<Result<ptxas::Assembled, Box<Diagnostic>>> {
    let options = AssembleOptions {
        line_info: lineinfo,
        timeout: args.timeout,
        ..AssembleOptions::default()
    };
    let texts: Vec<&str> = modules.iter().map(|(ptx, _)| ptx.as_str()).collect();
    let target = target.name();
    let results = found.assemble_each(&texts, target, &options, cache().as_ref());
    (results.into_iter().zip(modules))
        .map(|(result, (ptx, at))| {
            result.map_err(|failure| Box::new(failure_diagnostic(&failure, ptx, target, *at)))
        })
        .collect()
}

/// `E0303` for a ptxas that did not make a cubin: a compiler bug only when ptxas ran
/// to the end and rejected the PTX; its error lines are quoted with the PTX they name.
fn failure_diagnostic(
    failure: &PtxasFailure,
    ptx: &str,
    target: &str,
    at: lang::Span,
) -> Diagnostic {
    let PtxasFailure::Rejected { .. } = failure else {
        return Diagnostic::error(
            "E0303",
            format!("ptxas did not assemble the PTX for {target}"),
        )
        .with_primary(at, "in this file")
        .with_note(failure.to_string());
    };
    let mut diagnostic = Diagnostic::error(
        "E0303",
        format!("ptxas rejected the PTX cukc generated for {target}"),
    )
    .with_primary(at, "in this file")
    .with_note(
        "the PTX of an atom written in your file is used as written: check its `ptx`; \
         otherwise this is a compiler bug, please report it with the file",
    );
    const QUOTED: usize = 4;
    let errors = failure.errors().count();
    if errors > QUOTED {
        diagnostic = diagnostic.with_note(format!(
            "ptxas reported {errors} errors; the first {QUOTED}:"
        ));
    }
    for message in failure.errors().take(QUOTED) {
        let line = message
            .line
            .and_then(|line| ptx.lines().nth((line as usize).checked_sub(1)?));
        diagnostic = diagnostic.with_note(match line {
            Some(text) => format!("{message}: `{}`", text.trim()),
            None => message.to_string(),
        });
    }
    if failure.errors().next().is_none() {
        diagnostic = diagnostic.with_note(failure.to_string());
    }
    diagnostic
}

/// The `.cuk` line and column (1-based) that PTX line `line` (1-based) of `ptx` comes
/// from: the last `.loc` at or before it.
pub fn source_position(ptx: &str, line: u32) -> Option<(u32, u32)> {
    let lines: Vec<&str> = ptx.lines().take(line as usize).collect();
    lines.iter().rev().find_map(|text| {
        let mut words = text.trim().strip_prefix(".loc")?.split_whitespace().skip(1);
        let line = words.next()?.parse().ok()?;
        let column = words.next()?.parse().ok()?;
        Some((line, column))
    })
}

/// Where in the source the first error ptxas reports about `ptx_with_lines` (PTX with
/// `.loc` lines) comes from, as a span of `file`.
pub fn locate_rejection(
    found: &ptxas::Ptxas,
    ptx_with_lines: &str,
    target: cute::Target,
    args: &PtxasArgs,
    file: &lang::SourceFile,
) -> Option<lang::Span> {
    let options = AssembleOptions {
        line_info: true,
        timeout: args.timeout,
        ..AssembleOptions::default()
    };
    let failure = found
        .assemble(ptx_with_lines, target.name(), &options)
        .err()?;
    let line = failure.errors().find_map(|message| message.line)?;
    let (line, column) = source_position(ptx_with_lines, line)?;
    let offset = file.line_index().offset(
        file.text(),
        (line as usize).checked_sub(1)?,
        (column as usize).saturating_sub(1),
    );
    Some(lang::Span::empty(offset))
}

#[cfg(test)]
mod tests {
    use super::source_position;

    #[test]
    fn a_ptx_line_maps_to_the_loc_before_it() {
        let ptx = "ld.param.u64 %rd1, [k_param_0];\n    .loc 1 7 5\n    mov.u32 %r1, %tid.x;\n    .loc 1 9 12\n    bad.op %r2;\n";
        assert_eq!(source_position(ptx, 1), None);
        assert_eq!(source_position(ptx, 3), Some((7, 5)));
        assert_eq!(source_position(ptx, 5), Some((9, 12)));
    }
}
