//! ptxas for `cukc build`, `test`, `bench`, `run` and `doctor`: the flags that say
//! which ptxas and how long it may run, finding it, and assembling PTX with its
//! failures turned into `E0303` diagnostics. Only a ptxas that rejects the PTX cukc
//! generated is called a compiler bug; one that timed out, was killed by a signal or
//! could not run says so.

use std::path::PathBuf;
use std::time::Duration;

use backend_ptx::ptxas::{self, AssembleOptions, Environment, PtxasFailure};
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
fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds.is_finite() => {
            Duration::try_from_secs_f64(seconds).map_err(|error| error.to_string())
        }
        _ => Err(format!("`{text}` is not a number of seconds above zero")),
    }
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
    target: cute::Target,
    lineinfo: bool,
    args: &PtxasArgs,
    at: lang::Span,
) -> Result<ptxas::Assembled, Box<Diagnostic>> {
    let options = AssembleOptions {
        line_info: lineinfo,
        timeout: args.timeout,
        ..AssembleOptions::default()
    };
    let target = target.name();
    found
        .assemble(ptx, target, &options)
        .map_err(|failure| Box::new(failure_diagnostic(&failure, ptx, target, at)))
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
    .with_note("this is a compiler bug; please report it with the file");
    for message in failure.errors() {
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
