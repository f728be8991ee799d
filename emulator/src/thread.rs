//! One emulated thread: an interpreter over structured KIR with an explicit stack of
//! frames, so that it can stop at a barrier or a warp collective and resume there.
//!
//! A frame is a list of instructions being run and the index of the next one: the
//! kernel's body, or a region of a `for` (with its counter and end), a do-while `loop`
//! or one side of an `if`. At the end of a region its yields are read all at once
//! (they may be its own parameters, swapped) and either start the next iteration or
//! become the instruction's results. [`Thread::run`] executes until the thread exits or
//! reaches an instruction that needs others: `bar.sync` (the whole block), or a shuffle,
//! `bar.warp.sync` or a warp-collective atom (the whole warp); the block completes those
//! ([`crate::block`]).
//! Regions are entered and left in [`control`], memory instructions are in [`memory`].

mod barriers;
mod control;
mod dsmem;
mod fence;
mod grid;
mod hopper;
mod memory;
mod ordered;
mod tcgen05;
mod tma;
mod wgmma;

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use kir::{Inst, Intrinsic, Kernel, Op, Region, Special, Ty, ValueId};
use lang::Span;

use crate::arith;
use crate::atoms::Models;
use crate::atoms::cp_async::AsyncCopies;
use crate::fault::{FaultKind, Trap};
use crate::global::GlobalMemory;
use crate::grid_order::{Clock, GridOrder};
use crate::shared::SharedMemory;
use crate::system::{SystemOrder, ThreadId};
use crate::tmem::TensorMemory;

pub use barriers::Barriers;
pub use hopper::{Remote, RemoteKind, TENSOR_MAP_TOKEN};
pub(crate) use tcgen05::atom_operand;

/// Where a thread is.
#[derive(Clone, Copy, Debug)]
pub enum Status<'k> {
    /// It can run.
    Runnable,
    /// It waits at this `bar.sync`.
    Barrier(&'k Inst),
    /// It waits at this shuffle, `bar.warp.sync` or warp- or warpgroup-collective atom.
    Collective(&'k Inst),
    /// It waits at this `mbarrier_wait` for the phase of a parity (the second number)
    /// of the mbarrier at a shared address (the first), which had completed this many
    /// phases when the wait began (the third).
    Mbarrier(&'k Inst, u32, u32, u32),
    /// It waits at this named barrier (`bar.sync id, threads`), whose id is the number.
    Named(&'k Inst, u32),
    /// It waits at this `barrier.cluster.wait` until every thread of the cluster has
    /// arrived this many times.
    Cluster(&'k Inst, u32),
    /// Its load from a peer block's shared memory (`ld.shared::cluster`) is on its
    /// way: the cluster's scheduler writes the word and lets it run on.
    Remote(&'k Inst),
    /// An iteration of this do-while loop wrote nothing and left the loop's values as
    /// they were, or as an earlier iteration since its last write left them (a cycle):
    /// the next ones do the same unless another thread moves first.
    Spinning(&'k Inst),
    /// It has finished.
    Exited,
}

/// Two statuses are the same when they are the same variant, waiting at the same
/// instruction (the same place in the kernel, not an equal instruction elsewhere).
impl PartialEq for Status<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Status::Runnable, Status::Runnable) | (Status::Exited, Status::Exited) => true,
            (Status::Barrier(a), Status::Barrier(b))
            | (Status::Collective(a), Status::Collective(b))
            | (Status::Named(a, _), Status::Named(b, _))
            | (Status::Cluster(a, _), Status::Cluster(b, _))
            | (Status::Remote(a), Status::Remote(b))
            | (Status::Spinning(a), Status::Spinning(b))
            | (Status::Mbarrier(a, ..), Status::Mbarrier(b, ..)) => std::ptr::eq(*a, *b),
            _ => false,
        }
    }
}

/// What the block's threads share while one of them runs.
pub struct Context<'a, 'k> {
    /// The kernel.
    pub kernel: &'k Kernel,
    /// Its atoms' models.
    pub models: &'a Models,
    /// Global memory.
    pub global: &'a GlobalMemory,
    /// The block's shared memory.
    pub shared: &'a mut SharedMemory,
    /// The block's mbarriers and named-barrier counts.
    pub barriers: &'a mut Barriers,
    /// The block's tensor memory.
    pub tmem: &'a mut TensorMemory,
    /// The arguments' bits, by parameter index.
    pub args: &'a [u64],
    /// In a multi-rank launch, the cross-device order ([`crate::system`]) and this
    /// block's rank.
    pub system: Option<(&'a Mutex<SystemOrder>, u32)>,
    /// In a launch on one device, the order of global memory between its blocks
    /// ([`crate::grid_order`]).
    pub order: Option<&'a GridOrder>,
    /// `block_idx`.
    pub block: [u32; 3],
    /// `block_dim`.
    pub block_dims: [u32; 3],
    /// `grid_dim`.
    pub grid_dims: [u32; 3],
    /// The cluster's extents (`[1, 1, 1]` without a cluster).
    pub cluster_dims: [u32; 3],
    /// What the block's threads did to other blocks of its cluster, for the cluster's
    /// scheduler to apply ([`crate::cluster`]).
    pub remote: &'a mut Vec<Remote>,
    /// The running thread's warp's warp epoch (see [`crate::shared`]).
    pub warp_epoch: u32,
    /// Thread-instructions this block may still execute.
    pub budget: u64,
    /// Thread-instructions the whole launch may execute.
    pub limit: u64,
    /// Thread-instructions executed so far.
    pub executed: u64,
    /// Bytes the launch's threads printed so far.
    pub printed: &'a AtomicU64,
    /// The block's profile, when one is taken.
    pub profile: Option<&'a mut crate::profile::BlockProfile>,
}

impl Context<'_, '_> {
    /// In a multi-rank launch, the cross-device order and the identity there of the
    /// block's thread `index`.
    pub fn system_thread(&self, index: u32) -> Option<(&Mutex<SystemOrder>, ThreadId)> {
        let (system, rank) = self.system?;
        let [x, y, _] = self.grid_dims;
        let block = u64::from(self.block[0])
            + u64::from(x) * (u64::from(self.block[1]) + u64::from(y) * u64::from(self.block[2]));
        let threads: u64 = self.block_dims.iter().map(|dim| u64::from(*dim)).product();
        Some((system, (rank, block * threads + u64::from(index))))
    }

    /// The running block's linear index in the grid (x fastest).
    pub fn block_index(&self) -> u32 {
        let [x, y, _] = self.grid_dims;
        let [bx, by, bz] = self.block;
        (u64::from(bx) + u64::from(x) * (u64::from(by) + u64::from(y) * u64::from(bz))) as u32
    }

    /// The running block's place in its cluster, x y z.
    pub fn block_in_cluster(&self) -> [u32; 3] {
        std::array::from_fn(|d| self.block[d] % self.cluster_dims[d])
    }

    /// The running block's rank in its cluster (x fastest).
    pub fn cluster_rank(&self) -> u32 {
        let [x, y, _] = self.cluster_dims;
        let [bx, by, bz] = self.block_in_cluster();
        bx + x * (by + y * bz)
    }
}

/// A frame of the interpreter's stack.
struct Frame<'k> {
    body: &'k [Inst],
    next: usize,
    kind: FrameKind<'k>,
}

enum FrameKind<'k> {
    Kernel,
    For {
        inst: &'k Inst,
        region: &'k Region,
        counter: i64,
        end: i64,
    },
    Loop {
        inst: &'k Inst,
        region: &'k Region,
        condition: ValueId,
        /// The thread's effects when the iteration began.
        effects: u64,
        /// Its values at the ends of iterations that wrote nothing.
        cycle: control::Cycle,
    },
    Branch {
        inst: &'k Inst,
        region: &'k Region,
    },
}

/// What executing one instruction asks of the interpreter.
enum Flow<'k> {
    Next,
    Enter(Frame<'k>),
    Wait(Status<'k>),
}

/// A fault inside a thread, at an instruction's span.
pub type Stopped = (Span, Trap);

/// One thread of a block.
pub struct Thread<'k> {
    /// Its linear index in the block (x fastest).
    pub index: u32,
    /// `thread_idx`.
    pub coordinates: [u32; 3],
    /// Where it is.
    pub status: Status<'k>,
    /// Its arrivals at the cluster barrier (`barrier.cluster.arrive`).
    pub cluster_arrivals: u32,
    /// Whether it has waited at the cluster barrier (`barrier.cluster.wait`): only then
    /// has every block of its cluster started, so that their shared memory may be
    /// reached.
    pub cluster_waited: bool,
    registers: Vec<u64>,
    frames: Vec<Frame<'k>>,
    copies: AsyncCopies,
    scratch: Vec<u64>,
    /// The registers a `tcgen05.ld` wrote that no `tcgen05.wait::ld` has made valid.
    unwaited: Vec<ValueId>,
    /// Its bulk-group commits so far (`cp.async.bulk.commit_group`): the group its next
    /// TMA store joins.
    bulk_groups: u32,
    /// Its wgmma-group commits so far (`wgmma.commit_group`): the group its next wgmma
    /// joins.
    wgmma_groups: u32,
    /// The registers its wgmmas still write.
    in_flight: wgmma::InFlight,
    /// Its `wgmma.fence`s and the register writes since the last.
    fences: fence::Fences,
    /// Its place in the order of global memory between blocks.
    pub clock: Clock,
    /// Its TMA stores' global writes that no wait has completed.
    bulk_writes: Vec<grid::BulkWrite>,
    /// Its instructions so far that may change what any thread sees: stores, atomics
    /// that change memory, atoms, cp.async waits, and waits for other threads.
    effects: u64,
    /// The lines it printed, in program order.
    pub printed: String,
}

impl<'k> Thread<'k> {
    /// A thread at the start of `kernel`.
    pub fn new(kernel: &'k Kernel, index: u32, coordinates: [u32; 3]) -> Self {
        Thread {
            index,
            coordinates,
            status: Status::Runnable,
            cluster_arrivals: 0,
            cluster_waited: false,
            registers: vec![0; kernel.values.len()],
            frames: vec![Frame {
                body: &kernel.body,
                next: 0,
                kind: FrameKind::Kernel,
            }],
            copies: AsyncCopies::default(),
            scratch: Vec::new(),
            unwaited: Vec::new(),
            bulk_groups: 0,
            wgmma_groups: 0,
            in_flight: wgmma::InFlight::default(),
            fences: fence::Fences::default(),
            clock: Clock::default(),
            bulk_writes: Vec::new(),
            effects: 0,
            printed: String::new(),
        }
    }

    /// Its instructions so far that may change what a thread sees.
    pub fn effects(&self) -> u64 {
        self.effects
    }

    /// The bits of `value`.
    pub fn get(&self, value: ValueId) -> u64 {
        self.registers[value.0 as usize]
    }

    /// Sets the bits of `value`.
    pub fn set(&mut self, value: ValueId, bits: u64) {
        self.registers[value.0 as usize] = bits;
    }

    /// `value`, an integer of type `ty`, as a number.
    fn signed(&self, value: ValueId, ty: Ty) -> i64 {
        let bits = self.get(value);
        match ty {
            Ty::I32 => i64::from(arith::as_i32(bits)),
            _ => bits as i64,
        }
    }

    /// Copies `from`'s values into `to`, all read before any is written.
    fn copy(&mut self, from: &[ValueId], to: &[ValueId]) {
        if self.wgmma_in_flight() {
            self.carry_in_flight(from, to);
        }
        self.carry_written(from, to);
        self.scratch.clear();
        for value in from {
            self.scratch.push(self.registers[value.0 as usize]);
        }
        for (value, bits) in to.iter().zip(&self.scratch) {
            self.registers[value.0 as usize] = *bits;
        }
    }

    /// Runs until the thread exits or waits for others.
    pub fn run(&mut self, context: &mut Context<'_, 'k>) -> Result<(), Stopped> {
        self.status = Status::Runnable;
        loop {
            let Some(frame) = self.frames.last_mut() else {
                return Ok(());
            };
            let (body, next) = (frame.body, frame.next);
            let Some(inst) = body.get(next) else {
                self.end_region(context)?;
                if matches!(self.status, Status::Exited | Status::Spinning(_)) {
                    return Ok(());
                }
                continue;
            };
            frame.next += 1;
            if context.budget == 0 {
                let instructions = context.limit;
                return Err((inst.span, Trap::Fault(FaultKind::Budget { instructions })));
            }
            context.budget -= 1;
            context.executed += 1;
            if let Some(profile) = context.profile.as_deref_mut() {
                profile.executed(inst.span);
            }
            let flow = self.execute(inst, context);
            if flow.is_ok() {
                self.mark_written(inst);
            }
            match flow {
                Ok(Flow::Next) => {}
                Ok(Flow::Enter(frame)) => self.frames.push(frame),
                Ok(Flow::Wait(status)) => {
                    self.effects += 1;
                    self.status = status;
                    return Ok(());
                }
                Err(trap) => return Err((inst.span, trap)),
            }
        }
    }

    fn execute(&mut self, inst: &'k Inst, context: &mut Context<'_, 'k>) -> Result<Flow<'k>, Trap> {
        if !self.unwaited.is_empty() {
            self.check_waited(inst)?;
        }
        if self.wgmma_in_flight() {
            self.check_in_flight(inst, context)?;
        }
        let kernel = context.kernel;
        let result = inst.results.first().copied();
        let ty = result.map_or(Ty::Pred, |value| kernel.ty(value));
        let unsupported = |what: String| Trap::Fault(FaultKind::Unsupported(what));
        let no_instruction = |what: arith::NoInstruction| unsupported(what.to_string());
        let bits = match &inst.op {
            Op::ConstInt(value) => arith::from_int(ty, *value),
            Op::ConstFloat(value) => arith::float_constant(ty, *value).map_err(no_instruction)?,
            Op::Param(index) => {
                let arg =
                    context.args.get(*index).copied().ok_or_else(|| {
                        unsupported(format!("a kernel without parameter {index}"))
                    })?;
                let params = &kernel.signature.params;
                match params.get(*index).map(|param| &param.kind) {
                    // The TMA instructions decode the map from its index.
                    Some(kir::ParamKind::TensorMap(_)) => TENSOR_MAP_TOKEN + *index as u64,
                    _ => arith::from_int(ty, arg as i64),
                }
            }
            Op::Special(special) => {
                let cluster = context.cluster_dims;
                let (values, axis) = match *special {
                    Special::ThreadIndex(axis) => (self.coordinates, axis),
                    Special::BlockIndex(axis) => (context.block, axis),
                    Special::BlockDim(axis) => (context.block_dims, axis),
                    Special::GridDim(axis) => (context.grid_dims, axis),
                    Special::ClusterIndex(axis) => {
                        (std::array::from_fn(|d| context.block[d] / cluster[d]), axis)
                    }
                    Special::BlockInCluster(axis) => (context.block_in_cluster(), axis),
                    Special::BlockRankInCluster => ([context.cluster_rank(), 0, 0], 0),
                };
                arith::from_int(ty, i64::from(values[usize::from(axis.min(2))]))
            }
            // The kernel's shared memory starts at shared address 0, as the dynamic
            // shared memory of a kernel with no static shared memory does.
            Op::SharedBase => 0,
            Op::Unary(op, a) => arith::unary(*op, ty, self.get(*a)).map_err(no_instruction)?,
            Op::Binary(op, a, b) => {
                arith::binary(*op, ty, self.get(*a), self.get(*b)).map_err(no_instruction)?
            }
            Op::Fma(a, b, c) => {
                arith::fma(ty, self.get(*a), self.get(*b), self.get(*c)).map_err(no_instruction)?
            }
            Op::Compare(op, a, b) => {
                let operands = kernel.ty(*a);
                let holds = arith::compare(*op, operands, self.get(*a), self.get(*b))
                    .map_err(no_instruction)?;
                u64::from(holds)
            }
            Op::Select(condition, a, b) => {
                if self.get(*condition) != 0 {
                    self.get(*a)
                } else {
                    self.get(*b)
                }
            }
            Op::Convert(a) => {
                arith::convert(kernel.ty(*a), ty, self.get(*a)).map_err(no_instruction)?
            }
            Op::Pack(low, high) => (self.get(*low) & 0xFFFF) | ((self.get(*high) & 0xFFFF) << 16),
            Op::Unpack(packed) => {
                let packed = self.get(*packed);
                self.set(inst.results[1], (packed >> 16) & 0xFFFF);
                packed & 0xFFFF
            }
            Op::Atom { .. } => {
                self.effects += 1;
                return self.atom(inst, context);
            }
            // An ordered access counts as an effect only when it changes memory (as an
            // atomic does), so a loop polling a flag with `ld.acquire` spins.
            Op::Intrinsic {
                intrinsic: Intrinsic::Ordered { access, scope },
                operands,
            } => {
                self.ordered(inst, (*access, *scope), operands, context)?;
                return Ok(Flow::Next);
            }
            Op::Intrinsic { .. } => {
                self.effects += 1;
                return self.intrinsic(inst, context);
            }
            Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } => {
                // An atomic counts as an effect only when it changes memory (below).
                if matches!(inst.op, Op::Store { .. }) {
                    self.effects += 1;
                }
                self.memory(inst, context)?;
                return Ok(Flow::Next);
            }
            Op::CpAsyncCommit => {
                self.copies.commit();
                return Ok(Flow::Next);
            }
            Op::CpAsyncWait(newest) => {
                self.effects += 1;
                let copies = self.copies.wait(usize::try_from(*newest).unwrap_or(0));
                self.land(copies, context).map_err(|(_, trap)| trap)?;
                return Ok(Flow::Next);
            }
            Op::Print { format, args } => {
                self.effects += 1;
                let values: Vec<(Ty, u64)> = (args.iter())
                    .map(|arg| (kernel.ty(*arg), self.get(*arg)))
                    .collect();
                let line = crate::print::line(format, &values);
                let bytes = line.len() as u64;
                if context.printed.fetch_add(bytes, Ordering::Relaxed) + bytes
                    > crate::print::MAX_PRINTED_BYTES
                {
                    return Err(unsupported(format!(
                        "a launch that prints more than {} bytes (the GPU's printf buffer keeps 1 MiB by default)",
                        crate::print::MAX_PRINTED_BYTES
                    )));
                }
                self.printed.push_str(&line);
                return Ok(Flow::Next);
            }
            Op::Barrier => return Ok(Flow::Wait(Status::Barrier(inst))),
            Op::WarpBarrier | Op::Shuffle { .. } => {
                return Ok(Flow::Wait(Status::Collective(inst)));
            }
            Op::For { .. } | Op::If { .. } | Op::Loop { .. } => {
                return Ok(self.enter(inst, context.kernel));
            }
        };
        if let Some(result) = result {
            self.set(result, bits);
        }
        Ok(Flow::Next)
    }
}
