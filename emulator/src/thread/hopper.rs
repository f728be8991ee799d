//! Hopper instructions one thread executes (PTX ISA, `mbarrier`, `cp.async.bulk.tensor`,
//! `bar.sync`/`bar.arrive`; HOPPER-BLACKWELL.md A.3-A.4):
//! - an mbarrier (the block's states are in [`Barriers`], by shared address) counts
//!   arrivals and transaction bytes; a phase completes when both reach zero, which
//!   flips its phase bit, re-arms the arrivals and, for the race checks, ends the
//!   block's shared-memory epoch (what the phase orders is then ordered; accesses it
//!   does not order are missed, never reported falsely). `mbarrier_wait(parity)` passes
//!   once the phase bit differs from `parity`, else the thread waits;
//! - a TMA load reads its whole box at issue (`tma.rs`) and completes the box's bytes on
//!   its mbarrier; the box is in flight until the mbarrier's phase completes and lands
//!   then, for the threads that observe the phase ([`SharedMemory::tma_load`]); a
//!   multicast one goes to each block of its mask, this block's at once and the others'
//!   as [`Remote`]s the cluster's scheduler applies (a CTA pair's load is in flight
//!   in the leader, whose barrier its bytes complete on, but lands at issue in the odd
//!   block); a
//!   TMA store
//!   reads the shared tile (checked for races) and writes the elements inside the
//!   tensor;
//! - an arrival on a peer block's mbarrier (`mapa`) is a [`Remote`] too, as is a load
//!   or store in a peer's shared memory (`dsmem.rs`); an arrival
//!   releases what its thread observed to the threads whose wait passes the barrier
//!   next;
//! - a named barrier counts arrivals per id; a `bar.sync` waits until its count is met;
//!   an arrival counting other threads than the round's first is a fault (E0417);
//! - `barrier.cluster.arrive` counts the thread's arrivals, and `barrier.cluster.wait`
//!   waits until every thread of the cluster has arrived as often
//!   ([`crate::cluster`] releases it).

use kir::{Fence, Inst, Intrinsic, MemoryScope, Op, ValueId};
use lang::Span;

use super::tma::TmaWay;
use super::{Barriers, Context, Flow, Status, Thread};
use crate::atoms::hopper::Hopper;
use crate::atoms::umma::Issue;
use crate::fault::{Access, FaultKind, Trap};
use crate::shared::{Accessor, Reader, SharedMemory};

/// The bits a tensor-map parameter reads as, plus its index.
pub const TENSOR_MAP_TOKEN: u64 = 0x7E45_0000_0000_0000;

/// What a thread does to another block of its cluster: the cluster's scheduler applies
/// it to that block between passes ([`crate::cluster`]).
#[derive(Debug)]
pub struct Remote {
    /// The block's rank in the cluster.
    pub rank: u32,
    /// What happens there.
    pub kind: RemoteKind,
    /// The instruction.
    pub span: Span,
    /// The thread that issued it (`thread_idx`, in its own block).
    pub thread: [u32; 3],
    /// That thread's linear index in its block.
    pub index: u32,
    /// Its block (`block_idx`).
    pub block: [u32; 3],
    /// Its block's rank in the cluster.
    pub from: u32,
}

/// What a [`Remote`] does.
#[derive(Debug)]
pub enum RemoteKind {
    /// One arrival on the mbarrier at this shared address.
    Arrive {
        /// The barrier.
        barrier: u32,
        /// Whether a `tcgen05.commit` makes it, handing over the issuing thread's MMAs
        /// to the barrier's phase.
        commit: bool,
    },
    /// A multicast TMA box landing: `image` written at `start` (as the issuing thread
    /// `who`), then its bytes completing on the mbarrier at `barrier`.
    Tma {
        /// The box's first shared byte.
        start: u32,
        /// The box as it lands (swizzled), zeros outside the tensor.
        image: Vec<u8>,
        /// The barrier.
        barrier: u32,
        /// Who writes, for the race checks.
        who: Accessor,
    },
    /// A CTA pair's tcgen05.mma, issued by this (even) block: it reads this block's and
    /// the next one's shared memory and writes both blocks' tensor memory.
    PairMma(Issue),
    /// A CTA pair's TMA load that landed in the odd block: its bytes completing on the
    /// mbarrier at this shared address.
    CompleteTx {
        /// The barrier.
        barrier: u32,
        /// The bytes.
        bytes: i64,
    },
    /// A distributed-shared-memory load of the word at this shared address into the
    /// issuing thread's register `result` (which waits for it).
    Load {
        /// The word's address.
        address: u32,
        /// The register.
        result: ValueId,
    },
    /// A distributed-shared-memory store of `bytes` at this shared address.
    Store {
        /// The word's address.
        address: u32,
        /// The word, little-endian.
        bytes: [u8; 4],
    },
    /// A distributed-shared-memory atomic add of `value` to the word at this shared
    /// address.
    Add {
        /// The word's address.
        address: u32,
        /// The value's bits.
        value: u32,
        /// Whether the word is an f32 (else an integer).
        float: bool,
    },
}

impl Remote {
    /// Applies it to the block whose shared memory and barriers these are. Within the
    /// issuing block, an arrival releases what the thread observed
    /// ([`SharedMemory::release`]) and a TMA box must not overwrite one the thread has
    /// not seen delivered.
    pub fn apply(self, shared: &mut SharedMemory, barriers: &mut Barriers) -> Result<(), Trap> {
        let local = self.rank == self.from;
        let (barrier, arrivals, bytes) = match self.kind {
            RemoteKind::Arrive { barrier, .. } => {
                if local {
                    shared.release(self.index, barrier);
                }
                (barrier, 1, 0)
            }
            RemoteKind::Tma {
                start,
                image,
                barrier,
                who,
            } => {
                let bytes = image.len() as i64;
                shared.tma_load(&who, (start, image), barrier, local)?;
                (barrier, 0, -bytes)
            }
            RemoteKind::CompleteTx { barrier, bytes } => (barrier, 0, -bytes),
            RemoteKind::PairMma(_)
            | RemoteKind::Load { .. }
            | RemoteKind::Store { .. }
            | RemoteKind::Add { .. } => {
                return Err(Trap::Fault(FaultKind::Cluster(
                    "an access to several blocks applied to one block".to_owned(),
                )));
            }
        };
        barriers.advance(shared, barrier, arrivals, bytes)
    }
}

/// The operand named `name` of an intrinsic (its row's role): a value and a byte offset.
pub(super) fn named_operand(op: &Op, name: &str) -> Option<(ValueId, i64)> {
    let Op::Intrinsic {
        intrinsic,
        operands,
    } = op
    else {
        return None;
    };
    operands.get(intrinsic.operand_index(name)?).copied()
}

/// [`named_operand`], or a fault saying that `what` (an instruction, as the emulator
/// models it) lacks it.
pub(super) fn required_operand(op: &Op, name: &str, what: &str) -> Result<(ValueId, i64), Trap> {
    named_operand(op, name).ok_or_else(|| {
        Trap::Fault(FaultKind::Unsupported(format!(
            "{what} without its `{name}` operand"
        )))
    })
}

impl<'k> Thread<'k> {
    /// Executes the Hopper instruction `inst`, modelled as `hopper`.
    pub(super) fn hopper(
        &mut self,
        hopper: &Hopper,
        inst: &'k Inst,
        context: &mut Context<'_, 'k>,
    ) -> Result<Flow<'k>, Trap> {
        let operand = |name: &str| required_operand(&inst.op, name, "a Hopper instruction");
        let value = |thread: &Self, name: &str| -> Result<i64, Trap> {
            let (value, _) = operand(name)?;
            Ok(i64::from(crate::arith::as_i32(thread.get(value))))
        };
        let barrier = |thread: &Self, context: &Context<'_, 'k>| -> Result<u32, Trap> {
            let (register, offset) = operand("bar")?;
            thread.shared_address(context, register, offset, 8, Access::Atomic)
        };
        match hopper {
            Hopper::MbarrierInit => {
                let address = barrier(self, context)?;
                let count = value(self, "count")?;
                context.barriers.init(address, count);
            }
            Hopper::MbarrierArrive { expect_tx } => {
                let address = barrier(self, context)?;
                let bytes = if *expect_tx { value(self, "bytes")? } else { 0 };
                context.shared.release(self.index, address);
                (context.barriers).advance(context.shared, address, 1, bytes)?;
            }
            Hopper::MbarrierWait => {
                let address = barrier(self, context)?;
                let parity = value(self, "parity")? as u32;
                if !context.barriers.initialized(address) {
                    context.barriers.update(address, 0, 0)?;
                }
                if context.barriers.passed(address, parity) {
                    let phase = context.barriers.completed(address);
                    context.shared.acquire(self.index, address, phase);
                    return Ok(Flow::Next);
                }
                self.retry();
                let completed = context.barriers.completed(address);
                return Ok(Flow::Wait(Status::Mbarrier(
                    inst, address, parity, completed,
                )));
            }
            Hopper::MbarrierArriveRemote => {
                let address = barrier(self, context)?;
                let target = self.cluster_block(context, value(self, "cta")?)?;
                if target == context.cluster_rank() {
                    context.shared.release(self.index, address);
                    (context.barriers).advance(context.shared, address, 1, 0)?;
                } else {
                    let kind = RemoteKind::Arrive {
                        barrier: address,
                        commit: false,
                    };
                    self.send(inst, context, target, kind);
                }
            }
            Hopper::TmaLoad {
                rank, pair: true, ..
            } => {
                let (dst, dst_offset) = operand("dst")?;
                let (register, offset) = operand("bar")?;
                let address = self.shared_address(context, register, offset, 8, Access::Atomic)?;
                let (start, image) = self.tma_load(inst, *rank, (dst, dst_offset), context)?;
                let who = self.accessor(context, inst);
                let own = context.cluster_rank();
                let even = own & !1;
                if even + 1 >= context.cluster_dims.iter().product::<u32>() {
                    return Err(Trap::Fault(FaultKind::Cluster(format!(
                        "a CTA pair's TMA load by block {own}, which has no pair in its cluster"
                    ))));
                }
                let bytes = image.len() as i64;
                if even == own {
                    // In flight on the leader's own barrier, as a block's load.
                    (context.shared).tma_load(&who, (start, image), address, true)?;
                    (context.barriers).advance(context.shared, address, 0, -bytes)?;
                } else {
                    context.shared.pair_load(&who, (start, &image))?;
                    let kind = RemoteKind::CompleteTx {
                        barrier: address,
                        bytes,
                    };
                    self.send(inst, context, even, kind);
                }
            }
            Hopper::TmaLoad {
                rank, multicast, ..
            } => {
                let (dst, dst_offset) = operand("dst")?;
                let address = barrier(self, context)?;
                let own = context.cluster_rank();
                let targets = if *multicast {
                    self.cluster_mask(context, value(self, "mask")? as u32 & 0xffff)?
                } else {
                    1 << own
                };
                let (start, image) = self.tma_load(inst, *rank, (dst, dst_offset), context)?;
                let who = self.accessor(context, inst);
                // This block's copy lands now, the others' when the cluster's scheduler
                // applies them.
                for target in (0..16).filter(|target| targets >> target & 1 != 0) {
                    let kind = RemoteKind::Tma {
                        start,
                        image: image.clone(),
                        barrier: address,
                        who,
                    };
                    if target == own {
                        let remote = Remote {
                            rank: own,
                            kind,
                            span: inst.span,
                            thread: self.coordinates,
                            index: self.index,
                            block: context.block,
                            from: own,
                        };
                        remote.apply(context.shared, context.barriers)?;
                    } else {
                        self.send(inst, context, target, kind);
                    }
                }
            }
            Hopper::ClusterLoad | Hopper::ClusterStore | Hopper::ClusterAdd { .. } => {
                return self.cluster_access(hopper, inst, context);
            }
            Hopper::ClusterArrive => {
                self.cluster_arrivals += 1;
                self.clock.cluster_arrive();
            }
            Hopper::ClusterWait => {
                // A wait completes the phase of the thread's own last arrival; with no
                // arrival since its last wait there is no such phase (PTX pairs each
                // `barrier.cluster.wait` with an earlier `barrier.cluster.arrive`).
                if self.cluster_arrivals == self.clock.waited() {
                    return Err(Trap::Fault(FaultKind::Cluster(
                        "a `cluster_wait()` with no `cluster_arrive()` of this thread since its last wait: each wait completes the phase of the thread's own arrival before it".to_string(),
                    )));
                }
                // What follows the wait runs once every thread of the cluster arrived.
                self.cluster_waited = true;
                self.clock.cluster_wait();
                return Ok(Flow::Wait(Status::Cluster(inst, self.cluster_arrivals)));
            }
            Hopper::TmaStore { rank, add } => {
                let (src, src_offset) = operand("src")?;
                let way = if *add { TmaWay::Add } else { TmaWay::Store };
                let (start, len) = self.tma(inst, *rank, (src, src_offset), way, context)?;
                let group = (Reader::TmaStore, self.index, self.bulk_groups);
                (context.shared).async_read(group, start, len, inst.span);
            }
            Hopper::BulkCommit => self.bulk_groups += 1,
            Hopper::BulkWait { pending } => {
                let complete = self.bulk_groups.saturating_sub(*pending);
                // `.read` waits for the tile's reads only, the plain wait for the writes.
                if let Op::Intrinsic {
                    intrinsic: Intrinsic::BulkWait { read: false, .. },
                    ..
                } = inst.op
                {
                    self.complete_bulk_writes(context, complete)?;
                }
                (context.shared).groups_complete(Reader::TmaStore, self.index, complete);
            }
            Hopper::NamedBarrier { wait, id, threads } => {
                let id = match id {
                    Some(id) => i64::from(*id),
                    None => value(self, "id")?,
                };
                let Ok(id @ 0..16) = u32::try_from(id) else {
                    return Err(Trap::Fault(FaultKind::Unsupported(format!(
                        "a named barrier {id}: a block has barriers 0 to 15"
                    ))));
                };
                (context.barriers)
                    .arrive_named(id, *threads, self.index, inst.span)
                    .map_err(|(other_count, other, other_span)| {
                        Trap::Fault(FaultKind::NamedBarrierCount {
                            count: *threads,
                            id,
                            other_count,
                            other: crate::block::coordinates(u64::from(other), context.block_dims),
                            other_span,
                        })
                    })?;
                if *wait {
                    return Ok(Flow::Wait(Status::Named(inst, id)));
                }
            }
            Hopper::Wgmma(_) if !self.wgmma_fenced() => {
                return Err(Trap::Fault(FaultKind::UnfencedWgmma));
            }
            Hopper::Wgmma(_) => {
                self.check_fenced_registers(inst)?;
                return Ok(Flow::Wait(Status::Collective(inst)));
            }
            Hopper::WgmmaFence => self.wgmma_fence(),
            Hopper::WgmmaCommit => self.wgmma_groups += 1,
            Hopper::WgmmaWait { pending } => self.wgmma_wait(*pending, context),
            Hopper::ProxyFence => context.shared.proxy_fence(self.index),
            Hopper::Ordering => match inst.op {
                Op::Intrinsic {
                    intrinsic: Intrinsic::Fence(Fence::Device),
                    ..
                } => self.fence_blocks(context, MemoryScope::Gpu),
                Op::Intrinsic {
                    intrinsic: Intrinsic::Fence(Fence::System),
                    ..
                } => self.fence_blocks(context, MemoryScope::System),
                _ => {}
            },
            Hopper::Elect => return Ok(Flow::Wait(Status::Collective(inst))),
        }
        Ok(Flow::Next)
    }

    /// The multicast `mask` of blocks, checked to name some and only blocks of the
    /// cluster.
    pub(super) fn cluster_mask(&self, context: &Context<'_, 'k>, mask: u32) -> Result<u32, Trap> {
        let blocks = context.cluster_dims.iter().product::<u32>();
        if mask >> blocks != 0 || mask == 0 {
            return Err(Trap::Fault(FaultKind::Cluster(format!(
                "a multicast to the blocks of mask {mask:#b}, in a cluster of {blocks}"
            ))));
        }
        Ok(mask)
    }

    /// Block `rank` of the cluster, checked to be one.
    fn cluster_block(&self, context: &Context<'_, 'k>, rank: i64) -> Result<u32, Trap> {
        let blocks = context.cluster_dims.iter().product::<u32>();
        u32::try_from(rank)
            .ok()
            .filter(|rank| *rank < blocks)
            .ok_or_else(|| {
                Trap::Fault(FaultKind::Cluster(format!(
                    "block {rank} of a cluster of {blocks} blocks"
                )))
            })
    }

    /// Hands `kind` to block `rank` of the cluster.
    pub(super) fn send(
        &self,
        inst: &Inst,
        context: &mut Context<'_, 'k>,
        rank: u32,
        kind: RemoteKind,
    ) {
        let from = context.cluster_rank();
        context.remote.push(Remote {
            rank,
            kind,
            span: inst.span,
            thread: self.coordinates,
            index: self.index,
            block: context.block,
            from,
        });
    }

    /// Makes the current instruction run again when the thread resumes.
    fn retry(&mut self) {
        if let Some(frame) = self.frames.last_mut() {
            frame.next -= 1;
        }
    }
}
