//! A `test NAME ranks(N)` block on the emulator: its body once per rank, each on a
//! thread of its own over one [`Hub`] (`ranks.rs`), every rank drawing the same random
//! values (the block's seed; scale them by `this_rank()` to make them differ). The
//! block fails with the lowest failing rank's failure, named by its rank (an emulator
//! fault names it itself).

use lang::Span;
use lang::ast::TestBlock;
use trace::HostFacts;

use super::{Outcome, run_body};
use crate::CompiledKernel;
use crate::device::{Device, Emulated};
use crate::interp::Interpreter;
use crate::ranks::Hub;

/// Runs `block` on `world` emulated ranks: its outcome, what was emulated and what the
/// kernels printed.
pub(super) fn run_ranked(
    (module, host, kernels): (&lang::ast::Module, &HostFacts, &[CompiledKernel]),
    block: &TestBlock,
    span: Span,
    world: u32,
    seed: u64,
) -> (Outcome, Emulated, String) {
    let hub = Hub::new(world);
    let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let ranks: Vec<_> = (0..world)
            .map(|rank| {
                let hub = &hub;
                scope.spawn(move || {
                    let device = Ok(Device::Rank(hub, rank));
                    let mut interpreter =
                        Interpreter::new(module, host, kernels, device, seed, None);
                    // A block of ranks is a test: its body measures nothing.
                    let outcome = run_body(&mut interpreter, &block.body, span);
                    hub.depart(rank);
                    outcome
                })
            })
            .collect();
        (ranks.into_iter())
            .map(|rank| {
                rank.join().unwrap_or_else(|_| Outcome::Failed {
                    message: "internal error in the runtime: a rank's thread panicked".to_owned(),
                    span,
                    diagnostic: None,
                })
            })
            .collect()
    });
    let (work, printed) = (hub.work(), hub.take_printed());
    let failed = (outcomes.iter().enumerate())
        .find(|(_, outcome)| matches!(outcome, Outcome::Failed { .. }));
    let outcome = match failed {
        Some((
            rank,
            Outcome::Failed {
                message,
                span,
                diagnostic,
            },
        )) => Outcome::Failed {
            // An emulator fault names its rank already.
            message: if message.contains(&format!("on rank {rank} of {world}:")) {
                message.clone()
            } else {
                format!("rank {rank} of {world}: {message}")
            },
            span: *span,
            diagnostic: diagnostic.clone(),
        },
        _ => (outcomes.into_iter())
            .find(|outcome| matches!(outcome, Outcome::Skipped(_)))
            .unwrap_or(Outcome::Passed),
    };
    (outcome, work, printed)
}
