//! Every point of a space compiled, on every core: the point's module checked and
//! lowered by the caller's front end (a `static_assert` that fails rejects it), its
//! PTX assembled by ptxas with `-v` through the cubin cache, and its resources read
//! from ptxas's report: a point whose block needs more registers than an SM has, or
//! more shared memory than a block may have, is rejected too. What timing needs is
//! kept (the module, the host facts, the cubin), not the KIR.
//!
//! `cukc tune` lowers with its build's front end (kernels lowered on threads of their
//! own); [`check_and_lower`] is the plain one the Python package uses.

use std::time::{Duration, Instant};

use backend_ptx::EmitOptions;
use backend_ptx::ptxas::{self, AssembleOptions, AssemblyCache};
use kir::HostExpr;
use lang::ast::{Module, TuneBlock};
use lang::{Diagnostic, SourceFile};
use rayon::prelude::*;
use runtime::{CompiledKernel, Image};
use tune::Point;

/// The registers of one SM (every target cukc builds for).
const REGISTERS_PER_SM: u64 = 65536;

/// A point compiled, or why it was rejected.
pub struct Built {
    /// The configuration.
    pub point: Point,
    /// Ready to time, or the reason it cannot be.
    pub outcome: Result<Ready, Rejected>,
}

/// Why a point was rejected: a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected(pub String);

/// A point that compiled within the GPU's limits.
pub struct Ready {
    /// The module (the kernel's defaults are the point's values; only the block's
    /// benches), which the harness runs.
    pub module: Module,
    /// What host code reads from the checker.
    pub host: trace::HostFacts,
    /// The kernels, each with the point's cubin.
    pub kernels: Vec<CompiledKernel>,
    /// The most registers a thread of any of its kernels uses.
    pub registers: u32,
    /// The most shared memory (static and dynamic) a block of any of its kernels uses.
    pub shared_bytes: u64,
    /// Bytes spilled to local memory (stores and loads), over all its kernels.
    pub spilled_bytes: u64,
}

/// A point's module checked and lowered.
pub struct Lowered {
    /// Every diagnostic.
    pub diagnostics: Vec<Diagnostic>,
    /// The kernels (none when there is an error).
    pub kernels: Vec<kir::Verified>,
    /// What host code reads from the checker.
    pub host: trace::HostFacts,
}

/// Checks and lowers a point's module of a file for a target.
pub type FrontEnd = dyn Fn(&SourceFile, Module, cute::Target) -> Lowered + Sync;

/// The plain front end: the checker, then every kernel lowered.
pub fn check_and_lower(_file: &SourceFile, module: Module, target: cute::Target) -> Lowered {
    typecheck::trace(&module, target, |analysis, traces| {
        let host = analysis.host;
        let lowered = lower::lower_traces(analysis.diagnostics, &traces);
        let kernels = if lowered.has_errors() {
            Vec::new()
        } else {
            lowered.kernels
        };
        Lowered {
            diagnostics: lowered.diagnostics,
            kernels,
            host,
        }
    })
}

/// How the points are compiled.
pub struct Compiler<'a> {
    /// Checks and lowers a point's module.
    pub front_end: &'a FrontEnd,
    /// The source.
    pub file: &'a SourceFile,
    /// The parsed file.
    pub module: &'a Module,
    /// The block.
    pub block: &'a TuneBlock,
    /// The target.
    pub target: cute::Target,
    /// The ptxas.
    pub ptxas: &'a ptxas::Ptxas,
    /// The cubin cache.
    pub cache: Option<&'a AssemblyCache>,
    /// ptxas's time limit.
    pub timeout: Option<Duration>,
}

impl Compiler<'_> {
    /// Compiles every point (in parallel; the results in the order of `points`) and
    /// says how long it took.
    pub fn compile_all(&self, points: &[Point]) -> (Vec<Built>, Duration) {
        let start = Instant::now();
        let built = points
            .par_iter()
            .map(|point| Built {
                point: point.clone(),
                outcome: self.compile(point),
            })
            .collect();
        (built, start.elapsed())
    }

    fn compile(&self, point: &Point) -> Result<Ready, Rejected> {
        let benches: Vec<&str> = (self.block.benches.iter())
            .map(|bench| bench.text.as_str())
            .collect();
        let module = tune::specialise(self.module, &self.block.kernel.text, point, Some(&benches));
        let compiled = (self.front_end)(self.file, module.clone(), self.target);
        if let Some(error) = compiled
            .diagnostics
            .iter()
            .find(|diagnostic| diagnostic.is_error())
        {
            let line = self.file.line_column(error.span().start).line;
            return Err(Rejected(format!("line {line}: {}", error.message)));
        }
        let options = EmitOptions {
            source_name: Some(self.file.path().to_owned()),
            ..EmitOptions::default()
        };
        let ptx = backend_ptx::emit_module(&compiled.kernels, self.target, &options)
            .map_err(|error| Rejected(error.to_string()))?;
        let options = AssembleOptions {
            verbose: true,
            timeout: self.timeout,
            ..AssembleOptions::default()
        };
        let assembled = self
            .ptxas
            .assemble_cached(&ptx, self.target.name(), &options, self.cache)
            .map_err(|failure| {
                let first_error = failure.errors().next().map(ToString::to_string);
                Rejected(first_error.unwrap_or_else(|| first_line(&failure.to_string())))
            })?;
        let limit = shared_limit(self.target);
        let mut ready = Ready {
            module,
            host: compiled.host.clone(),
            kernels: Vec::new(),
            registers: 0,
            shared_bytes: 0,
            spilled_bytes: 0,
        };
        for kernel in &compiled.kernels {
            let signature = &kernel.signature;
            let resources = (assembled.resources.iter())
                .find(|function| function.is_entry && function.name == signature.entry);
            let (registers, static_shared, spilled) = resources.map_or((0, 0, 0), |found| {
                (
                    found.registers,
                    found.shared,
                    found.spill_stores + found.spill_loads,
                )
            });
            let shared = static_shared + u64::from(signature.launch.shared_bytes);
            if shared > limit {
                return Err(Rejected(format!(
                    "`{}` needs {shared} bytes of shared memory, more than the {limit} a block may have on {}",
                    signature.name,
                    self.target.name()
                )));
            }
            if let Some(threads) = constant_threads(&signature.launch.block)
                && u64::from(registers) * threads > REGISTERS_PER_SM
            {
                return Err(Rejected(format!(
                    "`{}` needs {registers} registers a thread for {threads} threads, more than an SM's {REGISTERS_PER_SM}",
                    signature.name
                )));
            }
            ready.registers = ready.registers.max(registers);
            ready.shared_bytes = ready.shared_bytes.max(shared);
            ready.spilled_bytes += spilled;
            ready.kernels.push(CompiledKernel {
                signature: signature.clone(),
                image: Image::Cubin(assembled.cubin.clone()),
            });
        }
        Ok(ready)
    }
}

/// The most shared memory a block may have: 163 KiB on an A100, 227 KiB on an H100
/// or a B200.
pub fn shared_limit(target: cute::Target) -> u64 {
    match target {
        cute::Target::Sm80 => 163 * 1024,
        _ => 227 * 1024,
    }
}

/// Threads per block, when the launch clause's block is a constant.
fn constant_threads(block: &[HostExpr; 3]) -> Option<u64> {
    block.iter().try_fold(1u64, |threads, extent| match extent {
        HostExpr::Const(value) => threads.checked_mul(u64::try_from(*value).ok()?),
        _ => None,
    })
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_owned()
}
