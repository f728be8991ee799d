//! The operations of Hopper's and Blackwell's asynchronous machinery that effects name:
//! mbarrier operations, operand-free fences and group instructions, tensor-memory
//! allocation, and where a tcgen05 MMA reads its A operand.

use std::sync::Arc;

use cute::Tensor;
use layout::SymInt;

use crate::Term;

/// What an mbarrier operation does to the 8-byte barrier it names (sm_90).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mbarrier {
    /// `mbarrier_init`: one thread sets the arrival count (the operand); phase 0.
    Init,
    /// `mbarrier_arrive`: one arrival.
    Arrive,
    /// `mbarrier_arrive(..., cta = rank)`: one arrival on the barrier at the same place
    /// in block `rank` (the operand) of the cluster.
    ArriveCluster,
    /// `mbarrier_arrive_expect_tx`: the transaction bytes (the operand) to expect,
    /// then one arrival.
    ArriveExpectTx,
    /// `mbarrier_wait`: waits until the phase of the operand's parity has completed.
    Wait,
    /// `tcgen05_commit`: one arrival once the thread's earlier tcgen05 operations
    /// (MMAs) have completed (sm_100a); with an operand, on the barrier at the same
    /// place in each block of the cluster in that 16-bit mask.
    Tcgen05Commit {
        /// Whether it is a CTA pair's (`cta_group::2`).
        pair: bool,
    },
}

/// An instruction of Hopper's asynchronous machinery without operands (sm_90).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncSync {
    /// `fence_barrier_init()`: mbarrier inits visible to the async proxy and the cluster.
    FenceBarrierInit,
    /// `fence_proxy_async()`: this thread's shared-memory writes visible to the async
    /// proxy (TMA stores, wgmma operands).
    FenceProxyAsync,
    /// `wgmma_fence()`: orders register accesses before the next wgmma.
    WgmmaFence,
    /// `wgmma_commit_group()`: the wgmmas issued since the last commit form a group.
    WgmmaCommit,
    /// `wgmma_wait_group(n)`: waits until at most `n` wgmma groups are in flight.
    WgmmaWait(i64),
    /// `setmaxnreg_inc(n)` / `setmaxnreg_dec(n)`: the warpgroup's registers per thread.
    SetMaxNReg {
        /// Whether it raises the count (else lowers it).
        increase: bool,
        /// The new count.
        registers: i64,
    },
    /// `tma_store_commit_group()`: the thread's TMA stores since the last commit form a
    /// bulk group.
    BulkCommit,
    /// `tma_store_wait_group(n)`: waits until at most `n` bulk groups still read
    /// shared memory (`.read`: their sources may be reused).
    BulkWaitRead(i64),
    /// `tma_store_wait_all()`: waits until every bulk group has completed, its writes
    /// visible in global memory.
    BulkWaitAll,
    /// `cluster_arrive()`: the thread arrives at the cluster barrier (release).
    ClusterArrive,
    /// `cluster_wait()`: waits until every thread of the cluster has arrived (acquire).
    ClusterWait,
    /// `tcgen05_fence_before_thread_sync()`: the thread's tcgen05 operations ordered
    /// before the next thread synchronization (sm_100a).
    Tcgen05FenceBefore,
    /// `tcgen05_fence_after_thread_sync()`: the thread's tcgen05 operations ordered
    /// after the last thread synchronization (sm_100a).
    Tcgen05FenceAfter,
    /// `tcgen05_wait_ld()`: the warp's tensor-memory loads have completed (sm_100a).
    Tcgen05WaitLd,
    /// `tcgen05_wait_st()`: the warp's tensor-memory stores have completed (sm_100a).
    Tcgen05WaitSt,
    /// `tmem_relinquish_alloc_permit()`: the block allocates no more tensor memory.
    TmemRelinquish {
        /// Whether it is a CTA pair's (`cta_group::2`).
        pair: bool,
    },
}

/// What a tensor-memory allocation instruction does (sm_100a, a whole warp).
#[derive(Clone, Debug, PartialEq)]
pub enum Tmem {
    /// `tmem_alloc(slots, coord, columns)`: allocates the columns and writes their
    /// address to the shared `u32` at this layout value of `slot`.
    Alloc {
        /// The shared tensor the address goes to.
        slot: Arc<Tensor>,
        /// The layout's value of its element.
        index: SymInt,
    },
    /// `tmem_dealloc(address, columns)`: frees the columns at this address.
    Dealloc {
        /// The address (an integer).
        address: Arc<Term>,
    },
}

/// Where a tcgen05 MMA reads A (sm_100a).
#[derive(Clone, Debug, PartialEq)]
pub enum UmmaA {
    /// A shared `(M, K)` tile, through a descriptor the compiler computes.
    Shared(Arc<Tensor>),
    /// Tensor memory at this address (an integer): row m in lane `lane + m`, its K
    /// elements packed into consecutive 32-bit columns from `column`, first in the low
    /// bits; the element type is B's.
    Tmem(Arc<Term>),
}
