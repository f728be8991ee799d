//! Hardware instructions as typed data: an [`Intrinsic`] is one instruction with its
//! parameters (a barrier's thread count, the registers `setmaxnreg` sets), carried by
//! [`crate::Op::Intrinsic`] with its operands. What each is, is said once, by its
//! static [`Row`] ([`rows`]): its operands' roles and types, its results, the threads
//! that execute it together, whether they must be converged, what memory it reads and
//! writes, the least target that has it, and its name in KIR's text form. The text
//! printer and reader, the verifier and the analyses (uniformity) read the rows, not a
//! PTX spelling; the PTX text lives in `backend-ptx/src/intrinsics.rs` alone, and the
//! emulator matches the enum.
//!
//! A row's *numbers* are the instruction's integer parameters, in text
//! `name=value` after its name: [`Intrinsic::numbers`] lists them in the row's order,
//! and the row's `build` makes the instruction back from them (refusing values the
//! hardware has no form for), which is how the reader and [`Intrinsic::check`] work for
//! every row alike. A tcgen05 instruction's `cta_group` (1, a block's; 2, a CTA
//! pair's) is one of its numbers.

mod check;
mod rows;

pub use check::RowMismatch;
pub use rows::ROWS;

use crate::ir::{Space, Ty};

/// A hardware instruction and its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    /// `setmaxnreg`: the warpgroup's threads take (`increase`) or keep (else) `registers`
    /// registers each (24 to 256, a multiple of 8).
    SetMaxNReg {
        /// Whether it raises the count (waiting for the registers).
        increase: bool,
        /// The new count per thread.
        registers: u32,
    },
    /// A memory fence.
    Fence(Fence),
    /// A named barrier of the block (`bar.sync`/`bar.arrive id, threads`): `threads`
    /// (whole warps) arrive, the waiting ones until all have.
    NamedBarrier {
        /// Whether the thread only arrives (else it waits too).
        arrive: bool,
        /// The barrier (0 to 15) when a constant names it; else its `id` operand does.
        id: Option<u32>,
        /// How many threads arrive in a round.
        threads: u32,
    },
    /// `mbarrier.init`: the barrier at `bar` expects `count` arrivals a phase.
    MbarrierInit,
    /// `mbarrier.arrive`: one arrival on the barrier at `bar`.
    MbarrierArrive,
    /// `mbarrier.arrive.expect_tx`: `bytes` more transaction bytes, then one arrival.
    MbarrierArriveExpectTx,
    /// One arrival on the barrier at `bar`'s place in block `cta` of the cluster
    /// (`mapa`, then `mbarrier.arrive.shared::cluster`).
    MbarrierArriveCluster,
    /// `mbarrier.try_wait.parity` until the phase of parity `parity` has completed.
    MbarrierWait,
    /// `barrier.cluster.arrive.release`: the thread arrives at the cluster barrier.
    ClusterArrive,
    /// `barrier.cluster.wait.acquire`: the thread waits until every thread of the
    /// cluster has arrived.
    ClusterWait,
    /// `cp.async.bulk.commit_group`: the thread's bulk copies (TMA stores) since its
    /// last commit form a group.
    BulkCommit,
    /// `cp.async.bulk.wait_group`: waits until at most `pending` of the thread's bulk
    /// groups are incomplete; with `read`, until they have only read their sources.
    BulkWait {
        /// Whether reading the sources is enough (`.read`).
        read: bool,
        /// The groups that may still be pending.
        pending: u32,
    },
    /// `prefetch.tensormap`: the tensor map at generic address `map` into the cache.
    PrefetchTensorMap,
    /// `elect.sync` over the whole warp: a pred, true in one lane (the same one each
    /// time; which one the PTX ISA leaves to the hardware) and false in the others.
    Elect,
    /// `cp.async.bulk.tensor` from global into shared memory: the `rank`-dimensional box
    /// at the coordinates (`coords`, innermost first) of the tensor map `map` lands at
    /// `dst`, its bytes completing on the mbarrier at `bar`.
    TmaLoad {
        /// The box's dimensions, 1 to 5.
        rank: u32,
        /// How far it goes.
        reach: TmaReach,
    },
    /// `cp.async.bulk.tensor` from shared into global memory: the tile at `src` to the
    /// box at `coords` of the tensor map `map`, in the thread's next bulk group.
    TmaStore {
        /// The box's dimensions, 1 to 5.
        rank: u32,
    },
    /// `tcgen05.fence::before_thread_sync` (else `::after_thread_sync`): the thread's
    /// tcgen05 operations ordered before its next thread synchronization (after its
    /// last).
    Tcgen05Fence {
        /// Whether it orders them after the synchronization.
        after: bool,
    },
    /// `tcgen05.wait::ld` (else `::st`): the warp's tensor-memory loads have completed,
    /// their registers valid (its stores have).
    Tcgen05Wait {
        /// Whether it waits for stores.
        store: bool,
    },
    /// `tcgen05.commit`: one arrival on the mbarrier at `bar` once the thread's earlier
    /// tcgen05 operations have completed; with `multicast`, on the barrier at that
    /// offset in each block of the cluster in the 16-bit mask `mask`.
    Tcgen05Commit {
        /// Whether it is a CTA pair's (`cta_group::2`).
        pair: bool,
        /// Whether it arrives in the blocks of `mask`.
        multicast: bool,
    },
    /// `tcgen05.alloc`: the warp allocates `columns` columns of tensor memory (a power
    /// of two, 32 to 512), writing their address to the shared `slot`.
    TmemAlloc {
        /// The columns.
        columns: u32,
        /// Whether it is a CTA pair's (`cta_group::2`).
        pair: bool,
    },
    /// `tcgen05.dealloc`: the warp frees the `columns` columns at `taddr`.
    TmemDealloc {
        /// The columns.
        columns: u32,
        /// Whether it is a CTA pair's (`cta_group::2`).
        pair: bool,
    },
    /// `tcgen05.relinquish_alloc_permit`: the block (or the pair) allocates no more
    /// tensor memory.
    TmemRelinquish {
        /// Whether it is a CTA pair's (`cta_group::2`).
        pair: bool,
    },
}

/// A tcgen05 instruction's `cta_group` number: 1 for a block's, 2 for a CTA pair's.
fn cta_group(pair: bool) -> u32 {
    if pair { 2 } else { 1 }
}

/// Where a TMA load's box lands and completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaReach {
    /// In this block, on its barrier at `bar`.
    Block,
    /// In every block of the cluster in the 16-bit mask `mask`, at the same offset,
    /// each completing on its barrier at `bar`'s offset.
    Multicast,
    /// A CTA pair's (`.cta_group::2`, sm_100a): in this block, completing on the
    /// barrier at `bar`'s place (a plain register) in the pair's even block.
    Pair,
}

/// What a fence orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fence {
    /// `fence.proxy.async.shared::cta`: the thread's generic-proxy writes to shared
    /// memory before it, visible to the asynchronous proxy (TMA, wgmma) after it.
    ProxyAsync,
    /// `fence.mbarrier_init.release.cluster`: the thread's mbarrier inits visible to
    /// the cluster and the asynchronous proxy.
    BarrierInit,
}

/// The static description of one kind of [`Intrinsic`].
#[derive(Debug)]
pub struct Row {
    /// The name in KIR's text form.
    pub name: &'static str,
    /// The names of its integer parameters, in [`Intrinsic::numbers`]' order.
    pub numbers: &'static [&'static str],
    /// Its operands, in order.
    pub operands: &'static [Role],
    /// Then as many operands of this role as [`Intrinsic::list_len`] says (a TMA's
    /// coordinates, one per dimension).
    pub list: Option<Role>,
    /// The types of its results.
    pub results: &'static [Ty],
    /// The threads that execute it together.
    pub scope: Scope,
    /// Whether every thread of its scope (at least of its warp) must execute it
    /// converged: under control that may differ within the scope it is an error.
    pub convergent: bool,
    /// What it does to memory.
    pub effects: Effects,
    /// The least target that has it.
    pub target: Target,
    /// Makes the instruction from its numbers, if they are a form the hardware has.
    pub build: fn(&[u32]) -> Option<Intrinsic>,
}

/// An operand's name (for the text form and readers) and what it must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Role {
    /// Its name.
    pub name: &'static str,
    /// What it is.
    pub kind: RoleKind,
}

/// What an operand must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoleKind {
    /// An address in this space (a register of its address type), with a byte offset
    /// folded into the instruction.
    Address(Space),
    /// A value of this type, in a register; no offset.
    Value(Ty),
}

/// Which threads execute an instruction together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Each thread on its own.
    Thread,
    /// The threads of a warp.
    Warp,
    /// The four warps of a warpgroup.
    Warpgroup,
    /// Threads of the block (a named barrier's count of them).
    Block,
    /// The threads of every block of the cluster.
    Cluster,
    /// Every thread of the grid and the host.
    System,
}

impl Scope {
    /// Its name in words (`"warpgroup"`).
    pub fn name(self) -> &'static str {
        match self {
            Scope::Thread => "thread",
            Scope::Warp => "warp",
            Scope::Warpgroup => "warpgroup",
            Scope::Block => "block",
            Scope::Cluster => "cluster",
            Scope::System => "system",
        }
    }
}

/// What an instruction does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    /// The spaces it reads.
    pub reads: &'static [Space],
    /// The spaces it writes.
    pub writes: &'static [Space],
    /// Whether it involves the asynchronous proxy (TMA, wgmma, tcgen05).
    pub async_proxy: bool,
    /// Whether it orders other threads' or proxies' memory accesses (a fence or a
    /// barrier): no access moves across it.
    pub orders: bool,
}

/// The least target an instruction needs: `sm_{sm}`, with `a` when `arch_specific`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The compute capability times ten (90: sm_90).
    pub sm: u32,
    /// Whether only the architecture-specific target has it (sm_90a, not sm_90).
    pub arch_specific: bool,
}

impl Intrinsic {
    /// Its row.
    pub fn row(&self) -> &'static Row {
        let index = match self {
            Intrinsic::SetMaxNReg { increase: true, .. } => rows::SETMAXNREG_INC,
            Intrinsic::SetMaxNReg { .. } => rows::SETMAXNREG_DEC,
            Intrinsic::Fence(Fence::ProxyAsync) => rows::FENCE_PROXY_ASYNC,
            Intrinsic::Fence(Fence::BarrierInit) => rows::FENCE_BARRIER_INIT,
            Intrinsic::NamedBarrier {
                arrive: false,
                id: Some(_),
                ..
            } => rows::NAMED_BARRIER_SYNC,
            Intrinsic::NamedBarrier {
                arrive: true,
                id: Some(_),
                ..
            } => rows::NAMED_BARRIER_ARRIVE,
            Intrinsic::NamedBarrier { arrive: false, .. } => rows::NAMED_BARRIER_SYNC_AT,
            Intrinsic::NamedBarrier { .. } => rows::NAMED_BARRIER_ARRIVE_AT,
            Intrinsic::MbarrierInit => rows::MBARRIER_INIT,
            Intrinsic::MbarrierArrive => rows::MBARRIER_ARRIVE,
            Intrinsic::MbarrierArriveExpectTx => rows::MBARRIER_ARRIVE_EXPECT_TX,
            Intrinsic::MbarrierArriveCluster => rows::MBARRIER_ARRIVE_CLUSTER,
            Intrinsic::MbarrierWait => rows::MBARRIER_WAIT,
            Intrinsic::ClusterArrive => rows::CLUSTER_ARRIVE,
            Intrinsic::ClusterWait => rows::CLUSTER_WAIT,
            Intrinsic::BulkCommit => rows::BULK_COMMIT,
            Intrinsic::BulkWait { read: true, .. } => rows::BULK_WAIT_READ,
            Intrinsic::BulkWait { .. } => rows::BULK_WAIT,
            Intrinsic::PrefetchTensorMap => rows::PREFETCH_TENSOR_MAP,
            Intrinsic::Elect => rows::ELECT,
            Intrinsic::TmaLoad {
                reach: TmaReach::Block,
                ..
            } => rows::TMA_LOAD,
            Intrinsic::TmaLoad {
                reach: TmaReach::Multicast,
                ..
            } => rows::TMA_LOAD_MULTICAST,
            Intrinsic::TmaLoad { .. } => rows::TMA_LOAD_PAIR,
            Intrinsic::TmaStore { .. } => rows::TMA_STORE,
            Intrinsic::Tcgen05Fence { after: false } => rows::TCGEN05_FENCE_BEFORE,
            Intrinsic::Tcgen05Fence { after: true } => rows::TCGEN05_FENCE_AFTER,
            Intrinsic::Tcgen05Wait { store: false } => rows::TCGEN05_WAIT_LD,
            Intrinsic::Tcgen05Wait { store: true } => rows::TCGEN05_WAIT_ST,
            Intrinsic::Tcgen05Commit {
                multicast: false, ..
            } => rows::TCGEN05_COMMIT,
            Intrinsic::Tcgen05Commit { .. } => rows::TCGEN05_COMMIT_MULTICAST,
            Intrinsic::TmemAlloc { .. } => rows::TMEM_ALLOC,
            Intrinsic::TmemDealloc { .. } => rows::TMEM_DEALLOC,
            Intrinsic::TmemRelinquish { .. } => rows::TMEM_RELINQUISH,
        };
        &ROWS[index]
    }

    /// Its integer parameters, in its row's order of [`Row::numbers`].
    pub fn numbers(&self) -> Vec<u32> {
        match *self {
            Intrinsic::SetMaxNReg { registers, .. } => vec![registers],
            Intrinsic::NamedBarrier {
                id: Some(id),
                threads,
                ..
            } => vec![id, threads],
            Intrinsic::NamedBarrier { threads, .. } => vec![threads],
            Intrinsic::BulkWait { pending, .. } => vec![pending],
            Intrinsic::TmaLoad { rank, .. } | Intrinsic::TmaStore { rank } => vec![rank],
            Intrinsic::TmemAlloc { columns, pair } | Intrinsic::TmemDealloc { columns, pair } => {
                vec![columns, cta_group(pair)]
            }
            Intrinsic::Tcgen05Commit { pair, .. } | Intrinsic::TmemRelinquish { pair } => {
                vec![cta_group(pair)]
            }
            _ => Vec::new(),
        }
    }

    /// How many operands of its row's [`Row::list`] role follow the fixed ones.
    pub fn list_len(&self) -> usize {
        match *self {
            Intrinsic::TmaLoad { rank, .. } | Intrinsic::TmaStore { rank } => rank as usize,
            _ => 0,
        }
    }

    /// How many operands it takes.
    pub fn operand_count(&self) -> usize {
        self.row().operands.len() + self.list_len()
    }

    /// The role of its operand `index`, if it has that many.
    pub fn role(&self, index: usize) -> Option<&'static Role> {
        let row = self.row();
        match row.operands.get(index) {
            Some(role) => Some(role),
            None if index < self.operand_count() => row.list.as_ref(),
            None => None,
        }
    }

    /// The row named `name` in the text form, if one is.
    pub fn row_named(name: &str) -> Option<&'static Row> {
        ROWS.iter().find(|row| row.name == name)
    }

    /// Whether its parameters are a form the hardware has (its row builds it back).
    pub fn is_valid(&self) -> bool {
        (self.row().build)(&self.numbers()) == Some(*self)
    }

    /// The index of its operand named `name` in its row, if it has one.
    pub fn operand_index(&self, name: &str) -> Option<usize> {
        self.row()
            .operands
            .iter()
            .position(|role| role.name == name)
    }
}
