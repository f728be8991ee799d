//! The rows: one static description of each kind of [`Intrinsic`], and the index of
//! each in [`ROWS`] that [`Intrinsic::row`] picks. Facts are the PTX ISA's (the
//! instruction's section: its scope, `.aligned` meaning converged, its target
//! requirement).

mod ordered;
mod tcgen05;
mod tma;
mod wgmma;

use super::{
    Effects, Fence, Intrinsic, MemoryScope, MmaKind, Ordered, Role, RoleKind, Row, Scope, Target,
};
use crate::ir::{Space, Ty};

pub(super) const SETMAXNREG_INC: usize = 0;
pub(super) const SETMAXNREG_DEC: usize = 1;
pub(super) const FENCE_PROXY_ASYNC: usize = 2;
pub(super) const FENCE_BARRIER_INIT: usize = 3;
pub(super) const NAMED_BARRIER_SYNC: usize = 4;
pub(super) const NAMED_BARRIER_ARRIVE: usize = 5;
pub(super) const NAMED_BARRIER_SYNC_AT: usize = 6;
pub(super) const NAMED_BARRIER_ARRIVE_AT: usize = 7;
pub(super) const MBARRIER_INIT: usize = 8;
pub(super) const MBARRIER_ARRIVE: usize = 9;
pub(super) const MBARRIER_ARRIVE_EXPECT_TX: usize = 10;
pub(super) const MBARRIER_ARRIVE_CLUSTER: usize = 11;
pub(super) const MBARRIER_WAIT: usize = 12;
pub(super) const CLUSTER_ARRIVE: usize = 13;
pub(super) const CLUSTER_WAIT: usize = 14;
pub(super) const BULK_COMMIT: usize = 15;
pub(super) const BULK_WAIT_READ: usize = 16;
pub(super) const BULK_WAIT: usize = 17;
pub(super) const PREFETCH_TENSOR_MAP: usize = 18;
pub(super) const ELECT: usize = 19;
pub(super) const TMA_LOAD: usize = 20;
pub(super) const TMA_LOAD_MULTICAST: usize = 21;
pub(super) const TMA_LOAD_PAIR: usize = 22;
pub(super) const TMA_STORE: usize = 23;
pub(super) const TCGEN05_FENCE_BEFORE: usize = 24;
pub(super) const TCGEN05_FENCE_AFTER: usize = 25;
pub(super) const TCGEN05_WAIT_LD: usize = 26;
pub(super) const TCGEN05_WAIT_ST: usize = 27;
pub(super) const TCGEN05_COMMIT: usize = 28;
pub(super) const TCGEN05_COMMIT_MULTICAST: usize = 29;
pub(super) const TMEM_ALLOC: usize = 30;
pub(super) const TMEM_DEALLOC: usize = 31;
pub(super) const TMEM_RELINQUISH: usize = 32;
pub(super) const WGMMA_FENCE: usize = 33;
pub(super) const WGMMA_COMMIT: usize = 34;
pub(super) const WGMMA_WAIT: usize = 35;
pub(super) const TMEM_LOAD: usize = 36;
pub(super) const TMEM_STORE: usize = 37;
pub(super) const FENCE_DEVICE: usize = 38;
pub(super) const FENCE_SYSTEM: usize = 39;
pub(super) const TMA_REDUCE_ADD: usize = 62;
pub(super) const CLUSTER_LOAD: usize = 63;
pub(super) const CLUSTER_STORE: usize = 64;
pub(super) const CLUSTER_ADD_F32: usize = 65;
pub(super) const CLUSTER_ADD_U32: usize = 66;
/// The first of the six `tcgen05.mma` rows: by kind, A in shared then tensor memory.
const TCGEN05_MMA: usize = 40;

/// The index of the `tcgen05.mma` row of `kind` with A in tensor memory or shared.
pub(super) fn tcgen05_mma(kind: MmaKind, a_in_tmem: bool) -> usize {
    let kind = MmaKind::ALL.iter().position(|each| *each == kind);
    TCGEN05_MMA + 2 * kind.unwrap_or(0) + usize::from(a_in_tmem)
}

/// The first of the sixteen ordered-access rows ([`ordered::row`]): by access, then
/// by scope, narrowest first.
const ORDERED: usize = 46;

/// The index of the row of ordered `access` at `scope`.
pub(super) fn ordered(access: Ordered, scope: MemoryScope) -> usize {
    let access = Ordered::ALL.iter().position(|each| *each == access);
    let scope = MemoryScope::ALL.iter().position(|each| *each == scope);
    ORDERED + 4 * access.unwrap_or(0) + scope.unwrap_or(0)
}

const SM80: Target = Target {
    sm: 80,
    arch_specific: false,
};
const SM90: Target = Target {
    sm: 90,
    arch_specific: false,
};
const SM90A: Target = Target {
    sm: 90,
    arch_specific: true,
};
const SM100A: Target = Target {
    sm: 100,
    arch_specific: true,
};

/// Nothing read or written, nothing ordered.
const NO_EFFECTS: Effects = Effects {
    reads: &[],
    writes: &[],
    async_proxy: false,
    orders: false,
};
/// A barrier or fence: orders the memory accesses around it.
const ORDERS: Effects = Effects {
    orders: true,
    ..NO_EFFECTS
};
/// An mbarrier operation: reads and writes the barrier's shared word.
const MBARRIER: Effects = Effects {
    reads: &[Space::Shared],
    writes: &[Space::Shared],
    async_proxy: false,
    orders: true,
};

const BAR: Role = Role {
    name: "bar",
    kind: RoleKind::Address(Space::Shared),
};
const fn value(name: &'static str) -> Role {
    Role {
        name,
        kind: RoleKind::Value(Ty::I32),
    }
}

/// A row with no numbers, operands or results, executed by each thread on its own.
const fn plain(name: &'static str, build: fn(&[u32]) -> Option<Intrinsic>) -> Row {
    Row {
        name,
        numbers: &[],
        operands: &[],
        list: None,
        results: &[],
        result_words: false,
        scope: Scope::Thread,
        convergent: false,
        effects: NO_EFFECTS,
        target: SM90,
        build,
    }
}

/// A register count for the warpgroup: 24 to 256 registers, a multiple of 8.
fn max_registers(increase: bool, numbers: &[u32]) -> Option<Intrinsic> {
    match *numbers {
        [registers] if (24..=256).contains(&registers) && registers % 8 == 0 => {
            Some(Intrinsic::SetMaxNReg {
                increase,
                registers,
            })
        }
        _ => None,
    }
}

/// A named barrier: ids 0 to 15, a positive count of whole warps.
fn named_barrier(arrive: bool, numbers: &[u32]) -> Option<Intrinsic> {
    let (id, threads) = match *numbers {
        [id, threads] if id < 16 => (Some(id), threads),
        [threads] => (None, threads),
        _ => return None,
    };
    (threads > 0 && threads % 32 == 0).then_some(Intrinsic::NamedBarrier {
        arrive,
        id,
        threads,
    })
}

/// A named barrier's row.
const fn named_barrier_row(
    name: &'static str,
    numbers: &'static [&'static str],
    operands: &'static [Role],
    build: fn(&[u32]) -> Option<Intrinsic>,
) -> Row {
    Row {
        numbers,
        operands,
        scope: Scope::Block,
        convergent: true,
        effects: ORDERS,
        target: SM80,
        ..plain(name, build)
    }
}

/// An mbarrier operation's row on `operands`.
const fn mbarrier_row(
    name: &'static str,
    operands: &'static [Role],
    build: fn(&[u32]) -> Option<Intrinsic>,
) -> Row {
    Row {
        operands,
        effects: MBARRIER,
        ..plain(name, build)
    }
}

/// A distributed-shared-memory store's or add's operands: the word's address in this
/// block (`mapa` maps it), the block's rank, the value.
const CLUSTER_WORD: &[Role] = &[
    value("addr"),
    value("cta"),
    Role {
        name: "value",
        kind: RoleKind::Word,
    },
];

/// A distributed-shared-memory add's row: the word's address and block, the value;
/// it reads and writes the word.
const fn cluster_add(name: &'static str, build: fn(&[u32]) -> Option<Intrinsic>) -> Row {
    Row {
        operands: CLUSTER_WORD,
        effects: Effects {
            reads: &[Space::Shared],
            writes: &[Space::Shared],
            ..NO_EFFECTS
        },
        ..plain(name, build)
    }
}

/// The instruction `intrinsic` when there are no numbers.
fn only(numbers: &[u32], intrinsic: Intrinsic) -> Option<Intrinsic> {
    numbers.is_empty().then_some(intrinsic)
}

/// Every row, at the index [`Intrinsic::row`] gives its kind.
pub static ROWS: [Row; 67] = [
    Row {
        numbers: &["registers"],
        scope: Scope::Warpgroup,
        convergent: true,
        target: SM90A,
        ..plain("setmaxnreg_inc", |n| max_registers(true, n))
    },
    Row {
        numbers: &["registers"],
        scope: Scope::Warpgroup,
        convergent: true,
        target: SM90A,
        ..plain("setmaxnreg_dec", |n| max_registers(false, n))
    },
    Row {
        effects: Effects {
            async_proxy: true,
            ..ORDERS
        },
        ..plain("fence_proxy_async", |n| {
            only(n, Intrinsic::Fence(Fence::ProxyAsync))
        })
    },
    Row {
        effects: Effects {
            async_proxy: true,
            ..ORDERS
        },
        ..plain("fence_barrier_init", |n| {
            only(n, Intrinsic::Fence(Fence::BarrierInit))
        })
    },
    named_barrier_row("named_barrier_sync", &["id", "threads"], &[], |n| {
        named_barrier(false, n)
    }),
    named_barrier_row("named_barrier_arrive", &["id", "threads"], &[], |n| {
        named_barrier(true, n)
    }),
    named_barrier_row("named_barrier_sync_at", &["threads"], &[value("id")], |n| {
        named_barrier(false, n)
    }),
    named_barrier_row(
        "named_barrier_arrive_at",
        &["threads"],
        &[value("id")],
        |n| named_barrier(true, n),
    ),
    // Init and a local arrival are sm_80's; `try_wait`, `expect_tx` and `mapa` sm_90's.
    Row {
        target: SM80,
        ..mbarrier_row("mbarrier_init", &[BAR, value("count")], |n| {
            only(n, Intrinsic::MbarrierInit)
        })
    },
    Row {
        target: SM80,
        ..mbarrier_row("mbarrier_arrive", &[BAR], |n| {
            only(n, Intrinsic::MbarrierArrive)
        })
    },
    Row {
        effects: Effects {
            async_proxy: true,
            ..MBARRIER
        },
        ..mbarrier_row("mbarrier_arrive_expect_tx", &[BAR, value("bytes")], |n| {
            only(n, Intrinsic::MbarrierArriveExpectTx)
        })
    },
    // `mapa` takes the barrier's address in a register, without an offset.
    mbarrier_row(
        "mbarrier_arrive_cluster",
        &[value("bar"), value("cta")],
        |n| only(n, Intrinsic::MbarrierArriveCluster),
    ),
    mbarrier_row("mbarrier_wait", &[BAR, value("parity")], |n| {
        only(n, Intrinsic::MbarrierWait)
    }),
    Row {
        scope: Scope::Cluster,
        convergent: true,
        effects: ORDERS,
        ..plain("cluster_arrive", |n| only(n, Intrinsic::ClusterArrive))
    },
    Row {
        scope: Scope::Cluster,
        convergent: true,
        effects: ORDERS,
        ..plain("cluster_wait", |n| only(n, Intrinsic::ClusterWait))
    },
    Row {
        effects: Effects {
            async_proxy: true,
            ..NO_EFFECTS
        },
        ..plain("bulk_commit", |n| only(n, Intrinsic::BulkCommit))
    },
    Row {
        numbers: &["pending"],
        effects: Effects {
            async_proxy: true,
            ..ORDERS
        },
        ..plain("bulk_wait_read", |n| bulk_wait(true, n))
    },
    Row {
        numbers: &["pending"],
        effects: Effects {
            async_proxy: true,
            ..ORDERS
        },
        ..plain("bulk_wait", |n| bulk_wait(false, n))
    },
    Row {
        operands: &[Role {
            name: "map",
            kind: RoleKind::Value(Ty::I64),
        }],
        effects: Effects {
            reads: &[Space::Global],
            ..NO_EFFECTS
        },
        ..plain("prefetch_tensor_map", |n| {
            only(n, Intrinsic::PrefetchTensorMap)
        })
    },
    Row {
        results: &[Ty::Pred],
        scope: Scope::Warp,
        convergent: true,
        ..plain("elect_one", |n| only(n, Intrinsic::Elect))
    },
    tma::LOAD,
    tma::LOAD_MULTICAST,
    tma::LOAD_PAIR,
    tma::STORE,
    tcgen05::FENCE_BEFORE,
    tcgen05::FENCE_AFTER,
    tcgen05::WAIT_LD,
    tcgen05::WAIT_ST,
    tcgen05::COMMIT,
    tcgen05::COMMIT_MULTICAST,
    tcgen05::ALLOC,
    tcgen05::DEALLOC,
    tcgen05::RELINQUISH,
    wgmma::FENCE,
    wgmma::COMMIT,
    wgmma::WAIT,
    tcgen05::TMEM_LOAD,
    tcgen05::TMEM_STORE,
    // Sequentially consistent fences of the device and of the system (sm_70 on).
    Row {
        effects: ORDERS,
        target: SM80,
        ..plain("fence_device", |n| only(n, Intrinsic::Fence(Fence::Device)))
    },
    Row {
        effects: ORDERS,
        target: SM80,
        scope: Scope::System,
        ..plain("fence_system", |n| only(n, Intrinsic::Fence(Fence::System)))
    },
    tcgen05::mma_row("tcgen05_mma_f16", MmaKind::F16, false),
    tcgen05::mma_row("tcgen05_mma_f16_tmem_a", MmaKind::F16, true),
    tcgen05::mma_row("tcgen05_mma_tf32", MmaKind::Tf32, false),
    tcgen05::mma_row("tcgen05_mma_tf32_tmem_a", MmaKind::Tf32, true),
    tcgen05::mma_row("tcgen05_mma_f8f6f4", MmaKind::F8f6f4, false),
    tcgen05::mma_row("tcgen05_mma_f8f6f4_tmem_a", MmaKind::F8f6f4, true),
    ordered::row("ld_acquire_cta", Ordered::LoadAcquire, MemoryScope::Cta),
    ordered::row(
        "ld_acquire_cluster",
        Ordered::LoadAcquire,
        MemoryScope::Cluster,
    ),
    ordered::row("ld_acquire_gpu", Ordered::LoadAcquire, MemoryScope::Gpu),
    ordered::row("ld_acquire_sys", Ordered::LoadAcquire, MemoryScope::System),
    ordered::row("st_release_cta", Ordered::StoreRelease, MemoryScope::Cta),
    ordered::row(
        "st_release_cluster",
        Ordered::StoreRelease,
        MemoryScope::Cluster,
    ),
    ordered::row("st_release_gpu", Ordered::StoreRelease, MemoryScope::Gpu),
    ordered::row("st_release_sys", Ordered::StoreRelease, MemoryScope::System),
    ordered::row("red_add_release_cta", Ordered::AddRelease, MemoryScope::Cta),
    ordered::row(
        "red_add_release_cluster",
        Ordered::AddRelease,
        MemoryScope::Cluster,
    ),
    ordered::row("red_add_release_gpu", Ordered::AddRelease, MemoryScope::Gpu),
    ordered::row(
        "red_add_release_sys",
        Ordered::AddRelease,
        MemoryScope::System,
    ),
    ordered::row(
        "atom_add_acq_rel_cta",
        Ordered::FetchAddAcqRel,
        MemoryScope::Cta,
    ),
    ordered::row(
        "atom_add_acq_rel_cluster",
        Ordered::FetchAddAcqRel,
        MemoryScope::Cluster,
    ),
    ordered::row(
        "atom_add_acq_rel_gpu",
        Ordered::FetchAddAcqRel,
        MemoryScope::Gpu,
    ),
    ordered::row(
        "atom_add_acq_rel_sys",
        Ordered::FetchAddAcqRel,
        MemoryScope::System,
    ),
    tma::STORE_ADD,
    // Distributed shared memory: `mapa` takes the word's address in a register, without
    // an offset; the word is 32 bits of any type.
    Row {
        operands: &[value("addr"), value("cta")],
        result_words: true,
        effects: Effects {
            reads: &[Space::Shared],
            ..NO_EFFECTS
        },
        ..plain("cluster_load", |n| only(n, Intrinsic::ClusterLoad))
    },
    Row {
        operands: CLUSTER_WORD,
        effects: Effects {
            writes: &[Space::Shared],
            ..NO_EFFECTS
        },
        ..plain("cluster_store", |n| only(n, Intrinsic::ClusterStore))
    },
    cluster_add("cluster_add_f32", |n| {
        only(n, Intrinsic::ClusterAdd { float: true })
    }),
    cluster_add("cluster_add_u32", |n| {
        only(n, Intrinsic::ClusterAdd { float: false })
    }),
];

/// A bulk group wait of up to 63 pending groups (the immediate's range).
fn bulk_wait(read: bool, numbers: &[u32]) -> Option<Intrinsic> {
    match *numbers {
        [pending] if pending < 64 => Some(Intrinsic::BulkWait { read, pending }),
        _ => None,
    }
}
