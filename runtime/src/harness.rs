//! The harness: runs a module's `test` and `bench` blocks one by one, reporting one
//! [`Event`] per block, and counts them in a [`Summary`]. When the kernels were compiled
//! for the emulator ([`Image::Kir`]), a block that calls one runs it there, each block
//! with a fresh emulated memory, and a bench that calls one is skipped (timing needs a
//! GPU); otherwise a block that calls a kernel is skipped, with the reason, when there
//! is no GPU. A block that calls no kernel runs anyway.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use lang::Span;
use lang::ast::{ItemKind, Module, TestBlock};

mod calls;
mod ranked;

use calls::calls_kernel;

use crate::device::{Device, Emulated, Emulator};
use crate::driver::Gpu;
use crate::interp::{EMULATED_BENCH, Interpreter, Stop};
use crate::random::seed_of;
use crate::{CompiledKernel, Image};

/// Which blocks to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// Run `test` blocks.
    pub tests: bool,
    /// Run `bench` blocks.
    pub benches: bool,
    /// Run only blocks whose name contains this (is this, with `exact`).
    pub filter: Option<String>,
    /// Whether `filter` names a block whole.
    pub exact: bool,
    /// How benches time their kernels.
    pub bench: BenchConfig,
    /// How long one kernel launch may run on the GPU (`None`: what
    /// `CUKC_KERNEL_TIMEOUT` says, else 60 s).
    pub kernel_timeout: Option<Duration>,
    /// Count what each source span of the emulated kernels did (`cukc profile`): the
    /// block's [`Event::profile`].
    pub profile: bool,
}

impl Selection {
    /// Tests only.
    pub fn tests() -> Self {
        Selection {
            tests: true,
            benches: false,
            filter: None,
            exact: false,
            bench: BenchConfig::default(),
            kernel_timeout: None,
            profile: false,
        }
    }

    /// Benches only.
    pub fn benches() -> Self {
        Selection {
            tests: false,
            ..Selection::all()
        }
    }

    /// Tests, then benches.
    pub fn all() -> Self {
        Selection {
            benches: true,
            ..Selection::tests()
        }
    }

    /// The same selection, limited to names containing `filter`.
    pub fn with_filter(self, filter: impl Into<String>) -> Self {
        Selection {
            filter: Some(filter.into()),
            ..self
        }
    }

    /// The same selection, with kernels on the GPU limited to `limit` a launch.
    pub fn with_kernel_timeout(self, limit: Duration) -> Self {
        Selection {
            kernel_timeout: Some(limit),
            ..self
        }
    }

    /// The same selection, its filter matching whole names only.
    pub fn exactly(self) -> Self {
        Selection {
            exact: true,
            ..self
        }
    }

    /// The same selection, its emulated blocks profiled.
    pub fn profiled(self) -> Self {
        Selection {
            profile: true,
            ..self
        }
    }

    /// Whether the block `name` of `kind` is selected.
    pub fn wants(&self, kind: BlockKind, name: &str) -> bool {
        let kind_wanted = match kind {
            BlockKind::Test => self.tests,
            BlockKind::Bench => self.benches,
        };
        kind_wanted
            && self.filter.as_ref().is_none_or(|filter| match self.exact {
                true => name == filter,
                false => name.contains(filter.as_str()),
            })
    }
}

/// How a bench times a kernel: untimed warm-up launches, then `runs` launches each
/// timed with CUDA events; the median counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchConfig {
    /// Untimed launches first.
    pub warmup: u32,
    /// Timed launches.
    pub runs: u32,
    /// Flush L2 before each launch of the kernel (`cukc tune`), so that a
    /// configuration is not timed on operands an earlier launch left in L2.
    pub flush_l2: bool,
    /// Time the reference a `report ... against` names (`cukc tune` compares its
    /// points with each other, and leaves it out).
    pub references: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            warmup: 5,
            runs: 20,
            flush_l2: false,
            references: true,
        }
    }
}

/// A `test` or a `bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// A `test` block.
    Test,
    /// A `bench` block.
    Bench,
}

/// One block's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Test or bench.
    pub kind: BlockKind,
    /// The block's name.
    pub name: String,
    /// The block's span.
    pub span: Span,
    /// What happened.
    pub outcome: Outcome,
    /// Wall-clock time the block took, data creation and reference math included.
    pub elapsed: Duration,
    /// What the emulator ran, when the block's kernels ran there.
    pub emulated: Option<Emulated>,
    /// What its emulated kernels printed (on the GPU, the driver writes their text to
    /// standard output when the launch is waited for).
    pub printed: String,
    /// What each source span of its emulated kernels did, when the selection asked.
    pub profile: Option<emulator::Profile>,
}

/// What happened to a block.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A test ran and every `assert_close` held.
    Passed,
    /// A bench ran.
    Measured(BenchResult),
    /// It failed: the message, and the span of the statement or expression that failed.
    Failed {
        /// What went wrong.
        message: String,
        /// Where.
        span: Span,
        /// An emulator fault as a diagnostic: its code, labels at the kernel's lines
        /// (both sides of a race) and at the call.
        diagnostic: Option<Box<lang::Diagnostic>>,
    },
    /// It could not run here.
    Skipped(String),
}

/// What a bench measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// The median time of its kernel calls, in milliseconds (summed over the calls).
    pub kernel_ms: f64,
    /// What `report` said one run does: the amount its reference is compared by, when
    /// it names one, else the first it gives.
    pub metric: Option<Metric>,
    /// The other amount `report` gave, if it gave both (`flops` and `bytes`): its rate
    /// is shown too.
    pub also: Option<Metric>,
    /// The reference measured in the same run.
    pub reference: Option<Reference>,
    /// A remark, such as a reference that is not available.
    pub note: Option<String>,
}

/// A reported amount of work per run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Bytes moved (read plus written).
    Bytes(u64),
    /// Floating-point operations.
    Flops(u64),
}

/// A reference measurement: the same amount of work done by something known to be fast.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// `memcpy` or `cuBLAS`.
    pub name: String,
    /// Its median time in milliseconds.
    pub ms: f64,
}

impl Metric {
    /// A report's amounts in the order a bench shows them: the one its reference
    /// (`memcpy` or `cublas`, if any) is compared by, then the other; without a
    /// reference, as written.
    pub fn lead(
        mut metrics: Vec<Metric>,
        reference: Option<&str>,
    ) -> (Option<Metric>, Option<Metric>) {
        if let Some(reference) = reference {
            let by_flops = reference == "cublas";
            metrics.sort_by_key(|metric| matches!(metric, Metric::Flops(_)) != by_flops);
        }
        (metrics.first().copied(), metrics.get(1).copied())
    }

    /// The rate for a run of `ms` milliseconds: GB/s for bytes, TFLOP/s for flops.
    pub fn rate(self, ms: f64) -> f64 {
        match self {
            Metric::Bytes(bytes) => bytes as f64 / (ms * 1e-3) / 1e9,
            Metric::Flops(flops) => flops as f64 / (ms * 1e-3) / 1e12,
        }
    }

    /// The unit of [`Metric::rate`].
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Bytes(_) => "GB/s",
            Metric::Flops(_) => "TFLOP/s",
        }
    }
}

impl BenchResult {
    /// The kernel's time over the reference's: 1.0 means as fast.
    pub fn ratio(&self) -> Option<f64> {
        self.reference
            .as_ref()
            .map(|reference| reference.ms / self.kernel_ms)
    }
}

impl fmt::Display for BenchResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.4} ms", self.kernel_ms)?;
        if let Some(metric) = self.metric {
            write!(f, ", {:.1} {}", metric.rate(self.kernel_ms), metric.unit())?;
            if let Some(also) = self.also {
                write!(f, ", {:.1} {}", also.rate(self.kernel_ms), also.unit())?;
            }
            if let (Some(reference), Some(ratio)) = (&self.reference, self.ratio()) {
                write!(
                    f,
                    "; {} {:.1} {} ({:.4} ms); {:.1}% of {}",
                    reference.name,
                    metric.rate(reference.ms),
                    metric.unit(),
                    reference.ms,
                    ratio * 100.0,
                    reference.name
                )?;
            }
        }
        if let Some(note) = &self.note {
            write!(f, " ({note})")?;
        }
        Ok(())
    }
}

/// Counts of a run: a bench that measured counts as passed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Blocks that passed.
    pub passed: usize,
    /// Blocks that failed.
    pub failed: usize,
    /// Blocks that could not run here.
    pub skipped: usize,
    /// Blocks (passed or failed) whose kernels ran on the emulator.
    pub emulated: usize,
    /// Whether a kernel passed its time limit: it may still be running on the GPU,
    /// whose context this process must not touch again (not even to exit through the
    /// driver's exit handler, which would wait for it).
    pub hung: bool,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)?;
        if self.skipped > 0 {
            write!(f, ", {} skipped", self.skipped)?;
        }
        if self.emulated > 0 {
            let blocks = if self.emulated == 1 {
                "block"
            } else {
                "blocks"
            };
            write!(f, " ({} {blocks} emulated)", self.emulated)?;
        }
        Ok(())
    }
}

/// Runs the selected `test` and `bench` blocks of `module`, with what the checker
/// found for its host code (`typecheck::Analysis::host`: const items' values, kernel
/// instantiations), in source order (tests first when both are selected), calling
/// `out` once per block.
pub fn run_blocks(
    module: &Module,
    host: &trace::HostFacts,
    kernels: &[CompiledKernel],
    selection: &Selection,
    out: &mut dyn FnMut(Event),
) -> Summary {
    GpuSession::default().run_blocks(module, host, kernels, selection, out)
}

/// A GPU context kept open across harness runs (`cukc tune` runs every point's
/// benches in one), opened by the first block that needs it.
#[derive(Default)]
pub struct GpuSession {
    gpu: Option<Result<Gpu, String>>,
    /// Whether the GPU keeps created tensors across runs ([`GpuSession::keeping_created`]).
    keep_created: bool,
    /// The GPUs of multi-rank blocks, rank by rank, opened for the most ranks a block
    /// has asked for so far.
    ranks: Vec<Gpu>,
    /// Why no multi-rank block runs on GPUs any more: a kernel of one passed its time
    /// limit.
    ranks_hung: Option<String>,
}

impl GpuSession {
    /// A session whose GPU draws each created tensor once and gives later runs that
    /// create the same one a device copy of it (`cukc tune`: the same benches at every
    /// point).
    pub fn keeping_created() -> GpuSession {
        GpuSession {
            keep_created: true,
            ..GpuSession::default()
        }
    }

    /// [`run_blocks`] in this session's contexts; the kernels loaded by an earlier run
    /// are forgotten first (on every GPU), so `kernels`' indices name these kernels.
    pub fn run_blocks(
        &mut self,
        module: &Module,
        host: &trace::HostFacts,
        kernels: &[CompiledKernel],
        selection: &Selection,
        out: &mut dyn FnMut(Event),
    ) -> Summary {
        if let Some(Ok(gpu)) = &mut self.gpu {
            gpu.forget_kernels();
        }
        for gpu in &mut self.ranks {
            gpu.forget_kernels();
        }
        let gpu = &mut self.gpu;
        let ranks_gpus = &mut self.ranks;
        let ranks_hung = &mut self.ranks_hung;
        let mut blocks: Vec<(BlockKind, &TestBlock, Span)> = Vec::new();
        for wanted in [BlockKind::Test, BlockKind::Bench] {
            for item in &module.items {
                let block = match (&item.kind, wanted) {
                    (ItemKind::Test(block), BlockKind::Test)
                    | (ItemKind::Bench(block), BlockKind::Bench) => block,
                    _ => continue,
                };
                if selection.wants(wanted, &block.name.text) {
                    blocks.push((wanted, block, item.span));
                }
            }
        }
        let emulate = kernels
            .iter()
            .any(|kernel| matches!(kernel.image, Image::Kir(_)));
        let mut summary = Summary::default();
        for (kind, block, span) in blocks {
            let started = Instant::now();
            let needs_device = calls_kernel(module, &block.body);
            let ranks = block.ranks.as_ref().map(|ranks| match ranks.count.kind {
                lang::ast::ExprKind::Int(count) => count.clamp(1, 8) as u32,
                _ => 1,
            });
            // A multi-rank block with GPU kernels opens its GPUs itself, one per rank.
            let on_gpus = ranks.is_some() && needs_device && !emulate;
            let device = if !needs_device {
                Err("this block calls no kernel".to_owned())
            } else if emulate && kind == BlockKind::Bench {
                Err(EMULATED_BENCH.to_owned())
            } else if on_gpus {
                Err("runs on one GPU per rank".to_owned())
            } else if emulate {
                let mut emulator = Box::<Emulator>::default();
                if selection.profile {
                    emulator.profile = Some(emulator::Profile::default());
                }
                Ok(Device::Emulator(emulator))
            } else {
                match gpu.get_or_insert_with(|| open_gpu(selection, self.keep_created)) {
                    Ok(gpu) => Ok(Device::Gpu(gpu)),
                    Err(reason) => Err(format!("no GPU: {reason}")),
                }
            };
            let mut emulated = None;
            let mut printed = String::new();
            let mut profile = None;
            let outcome = match (ranks, device) {
                (Some(world), _) if on_gpus => {
                    let bench = (kind == BlockKind::Bench).then_some(selection.bench);
                    match ranked::open_gpus(ranks_gpus, ranks_hung, (world, span), selection) {
                        Ok(gpus) => {
                            let seed = seed_of(&block.name.text);
                            let program = (module, host, kernels);
                            ranked::run_on_gpus(program, block, span, gpus, seed, bench)
                        }
                        Err(outcome) => outcome,
                    }
                }
                (Some(_), Err(reason)) if kind == BlockKind::Bench => Outcome::Skipped(reason),
                (Some(world), _) => {
                    let seed = seed_of(&block.name.text);
                    let (outcome, work, text) =
                        ranked::run_ranked((module, host, kernels), block, span, world, seed);
                    emulated = Some(work);
                    printed = text;
                    outcome
                }
                (None, device) => match device {
                    Err(reason) if needs_device => Outcome::Skipped(reason),
                    device => {
                        let bench = (kind == BlockKind::Bench).then_some(selection.bench);
                        let mut interpreter = Interpreter::new(
                            module,
                            host,
                            kernels,
                            device,
                            seed_of(&block.name.text),
                            bench,
                        );
                        let outcome = run_body(&mut interpreter, &block.body, span);
                        emulated = interpreter.emulated();
                        printed = interpreter.take_printed();
                        profile = interpreter.take_profile();
                        outcome
                    }
                },
            };
            if let Some(Ok(opened)) = &gpu
                && let Some(kernel) = opened.hung_kernel()
            {
                let reason = crate::driver::still_running(kernel);
                // Dropping the context would wait for the kernel.
                if let Some(Ok(opened)) = gpu.replace(Err(reason)) {
                    std::mem::forget(opened);
                }
                summary.hung = true;
            }
            if let Some(kernel) = ranks_gpus.iter().find_map(Gpu::hung_kernel) {
                let reason = crate::driver::still_running(kernel);
                // Dropping a context would wait for the kernel; GPU 0's context is the
                // single-GPU blocks' too.
                for opened in std::mem::take(ranks_gpus) {
                    std::mem::forget(opened);
                }
                if let Some(Ok(opened)) = gpu.replace(Err(reason.clone())) {
                    std::mem::forget(opened);
                }
                *ranks_hung = Some(reason);
                summary.hung = true;
            }
            if emulated.is_some() && !matches!(outcome, Outcome::Skipped(_)) {
                summary.emulated += 1;
            }
            match outcome {
                Outcome::Passed | Outcome::Measured(_) => summary.passed += 1,
                Outcome::Failed { .. } => summary.failed += 1,
                Outcome::Skipped(_) => summary.skipped += 1,
            }
            out(Event {
                kind,
                name: block.name.text.clone(),
                span,
                outcome,
                elapsed: started.elapsed(),
                emulated,
                printed,
                profile,
            });
        }
        summary
    }
}

/// Opens the GPU with `selection`'s kernel time limit, keeping created tensors when
/// asked.
fn open_gpu(selection: &Selection, keep_created: bool) -> Result<Gpu, String> {
    let mut opened = guarded(Gpu::open).and_then(|opened| opened.map_err(String::from))?;
    if let Some(limit) = selection.kernel_timeout {
        opened.set_kernel_timeout(limit);
    }
    if keep_created {
        opened.keep_created();
    }
    Ok(opened)
}

/// Runs a block's `body` on `interpreter` (a panic caught), and what came of it; an
/// internal error is a failure at the block's `span`.
fn run_body(interpreter: &mut Interpreter<'_>, body: &lang::ast::Block, span: Span) -> Outcome {
    match guarded(|| interpreter.run(body)) {
        Ok(Ok(Some(result))) => Outcome::Measured(result),
        Ok(Ok(None)) => Outcome::Passed,
        Ok(Err(Stop::Error {
            message,
            span,
            diagnostic,
        })) => Outcome::Failed {
            message,
            span,
            diagnostic,
        },
        Ok(Err(Stop::Skip(reason))) => Outcome::Skipped(reason),
        Err(message) => Outcome::Failed {
            message,
            span,
            diagnostic: None,
        },
    }
}

/// Runs `body`, turning a panic (a bug, or a driver library missing a symbol) into an
/// error message instead of unwinding into the caller.
fn guarded<T>(body: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(body)).map_err(|payload| {
        let text = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| {
                payload
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
            })
            .unwrap_or_else(|| "unknown panic".to_owned());
        format!("internal error in the runtime: {text}")
    })
}

#[cfg(test)]
mod tests;
