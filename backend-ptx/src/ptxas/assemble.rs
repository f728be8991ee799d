//! Running ptxas on PTX text: `ptxas -arch=<target> [-lineinfo] [-v] -o
//! kernel.cubin kernel.ptx` in a private temporary directory (mode 0700, removed when
//! the call returns, also when ptxas timed out or was interrupted), with a time limit
//! ([`AssembleOptions::timeout`]) and its output capped (see `process.rs`).
//! [`Ptxas::assemble_cached`] looks in an [`AssemblyCache`] first, and
//! [`Ptxas::assemble_each`] runs one ptxas process per PTX text, across cores.

use std::fmt;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::cache::AssemblyCache;
use super::discover::Ptxas;
use super::log::{FunctionResources, Message, Severity, parse_messages, parse_resources};
use super::process::{self, Stopped};
use super::{Version, minimum_version};

/// How to run ptxas.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssembleOptions {
    /// `-lineinfo`: keep the PTX's `.loc` lines in the cubin for profilers.
    pub line_info: bool,
    /// `-v`: report each function's registers, spills, stack and shared memory
    /// (read into [`Assembled::resources`]).
    pub verbose: bool,
    /// `-O<n>` (ptxas's default is 3).
    pub opt_level: Option<u8>,
    /// Further arguments, placed before `-o`.
    pub extra_args: Vec<String>,
    /// `-split-compile=<n>`: ptxas optimises the functions of one module on up to
    /// `n` threads (0: one per CPU). The cubin is the same whatever `n` is, so it is
    /// no part of an [`AssemblyCache`] key.
    pub split_compile: Option<u32>,
    /// How long ptxas may run before it is killed; `None` is [`DEFAULT_TIMEOUT`].
    pub timeout: Option<Duration>,
}

/// How long ptxas may run unless [`AssembleOptions::timeout`] says otherwise: 300 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// A cubin and what ptxas said while making it.
#[derive(Clone, Debug)]
pub struct Assembled {
    /// The cubin (an ELF file).
    pub cubin: Vec<u8>,
    /// How long ptxas ran.
    pub elapsed: Duration,
    /// The warnings ptxas printed.
    pub warnings: Vec<Message>,
    /// Each function's resources (empty unless [`AssembleOptions::verbose`]).
    pub resources: Vec<FunctionResources>,
    /// ptxas's standard output and error, as printed.
    pub log: String,
    /// Whether it came from an [`AssemblyCache`] rather than from running ptxas
    /// ([`Assembled::elapsed`] is then zero).
    pub cached: bool,
}

/// Why a PTX text did not become a cubin.
#[derive(Debug)]
pub enum PtxasFailure {
    /// This ptxas is older than the target needs.
    UnsupportedTarget {
        /// The target asked for.
        target: String,
        /// This ptxas's release.
        version: Version,
        /// The oldest release that knows the target.
        minimum: Version,
    },
    /// The temporary files could not be written or read.
    Io {
        /// What was being done, e.g. `writing /tmp/.../kernel.ptx`.
        what: String,
        /// The error.
        error: std::io::Error,
    },
    /// ptxas could not be started.
    Spawn {
        /// The executable.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// ptxas ran past its time limit and was killed.
    TimedOut {
        /// The limit.
        limit: Duration,
    },
    /// ptxas was killed by a signal (out of memory, a crash, someone's `kill`).
    Killed {
        /// The signal's number.
        signal: i32,
        /// What it printed before.
        log: String,
    },
    /// [`super::cancel_running`] stopped it (Ctrl-C).
    Interrupted,
    /// ptxas ran and rejected the PTX (or its options).
    Rejected {
        /// Its exit status, in words.
        status: String,
        /// Every message it printed, errors and warnings alike.
        messages: Vec<Message>,
        /// Its standard output and error, as printed.
        log: String,
    },
}

impl PtxasFailure {
    /// The error and fatal messages of a [`PtxasFailure::Rejected`]; none for the
    /// other kinds.
    pub fn errors(&self) -> impl Iterator<Item = &Message> {
        let messages: &[Message] = match self {
            PtxasFailure::Rejected { messages, .. } => messages,
            _ => &[],
        };
        messages
            .iter()
            .filter(|message| message.severity >= Severity::Error)
    }
}

impl fmt::Display for PtxasFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxasFailure::UnsupportedTarget {
                target,
                version,
                minimum,
            } => write!(
                f,
                "ptxas {version} cannot assemble for {target}: it needs ptxas {minimum} or newer"
            ),
            PtxasFailure::Io { what, error } => write!(f, "{what}: {error}"),
            PtxasFailure::Spawn { path, error } => {
                write!(f, "cannot run ptxas at {}: {error}", path.display())
            }
            PtxasFailure::TimedOut { limit } => write!(
                f,
                "ptxas ran longer than {} s and was stopped (raise the limit with \
                 --ptxas-timeout or CUKC_PTXAS_TIMEOUT)",
                limit.as_secs_f64()
            ),
            PtxasFailure::Killed { signal, log } => {
                write!(f, "ptxas was killed by signal {signal}")?;
                if *signal == 9 {
                    write!(f, " (SIGKILL: perhaps out of memory)")?;
                }
                match log.trim() {
                    "" => Ok(()),
                    said => write!(f, "; it printed:\n{said}"),
                }
            }
            PtxasFailure::Interrupted => write!(f, "ptxas was interrupted"),
            PtxasFailure::Rejected {
                status, messages, ..
            } => {
                write!(f, "ptxas failed ({status})")?;
                for message in messages
                    .iter()
                    .filter(|message| message.severity >= Severity::Warning)
                {
                    write!(f, "\n  {message}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for PtxasFailure {}

impl Ptxas {
    /// Assembles `ptx` for `target` (`sm_80`, `sm_90a`, `sm_100a`, or any name
    /// ptxas's `-arch` accepts).
    pub fn assemble(
        &self,
        ptx: &str,
        target: &str,
        options: &AssembleOptions,
    ) -> Result<Assembled, PtxasFailure> {
        if let Some(minimum) = minimum_version(target)
            && self.version < minimum
        {
            return Err(PtxasFailure::UnsupportedTarget {
                target: target.to_owned(),
                version: self.version,
                minimum,
            });
        }
        let io = |what: String| move |error| PtxasFailure::Io { what, error };
        let dir = tempfile::Builder::new()
            .prefix("cukc-ptxas-")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir()
            .map_err(io("creating a temporary directory".to_owned()))?;
        let input = dir.path().join("kernel.ptx");
        let output = dir.path().join("kernel.cubin");
        std::fs::write(&input, ptx).map_err(io(format!("writing {}", input.display())))?;

        let mut command = Command::new(&self.path);
        command
            .current_dir(dir.path())
            .arg(format!("-arch={target}"))
            .args(options.arguments());
        if let Some(threads) = options.split_compile {
            command.arg(format!("-split-compile={threads}"));
        }
        command.args(["-o", "kernel.cubin", "kernel.ptx"]);

        let start = Instant::now();
        let limit = options.timeout.unwrap_or(DEFAULT_TIMEOUT);
        let finished = process::run(&mut command, limit).map_err(|stopped| match stopped {
            Stopped::Spawn(error) => PtxasFailure::Spawn {
                path: self.path.clone(),
                error,
            },
            Stopped::TimedOut(limit) => PtxasFailure::TimedOut { limit },
            Stopped::Interrupted => PtxasFailure::Interrupted,
        })?;
        let elapsed = start.elapsed();
        let log = finished.log;
        if let Some(signal) = finished.status.signal() {
            return Err(PtxasFailure::Killed { signal, log });
        }
        let messages = parse_messages(&log);
        if !finished.status.success() {
            return Err(PtxasFailure::Rejected {
                status: finished.status.to_string(),
                messages,
                log,
            });
        }
        let cubin = std::fs::read(&output).map_err(io(format!("reading {}", output.display())))?;
        Ok(Assembled {
            cubin,
            elapsed,
            warnings: messages
                .into_iter()
                .filter(|message| message.severity == Severity::Warning)
                .collect(),
            resources: parse_resources(&log),
            log,
            cached: false,
        })
    }

    /// [`Ptxas::assemble`], through `cache` when there is one: a hit runs no ptxas,
    /// and a cubin ptxas made is stored for the next time.
    pub fn assemble_cached(
        &self,
        ptx: &str,
        target: &str,
        options: &AssembleOptions,
        cache: Option<&AssemblyCache>,
    ) -> Result<Assembled, PtxasFailure> {
        let Some(cache) = cache else {
            return self.assemble(ptx, target, options);
        };
        let key = AssemblyCache::key(self, target, &options.arguments(), ptx);
        if let Some(hit) = cache.load(&key) {
            return Ok(hit);
        }
        let assembled = self.assemble(ptx, target, options)?;
        cache.store(&key, &assembled);
        Ok(assembled)
    }

    /// Assembles every text of `ptxs` ([`Ptxas::assemble_cached`]), one ptxas
    /// process per text, as many at once as there are cores; the results are in the
    /// order of `ptxs`.
    pub fn assemble_each<T: AsRef<str> + Sync>(
        &self,
        ptxs: &[T],
        target: &str,
        options: &AssembleOptions,
        cache: Option<&AssemblyCache>,
    ) -> Vec<Result<Assembled, PtxasFailure>> {
        ptxs.par_iter()
            .map(|ptx| self.assemble_cached(ptx.as_ref(), target, options, cache))
            .collect()
    }
}
