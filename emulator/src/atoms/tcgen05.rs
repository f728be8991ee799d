//! Blackwell's (sm_100a) tcgen05 instructions, the typed intrinsics mapped by their
//! kind ([`intrinsic`]): the MMA, the tensor-memory moves, allocation (a whole
//! warp, executed by the block once all 32 lanes are there, on the block's
//! [`crate::tmem::TensorMemory`]),
//! `tcgen05.commit` (one thread; an arrival on an mbarrier), and the fences and waits,
//! whose ordering the emulator's execution already gives: every tcgen05 operation
//! completes when it is issued here. A CTA pair's (`cta_group::2`) allocation and
//! release are modelled as each block's own, on its own tensor memory.

use kir::{Intrinsic, MmaKind, TmemShape};

/// A tcgen05 instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tcgen05 {
    /// `tcgen05.alloc`: the warp allocates this many columns, the address to `{slot}`.
    Alloc {
        /// The columns.
        columns: u32,
    },
    /// `tcgen05.dealloc`: the warp frees this many columns at `{taddr}`.
    Dealloc {
        /// The columns.
        columns: u32,
    },
    /// `tcgen05.relinquish_alloc_permit`: the block allocates no more.
    Relinquish,
    /// `tcgen05.commit` to the mbarrier at `{bar}`: one arrival, the thread's earlier
    /// tcgen05 operations being complete.
    Commit {
        /// Whether it is a CTA pair's (`cta_group::2`): its arrivals follow the pair's
        /// MMAs, which the cluster's scheduler runs.
        pair: bool,
        /// Whether it arrives at the barrier's place in each block of the 16-bit
        /// `{mask}` (else in this block).
        multicast: bool,
    },
    /// The fences and `tcgen05.wait::st`.
    Ordering,
    /// `tcgen05.wait::ld`: the thread's loaded registers become valid.
    WaitLd,
    /// `tcgen05.mma` from shared memory, by one thread ([`crate::atoms::umma`]).
    Mma {
        /// Its kind.
        kind: MmaKind,
        /// Whether A is in tensor memory (`[{a_taddr}]`), else shared.
        a_in_tmem: bool,
        /// Whether it is a CTA pair's (`cta_group::2`, M = 256).
        pair: bool,
    },
    /// `tcgen05.ld` (`load`) or `tcgen05.st` by the warp: `repetitions` of `shape`.
    Copy {
        /// Whether it loads (into `{{r}}`), else stores.
        load: bool,
        /// The lanes and bits one repetition moves.
        shape: TmemShape,
        /// The repetitions (`.xN`).
        repetitions: u32,
    },
}

/// The lane and column, from the address's, of thread `l`'s register `r` in a move of
/// `shape` (PTX ISA, tcgen05 "Matrix fragments"; the thread-value layouts of CUTLASS's
/// `SM100_TMEM_LOAD_32dp32b*`, `_16dp64b*`, `_16dp128b*` and `_16dp256b*` copy traits,
/// read from `cute/atom/copy_traits_sm100.hpp`):
/// - `32x32b`: thread l, register r at lane l, column r;
/// - `16x64b`: lane 8 (l % 2) + l / 4, column (l / 2) % 2 + 2 r;
/// - `16x128b`: lane l / 4 + 8 (r % 2), column l % 4 + 4 (r / 2);
/// - `16x256b`: lane l / 4 + 8 ((r / 2) % 2), column 2 (l % 4) + r % 2 + 8 (r / 4).
pub fn position(shape: TmemShape, l: u32, r: u32) -> (u32, u32) {
    match shape {
        TmemShape::S32x32b => (l, r),
        TmemShape::S16x64b => (8 * (l % 2) + l / 4, (l / 2) % 2 + 2 * r),
        TmemShape::S16x128b => (l / 4 + 8 * (r % 2), l % 4 + 4 * (r / 2)),
        TmemShape::S16x256b => (l / 4 + 8 * ((r / 2) % 2), 2 * (l % 4) + r % 2 + 8 * (r / 4)),
    }
}

impl Tcgen05 {
    /// Whether the whole warp executes it at once.
    pub fn is_warp_collective(&self) -> bool {
        matches!(
            self,
            Tcgen05::Alloc { .. }
                | Tcgen05::Dealloc { .. }
                | Tcgen05::Relinquish
                | Tcgen05::Copy { .. }
        )
    }
}

/// The model of a typed tcgen05 intrinsic, by its kind; `None` for the others.
pub fn intrinsic(intrinsic: &Intrinsic) -> Option<Tcgen05> {
    let tcgen05 = match *intrinsic {
        Intrinsic::Tcgen05Fence { .. } | Intrinsic::Tcgen05Wait { store: true } => {
            Tcgen05::Ordering
        }
        Intrinsic::Tcgen05Wait { store: false } => Tcgen05::WaitLd,
        Intrinsic::Tcgen05Commit { pair, multicast } => Tcgen05::Commit { pair, multicast },
        Intrinsic::TmemAlloc { columns, .. } => Tcgen05::Alloc { columns },
        Intrinsic::TmemDealloc { columns, .. } => Tcgen05::Dealloc { columns },
        Intrinsic::TmemRelinquish { .. } => Tcgen05::Relinquish,
        Intrinsic::Tcgen05Mma {
            kind,
            pair,
            a_in_tmem,
        } => Tcgen05::Mma {
            kind,
            pair,
            a_in_tmem,
        },
        Intrinsic::TmemLoad { shape, repetitions } => Tcgen05::Copy {
            load: true,
            shape,
            repetitions,
        },
        Intrinsic::TmemStore { shape, repetitions } => Tcgen05::Copy {
            load: false,
            shape,
            repetitions,
        },
        _ => return None,
    };
    Some(tcgen05)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intrinsics_are_modelled_by_their_kind() {
        let alloc = Intrinsic::TmemAlloc {
            columns: 128,
            pair: true,
        };
        assert_eq!(intrinsic(&alloc), Some(Tcgen05::Alloc { columns: 128 }));
        let dealloc = Intrinsic::TmemDealloc {
            columns: 512,
            pair: false,
        };
        assert_eq!(intrinsic(&dealloc), Some(Tcgen05::Dealloc { columns: 512 }));
        let commit = Intrinsic::Tcgen05Commit {
            pair: true,
            multicast: true,
        };
        let pair = Tcgen05::Commit {
            pair: true,
            multicast: true,
        };
        assert_eq!(intrinsic(&commit), Some(pair.clone()));
        let wait = Intrinsic::Tcgen05Wait { store: false };
        assert_eq!(intrinsic(&wait), Some(Tcgen05::WaitLd));
        assert_eq!(intrinsic(&Intrinsic::Elect), None);
        assert_eq!(intrinsic(&Intrinsic::WgmmaCommit), None);
        assert!(Tcgen05::Relinquish.is_warp_collective() && !pair.is_warp_collective());
        for kind in MmaKind::ALL {
            let mma = Intrinsic::Tcgen05Mma {
                kind,
                pair: true,
                a_in_tmem: true,
            };
            let model = Tcgen05::Mma {
                kind,
                pair: true,
                a_in_tmem: true,
            };
            assert_eq!(intrinsic(&mma), Some(model.clone()));
            assert!(!model.is_warp_collective());
        }
        let load = Intrinsic::TmemLoad {
            shape: TmemShape::S16x256b,
            repetitions: 2,
        };
        let copy = Tcgen05::Copy {
            load: true,
            shape: TmemShape::S16x256b,
            repetitions: 2,
        };
        assert_eq!(intrinsic(&load), Some(copy.clone()));
        assert!(copy.is_warp_collective());
        let store = Intrinsic::TmemStore {
            shape: TmemShape::S32x32b,
            repetitions: 4,
        };
        let copy = Tcgen05::Copy {
            load: false,
            shape: TmemShape::S32x32b,
            repetitions: 4,
        };
        assert_eq!(intrinsic(&store), Some(copy));
    }

    #[test]
    fn sixteen_lane_shapes_place_registers_as_cutes_layouts() {
        // 16dp256b1x: DstLayout ((4,8),(64,2)):((64,256),(1,2048)) in bits; thread 5
        // (t0 1, t1 1), register 3 (bits 32-63 of the second 64-bit half): bit 64 + 256 +
        // 32 + 2048 = 2400, lane 2400 / 256 = 9, column (2400 % 256) / 32 = 3.
        assert_eq!(position(TmemShape::S16x256b, 5, 3), (9, 3));
        // 16dp256b2x: register 4 is the second repetition, 8 columns on.
        assert_eq!(position(TmemShape::S16x256b, 5, 4), (1, 10));
        // 16dp128b1x: ((4,8),(32,2)):((32,128),(1,1024)); thread 6, register 1: bit 64 +
        // 128 + 1024 = 1216, lane 9, column 2.
        assert_eq!(position(TmemShape::S16x128b, 6, 1), (9, 2));
        // 16dp64b1x: ((2,2,8),32):((512,32,64),1); thread 7 (1, 1, 1): bit 512 + 32 + 64 =
        // 608, lane 608 / 64 = 9, column 1. 16dp64b2x adds 2 columns per register.
        assert_eq!(position(TmemShape::S16x64b, 7, 0), (9, 1));
        assert_eq!(position(TmemShape::S16x64b, 7, 1), (9, 3));
        // 32dp32b: thread l's register r at lane l, column r.
        assert_eq!(position(TmemShape::S32x32b, 7, 3), (7, 3));
    }
}
