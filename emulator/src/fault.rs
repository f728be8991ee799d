//! What stops a launch: a [`Fault`], at the KIR instruction's span (the `.cuk` line that
//! produced it), with the thread and block that hit it and, for memory, the address.
//! Each kind has its diagnostic code (`E0401`-`E0429`, registered in `lang::codes`);
//! [`Fault::to_diagnostic`] gives the one `Diagnostic` every front-end renders, with a
//! second label where another thread's instruction is involved (a race's other side, the
//! barrier a straggler waits at); the wording is in [`message`].

mod hang;
mod message;
mod pending;

use kir::Space;
use lang::Span;

use crate::global::Extent;

/// A problem found while emulating a launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The instruction's span (the kernel's for a launch that cannot start).
    pub span: Span,
    /// The thread and block, when one was running.
    pub location: Option<Location>,
}

/// Which thread of which block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// `thread_idx` (x, y, z).
    pub thread: [u32; 3],
    /// `block_idx` (x, y, z).
    pub block: [u32; 3],
}

/// What a memory access was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A load.
    Load,
    /// A store.
    Store,
    /// An atomic read-modify-write.
    Atomic,
    /// A cp.async copy reading global memory.
    AsyncRead,
    /// A TMA load reading its box from global memory.
    TmaRead,
    /// A TMA store writing its box into global memory, from its issue until a wait
    /// (`cp.async.bulk.wait_group`, not `.read`) covers its bulk group.
    TmaStore,
    /// A cp.async copy landing in shared memory (at the thread's wait).
    AsyncWrite,
    /// A TMA store reading its shared tile, from its issue until a wait covers its bulk
    /// group (`cp.async.bulk.wait_group.read`).
    BulkRead,
    /// A TMA load writing its box into shared memory, from its issue until its mbarrier
    /// phase completes.
    TmaWrite,
    /// A wgmma reading its shared operands, from its issue until `wgmma.wait_group`
    /// completes its group.
    WgmmaRead,
    /// A tcgen05.mma reading its shared operands, from its issue until its commit's
    /// mbarrier phase completes.
    UmmaRead,
}

/// What an asynchronous operation had not yet handed over when a thread used its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    /// A TMA load's box, before its mbarrier phase completed.
    TmaInFlight,
    /// A TMA load's box, landed, but the accessing thread has not observed the phase
    /// that delivered it (no wait on the mbarrier, nor a barrier with a thread that
    /// waited).
    TmaUnobserved,
    /// A TMA load's box, landed, that another TMA load overwrites though its issuing
    /// thread has not observed the first's delivery (nor the release of the threads that
    /// read it): nothing orders the two writes.
    TmaOverwrite,
    /// A generic-proxy write (a store, a cp.async) that the asynchronous proxy (a TMA
    /// store, a wgmma, a tcgen05.mma) reads with no `fence.proxy.async` by the writing
    /// thread between them.
    ProxyFence,
    /// A plain write to a wgmma's shared operand that some warp of the warpgroup may
    /// have issued the wgmma before: no barrier between the write and every warp's
    /// issue (the warps issue it apart).
    WarpgroupBarrier,
    /// A wgmma's accumulator register, before `wgmma.wait_group` completed its group.
    WgmmaAccumulator,
    /// A tcgen05.mma's accumulator in tensor memory, before the thread observed the
    /// mbarrier phase a `tcgen05.commit` of the issuing thread completes.
    TmemAccumulator,
}

/// Where a thread that kept a collective from completing is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elsewhere {
    /// It finished the kernel.
    Exited,
    /// It waits at another barrier or warp collective (`what`), at this span.
    Waiting {
        /// `barrier`, `shuffle` or `syncwarp`.
        what: &'static str,
        /// The instruction.
        span: Span,
    },
}

/// Another thread involved in a fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Other {
    /// Its `thread_idx`.
    pub thread: [u32; 3],
    /// Where it is, or what it did.
    pub at: Elsewhere,
}

/// The kinds of fault.
#[derive(Clone, Debug, PartialEq)]
pub enum FaultKind {
    /// `E0401`: a global access not inside one allocation.
    GlobalOutOfBounds {
        /// What the access was.
        access: Access,
        /// Its first byte.
        address: u64,
        /// How many bytes.
        bytes: u32,
        /// The allocation nearest to it, and the kernel parameter pointing into it.
        nearest: Option<(Extent, Option<String>)>,
    },
    /// `E0402`: a shared access past the block's shared memory.
    SharedOutOfBounds {
        /// What the access was.
        access: Access,
        /// Its first byte (the 32-bit address as unsigned).
        address: u64,
        /// How many bytes.
        bytes: u32,
        /// The block's shared memory, in bytes.
        size: u32,
    },
    /// `E0403`: an address that is not a multiple of the access's size.
    Misaligned {
        /// What the access was.
        access: Access,
        /// Global or shared.
        space: Space,
        /// The address.
        address: u64,
        /// The access's size, which the address must be a multiple of.
        bytes: u32,
    },
    /// `E0404`: two threads access a shared byte, at least one writing, with no barrier
    /// between them.
    Race {
        /// What this thread does.
        access: Access,
        /// The byte.
        address: u32,
        /// What the other thread did there.
        other_access: Access,
        /// The other thread (`at` is its instruction).
        other: [u32; 3],
        /// The rank in the cluster of the other thread's block when that is a peer of
        /// the block whose memory this is (distributed shared memory).
        other_rank: Option<u32>,
        /// Whether either access is a peer block's: only a cluster barrier orders them.
        cluster: bool,
        /// The other thread's instruction.
        other_span: Span,
    },
    /// `E0415`: a thread accesses data an asynchronous operation has not handed over to
    /// it yet: a TMA box before the thread observed its mbarrier phase, a wgmma's
    /// accumulators before its `wgmma.wait_group`.
    Early {
        /// What this thread does.
        access: Access,
        /// The shared byte (0 for a register, lane << 16 | column in tensor memory).
        address: u32,
        /// What was still pending.
        pending: Pending,
        /// The thread that issued the asynchronous operation.
        other: [u32; 3],
        /// The asynchronous operation.
        other_span: Span,
    },
    /// `E0405`: a read of shared memory nothing wrote.
    Uninitialized {
        /// What the access was.
        access: Access,
        /// The first byte never written.
        address: u32,
    },
    /// `E0406`: a barrier that a thread of the block does not reach.
    BarrierNotReached {
        /// A thread that is not there.
        other: Other,
    },
    /// `E0407`: a warp collective that a lane of the warp does not reach.
    PartialWarp {
        /// `shuffle` or `syncwarp`.
        what: &'static str,
        /// A lane that is not there.
        other: Other,
    },
    /// `E0407`: a shuffle reading a lane the warp does not have (a partial last warp).
    MissingLane {
        /// The lane read.
        lane: u32,
        /// The lanes the warp has.
        lanes: u32,
    },
    /// `E0407`: a warp-collective atom that not all 32 lanes of a warp execute: the warp
    /// is short (a block that is not a multiple of 32 threads), or the lanes' predicates
    /// differ.
    IncompleteWarp {
        /// Its PTX template.
        template: String,
        /// The lanes that execute it.
        lanes: u32,
        /// Whether a predicate left the others out (else the warp has no more lanes).
        predicated: bool,
    },
    /// `E0408`: an atom whose instruction the emulator has no model of.
    UnmodeledAtom {
        /// Its PTX template.
        template: String,
    },
    /// `E0409`: an operation or launch the emulator cannot run.
    Unsupported(String),
    /// `E0411`: an mbarrier misused: not initialized, more arrivals than its phase
    /// expects, or a wait that no thread of the block can complete.
    Mbarrier(String),
    /// `E0412`: a cluster misused: a block rank or multicast mask outside the cluster,
    /// or a cluster barrier that some thread of the cluster never reaches.
    Cluster(String),
    /// `E0413`: tensor memory misused: an allocation after the block relinquished its
    /// permit or beyond its 512 columns, a release of what is not one allocation, a
    /// block exiting with columns allocated, an access outside the allocations or the
    /// warp's lanes, a register of `tcgen05.ld` read before `tcgen05.wait::ld`.
    Tmem(String),
    /// `E0414`: a block exiting while a TMA store still reads its shared memory: no
    /// wait (`cp.async.bulk.wait_group.read`) covered the store's bulk group.
    StoreOutlivesBlock,
    /// `E0410`: more thread-instructions than the launch may run.
    Budget {
        /// The budget.
        instructions: u64,
    },
    /// `E0416`: a thread loops on memory that nothing can change any more: an iteration
    /// left its loop's values as they were (or as an earlier one since the last write
    /// left them) and wrote nothing, and since then no thread
    /// of its cluster wrote, arrived or moved.
    Spin,
    /// `E0417`: two threads arrive at one named barrier in one round with different
    /// thread counts.
    NamedBarrierCount {
        /// This thread's count.
        count: u32,
        /// The id.
        id: u32,
        /// The count of the round's first arrival.
        other_count: u32,
        /// Its thread.
        other: [u32; 3],
        /// Its instruction.
        other_span: Span,
    },
    /// `E0418`: a wgmma issued by a thread that has not executed `wgmma.fence` (the PTX
    /// ISA requires one before a warpgroup's first wgmma).
    UnfencedWgmma,
    /// `E0419`: a wgmma reading a register (its A fragment or accumulator) that its
    /// thread wrote after its last `wgmma.fence` (the PTX ISA requires the fence between
    /// a thread's register accesses and a wgmma using them).
    UnfencedRegister {
        /// The instruction that wrote the register.
        write: Span,
    },
    /// A launch in which no thread can make progress: the fault at the thread that
    /// shows why (`cause`, whose code the hang keeps), and every group of threads that
    /// waits.
    Hang {
        /// What keeps the first stuck thread waiting.
        cause: Box<FaultKind>,
        /// Each group of waiting threads, in block then thread order.
        waiting: Vec<Waiting>,
    },
    /// `E0423`: a cross-device race: a global access conflicting with one by a thread of
    /// another rank (one of them a write) that no release and acquire at system scope
    /// (and the blocks' barriers) order ([`crate::system`]).
    CrossRankRace {
        /// What this thread does.
        access: Access,
        /// The word's address.
        address: u64,
        /// Whether the other access wrote.
        other_write: bool,
        /// The other thread's rank.
        other_rank: u32,
        /// The other thread (`thread_idx`) and its block (`block_idx`).
        other: Location,
        /// The other thread's instruction.
        other_span: Span,
    },
    /// `E0429`: a data race in global memory: an access conflicting with one by a
    /// thread of another block of the launch (one of them a write, not both atomic)
    /// that no release and acquire (nor a cluster barrier) order (`grid_order.rs`).
    GlobalRace {
        /// What this thread does.
        access: Access,
        /// The word's address.
        address: u64,
        /// What the other thread did there.
        other_access: Access,
        /// The other thread (`thread_idx`) and its block (`block_idx`).
        other: Location,
        /// The other thread's instruction.
        other_span: Span,
    },
    /// `E0429`: an atomic write of one block ordered after another block's add that was
    /// still in flight when that order was made (a TMA reduce-add not waited for before
    /// the release the first block acquired): the GPU may apply the two in either order.
    UnsettledAdd {
        /// The word's address.
        address: u64,
        /// The other thread (`thread_idx`) and its block (`block_idx`).
        other: Location,
        /// The other thread's add.
        other_span: Span,
    },
    /// A fault on rank `rank` of a launch on `world` ranks ([`crate::run_ranks`]).
    OnRank {
        /// The rank.
        rank: u32,
        /// How many ranks run the kernel.
        world: u32,
        /// What went wrong there.
        fault: Box<FaultKind>,
    },
}

/// Consecutive threads of a block waiting at one instruction for one thing, when no
/// thread can make progress.
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    /// `block_idx`.
    pub block: [u32; 3],
    /// The first and last thread (linear indices in the block).
    pub threads: (u32, u32),
    /// The instruction they wait at.
    pub span: Span,
    /// What they wait for: the barrier and its phase, parity or count.
    pub what: String,
}

impl FaultKind {
    /// What shows why: a hang's cause, else the fault itself.
    pub fn cause(&self) -> &FaultKind {
        match self {
            FaultKind::Hang { cause, .. } => cause,
            FaultKind::OnRank { fault, .. } => fault.cause(),
            other => other,
        }
    }

    /// The diagnostic code.
    pub fn code(&self) -> &'static str {
        match self {
            FaultKind::GlobalOutOfBounds { .. } => "E0401",
            FaultKind::SharedOutOfBounds { .. } => "E0402",
            FaultKind::Misaligned { .. } => "E0403",
            FaultKind::Race { .. } => "E0404",
            FaultKind::Uninitialized { .. } => "E0405",
            FaultKind::BarrierNotReached { .. } => "E0406",
            FaultKind::PartialWarp { .. }
            | FaultKind::MissingLane { .. }
            | FaultKind::IncompleteWarp { .. } => "E0407",
            FaultKind::UnmodeledAtom { .. } => "E0408",
            FaultKind::Unsupported(_) => "E0409",
            FaultKind::Budget { .. } => "E0410",
            FaultKind::Mbarrier(_) => "E0411",
            FaultKind::Cluster(_) => "E0412",
            FaultKind::Tmem(_) => "E0413",
            FaultKind::StoreOutlivesBlock => "E0414",
            FaultKind::Early { .. } => "E0415",
            FaultKind::Spin => "E0416",
            FaultKind::NamedBarrierCount { .. } => "E0417",
            FaultKind::UnfencedWgmma => "E0418",
            FaultKind::UnfencedRegister { .. } => "E0419",
            FaultKind::Hang { cause, .. } => cause.code(),
            FaultKind::CrossRankRace { .. } => "E0423",
            FaultKind::GlobalRace { .. } | FaultKind::UnsettledAdd { .. } => "E0429",
            FaultKind::OnRank { fault, .. } => fault.code(),
        }
    }
}

/// A fault inside a thread, before the block adds the coordinates of the threads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Trap {
    /// Anything but a race.
    Fault(FaultKind),
    /// A race with another thread of the block (a linear index).
    Race {
        /// What this thread does.
        access: Access,
        /// The byte.
        address: u32,
        /// The other thread's linear index.
        other_thread: u32,
        /// The other thread's instruction.
        other_span: Span,
        /// What it did.
        other_access: Access,
    },
    /// Data an asynchronous operation of a thread of the block (a linear index) has not
    /// handed over yet ([`FaultKind::Early`]).
    Early {
        /// What this thread does.
        access: Access,
        /// The shared byte (0 for a register, lane << 16 | column in tensor memory).
        address: u32,
        /// What was pending.
        pending: Pending,
        /// The issuing thread's linear index.
        other_thread: u32,
        /// The asynchronous operation.
        other_span: Span,
    },
}
