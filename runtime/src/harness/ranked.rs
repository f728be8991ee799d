//! A `test NAME ranks(N)` or `bench NAME ranks(N)` block: its body once per rank, each
//! on a thread of its own, every rank drawing the same random values (the block's seed;
//! scale them by `this_rank()` to make them differ). On the emulator the ranks share
//! one [`Hub`] (`ranks.rs`); on GPUs rank r has GPU r and the ranks' symmetric launches
//! meet in an [`Exchange`] (`gpu_ranks.rs`). The block fails with the lowest failing
//! rank's failure, named by its rank (an emulator fault names it itself); a bench
//! reports its slowest rank.

use lang::Span;
use lang::ast::TestBlock;
use trace::HostFacts;

use super::{BenchConfig, BenchResult, Outcome, Selection, guarded, run_body};
use crate::CompiledKernel;
use crate::device::{Device, Emulated};
use crate::driver::{Gpu, RanksUnavailable};
use crate::gpu_ranks::Exchange;
use crate::interp::Interpreter;
use crate::ranks::Hub;

/// What a block's host code reads: the module, the checker's host facts, the kernels.
type Program<'m> = (&'m lang::ast::Module, &'m HostFacts, &'m [CompiledKernel]);

/// Runs `block` on `world` emulated ranks: its outcome, what was emulated and what the
/// kernels printed.
pub(super) fn run_ranked(
    program: Program<'_>,
    block: &TestBlock,
    span: Span,
    world: u32,
    seed: u64,
) -> (Outcome, Emulated, String) {
    let hub = Hub::new(world);
    let devices = (0..world).map(|rank| Device::Rank(&hub, rank)).collect();
    // A block of ranks on the emulator is a test: its body measures nothing.
    let outcomes = run_each_rank(
        program,
        block,
        span,
        devices,
        &|rank| hub.depart(rank),
        seed,
        None,
    );
    let (work, printed) = (hub.work(), hub.take_printed());
    (combine(outcomes, span), work, printed)
}

/// Runs `block` with rank r on `gpus[r]`, a bench's kernels timed as `bench` says.
pub(super) fn run_on_gpus(
    program: Program<'_>,
    block: &TestBlock,
    span: Span,
    gpus: &mut [Gpu],
    seed: u64,
    bench: Option<BenchConfig>,
) -> Outcome {
    let exchange = Exchange::new(gpus.len() as u32);
    let devices = (gpus.iter_mut().zip(0..))
        .map(|(gpu, rank)| Device::GpuRank(gpu, &exchange, rank))
        .collect();
    let depart = |rank| exchange.depart(rank);
    combine(
        run_each_rank(program, block, span, devices, &depart, seed, bench),
        span,
    )
}

/// Runs `block`'s body once per device of `devices`, rank r on a thread of its own
/// with `devices[r]`, calling `depart(r)` when rank r's body ends; each rank's outcome.
/// The ranks' tensors are freed only once every body has ended: a peer may read a
/// rank's symmetric tensors after that rank's own kernel is done.
fn run_each_rank<'m>(
    (module, host, kernels): Program<'m>,
    block: &'m TestBlock,
    span: Span,
    devices: Vec<Device<'m>>,
    depart: &(dyn Fn(u32) + Sync),
    seed: u64,
    bench: Option<BenchConfig>,
) -> Vec<Outcome> {
    std::thread::scope(|scope| {
        let ranks: Vec<_> = (devices.into_iter().zip(0..))
            .map(|(device, rank)| {
                scope.spawn(move || {
                    let mut interpreter =
                        Interpreter::new(module, host, kernels, Ok(device), seed, bench);
                    let outcome = run_body(&mut interpreter, &block.body, span);
                    depart(rank);
                    (outcome, interpreter)
                })
            })
            .collect();
        let ended: Vec<_> = ranks.into_iter().map(|rank| rank.join()).collect();
        // Every rank's kernels are done (each waited for its own): now the tensors go.
        (ended.into_iter())
            .map(|ended| match ended {
                Ok((outcome, interpreter)) => {
                    drop(interpreter);
                    outcome
                }
                Err(_) => Outcome::Failed {
                    message: "internal error in the runtime: a rank's thread panicked".to_owned(),
                    span,
                    diagnostic: None,
                },
            })
            .collect()
    })
}

/// The block's outcome from its ranks' (rank by rank): the lowest failing rank's
/// failure, else a skip, else the slowest rank's measurement, else a pass.
fn combine(outcomes: Vec<Outcome>, span: Span) -> Outcome {
    let world = outcomes.len();
    let failed = (outcomes.iter().enumerate())
        .find(|(_, outcome)| matches!(outcome, Outcome::Failed { .. }));
    if let Some((
        rank,
        Outcome::Failed {
            message,
            span,
            diagnostic,
        },
    )) = failed
    {
        return Outcome::Failed {
            // An emulator fault names its rank already.
            message: if message.contains(&format!("on rank {rank} of {world}:")) {
                message.clone()
            } else {
                format!("rank {rank} of {world}: {message}")
            },
            span: *span,
            diagnostic: diagnostic.clone(),
        };
    }
    if let Some(skipped) = outcomes
        .iter()
        .find(|outcome| matches!(outcome, Outcome::Skipped(_)))
    {
        return skipped.clone();
    }
    let measured: Vec<(usize, &BenchResult)> = (outcomes.iter().enumerate())
        .filter_map(|(rank, outcome)| match outcome {
            Outcome::Measured(result) => Some((rank, result)),
            _ => None,
        })
        .collect();
    let slowest = (measured.iter()).max_by(|a, b| a.1.kernel_ms.total_cmp(&b.1.kernel_ms));
    match slowest {
        Some((rank, result)) if measured.len() == world => {
            let mut result = (*result).clone();
            let note = format!("rank {rank}, the slowest of {world}");
            result.note = Some(match result.note {
                Some(earlier) => format!("{note}; {earlier}"),
                None => note,
            });
            Outcome::Measured(result)
        }
        Some(_) => Outcome::Failed {
            message: "some ranks of the bench measured their kernels and others did not: every rank runs the same launches".to_owned(),
            span,
            diagnostic: None,
        },
        None => Outcome::Passed,
    }
}

/// GPUs `0..world`, opened into `opened` unless it holds enough already, with
/// `selection`'s kernel time limit; or the outcome of the block at `span` that cannot
/// have them: a skip when there are too few GPUs (or a kernel hung on them, `hung`), a
/// failure when they cannot reach each other's memory.
pub(super) fn open_gpus<'g>(
    opened: &'g mut Vec<Gpu>,
    hung: &Option<String>,
    (world, span): (u32, Span),
    selection: &Selection,
) -> Result<&'g mut [Gpu], Outcome> {
    if let Some(reason) = hung {
        return Err(Outcome::Skipped(reason.clone()));
    }
    if opened.len() < world as usize {
        opened.clear();
        let gpus =
            guarded(|| crate::driver::open_ranks(world)).map_err(|panic| Outcome::Failed {
                message: panic.to_string(),
                span,
                diagnostic: None,
            })?;
        *opened = gpus.map_err(|unavailable| match unavailable {
            RanksUnavailable::Skip(reason) => Outcome::Skipped(reason),
            RanksUnavailable::Fail(error) => Outcome::Failed {
                message: error.to_string(),
                span,
                diagnostic: None,
            },
        })?;
    }
    let gpus = &mut opened[..world as usize];
    if let Some(limit) = selection.kernel_timeout {
        for gpu in gpus.iter_mut() {
            gpu.set_kernel_timeout(limit);
        }
    }
    Ok(gpus)
}

#[cfg(test)]
mod tests;
