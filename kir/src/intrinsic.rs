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
mod params;
mod row;
mod rows;

pub use check::RowMismatch;
pub use params::{Fence, MemoryScope, MmaKind, Ordered, TmaReach, TmemShape};
pub use row::{Effects, Role, RoleKind, Row, Scope, Target};
pub use rows::ROWS;

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
    /// A load of the 32-bit word at the shared address `addr` in block `cta` of the
    /// cluster (distributed shared memory: `mapa`, then `ld.shared::cluster`), its one
    /// result.
    ClusterLoad,
    /// A store of the 32-bit `value` at the shared address `addr` in block `cta` of the
    /// cluster (`mapa`, then `st.shared::cluster`).
    ClusterStore,
    /// An atomic add of the 32-bit `value` to the word at the shared address `addr` in
    /// block `cta` of the cluster, its old value unread (`mapa`, then
    /// `red.shared::cluster.add`).
    ClusterAdd {
        /// Whether the word is an f32 (else an integer: the same bits for i32 and u32).
        float: bool,
    },
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
    /// box at `coords` of the tensor map `map`, in the thread's next bulk group; with
    /// `add`, `cp.reduce.async.bulk.tensor .add`, each element added to the one in global
    /// memory atomically.
    TmaStore {
        /// The box's dimensions, 1 to 5.
        rank: u32,
        /// Whether it adds to global memory rather than overwriting it.
        add: bool,
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
    /// `wgmma.fence`: the warpgroup's register writes so far (accumulators, A's
    /// registers) ordered before its next wgmma.
    WgmmaFence,
    /// `wgmma.commit_group`: the warpgroup's wgmmas since its last commit form a group.
    WgmmaCommit,
    /// `wgmma.wait_group`: waits until at most `pending` of the warpgroup's wgmma groups
    /// are incomplete (their accumulators written, their shared operands read).
    WgmmaWait {
        /// The groups that may still be pending.
        pending: u32,
    },
    /// `tcgen05.mma` of `kind`, by one thread: D in tensor memory at `taddr` is
    /// `A Bᵀ`, plus D when `accumulate` is nonzero; B through the shared-memory
    /// descriptor `desc_b`, A through `desc_a` or (`a_in_tmem`) at `a_taddr` in tensor
    /// memory; `idesc` the instruction descriptor (shape, types, majorness).
    Tcgen05Mma {
        /// What it multiplies.
        kind: MmaKind,
        /// Whether it is a CTA pair's (`cta_group::2`, M twice one block's).
        pair: bool,
        /// Whether A is in tensor memory (else shared memory).
        a_in_tmem: bool,
    },
    /// `tcgen05.ld`: the warp loads `repetitions` of `shape` from tensor memory at
    /// `taddr` into each thread's registers (its results), valid after
    /// `tcgen05.wait::ld`.
    TmemLoad {
        /// What one repetition moves.
        shape: TmemShape,
        /// The repetitions (`.xN`, a power of two).
        repetitions: u32,
    },
    /// `tcgen05.st`: the warp stores each thread's registers (the `words` operands) as
    /// `repetitions` of `shape` to tensor memory at `taddr`.
    TmemStore {
        /// What one repetition moves.
        shape: TmemShape,
        /// The repetitions (`.xN`, a power of two).
        repetitions: u32,
    },
    /// An ordered access to the 32-bit global word at `addr` (`ld.acquire.sys.global`,
    /// `st.release.gpu.global`, `red.release.sys.global.add`, `atom.acq_rel.sys.global.add`):
    /// a store or add of the `value` operand, and for a load or a fetching add, the word
    /// read as its one result.
    Ordered {
        /// What it does and its order.
        access: Ordered,
        /// The threads it synchronizes with.
        scope: MemoryScope,
    },
}

/// A tcgen05 instruction's `cta_group` number: 1 for a block's, 2 for a CTA pair's.
fn cta_group(pair: bool) -> u32 {
    if pair { 2 } else { 1 }
}

impl Intrinsic {
    /// Its row.
    pub fn row(&self) -> &'static Row {
        let index = match self {
            Intrinsic::SetMaxNReg { increase: true, .. } => rows::SETMAXNREG_INC,
            Intrinsic::SetMaxNReg { .. } => rows::SETMAXNREG_DEC,
            Intrinsic::Fence(Fence::ProxyAsync) => rows::FENCE_PROXY_ASYNC,
            Intrinsic::Fence(Fence::BarrierInit) => rows::FENCE_BARRIER_INIT,
            Intrinsic::Fence(Fence::Device) => rows::FENCE_DEVICE,
            Intrinsic::Fence(Fence::System) => rows::FENCE_SYSTEM,
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
            Intrinsic::ClusterLoad => rows::CLUSTER_LOAD,
            Intrinsic::ClusterStore => rows::CLUSTER_STORE,
            Intrinsic::ClusterAdd { float: true } => rows::CLUSTER_ADD_F32,
            Intrinsic::ClusterAdd { float: false } => rows::CLUSTER_ADD_U32,
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
            Intrinsic::TmaStore { add: false, .. } => rows::TMA_STORE,
            Intrinsic::TmaStore { add: true, .. } => rows::TMA_REDUCE_ADD,
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
            Intrinsic::WgmmaFence => rows::WGMMA_FENCE,
            Intrinsic::WgmmaCommit => rows::WGMMA_COMMIT,
            Intrinsic::WgmmaWait { .. } => rows::WGMMA_WAIT,
            Intrinsic::Tcgen05Mma {
                kind, a_in_tmem, ..
            } => rows::tcgen05_mma(*kind, *a_in_tmem),
            Intrinsic::TmemLoad { .. } => rows::TMEM_LOAD,
            Intrinsic::TmemStore { .. } => rows::TMEM_STORE,
            Intrinsic::Ordered { access, scope } => rows::ordered(*access, *scope),
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
            Intrinsic::BulkWait { pending, .. } | Intrinsic::WgmmaWait { pending } => vec![pending],
            Intrinsic::TmaLoad { rank, .. } | Intrinsic::TmaStore { rank, .. } => vec![rank],
            Intrinsic::TmemAlloc { columns, pair } | Intrinsic::TmemDealloc { columns, pair } => {
                vec![columns, cta_group(pair)]
            }
            Intrinsic::Tcgen05Commit { pair, .. }
            | Intrinsic::TmemRelinquish { pair }
            | Intrinsic::Tcgen05Mma { pair, .. } => vec![cta_group(pair)],
            Intrinsic::TmemLoad { shape, repetitions }
            | Intrinsic::TmemStore { shape, repetitions } => {
                vec![shape.lanes(), shape.bits(), repetitions]
            }
            _ => Vec::new(),
        }
    }

    /// How many operands of its row's [`Row::list`] role follow the fixed ones (and
    /// how many results its [`Row::result_words`] are).
    pub fn list_len(&self) -> usize {
        match *self {
            Intrinsic::TmaLoad { rank, .. } | Intrinsic::TmaStore { rank, .. } => rank as usize,
            Intrinsic::TmemLoad { shape, repetitions }
            | Intrinsic::TmemStore { shape, repetitions } => {
                (shape.registers() * repetitions) as usize
            }
            Intrinsic::Ordered { access, .. } => usize::from(access.returns()),
            Intrinsic::ClusterLoad => 1,
            _ => 0,
        }
    }

    /// How many operands it takes.
    pub fn operand_count(&self) -> usize {
        let row = self.row();
        let list = if row.list.is_some() {
            self.list_len()
        } else {
            0
        };
        row.operands.len() + list
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

    /// Its name and numbers as KIR's text form writes them: `wgmma_wait pending=1`.
    pub fn heading(&self) -> String {
        let row = self.row();
        let numbers = (row.numbers.iter().zip(self.numbers()))
            .map(|(name, value)| format!(" {name}={value}"));
        std::iter::once(row.name.to_owned())
            .chain(numbers)
            .collect()
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
