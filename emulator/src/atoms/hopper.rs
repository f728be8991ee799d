//! Hopper's (sm_90) asynchronous instructions: wgmma, recognised from the template of
//! the stdlib's wgmma atoms (which users may write too), and the typed intrinsics
//! (mbarrier operations, named and cluster barriers, TMA loads and stores, bulk-group
//! commits and waits, fences, `setmaxnreg`, the tensor-map prefetch, `elect.sync`, the
//! wgmma group instructions), mapped by their kind ([`intrinsic`]). Instructions whose effect the emulator's order of
//! execution already gives are [`Hopper::Ordering`].
//!
//! What each does is in `thread/hopper.rs` (one thread) and `wgmma.rs` (a warpgroup).

use kir::{Fence, Intrinsic, TmaReach};

use crate::atoms::wgmma::{Element, WgmmaShape};

/// A Hopper instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hopper {
    /// `mbarrier.init`: `count` arrivals per phase.
    MbarrierInit,
    /// `mbarrier.arrive`, with `expect_tx` first: `bytes` more transaction bytes.
    MbarrierArrive {
        /// Whether it expects transaction bytes.
        expect_tx: bool,
    },
    /// `mbarrier.try_wait.parity` in a loop: waits for the phase of parity `parity`.
    MbarrierWait,
    /// `mapa` and `mbarrier.arrive.shared::cluster`: one arrival on the mbarrier at
    /// `bar`'s offset in block `cta` of the cluster.
    MbarrierArriveRemote,
    /// `mapa` and `ld.shared::cluster`: a load of the 32-bit word at `addr`'s offset in
    /// block `cta` of the cluster (distributed shared memory).
    ClusterLoad,
    /// `mapa` and `st.shared::cluster`: a store of `value` there.
    ClusterStore,
    /// `mapa` and `red.shared::cluster.add`: `value` added to the word there.
    ClusterAdd {
        /// Whether the word is an f32 (else an integer).
        float: bool,
    },
    /// `cp.async.bulk.tensor` from global into shared memory, completing on `{bar}`.
    TmaLoad {
        /// The box's dimensions.
        rank: usize,
        /// Whether it goes to every block of the cluster in the 16-bit `{mask}`, at the
        /// same offsets, completing on each one's barrier (else to this block).
        multicast: bool,
        /// Whether it is a CTA pair's (`.cta_group::2`, `mapa` to the even block): the
        /// box lands in this block, its bytes complete on the barrier at the same offset
        /// in the even block of the pair.
        pair: bool,
    },
    /// `barrier.cluster.arrive`: the thread arrives at the cluster barrier.
    ClusterArrive,
    /// `barrier.cluster.wait`: the thread waits until every thread of the cluster has
    /// arrived as often as it has.
    ClusterWait,
    /// `cp.async.bulk.tensor` from shared into global memory; with `add`,
    /// `cp.reduce.async.bulk.tensor .add`.
    TmaStore {
        /// The box's dimensions.
        rank: usize,
        /// Whether each element is added to global memory's.
        add: bool,
    },
    /// `bar.sync id, threads` or `bar.arrive id, threads`.
    NamedBarrier {
        /// Whether the thread waits (else it only arrives).
        wait: bool,
        /// The barrier, when a constant names it (else the `id` operand does).
        id: Option<u32>,
        /// The threads it counts.
        threads: u32,
    },
    /// `cp.async.bulk.commit_group`: the thread's TMA stores since its last commit form
    /// a bulk group.
    BulkCommit,
    /// `cp.async.bulk.wait_group(.read) pending`: all but the thread's `pending` latest
    /// bulk groups are complete (have read their shared tiles).
    BulkWait {
        /// The groups that may still be pending.
        pending: u32,
    },
    /// `wgmma.mma_async` by a warpgroup: B from a shared-memory descriptor, A from one
    /// too or from registers.
    Wgmma(WgmmaShape),
    /// `wgmma.commit_group`: the thread's wgmmas since its last commit form a group.
    WgmmaCommit,
    /// `wgmma.wait_group pending`: all but the thread's `pending` latest wgmma groups
    /// are complete (their accumulators written, their shared operands read).
    WgmmaWait {
        /// The groups that may still be pending.
        pending: u32,
    },
    /// `fence.proxy.async.shared::cta`: the thread's generic writes to shared memory so
    /// far are visible to the asynchronous proxy.
    ProxyFence,
    /// `wgmma.fence.sync.aligned`: the thread's register writes so far are ordered
    /// before its next wgmma (the PTX ISA requires one before a warpgroup's first).
    WgmmaFence,
    /// Ordering the emulator's execution already gives: fences, `setmaxnreg`, and
    /// `prefetch.tensormap` (a cache hint).
    Ordering,
    /// `elect.sync` by the whole warp: it waits for its warp, whose block elects one
    /// lane (`block.rs`).
    Elect,
}

/// Where TMA and wgmma put byte `address` under a `span`-byte swizzle (0: none): bits
/// 7 and up XORed into bits 4 and up, `a ^ (((a >> 7) & (span / 16 - 1)) << 4)`.
pub fn swizzled(address: u64, span: u32) -> u64 {
    match span {
        0 => address,
        span => address ^ (((address >> 7) & (u64::from(span) / 16 - 1)) << 4),
    }
}

/// The model of a typed intrinsic, by its kind; `None` for Blackwell's tcgen05 ones
/// ([`crate::atoms::tcgen05::intrinsic`]).
pub fn intrinsic(intrinsic: &Intrinsic) -> Option<Hopper> {
    let hopper = match *intrinsic {
        Intrinsic::MbarrierInit => Hopper::MbarrierInit,
        Intrinsic::MbarrierArrive => Hopper::MbarrierArrive { expect_tx: false },
        Intrinsic::MbarrierArriveExpectTx => Hopper::MbarrierArrive { expect_tx: true },
        Intrinsic::MbarrierArriveCluster => Hopper::MbarrierArriveRemote,
        Intrinsic::MbarrierWait => Hopper::MbarrierWait,
        Intrinsic::ClusterLoad => Hopper::ClusterLoad,
        Intrinsic::ClusterStore => Hopper::ClusterStore,
        Intrinsic::ClusterAdd { float } => Hopper::ClusterAdd { float },
        Intrinsic::NamedBarrier {
            arrive,
            id,
            threads,
        } => Hopper::NamedBarrier {
            wait: !arrive,
            id,
            threads,
        },
        Intrinsic::ClusterArrive => Hopper::ClusterArrive,
        Intrinsic::ClusterWait => Hopper::ClusterWait,
        Intrinsic::BulkCommit => Hopper::BulkCommit,
        Intrinsic::BulkWait { pending, .. } => Hopper::BulkWait { pending },
        Intrinsic::Fence(Fence::ProxyAsync) => Hopper::ProxyFence,
        Intrinsic::Fence(Fence::BarrierInit | Fence::Device | Fence::System)
        | Intrinsic::SetMaxNReg { .. }
        | Intrinsic::PrefetchTensorMap => Hopper::Ordering,
        Intrinsic::Elect => Hopper::Elect,
        Intrinsic::TmaLoad { rank, reach } => Hopper::TmaLoad {
            rank: rank as usize,
            multicast: reach == TmaReach::Multicast,
            pair: reach == TmaReach::Pair,
        },
        Intrinsic::TmaStore { rank, add } => Hopper::TmaStore {
            rank: rank as usize,
            add,
        },
        Intrinsic::WgmmaFence => Hopper::WgmmaFence,
        Intrinsic::WgmmaCommit => Hopper::WgmmaCommit,
        Intrinsic::WgmmaWait { pending } => Hopper::WgmmaWait { pending },
        Intrinsic::Tcgen05Fence { .. }
        | Intrinsic::Tcgen05Wait { .. }
        | Intrinsic::Tcgen05Commit { .. }
        | Intrinsic::TmemAlloc { .. }
        | Intrinsic::TmemDealloc { .. }
        | Intrinsic::TmemRelinquish { .. }
        | Intrinsic::Tcgen05Mma { .. }
        | Intrinsic::TmemLoad { .. }
        | Intrinsic::TmemStore { .. }
        | Intrinsic::Ordered { .. } => return None,
    };
    Some(hopper)
}

/// The wgmma `template` is, if it is one.
pub fn parse(template: &str) -> Option<Hopper> {
    let template = template.trim();
    let head = template.split_whitespace().next()?;
    head.strip_prefix("wgmma.mma_async.sync.aligned.")
        .and_then(|_| wgmma(template, head))
}

/// `wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{d}}, {desc_a}, {desc_b}, 1,
/// 1, 1, 0, 0;` with f32 accumulators, scale 1 and the transpose immediates last (none
/// for 8-bit inputs: `m64nNk32.f32.e4m3.e5m2 {{d}}, {desc_a}, {desc_b}, 1, 1, 1;`).
fn wgmma(template: &str, head: &str) -> Option<Hopper> {
    let parts: Vec<&str> = head.split('.').collect();
    let (n, k) = parts.get(4)?.strip_prefix("m64n")?.split_once('k')?;
    let (n, k): (usize, u64) = (n.parse().ok()?, k.parse().ok()?);
    let element = |name: &str| match name {
        "bf16" => Some(Element::Bf16),
        "f16" => Some(Element::F16),
        "e4m3" => Some(Element::E4m3),
        "e5m2" => Some(Element::E5m2),
        _ => None,
    };
    let (&"f32", Some(a), Some(b)) = (
        parts.get(5)?,
        element(parts.get(6)?),
        element(parts.get(7)?),
    ) else {
        return None;
    };
    // 16-bit inputs are of one type; 8-bit ones may differ. K is 32 bytes.
    let eight_bit = a.bits() == 8;
    if b.bits() != a.bits() || (!eight_bit && a != b) || k != a.k() {
        return None;
    }
    // The RS form reads A from registers and has no transpose immediate for it; 8-bit
    // types have none for either.
    let a_in_registers = template.contains("{{a}}");
    let transposes = match (eight_bit, a_in_registers) {
        (true, _) => 0,
        (false, true) => 1,
        (false, false) => 2,
    };
    let immediates: Vec<&str> = template
        .trim_end_matches(';')
        .rsplit(',')
        .take(3 + transposes)
        .map(str::trim)
        .collect();
    let (tb, ta, scale_b, scale_a, scale_d) = match immediates.as_slice() {
        [scale_b, scale_a, scale_d] if eight_bit && !a_in_registers => {
            ("0", "0", *scale_b, *scale_a, *scale_d)
        }
        [tb, scale_b, scale_a, scale_d] if a_in_registers && !eight_bit => {
            (*tb, "0", *scale_b, *scale_a, *scale_d)
        }
        [tb, ta, scale_b, scale_a, scale_d] => (*tb, *ta, *scale_b, *scale_a, *scale_d),
        _ => return None,
    };
    // scale-d: 1 (add D), or the operand `{scale_d}` whose value says (execute reads it).
    let scale_d_ok = scale_d == "1" || scale_d == "{scale_d}";
    if !scale_d_ok || [scale_a, scale_b] != ["1", "1"] || n == 0 || n > 256 || !n.is_multiple_of(8)
    {
        return None;
    }
    let flag = |text: &str| match text {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    };
    Some(Hopper::Wgmma(WgmmaShape {
        n,
        elements: [a, b],
        transposed: [flag(ta)?, flag(tb)?],
        a_in_registers,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowered_templates_are_recognised() {
        let mma = "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{d}}, {desc_a}, {desc_b}, {scale_d}, 1, 1, 0, 1;";
        let want = Hopper::Wgmma(WgmmaShape {
            n: 256,
            elements: [Element::Bf16; 2],
            transposed: [false, true],
            a_in_registers: false,
        });
        assert_eq!(parse(mma), Some(want));
        let rs = "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{d}}, {{a}}, {desc_b}, {scale_d}, 1, 1, 1;";
        let want = Hopper::Wgmma(WgmmaShape {
            n: 64,
            elements: [Element::F16; 2],
            transposed: [false, true],
            a_in_registers: true,
        });
        assert_eq!(parse(rs), Some(want));
        let fp8 = "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2 {{d}}, {desc_a}, {desc_b}, 1, 1, 1;";
        let want = Hopper::Wgmma(WgmmaShape {
            n: 128,
            elements: [Element::E4m3, Element::E5m2],
            transposed: [false, false],
            a_in_registers: false,
        });
        assert_eq!(parse(fp8), Some(want));
        // 8-bit inputs read 32 of K, 16-bit ones 16, and 16-bit ones are of one type.
        for wrong in [
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.e4m3.e4m3 {{d}}, {desc_a}, {desc_b}, 1, 1, 1;",
            "wgmma.mma_async.sync.aligned.m64n128k32.f32.bf16.bf16 {{d}}, {desc_a}, {desc_b}, 1, 1, 0, 0;",
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.f16 {{d}}, {desc_a}, {desc_b}, 1, 1, 0, 0;",
            "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.bf16 {{d}}, {desc_a}, {desc_b}, 1, 1, 1;",
        ] {
            assert_eq!(parse(wrong), None, "{wrong}");
        }
        assert_eq!(
            parse("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{d}};"),
            None
        );
    }

    #[test]
    fn intrinsics_are_modelled_by_their_kind() {
        // `intrinsic` matches every kind: a new one has no build until it is decided.
        let named = Intrinsic::NamedBarrier {
            arrive: true,
            id: None,
            threads: 128,
        };
        let want = Hopper::NamedBarrier {
            wait: false,
            id: None,
            threads: 128,
        };
        assert_eq!(intrinsic(&named), Some(want));
        assert_eq!(
            intrinsic(&Intrinsic::MbarrierArriveExpectTx),
            Some(Hopper::MbarrierArrive { expect_tx: true })
        );
        let wait = Intrinsic::BulkWait {
            read: true,
            pending: 1,
        };
        assert_eq!(intrinsic(&wait), Some(Hopper::BulkWait { pending: 1 }));
        let fence = Intrinsic::Fence(Fence::ProxyAsync);
        assert_eq!(intrinsic(&fence), Some(Hopper::ProxyFence));
        let registers = Intrinsic::SetMaxNReg {
            increase: true,
            registers: 232,
        };
        assert_eq!(intrinsic(&registers), Some(Hopper::Ordering));
        let pair = Intrinsic::TmaLoad {
            rank: 2,
            reach: TmaReach::Pair,
        };
        let want = Hopper::TmaLoad {
            rank: 2,
            multicast: false,
            pair: true,
        };
        assert_eq!(intrinsic(&pair), Some(want));
        let wait = Intrinsic::WgmmaWait { pending: 1 };
        assert_eq!(intrinsic(&wait), Some(Hopper::WgmmaWait { pending: 1 }));
        assert_eq!(intrinsic(&Intrinsic::WgmmaFence), Some(Hopper::WgmmaFence));
        // Blackwell's are the tcgen05 model's.
        let commit = Intrinsic::Tcgen05Commit {
            pair: false,
            multicast: false,
        };
        assert_eq!(intrinsic(&commit), None);
        // Their PTX is no model: nothing writes it as an atom any more.
        assert_eq!(parse("bar.sync 1, 256;"), None);
    }
}
