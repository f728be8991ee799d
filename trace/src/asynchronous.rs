//! The operations of Hopper's and Blackwell's asynchronous machinery that effects name:
//! mbarrier operations, tensor-memory allocation, and where a tcgen05 MMA reads its A
//! operand. (Operand-free instructions are `kir::Intrinsic`s in the trace.)

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
