//! The words for asynchronous data used before it is handed over (`E0415`): what the
//! other side did, and what to do about it.

use super::Pending;

impl Pending {
    /// What the other side is, for the secondary label.
    pub(super) fn issued(self) -> &'static str {
        match self {
            Pending::TmaInFlight | Pending::TmaUnobserved | Pending::TmaOverwrite => {
                "loads it with TMA here"
            }
            Pending::WgmmaAccumulator => "issues the wgmma that writes it here",
            Pending::TmemAccumulator => "issues the tcgen05.mma that writes it here",
            Pending::ProxyFence => "writes it here, with no `fence_proxy_async()` after",
            Pending::WarpgroupBarrier => "writes it here, with no barrier before the wgmma",
        }
    }

    pub(super) fn help(self) -> &'static str {
        match self {
            Pending::TmaInFlight | Pending::TmaUnobserved => {
                "a TMA load's bytes belong to the program only once its mbarrier phase completes and the thread's `mbarrier_wait` on that phase returns (or a barrier orders it after a thread whose wait did): wait on the barrier before touching the tile"
            }
            Pending::TmaOverwrite => {
                "a stage of a pipeline is loaded again only after the threads that read it released it: the producer waits on the stage's `empty` barrier (`producer_acquire`), which the consumers arrive on once done"
            }
            Pending::ProxyFence => {
                "TMA, wgmma and tcgen05.mma read shared memory through the asynchronous proxy, which sees a thread's ordinary writes only after that thread's `fence_proxy_async()`: fence after writing, then synchronize (`syncthreads()`) before the asynchronous read"
            }
            Pending::WarpgroupBarrier => {
                "each warp of a warpgroup issues a wgmma on its own (`.sync` waits for the warp only), and the wgmma reads its shared operands for all four: the threads that write an operand fence (`fence_proxy_async()`) and then meet the warpgroup at a barrier (`named_barrier_sync(id, 128)`, `syncthreads()`) before it"
            }
            Pending::TmemAccumulator => {
                "a tcgen05.mma writes its tensor-memory accumulator asynchronously: the issuing thread's `tcgen05_commit(bar, ...)` after it, then `mbarrier_wait` on that phase of `bar` (and `tcgen05_fence_after_thread_sync()`) in the thread that touches it, or in a thread a barrier orders it after"
            }
            Pending::WgmmaAccumulator => {
                "a wgmma writes its accumulators asynchronously: `wgmma_commit_group()` then `wgmma_wait_group(n)` with n no more than the groups issued after this one, before reading them"
            }
        }
    }
}
