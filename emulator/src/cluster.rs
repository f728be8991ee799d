//! A cluster: the blocks launched together (`cluster(x, y, z)`; a lone block without
//! one), run by one scheduler because they reach into each other: an arrival on a
//! peer's mbarrier, a TMA load multicast to several blocks, a CTA pair's tcgen05.mma
//! (reading both blocks' shared memory, writing both blocks' tensor memory), the
//! cluster barrier.
//!
//! Each pass runs every block as [`crate::block`] does (its threads until they wait,
//! then Hopper's wakeups and the warp collectives), then applies what the blocks' threads
//! did to other blocks ([`Remote`]), in issue order. When nothing moves anywhere: a
//! block whose threads all wait at one `bar.sync` is released (a new epoch); a block
//! whose threads all exited is done (after its last epoch's unwritten reads are
//! reported); the cluster barrier releases the threads waiting at it once every thread
//! of the cluster has arrived as often as each of them (a new epoch in every block);
//! otherwise the cluster is stuck, a fault at the first waiting thread that can never
//! go on, listing every group of waiting threads ([`crate::hang`]).

mod dsmem;

pub(crate) use dsmem::add_word;

use lang::Span;

use crate::atoms::umma::{self, Issue};
use crate::block::{Grid, coordinates};
use crate::fault::{Fault, FaultKind, Location, Trap};
use crate::shared::{Reader, SharedMemory};
use crate::thread::{Barriers, Remote, RemoteKind, Status, Thread};
use crate::tmem::{Issuer, TensorMemory};

/// One block of a cluster, between passes.
pub struct Block<'k> {
    /// `block_idx`.
    pub coordinates: [u32; 3],
    /// Its threads, by linear index.
    pub threads: Vec<Thread<'k>>,
    /// Its shared memory.
    pub shared: SharedMemory,
    /// Its mbarriers and named-barrier counts.
    pub barriers: Barriers,
    /// Its tensor memory.
    pub tmem: TensorMemory,
    /// Each warp's warp epoch.
    pub warp_epochs: Vec<u32>,
    /// Whether every thread has exited.
    pub done: bool,
    /// What its threads did, when the launch is profiled.
    pub profile: Option<crate::profile::BlockProfile>,
}

impl Grid<'_, '_> {
    /// Runs cluster `index` (linear over the grid's clusters, x fastest) with `budget`
    /// thread-instructions at most; the thread-instructions it executed and what its
    /// threads printed (block by block, thread by thread).
    pub fn run_cluster(&self, index: u64, budget: u64) -> Result<(u64, String), Fault> {
        let clusters: [u32; 3] = std::array::from_fn(|d| self.grid[d] / self.cluster[d]);
        let cluster = coordinates(index, clusters);
        let size: u64 = self.cluster.iter().map(|dim| u64::from(*dim)).product();
        let mut blocks: Vec<Block<'_>> = (0..size)
            .map(|rank| {
                let place = coordinates(rank, self.cluster);
                self.new_block(std::array::from_fn(|d| {
                    cluster[d] * self.cluster[d] + place[d]
                }))
            })
            .collect();
        let mut remote = Vec::new();
        let mut executed = 0;
        loop {
            let mut moved = false;
            for block in blocks.iter_mut().filter(|block| !block.done) {
                let left = budget.saturating_sub(executed);
                let (block_moved, count) = self.pass(block, &mut remote, left)?;
                moved |= block_moved;
                executed += count;
            }
            for effect in remote.drain(..) {
                moved = true;
                self.apply(effect, &mut blocks)?;
            }
            if moved {
                continue;
            }
            for block in blocks.iter_mut().filter(|block| !block.done) {
                moved |= self.settle(block)?;
            }
            if moved {
                continue;
            }
            if blocks.iter().all(|block| block.done) {
                if let Some(profile) = self.profile
                    && let Ok(mut profile) = profile.lock()
                {
                    for block in &mut blocks {
                        if let Some(done) = block.profile.take() {
                            profile.merge(&done.finish());
                        }
                    }
                }
                let printed = (blocks.iter())
                    .flat_map(|block| &block.threads)
                    .map(|thread| thread.printed.as_str())
                    .collect();
                return Ok((executed, printed));
            }
            match release_cluster_barrier(&mut blocks) {
                Ok(true) => continue,
                Ok(false) => {}
                Err(fault) => {
                    let cause = Self::spinning(&blocks).unwrap_or(fault);
                    return Err(self.hang(cause, &blocks));
                }
            }
            let cause = self.stuck_cluster(&blocks);
            return Err(self.hang(cause, &blocks));
        }
    }

    /// A block at the kernel's start.
    pub(crate) fn new_block(&self, coordinates: [u32; 3]) -> Block<'_> {
        let count: u64 = self.block.iter().map(|dim| u64::from(*dim)).product();
        let threads: Vec<Thread<'_>> = (0..count)
            .map(|thread| {
                let place = crate::block::coordinates(thread, self.block);
                Thread::new(self.kernel, thread as u32, place)
            })
            .collect();
        let warps = threads.len().div_ceil(32);
        Block {
            coordinates,
            threads,
            shared: SharedMemory::new(self.shared_bytes),
            barriers: Barriers::default(),
            tmem: TensorMemory::default(),
            warp_epochs: vec![0; warps],
            done: false,
            profile: self
                .profile
                .map(|_| crate::profile::BlockProfile::default()),
        }
    }

    /// When nothing moves: releases `block`'s threads if they all wait at one
    /// `bar.sync`, or marks it done if they all exited, reporting an unwritten read of
    /// the epoch that ends; whether its threads moved.
    pub(crate) fn settle(&self, block: &mut Block<'_>) -> Result<bool, Fault> {
        let exited = (block.threads.iter()).all(|thread| thread.status == Status::Exited);
        let first = block.threads[0].status;
        let at_one_barrier = matches!(first, Status::Barrier(_))
            && block.threads.iter().all(|thread| thread.status == first);
        if !exited && !at_one_barrier {
            return Ok(false);
        }
        if let Some(read) = block.shared.unwritten_read() {
            return Err(Fault {
                kind: FaultKind::Uninitialized {
                    access: read.access,
                    address: read.address,
                },
                span: read.span,
                location: Some(self.shadow_location(block, read.thread)),
            });
        }
        if exited && let Some(access) = block.shared.unordered_remote() {
            let [x, y, z] = block.coordinates;
            return Err(Fault {
                kind: FaultKind::Cluster(format!(
                    "an access to the shared memory of block ({x}, {y}, {z}), which exits with no cluster barrier it waits at ordering the access first: its shared memory may be gone (end with `cluster_sync()` once the peers are done)"
                )),
                span: access.span,
                location: Some(Location {
                    thread: coordinates(u64::from(access.thread), self.block),
                    block: self.cluster_block(block.coordinates, access.rank),
                }),
            });
        }
        if exited {
            if let Some(store) = block.shared.pending_store() {
                return Err(Fault {
                    kind: FaultKind::StoreOutlivesBlock,
                    span: store.span,
                    location: Some(Location {
                        thread: coordinates(u64::from(store.thread), self.block),
                        block: block.coordinates,
                    }),
                });
            }
            if let Some((kind, span, thread)) = block.tmem.leak() {
                let location = Location {
                    thread,
                    block: block.coordinates,
                };
                return Err(Fault {
                    kind,
                    span,
                    location: Some(location),
                });
            }
            block.done = true;
            return Ok(false);
        }
        for thread in &mut block.threads {
            thread.status = Status::Runnable;
        }
        let mut clocks: Vec<_> = (block.threads.iter_mut())
            .map(|thread| &mut thread.clock)
            .collect();
        crate::grid_order::barrier(&mut clocks);
        block.shared.share_all();
        block.shared.barrier();
        Ok(true)
    }
}

impl Grid<'_, '_> {
    /// Applies `effect` to the block of its rank; a fault there is the issuing
    /// thread's.
    pub(crate) fn apply(&self, effect: Remote, blocks: &mut [Block<'_>]) -> Result<(), Fault> {
        let span = effect.span;
        let location = Location {
            thread: effect.thread,
            block: effect.block,
        };
        let Some(block) = blocks.get_mut(effect.rank as usize) else {
            let kind = FaultKind::Cluster(format!("block {} of the cluster", effect.rank));
            return Err(self.fault(Trap::Fault(kind), span, location));
        };
        if (block.threads.iter()).all(|thread| thread.status == Status::Exited) {
            let what = match effect.kind {
                RemoteKind::Arrive { .. } => "an arrival on an mbarrier",
                RemoteKind::Tma { .. } => "a multicast TMA load into shared memory",
                RemoteKind::PairMma(_) => "a CTA pair's tcgen05.mma",
                RemoteKind::CompleteTx { .. } => "a CTA pair's TMA load completing its bytes",
                RemoteKind::Load { .. } => "a load from the shared memory",
                RemoteKind::Store { .. } => "a store into the shared memory",
                RemoteKind::Add { .. } => "an atomic add to the shared memory",
            };
            let [x, y, z] = block.coordinates;
            let kind = FaultKind::Cluster(format!(
                "{what} of block ({x}, {y}, {z}), which has exited: a block must not exit while its cluster's peers may still reach it (end with `cluster_arrive()` and `cluster_wait()`)"
            ));
            return Err(self.fault(Trap::Fault(kind), span, location));
        }
        if let RemoteKind::Load { .. } | RemoteKind::Store { .. } | RemoteKind::Add { .. } =
            effect.kind
        {
            return self.apply_dsmem(effect, blocks).map_err(|trap| {
                let mut fault = self.fault(trap, span, location);
                if let FaultKind::Race { cluster, .. } = &mut fault.kind {
                    *cluster = true;
                }
                fault
            });
        }
        let issuer = Issuer {
            rank: effect.from,
            thread: effect.index,
        };
        if let RemoteKind::PairMma(issue) = effect.kind {
            return pair_mma((issue, issuer, span), effect.rank as usize, blocks)
                .map_err(|trap| self.fault(trap, span, location));
        }
        if let RemoteKind::Arrive {
            barrier,
            commit: true,
        } = effect.kind
        {
            let completed = block.barriers.completed(barrier);
            (block.tmem.accumulators).commit(issuer, barrier, completed + 1);
            (block.shared).umma_commit(issuer.thread, barrier, completed);
        }
        effect
            .apply(&mut block.shared, &mut block.barriers)
            .map_err(|trap| self.fault(trap, span, location))
    }
}

/// Releases the threads waiting at the cluster barrier whose arrivals every thread of
/// the cluster has matched (a new epoch in every block); whether any were. A waiting
/// thread that some thread can never match any more is a fault.
pub(crate) fn release_cluster_barrier(blocks: &mut [Block<'_>]) -> Result<bool, Fault> {
    let arrived = (blocks.iter().flat_map(|block| &block.threads))
        .map(|thread| thread.cluster_arrivals)
        .min()
        .unwrap_or(0);
    let mut released = false;
    for block in blocks.iter_mut() {
        for thread in &mut block.threads {
            if let Status::Cluster(_, phase) = thread.status
                && phase <= arrived
            {
                thread.status = Status::Runnable;
                released = true;
            }
        }
    }
    if released {
        for block in blocks.iter_mut() {
            block.shared.share_all();
            block.shared.cluster_barrier();
        }
        return Ok(true);
    }
    for block in blocks.iter() {
        for thread in &block.threads {
            let Status::Cluster(inst, phase) = thread.status else {
                continue;
            };
            let late = (blocks.iter())
                .flat_map(|other| other.threads.iter().map(move |late| (other, late)))
                .find(|(_, late)| late.cluster_arrivals < phase);
            let Some((late_block, late)) = late else {
                continue;
            };
            let whereabouts = match late.status {
                Status::Exited => "has exited".to_owned(),
                _ => "waits elsewhere".to_owned(),
            };
            let ([tx, ty, tz], [bx, by, bz]) = (late.coordinates, late_block.coordinates);
            return Err(Fault {
                kind: FaultKind::Cluster(format!(
                    "a cluster barrier wait that thread ({tx}, {ty}, {tz}) of block ({bx}, {by}, {bz}) never arrives at (it {whereabouts}, after {} of the {phase} arrivals)",
                    late.cluster_arrivals
                )),
                span: inst.span,
                location: Some(Location {
                    thread: thread.coordinates,
                    block: block.coordinates,
                }),
            });
        }
    }
    Ok(false)
}

/// Runs a CTA pair's MMA, issued at `span` by `issuer` of block `leader` (even), on it
/// and the next block: each block's accumulator is in flight until a commit's phase.
fn pair_mma(
    (issue, issuer, span): (Issue, Issuer, Span),
    leader: usize,
    blocks: &mut [Block<'_>],
) -> Result<(), Trap> {
    let [lead, peer] = blocks.get_disjoint_mut([leader, leader + 1]).map_err(|_| {
        Trap::Fault(FaultKind::Cluster(format!(
            "a CTA pair's tcgen05.mma issued by block {leader}, which has no block {} beside it",
            leader + 1
        )))
    })?;
    if peer.done {
        return Err(Trap::Fault(FaultKind::Cluster(format!(
            "a CTA pair's tcgen05.mma reaching block {}, which has exited",
            leader + 1
        ))));
    }
    // The leader's boxes are the issuing thread's to read once it observed their phase;
    // the peer's once every thread of the peer block did (a cluster barrier after a
    // wait there: observations do not cross blocks otherwise), or at once for a pair's
    // load (`pair = true`), which lands in the peer at its issue.
    lead.shared.read_for([issuer.thread]);
    peer.shared.read_for([u32::MAX]);
    umma::execute_pair(
        [&lead.shared, &peer.shared],
        [&mut lead.tmem, &mut peer.tmem],
        issue,
    )?;
    let shape = umma::instruction(issue.idesc, (issue.kind, true))?;
    let (lanes, columns) = umma::accumulator(issue.taddr, shape, shape.m / 2);
    for block in [lead, peer] {
        (block.tmem.accumulators).issue(issuer, span, lanes, columns);
        block.shared.pair_boxes_read();
        // Its operands are read until a commit's phase completes.
        for (first, last) in block.shared.peeked() {
            let group = (Reader::Umma, issuer.thread, 0);
            (block.shared).async_read(group, first, last - first + 1, span);
        }
    }
    Ok(())
}
