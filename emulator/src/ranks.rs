//! A launch on several ranks ([`run_ranks`]): one kernel launched on each of `world`
//! emulated devices at once, each with its own arguments (its rank, its tensors, its
//! peer tables), all in one global memory whose allocations belong to one rank or
//! another (CUDA's unified addresses: a peer's buffer is an address like any other).
//!
//! The ranks' blocks of one index run under one scheduler, as a cluster's do: each pass
//! runs every rank's block, so a thread waiting for another rank's signal sees it as
//! soon as that rank sets it; when no thread of any rank can move, the launch hangs, the
//! fault naming the first stuck thread's rank and every rank's waiting threads (a spin
//! on a signal nothing sets is `E0416` there). Blocks of different indices are not
//! waited for, as a GPU does not guarantee them to run at once. Accesses between ranks
//! are checked by [`crate::system`]: one that nothing orders is `E0423`.
//!
//! Not emulated yet: clusters (`cluster(...)`) in a multi-rank launch.

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use kir::Verified;

use crate::atoms::Models;
use crate::block::{Grid, coordinates};
use crate::cluster::{Block, release_cluster_barrier};
use crate::fault::{Fault, FaultKind};
use crate::global::GlobalMemory;
use crate::launch::{Launch, Options, Stats, check, unsupported};
use crate::system::SystemOrder;
use crate::thread::Status;

/// Runs `kernel` on `launches.len()` ranks at once, rank r with `launches[r]` (the same
/// grid, block and shared memory; its own arguments), over `memory`.
pub fn run_ranks(
    kernel: &Verified,
    launches: &[Launch],
    memory: &mut GlobalMemory,
    options: &Options,
) -> Result<Stats, Fault> {
    let unsupported = |what: &str| unsupported(kernel, what.to_owned());
    let Some(first) = launches.first() else {
        return Err(unsupported("a launch on no rank"));
    };
    for launch in launches {
        check(kernel, launch)?;
        if (
            launch.grid,
            launch.block,
            launch.cluster,
            launch.shared_bytes,
        ) != (first.grid, first.block, first.cluster, first.shared_bytes)
        {
            return Err(unsupported(
                "ranks that launch the kernel with different grids, blocks or shared memory",
            ));
        }
    }
    if first.cluster != [1, 1, 1] {
        return Err(unsupported("a multi-rank launch with clusters"));
    }
    let models = Models::of(kernel);
    let printed = AtomicU64::new(0);
    let system = Mutex::new(SystemOrder::default());
    let grids: Vec<Grid<'_, '_>> = (launches.iter().enumerate())
        .map(|(rank, launch)| Grid {
            kernel,
            models: &models,
            global: memory,
            args: &launch.args,
            system: Some((&system, rank as u32)),
            // The ranks' own order ([`crate::system`]) checks what crosses devices;
            // blocks of one rank are not checked against each other.
            order: None,
            grid: first.grid,
            block: first.block,
            cluster: first.cluster,
            shared_bytes: first.shared_bytes,
            limit: options.max_instructions,
            printed: &printed,
            // A multi-rank launch is not profiled (`cukc profile` runs one device).
            profile: None,
        })
        .collect();
    let blocks: u64 = first.grid.iter().map(|dim| u64::from(*dim)).product();
    let mut executed = 0;
    let mut text = vec![String::new(); launches.len()];
    for index in 0..blocks {
        let budget = options.max_instructions.saturating_sub(executed);
        let (count, printed) = run_block(&grids, &system, index, budget)?;
        executed += count;
        for (rank, printed) in printed.into_iter().enumerate() {
            text[rank].push_str(&printed);
        }
    }
    Ok(Stats {
        instructions: executed,
        parallel: false,
        printed: text.concat(),
        profile: None,
    })
}

/// Runs block `index` of every rank under one scheduler; the thread-instructions
/// executed and each rank's printed text.
fn run_block(
    grids: &[Grid<'_, '_>],
    system: &Mutex<SystemOrder>,
    index: u64,
    budget: u64,
) -> Result<(u64, Vec<String>), Fault> {
    let world = grids.len() as u32;
    let on_rank = |rank: usize| {
        move |fault: Fault| Fault {
            kind: FaultKind::OnRank {
                rank: rank as u32,
                world,
                fault: Box::new(fault.kind),
            },
            ..fault
        }
    };
    let at = coordinates(index, grids[0].grid);
    let mut blocks: Vec<Block<'_>> = grids.iter().map(|grid| grid.new_block(at)).collect();
    let mut remote = Vec::new();
    let mut executed = 0;
    loop {
        let mut moved = false;
        for (rank, (grid, block)) in grids.iter().zip(&mut blocks).enumerate() {
            if block.done {
                continue;
            }
            let left = budget.saturating_sub(executed);
            let (block_moved, count) =
                grid.pass(block, &mut remote, left).map_err(on_rank(rank))?;
            moved |= block_moved;
            executed += count;
            for effect in remote.drain(..) {
                moved = true;
                grid.apply(effect, std::slice::from_mut(block))
                    .map_err(on_rank(rank))?;
            }
        }
        if moved {
            continue;
        }
        for (rank, (grid, block)) in grids.iter().zip(&mut blocks).enumerate() {
            if block.done {
                continue;
            }
            let first = block.threads[0].status;
            let at_barrier = matches!(first, Status::Barrier(_))
                && block.threads.iter().all(|thread| thread.status == first);
            let released = grid.settle(block).map_err(on_rank(rank))?;
            if released && at_barrier {
                barrier(system, grid, rank, block);
            }
            moved |= released;
        }
        if moved {
            continue;
        }
        if blocks.iter().all(|block| block.done) {
            let printed = (blocks.iter())
                .map(|block| {
                    block
                        .threads
                        .iter()
                        .map(|thread| thread.printed.as_str())
                        .collect()
                })
                .collect();
            return Ok((executed, printed));
        }
        for block in blocks.iter_mut().filter(|block| !block.done) {
            moved |= release_cluster_barrier(std::slice::from_mut(block)).unwrap_or(false);
        }
        if moved {
            continue;
        }
        return Err(hang(grids, &blocks, world));
    }
}

/// A block's `syncthreads()` in the cross-device order: its threads' knowledge joined.
fn barrier(system: &Mutex<SystemOrder>, grid: &Grid<'_, '_>, rank: usize, block: &Block<'_>) {
    let [x, y, _] = grid.grid;
    let [bx, by, bz] = block.coordinates;
    let linear = u64::from(bx) + u64::from(x) * (u64::from(by) + u64::from(y) * u64::from(bz));
    let threads = block.threads.len() as u64;
    let ids = (0..threads).map(|thread| (rank as u32, linear * threads + thread));
    let mut order = system
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    order.barrier(ids);
}

/// No thread of any rank can move: the first stuck thread's fault (a spin first), on
/// its rank, listing every rank's waiting threads.
fn hang(grids: &[Grid<'_, '_>], blocks: &[Block<'_>], world: u32) -> Fault {
    let unfinished = |rank: &usize| !blocks[*rank].done;
    let spinning = (0..blocks.len()).filter(unfinished).find_map(|rank| {
        Grid::spinning(std::slice::from_ref(&blocks[rank])).map(|fault| (rank, fault))
    });
    let (rank, cause) = spinning.unwrap_or_else(|| {
        let rank = (0..blocks.len()).find(unfinished).unwrap_or(0);
        (
            rank,
            grids[rank].stuck_cluster(std::slice::from_ref(&blocks[rank])),
        )
    });
    let mut waiting = Vec::new();
    for (other, (grid, block)) in grids.iter().zip(blocks).enumerate() {
        if let FaultKind::Hang {
            waiting: groups, ..
        } = grid.hang(cause.clone(), std::slice::from_ref(block)).kind
        {
            waiting.extend(groups.into_iter().map(|mut group| {
                group.what = format!("on rank {other} {}", group.what);
                group
            }));
        }
    }
    let inner = if waiting.is_empty() {
        cause.kind
    } else {
        FaultKind::Hang {
            cause: Box::new(cause.kind),
            waiting,
        }
    };
    Fault {
        kind: FaultKind::OnRank {
            rank: rank as u32,
            world,
            fault: Box::new(inner),
        },
        span: cause.span,
        location: cause.location,
    }
}
