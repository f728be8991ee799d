//! Hopper instructions one thread executes (PTX ISA, `mbarrier`, `cp.async.bulk.tensor`,
//! `bar.sync`/`bar.arrive`; HOPPER-BLACKWELL.md A.3-A.4):
//! - an mbarrier (the block's states are in [`Barriers`], by shared address) counts
//!   arrivals and transaction bytes; a phase completes when both reach zero, which
//!   flips its phase bit, re-arms the arrivals and, for the race checks, ends the
//!   block's shared-memory epoch (what the phase orders is then ordered; accesses it
//!   does not order are missed, never reported falsely). `mbarrier_wait(parity)` passes
//!   once the phase bit differs from `parity`, else the thread waits;
//! - a TMA load copies its whole box at issue (elements outside the tensor as zeros),
//!   swizzled as the map says, then completes the box's bytes on its mbarrier; a TMA
//!   store reads the shared tile (checked for races) and writes the elements inside the
//!   tensor;
//! - a named barrier counts arrivals per id; a `bar.sync` waits until its count is met.
//!
//! A tensor map's parameter reads as [`TENSOR_MAP_TOKEN`] plus its index, which the TMA
//! instructions decode: the map's tensor, modes, box and swizzle come from the
//! signature, the tensor's address and extents from the launch's arguments.

use std::collections::HashMap;

use kir::{HostExpr, Inst, IntParam, Op, ParamKind, ValueId};
use lang::Span;

use super::{Context, Flow, Status, Thread};
use crate::atoms::hopper::{Hopper, swizzled};
use crate::fault::{Access, FaultKind, Trap};
use crate::shared::{Accessor, SharedMemory};

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
    /// Its block (`block_idx`).
    pub block: [u32; 3],
}

/// What a [`Remote`] does.
#[derive(Debug)]
pub enum RemoteKind {
    /// One arrival on the mbarrier at this shared address.
    Arrive {
        /// The barrier.
        barrier: u32,
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
}

impl Remote {
    /// Applies it to the block whose shared memory and barriers these are.
    pub fn apply(self, shared: &mut SharedMemory, barriers: &mut Barriers) -> Result<(), Trap> {
        let (barrier, arrivals, bytes) = match self.kind {
            RemoteKind::Arrive { barrier } => (barrier, 1, 0),
            RemoteKind::Tma {
                start,
                image,
                barrier,
                who,
            } => {
                // In 16-byte pieces: the box starts at a multiple of its swizzle's period
                // and its rows are multiples of 16 bytes.
                for (piece, bytes) in (0u32..).zip(image.chunks(16)) {
                    shared.write(&who, start + 16 * piece, bytes, Access::AsyncWrite)?;
                }
                (barrier, 0, -(image.len() as i64))
            }
        };
        if barriers.update(barrier, arrivals, bytes)? {
            shared.barrier();
        }
        Ok(())
    }
}

/// One mbarrier's state.
#[derive(Clone, Copy, Debug)]
struct Mbarrier {
    expected: i64,
    pending: i64,
    tx: i64,
    phase: u32,
}

/// The block's mbarriers and named-barrier arrivals.
#[derive(Default)]
pub struct Barriers {
    mbarriers: HashMap<u32, Mbarrier>,
    named: [u32; 16],
}

impl Barriers {
    /// Whether the phase of `parity` of the mbarrier at `address` has completed.
    pub fn passed(&self, address: u32, parity: u32) -> bool {
        self.mbarriers
            .get(&address)
            .is_some_and(|barrier| barrier.phase != parity & 1)
    }

    /// Arrivals counted at named barrier `id`.
    pub fn named(&mut self, id: u32) -> &mut u32 {
        &mut self.named[id as usize % 16]
    }

    /// Changes the mbarrier at `address` by `arrivals` and `bytes`; whether a phase
    /// completed.
    fn update(&mut self, address: u32, arrivals: i64, bytes: i64) -> Result<bool, Trap> {
        let fault = |what: String| Trap::Fault(FaultKind::Mbarrier(what));
        let Some(barrier) = self.mbarriers.get_mut(&address) else {
            return Err(fault(format!(
                "the mbarrier at shared address {address:#x} is used before `mbarrier_init`"
            )));
        };
        barrier.pending -= arrivals;
        barrier.tx += bytes;
        if barrier.pending < 0 {
            return Err(fault(format!(
                "the mbarrier at shared address {address:#x} gets more arrivals than the {} its phase expects",
                barrier.expected
            )));
        }
        if barrier.pending == 0 && barrier.tx == 0 {
            barrier.phase ^= 1;
            barrier.pending = barrier.expected;
            return Ok(true);
        }
        Ok(false)
    }
}

impl<'k> Thread<'k> {
    /// Executes the Hopper instruction `inst`, modelled as `hopper`.
    pub(super) fn hopper(
        &mut self,
        hopper: &Hopper,
        inst: &'k Inst,
        context: &mut Context<'_, 'k>,
    ) -> Result<Flow<'k>, Trap> {
        let Op::Atom { operands, .. } = &inst.op else {
            return Ok(Flow::Next);
        };
        let operand = |name: &str| {
            operands
                .iter()
                .find(|(operand, _, _)| operand == name)
                .map(|(_, value, offset)| (*value, *offset))
                .ok_or_else(|| {
                    Trap::Fault(FaultKind::Unsupported(format!(
                        "a Hopper instruction without its `{name}` operand"
                    )))
                })
        };
        let value = |thread: &Self, name: &str| -> Result<i64, Trap> {
            let (value, _) = operand(name)?;
            Ok(i64::from(crate::arith::as_i32(thread.get(value))))
        };
        let barrier = |thread: &Self, context: &Context<'_, 'k>| -> Result<u32, Trap> {
            let (register, offset) = operand("bar")?;
            thread.shared_address(context, register, offset, 8, Access::Atomic)
        };
        let completed = match hopper {
            Hopper::MbarrierInit => {
                let address = barrier(self, context)?;
                let count = value(self, "count")?;
                let state = Mbarrier {
                    expected: count,
                    pending: count,
                    tx: 0,
                    phase: 0,
                };
                context.barriers.mbarriers.insert(address, state);
                false
            }
            Hopper::MbarrierArrive { expect_tx } => {
                let address = barrier(self, context)?;
                let bytes = if *expect_tx { value(self, "bytes")? } else { 0 };
                context.barriers.update(address, 1, bytes)?
            }
            Hopper::MbarrierWait => {
                let address = barrier(self, context)?;
                let parity = value(self, "parity")? as u32;
                if !context.barriers.mbarriers.contains_key(&address) {
                    context.barriers.update(address, 0, 0)?;
                }
                if context.barriers.passed(address, parity) {
                    return Ok(Flow::Next);
                }
                self.retry();
                return Ok(Flow::Wait(Status::Mbarrier(inst, address, parity)));
            }
            Hopper::MbarrierArriveRemote => {
                let address = barrier(self, context)?;
                let target = self.cluster_block(context, value(self, "cta")?)?;
                if target == cluster_rank(context) {
                    context.barriers.update(address, 1, 0)?
                } else {
                    self.send(
                        inst,
                        context,
                        target,
                        RemoteKind::Arrive { barrier: address },
                    );
                    false
                }
            }
            Hopper::TmaLoad { rank, multicast } => {
                let (dst, dst_offset) = operand("dst")?;
                let address = barrier(self, context)?;
                let own = cluster_rank(context);
                let targets = if *multicast {
                    let mask = value(self, "mask")? as u32 & 0xffff;
                    let blocks = context.cluster_dims.iter().product::<u32>();
                    if mask >> blocks != 0 || mask == 0 {
                        return Err(Trap::Fault(FaultKind::Cluster(format!(
                            "a multicast TMA load to the blocks of mask {mask:#b}, in a cluster of {blocks}"
                        ))));
                    }
                    mask
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
                            block: context.block,
                        };
                        remote.apply(context.shared, context.barriers)?;
                    } else {
                        self.send(inst, context, target, kind);
                    }
                }
                false
            }
            Hopper::ClusterArrive => {
                self.cluster_arrivals += 1;
                false
            }
            Hopper::ClusterWait => {
                return Ok(Flow::Wait(Status::Cluster(inst, self.cluster_arrivals)));
            }
            Hopper::TmaStore { rank } => {
                let (src, src_offset) = operand("src")?;
                self.tma(inst, *rank, (src, src_offset), None, context)?;
                false
            }
            Hopper::NamedBarrier { wait, id, .. } => {
                *context.barriers.named(*id) += 1;
                if *wait {
                    return Ok(Flow::Wait(Status::Named(inst)));
                }
                false
            }
            Hopper::Wgmma { .. } => return Ok(Flow::Wait(Status::Collective(inst))),
            Hopper::Ordering => false,
        };
        if completed {
            context.shared.barrier();
        }
        Ok(Flow::Next)
    }

    /// A TMA load's box as it lands at the shared tile at `tile`: its first shared byte
    /// and its bytes, swizzled, zeros outside the tensor.
    fn tma_load(
        &mut self,
        inst: &'k Inst,
        rank: usize,
        tile: (ValueId, i64),
        context: &mut Context<'_, 'k>,
    ) -> Result<(u32, Vec<u8>), Trap> {
        let mut image = Vec::new();
        let start = self.tma(inst, rank, tile, Some(&mut image), context)?;
        Ok((start, image))
    }

    /// Moves a TMA box between the shared tile at `tile` and global memory: a load
    /// (`image` given) reads the whole box into `image` as it lands in shared memory,
    /// zeros outside the tensor; a store writes the elements inside. Returns the tile's
    /// first shared byte.
    fn tma(
        &mut self,
        inst: &'k Inst,
        rank: usize,
        (tile, tile_offset): (ValueId, i64),
        mut image: Option<&mut Vec<u8>>,
        context: &mut Context<'_, 'k>,
    ) -> Result<u32, Trap> {
        let unsupported = |what: String| Trap::Fault(FaultKind::Unsupported(what));
        let Op::Atom {
            operands,
            registers,
            ..
        } = &inst.op
        else {
            return Ok(0);
        };
        let map_value = (operands.iter().find(|(name, _, _)| name == "map"))
            .map(|(_, value, _)| self.get(*value))
            .ok_or_else(|| unsupported("a TMA copy without its tensor map".to_owned()))?;
        let signature = &context.kernel.signature;
        let map_index = map_value.wrapping_sub(TENSOR_MAP_TOKEN) as usize;
        let Some(ParamKind::TensorMap(map)) = signature.params.get(map_index).map(|p| &p.kind)
        else {
            return Err(unsupported(
                "a TMA copy whose map is not a tensor-map parameter".to_owned(),
            ));
        };
        let Some(ParamKind::Tensor {
            dtype,
            shape,
            strides,
        }) = signature.params.get(map.tensor).map(|p| &p.kind)
        else {
            return Err(unsupported(
                "a tensor map over a parameter that is not a tensor".to_owned(),
            ));
        };
        let ints = integer_arguments(context);
        let evaluate = |expr: &HostExpr| expr.evaluate(&ints).unwrap_or(0);
        let base = context.args.get(map.tensor).copied().unwrap_or(0);
        let bytes = dtype.bytes() as i64;
        let extents: Vec<i64> = map
            .modes
            .iter()
            .map(|mode| shape.get(*mode).map_or(0, evaluate))
            .collect();
        let steps: Vec<i64> = map
            .modes
            .iter()
            .map(|mode| strides.get(*mode).map_or(0, evaluate))
            .collect();
        let coords: Vec<i64> = registers
            .iter()
            .find(|(name, _)| name == "coords")
            .map(|(_, values)| {
                values
                    .iter()
                    .map(|value| i64::from(crate::arith::as_i32(self.get(*value))))
                    .collect()
            })
            .unwrap_or_default();
        if coords.len() != rank || map.box_shape.len() != rank || extents.len() != rank {
            return Err(unsupported(
                "a TMA copy whose coordinates do not match its map".to_owned(),
            ));
        }
        let period = i64::from(map.swizzle.max(16) * 8).max(128);
        let size: i64 = map
            .box_shape
            .iter()
            .map(|extent| i64::from(*extent))
            .product();
        let start = self.shared_address(context, tile, tile_offset, 16, Access::AsyncWrite)?;
        if i64::from(start) % period != 0 {
            return Err(Trap::Fault(FaultKind::Misaligned {
                access: Access::AsyncWrite,
                space: kir::Space::Shared,
                address: u64::from(start),
                bytes: period as u32,
            }));
        }
        let who = self.accessor(context, inst);
        let mut element = vec![0u8; bytes as usize];
        if let Some(image) = image.as_deref_mut() {
            image.clear();
            image.resize((size * bytes) as usize, 0);
        }
        for linear in 0..size {
            let mut rest = linear;
            let mut inside = true;
            let mut global = base as i64;
            for dimension in 0..rank {
                let extent = i64::from(map.box_shape[dimension]);
                let at = coords[dimension] + rest % extent;
                rest /= extent;
                inside &= (0..extents[dimension]).contains(&at);
                global += at * steps[dimension] * bytes;
            }
            let offset = swizzled((linear * bytes) as u64, map.swizzle) as usize;
            let shared = start + offset as u32;
            if let Some(image) = image.as_deref_mut() {
                if inside {
                    let landing = &mut image[offset..offset + bytes as usize];
                    context.global.load(global as u64, landing).map_err(|_| {
                        unsupported(format!(
                            "a TMA load reading outside its tensor at {global:#x}"
                        ))
                    })?;
                }
            } else {
                context.shared.read(&who, shared, &mut element)?;
                if inside {
                    context.global.store(global as u64, &element).map_err(|_| {
                        unsupported(format!(
                            "a TMA store writing outside its tensor at {global:#x}"
                        ))
                    })?;
                }
            }
        }
        Ok(start)
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
    fn send(&self, inst: &Inst, context: &mut Context<'_, 'k>, rank: u32, kind: RemoteKind) {
        context.remote.push(Remote {
            rank,
            kind,
            span: inst.span,
            thread: self.coordinates,
            block: context.block,
        });
    }

    /// Makes the current instruction run again when the thread resumes.
    fn retry(&mut self) {
        if let Some(frame) = self.frames.last_mut() {
            frame.next -= 1;
        }
    }
}

/// The running block's rank in its cluster (x fastest).
fn cluster_rank(context: &Context<'_, '_>) -> u32 {
    let [x, y, z] = context.cluster_dims;
    let [bx, by, bz] = context.block;
    bx % x + x * (by % y + y * (bz % z))
}

/// The launch's integer arguments by parameter index (0 for the others), for the
/// signature's host expressions.
fn integer_arguments(context: &Context<'_, '_>) -> Vec<i64> {
    let params = &context.kernel.signature.params;
    params
        .iter()
        .zip(context.args)
        .map(|(param, bits)| match param.kind {
            ParamKind::Int(IntParam::I32) => i64::from(*bits as u32 as i32),
            ParamKind::Int(IntParam::U32) => i64::from(*bits as u32),
            ParamKind::Int(_) => *bits as i64,
            _ => 0,
        })
        .collect()
}
