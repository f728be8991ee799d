//! When no thread of a cluster can make progress: the fault that says why, at the
//! first thread that shows it (a loop that spins on memory nothing changes, else the
//! block's stuck barrier, [`Grid::stuck`]), with every group of waiting threads: the
//! consecutive threads of a block that wait at one instruction for one thing (the
//! barrier, and for an mbarrier the parity and what its phase still expects).

use crate::atoms::Model;
use crate::atoms::hopper::Hopper;
use crate::block::Grid;
use crate::cluster::Block;
use crate::fault::{Fault, FaultKind, Location, Waiting};
use crate::thread::{Barriers, Status, Thread};

impl Grid<'_, '_> {
    /// The hang of `blocks`, where nothing can move: `cause`, with the waiting groups.
    pub(crate) fn hang(&self, cause: Fault, blocks: &[Block<'_>]) -> Fault {
        let waiting: Vec<Waiting> = (blocks.iter().filter(|block| !block.done))
            .flat_map(|block| self.waiting(block))
            .collect();
        if waiting.is_empty() {
            return cause;
        }
        Fault {
            kind: FaultKind::Hang {
                cause: Box::new(cause.kind),
                waiting,
            },
            span: cause.span,
            location: cause.location,
        }
    }

    /// The first thread of `blocks` spinning on memory nothing changes, as a fault.
    pub(crate) fn spinning(blocks: &[Block<'_>]) -> Option<Fault> {
        let spinning = (blocks.iter().filter(|block| !block.done))
            .flat_map(|block| block.threads.iter().map(move |thread| (block, thread)));
        for (block, thread) in spinning {
            if let Status::Spinning(inst) = thread.status {
                return Some(Fault {
                    kind: FaultKind::Spin,
                    span: inst.span,
                    location: Some(Location {
                        thread: thread.coordinates,
                        block: block.coordinates,
                    }),
                });
            }
        }
        None
    }

    /// Why nothing in `blocks` can move: a thread spinning on memory nothing changes,
    /// else the first unfinished block's stuck wait.
    pub(crate) fn stuck_cluster(&self, blocks: &[Block<'_>]) -> Fault {
        if let Some(spin) = Self::spinning(blocks) {
            return spin;
        }
        let stuck = (blocks.iter().find(|block| !block.done)).map_or(Ok(()), |block| {
            self.stuck(&block.threads, block.coordinates)
        });
        stuck.err().unwrap_or_else(|| Fault {
            kind: FaultKind::Unsupported("a cluster whose threads wait for nothing".to_owned()),
            span: self.kernel.span,
            location: None,
        })
    }

    /// The groups of `block`'s threads that wait, in thread order.
    fn waiting(&self, block: &Block<'_>) -> Vec<Waiting> {
        let mut groups: Vec<Waiting> = Vec::new();
        for thread in &block.threads {
            let Some((span, what)) = self.waits_for(thread, &block.barriers) else {
                continue;
            };
            if let Some(last) = groups.last_mut()
                && last.threads.1 + 1 == thread.index
                && last.span == span
                && last.what == what
            {
                last.threads.1 = thread.index;
                continue;
            }
            groups.push(Waiting {
                block: block.coordinates,
                threads: (thread.index, thread.index),
                span,
                what,
            });
        }
        groups
    }

    /// Where `thread` waits and what for, unless it has exited.
    fn waits_for(&self, thread: &Thread<'_>, barriers: &Barriers) -> Option<(lang::Span, String)> {
        let what = match thread.status {
            Status::Runnable | Status::Exited => return None,
            Status::Barrier(_) => "wait at `syncthreads()`".to_owned(),
            Status::Collective(inst) => match self.models.get(inst) {
                Some(Model::Hopper(Hopper::Wgmma(_))) => {
                    "wait for their warpgroup's other warps at a wgmma".to_owned()
                }
                _ => "wait for the other lanes of their warp at a warp collective".to_owned(),
            },
            Status::Mbarrier(_, address, parity, _) => {
                format!("wait for parity {parity} of {}", barriers.describe(address))
            }
            Status::Named(inst, id) => {
                let count = match self.models.get(inst) {
                    Some(Model::Hopper(Hopper::NamedBarrier { threads, .. })) => *threads,
                    _ => 0,
                };
                format!(
                    "wait at named barrier {id}, counting {count} threads, which has {} arrivals",
                    barriers.named(id)
                )
            }
            Status::Cluster(_, round) => format!(
                "wait at the cluster barrier (round {round}) for every thread of the cluster"
            ),
            Status::Spinning(_) => "spin in a loop on memory nothing changes".to_owned(),
            Status::Remote(_) => "wait for a load from a peer block's shared memory".to_owned(),
        };
        let inst = match thread.status {
            Status::Barrier(inst)
            | Status::Collective(inst)
            | Status::Mbarrier(inst, ..)
            | Status::Named(inst, _)
            | Status::Cluster(inst, _)
            | Status::Remote(inst)
            | Status::Spinning(inst) => inst,
            Status::Runnable | Status::Exited => return None,
        };
        Some((inst.span, what))
    }
}
