//! The rows of Blackwell's (sm_100a) tcgen05 instructions: the fences, the waits for
//! tensor-memory loads and stores, `tcgen05.commit`, tensor-memory allocation, release
//! and the relinquished permit, the loads and stores between registers and tensor
//! memory, and the MMA. Facts are the PTX ISA's (`tcgen05`): the waits, the
//! allocation instructions and the loads and stores are `.sync.aligned` (the warp's,
//! converged); the fences, the commit and the MMA are one thread's.

use super::{BAR, MBARRIER, NO_EFFECTS, ORDERS, SM100A, only, plain, value};
use crate::intrinsic::{Effects, Intrinsic, MmaKind, Role, RoleKind, Row, Scope, TmemShape};
use crate::ir::{Space, Ty};

/// Ordering of the thread's (or warp's) asynchronous tcgen05 operations.
const TCGEN05_ORDERS: Effects = Effects {
    async_proxy: true,
    ..ORDERS
};

/// A tcgen05 row: sm_100a, through the asynchronous proxy.
const fn tcgen05_row(name: &'static str, build: fn(&[u32]) -> Option<Intrinsic>) -> Row {
    Row {
        target: SM100A,
        effects: Effects {
            async_proxy: true,
            ..NO_EFFECTS
        },
        ..plain(name, build)
    }
}

/// A row the whole warp executes converged (`.sync.aligned`).
const fn warp_row(
    name: &'static str,
    numbers: &'static [&'static str],
    operands: &'static [Role],
    build: fn(&[u32]) -> Option<Intrinsic>,
) -> Row {
    Row {
        numbers,
        operands,
        scope: Scope::Warp,
        convergent: true,
        ..tcgen05_row(name, build)
    }
}

pub(super) const FENCE_BEFORE: Row = Row {
    effects: TCGEN05_ORDERS,
    ..tcgen05_row("tcgen05_fence_before_thread_sync", |n| {
        only(n, Intrinsic::Tcgen05Fence { after: false })
    })
};
pub(super) const FENCE_AFTER: Row = Row {
    effects: TCGEN05_ORDERS,
    ..tcgen05_row("tcgen05_fence_after_thread_sync", |n| {
        only(n, Intrinsic::Tcgen05Fence { after: true })
    })
};
pub(super) const WAIT_LD: Row = Row {
    effects: TCGEN05_ORDERS,
    ..warp_row("tcgen05_wait_ld", &[], &[], |n| {
        only(n, Intrinsic::Tcgen05Wait { store: false })
    })
};
pub(super) const WAIT_ST: Row = Row {
    effects: TCGEN05_ORDERS,
    ..warp_row("tcgen05_wait_st", &[], &[], |n| {
        only(n, Intrinsic::Tcgen05Wait { store: true })
    })
};
/// An arrival on an mbarrier, after the thread's tcgen05 operations.
const COMMIT_EFFECTS: Effects = Effects {
    async_proxy: true,
    ..MBARRIER
};
pub(super) const COMMIT: Row = Row {
    numbers: &["cta_group"],
    operands: &[BAR],
    effects: COMMIT_EFFECTS,
    ..tcgen05_row("tcgen05_commit", |n| commit(false, n))
};
pub(super) const COMMIT_MULTICAST: Row = Row {
    numbers: &["cta_group"],
    operands: &[BAR, value("mask")],
    effects: COMMIT_EFFECTS,
    ..tcgen05_row("tcgen05_commit_multicast", |n| commit(true, n))
};
pub(super) const ALLOC: Row = Row {
    effects: Effects {
        writes: &[Space::Shared],
        async_proxy: true,
        ..NO_EFFECTS
    },
    ..warp_row(
        "tmem_alloc",
        &["columns", "cta_group"],
        &[Role {
            name: "slot",
            kind: RoleKind::Address(Space::Shared),
        }],
        |n| columns(n).map(|(columns, pair)| Intrinsic::TmemAlloc { columns, pair }),
    )
};
pub(super) const DEALLOC: Row = warp_row(
    "tmem_dealloc",
    &["columns", "cta_group"],
    &[Role {
        name: "taddr",
        kind: RoleKind::Value(Ty::I32),
    }],
    |n| columns(n).map(|(columns, pair)| Intrinsic::TmemDealloc { columns, pair }),
);
pub(super) const RELINQUISH: Row =
    warp_row("tmem_relinquish_alloc_permit", &["cta_group"], &[], |n| {
        pair(n).map(|pair| Intrinsic::TmemRelinquish { pair })
    });

/// Whether the numbers `[cta_group]` are a CTA pair's (2) or a block's (1).
fn pair(numbers: &[u32]) -> Option<bool> {
    match *numbers {
        [1] => Some(false),
        [2] => Some(true),
        _ => None,
    }
}

/// A commit of `cta_group` 1 or 2.
fn commit(multicast: bool, numbers: &[u32]) -> Option<Intrinsic> {
    pair(numbers).map(|pair| Intrinsic::Tcgen05Commit { pair, multicast })
}

/// `[columns, cta_group]`: a power of two from 32 to 512 columns, and the pair.
fn columns(numbers: &[u32]) -> Option<(u32, bool)> {
    match *numbers {
        [columns, group] if (32..=512).contains(&columns) && columns.is_power_of_two() => {
            Some((columns, pair(&[group])?))
        }
        _ => None,
    }
}

/// A tensor-memory address (lane in bits 31-16, column in bits 15-0).
const TADDR: Role = Role {
    name: "taddr",
    kind: RoleKind::Value(Ty::I32),
};
/// A shared-memory matrix descriptor.
const fn descriptor(name: &'static str) -> Role {
    Role {
        name,
        kind: RoleKind::Value(Ty::I64),
    }
}

/// The numbers of a load or store: `[lanes, bits, repetitions]`.
const MOVE_NUMBERS: &[&str] = &["lanes", "bits", "repetitions"];

pub(super) const TMEM_LOAD: Row = Row {
    result_words: true,
    ..warp_row("tmem_load", MOVE_NUMBERS, &[TADDR], |n| {
        tmem_move(n).map(|(shape, repetitions)| Intrinsic::TmemLoad { shape, repetitions })
    })
};
pub(super) const TMEM_STORE: Row = Row {
    list: Some(Role {
        name: "words",
        kind: RoleKind::Word,
    }),
    ..warp_row("tmem_store", MOVE_NUMBERS, &[TADDR], |n| {
        tmem_move(n).map(|(shape, repetitions)| Intrinsic::TmemStore { shape, repetitions })
    })
};

/// `[lanes, bits, repetitions]`: a shape tcgen05 moves, repeated a power of two times,
/// 128 registers a thread at most.
fn tmem_move(numbers: &[u32]) -> Option<(TmemShape, u32)> {
    let [lanes, bits, repetitions] = *numbers else {
        return None;
    };
    let shape = TmemShape::of(lanes, bits)?;
    let fits = repetitions.is_power_of_two() && repetitions * shape.registers() <= 128;
    fits.then_some((shape, repetitions))
}

/// The operands of an MMA with A through a shared-memory descriptor.
const MMA_SHARED_A: &[Role] = &[
    TADDR,
    descriptor("desc_a"),
    descriptor("desc_b"),
    value("idesc"),
    value("accumulate"),
];
/// The operands of an MMA with A in tensor memory.
const MMA_TMEM_A: &[Role] = &[
    TADDR,
    Role {
        name: "a_taddr",
        kind: RoleKind::Value(Ty::I32),
    },
    descriptor("desc_b"),
    value("idesc"),
    value("accumulate"),
];

/// The row of a `tcgen05.mma` of `kind`, A in tensor memory or shared: one thread's,
/// reading shared memory through the asynchronous proxy.
pub(super) const fn mma_row(name: &'static str, kind: MmaKind, a_in_tmem: bool) -> Row {
    let build: fn(&[u32]) -> Option<Intrinsic> = match (kind, a_in_tmem) {
        (MmaKind::F16, false) => |n| mma(MmaKind::F16, false, n),
        (MmaKind::F16, true) => |n| mma(MmaKind::F16, true, n),
        (MmaKind::Tf32, false) => |n| mma(MmaKind::Tf32, false, n),
        (MmaKind::Tf32, true) => |n| mma(MmaKind::Tf32, true, n),
        (MmaKind::F8f6f4, false) => |n| mma(MmaKind::F8f6f4, false, n),
        (MmaKind::F8f6f4, true) => |n| mma(MmaKind::F8f6f4, true, n),
    };
    Row {
        numbers: &["cta_group"],
        operands: if a_in_tmem { MMA_TMEM_A } else { MMA_SHARED_A },
        effects: Effects {
            reads: &[Space::Shared],
            async_proxy: true,
            ..NO_EFFECTS
        },
        ..tcgen05_row(name, build)
    }
}

/// An MMA of `cta_group` 1 or 2.
fn mma(kind: MmaKind, a_in_tmem: bool, numbers: &[u32]) -> Option<Intrinsic> {
    pair(numbers).map(|pair| Intrinsic::Tcgen05Mma {
        kind,
        pair,
        a_in_tmem,
    })
}
