//! The harness: runs a module's `test` and `bench` blocks one by one, reporting one
//! [`Event`] per block, and counts them in a [`Summary`]. When the kernels were compiled
//! for the emulator ([`Image::Kir`]), a block that calls one runs it there, each block
//! with a fresh emulated memory, and a bench that calls one is skipped (timing needs a
//! GPU); otherwise a block that calls a kernel is skipped, with the reason, when there
//! is no GPU. A block that calls no kernel runs anyway.
//!
//! [`Selection`] says which blocks run (`selection.rs`); what a run reports is in
//! `results.rs`; why a block has no device, or the GPU cannot be had, in
//! `unavailable.rs`; which blocks call a kernel in `calls.rs`; multi-rank blocks in
//! `ranked.rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use lang::Span;
use lang::ast::{ItemKind, Module, TestBlock};

mod calls;
mod ranked;
mod results;
mod selection;
mod unavailable;

use calls::calls_kernel;
pub use results::{BenchResult, BlockKind, Event, Metric, Outcome, Reference, Summary};
pub use selection::{BenchConfig, Selection};
pub(crate) use unavailable::NoDevice;
use unavailable::{GpuUnavailable, Panic};

use crate::device::{Device, Emulator};
use crate::driver::Gpu;
use crate::interp::{Interpreter, Stop};
use crate::random::seed_of;
use crate::{CompiledKernel, Image};

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
    gpu: Option<Result<Gpu, GpuUnavailable>>,
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
                Err(NoDevice::NoKernel)
            } else if emulate && kind == BlockKind::Bench {
                Err(NoDevice::EmulatedBench)
            } else if on_gpus {
                Err(NoDevice::PerRank)
            } else if emulate {
                let mut emulator = Box::<Emulator>::default();
                if selection.profile {
                    emulator.profile = Some(emulator::Profile::default());
                }
                Ok(Device::Emulator(emulator))
            } else {
                match gpu.get_or_insert_with(|| open_gpu(selection, self.keep_created)) {
                    Ok(gpu) => Ok(Device::Gpu(gpu)),
                    Err(reason) => Err(NoDevice::NoGpu(reason.clone())),
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
                (Some(_), Err(reason)) if kind == BlockKind::Bench => {
                    Outcome::Skipped(reason.to_string())
                }
                (Some(world), _) => {
                    let seed = seed_of(&block.name.text);
                    let (outcome, work, text) =
                        ranked::run_ranked((module, host, kernels), block, span, world, seed);
                    emulated = Some(work);
                    printed = text;
                    outcome
                }
                (None, device) => match device {
                    Err(reason) if needs_device => Outcome::Skipped(reason.to_string()),
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
                let hung = GpuUnavailable::Hung(kernel.to_owned());
                // Dropping the context would wait for the kernel.
                if let Some(Ok(opened)) = gpu.replace(Err(hung)) {
                    std::mem::forget(opened);
                }
                summary.hung = true;
            }
            if let Some(kernel) = ranks_gpus.iter().find_map(Gpu::hung_kernel) {
                let hung = GpuUnavailable::Hung(kernel.to_owned());
                *ranks_hung = Some(hung.to_string());
                // Dropping a context would wait for the kernel; GPU 0's context is the
                // single-GPU blocks' too.
                for opened in std::mem::take(ranks_gpus) {
                    std::mem::forget(opened);
                }
                if let Some(Ok(opened)) = gpu.replace(Err(hung)) {
                    std::mem::forget(opened);
                }
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
fn open_gpu(selection: &Selection, keep_created: bool) -> Result<Gpu, GpuUnavailable> {
    let opened = guarded(Gpu::open).map_err(GpuUnavailable::Panicked)?;
    let mut opened = opened.map_err(GpuUnavailable::Open)?;
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
        Err(panic) => Outcome::Failed {
            message: panic.to_string(),
            span,
            diagnostic: None,
        },
    }
}

/// Runs `body`, turning a panic (a bug, or a driver library missing a symbol) into an
/// error message instead of unwinding into the caller.
fn guarded<T>(body: impl FnOnce() -> T) -> Result<T, Panic> {
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
        Panic { text }
    })
}

#[cfg(test)]
mod tests;
