//! The PTX of every [`Intrinsic`]: the one place its text is spelled. Forms are the
//! ones `../shared/design/HOPPER-BLACKWELL.md` (A.3, A.4, A.7, A.10) lists as
//! assembled by ptxas for sm_90a (PTX ISA 8.x: `mbarrier`, `fence`, `bar`,
//! `barrier.cluster`, `cp.async.bulk`, `cp.async.bulk.tensor`, `setmaxnreg`,
//! `elect.sync`, the wgmma group instructions), and (D.2, D.3, D.6, D.8) for sm_100a
//! (tcgen05's fences, waits, commit, tensor-memory allocation, loads and stores, and
//! the MMA, whose accumulate flag becomes a predicate in a PTX block of its own). A multicast TMA load or commit converts its mask to 16
//! bits, and a CTA pair's TMA load maps its barrier to the even block, each in a PTX
//! block of its own.
//!
//! `mbarrier_wait` is a loop inside its own PTX block, so its predicate and label are
//! local to each use: `try_wait.parity` may give up after a time the hardware chooses,
//! and the loop asks again until the phase has completed. An arrival on a peer block's
//! barrier maps the address with `mapa` in a block of its own too; it has
//! `mbarrier.arrive`'s default semantics (release, CTA scope), as CUTLASS's
//! `ClusterBarrier::arrive(cta_id)` does. A distributed-shared-memory load or store
//! (`cluster_view`) maps its address the same way.

use cute::Target;
use kir::{Fence, Inst, Intrinsic, Op, Ordered, TmaReach, ValueId, Verified};

use super::Emitter;
use super::memory::address_text;

impl Emitter<'_, '_> {
    /// Emits `intrinsic` on `operands` (values with their byte offsets, in its row's
    /// order) defining `results`; `None` if one is missing, which the verifier rules out.
    pub(super) fn intrinsic(
        &mut self,
        intrinsic: &Intrinsic,
        operands: &[(ValueId, i64)],
        results: &[ValueId],
    ) -> Option<()> {
        let operands: Vec<String> = (operands.iter())
            .map(|(value, offset)| address_text(self.name(*value), *offset))
            .collect();
        let results: Vec<&str> = results.iter().map(|value| self.name(*value)).collect();
        let text = ptx(intrinsic, &operands, &results)?;
        self.emit(&text);
        Some(())
    }
}

/// Whether `body` sets the warpgroup's registers (`setmaxnreg`), which takes effect
/// only when ptxas knows the register count at entry: `.maxntid` with `.minnctapersm`
/// gives it that (HOPPER-BLACKWELL.md A.10).
pub(super) fn sets_registers(body: &[Inst]) -> bool {
    let mut found = false;
    super::each_instruction(body, &mut |inst| {
        found |= matches!(
            &inst.op,
            Op::Intrinsic {
                intrinsic: Intrinsic::SetMaxNReg { .. },
                ..
            }
        );
    });
    found
}

/// The first intrinsic of `kernels` that `target` lacks (its row's least target is
/// newer), in words: the checker refuses such calls in source (E0212), so only
/// hand-written KIR meets this.
pub(super) fn beyond(kernels: &[Verified], target: Target) -> Option<String> {
    let mut newer = None;
    for kernel in kernels {
        super::each_instruction(&kernel.body, &mut |inst| {
            if let Op::Intrinsic { intrinsic, .. } = &inst.op {
                let row = intrinsic.row();
                if row.target.sm > target.arch() && newer.is_none() {
                    newer = Some(row);
                }
            }
        });
    }
    newer.map(|row| {
        format!(
            "`{}` needs sm_{} or newer, not {}",
            row.name,
            row.target.sm,
            target.name()
        )
    })
}

/// The PTX of `intrinsic` on `operands`, each already written as PTX (a register, or
/// an address's `register+offset`), in its row's order, defining the registers
/// `results`; `None` if one is missing, which the verifier rules out.
fn ptx(intrinsic: &Intrinsic, operands: &[String], results: &[&str]) -> Option<String> {
    let operand = |index: usize| operands.get(index).map(String::as_str);
    let text = match *intrinsic {
        // PTX ISA, `ld`, `st`, `red`, `atom`: `.acquire`, `.release` and `.acq_rel` with
        // a scope; `.b32` moves any 32-bit word, the add is the same bits for u32 and s32.
        Intrinsic::Ordered { access, scope } => {
            let (addr, scope) = (operand(0)?, scope.name());
            match access {
                Ordered::LoadAcquire => {
                    format!(
                        "ld.acquire.{scope}.global.b32 {}, [{addr}];",
                        results.first()?
                    )
                }
                Ordered::StoreRelease => {
                    format!("st.release.{scope}.global.b32 [{addr}], {};", operand(1)?)
                }
                Ordered::AddRelease => {
                    format!(
                        "red.release.{scope}.global.add.u32 [{addr}], {};",
                        operand(1)?
                    )
                }
                Ordered::FetchAddAcqRel => format!(
                    "atom.acq_rel.{scope}.global.add.u32 {}, [{addr}], {};",
                    results.first()?,
                    operand(1)?
                ),
            }
        }
        Intrinsic::SetMaxNReg {
            increase,
            registers,
        } => {
            let way = if increase { "inc" } else { "dec" };
            format!("setmaxnreg.{way}.sync.aligned.u32 {registers};")
        }
        Intrinsic::Fence(Fence::ProxyAsync) => "fence.proxy.async.shared::cta;".to_owned(),
        Intrinsic::Fence(Fence::BarrierInit) => "fence.mbarrier_init.release.cluster;".to_owned(),
        Intrinsic::Fence(Fence::Device) => "fence.sc.gpu;".to_owned(),
        Intrinsic::Fence(Fence::System) => "fence.sc.sys;".to_owned(),
        Intrinsic::NamedBarrier {
            arrive,
            id,
            threads,
        } => {
            let way = if arrive { "arrive" } else { "sync" };
            let id = match id {
                Some(id) => id.to_string(),
                None => operand(0)?.to_owned(),
            };
            format!("bar.{way} {id}, {threads};")
        }
        Intrinsic::MbarrierInit => format!(
            "mbarrier.init.shared::cta.b64 [{}], {};",
            operand(0)?,
            operand(1)?
        ),
        Intrinsic::MbarrierArrive => {
            format!("mbarrier.arrive.shared::cta.b64 _, [{}];", operand(0)?)
        }
        Intrinsic::MbarrierArriveExpectTx => format!(
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [{}], {};",
            operand(0)?,
            operand(1)?
        ),
        Intrinsic::MbarrierArriveCluster => format!(
            "{{ .reg .b32 %remote; mapa.shared::cluster.u32 %remote, {}, {}; mbarrier.arrive.shared::cluster.b64 _, [%remote]; }}",
            operand(0)?,
            operand(1)?
        ),
        // PTX ISA, `mapa` and `ld`/`st` with `.shared::cluster` (sm_90): the block's
        // shared address mapped into block `cta`'s window; `.b32` moves any 32-bit word, and
        // an integer add is the same bits for u32 and s32.
        Intrinsic::ClusterLoad => format!(
            "{{ .reg .b32 %remote; mapa.shared::cluster.u32 %remote, {}, {}; ld.shared::cluster.b32 {}, [%remote]; }}",
            operand(0)?,
            operand(1)?,
            results.first()?
        ),
        Intrinsic::ClusterStore => format!(
            "{{ .reg .b32 %remote; mapa.shared::cluster.u32 %remote, {}, {}; st.shared::cluster.b32 [%remote], {}; }}",
            operand(0)?,
            operand(1)?,
            operand(2)?
        ),
        Intrinsic::ClusterAdd { float } => format!(
            "{{ .reg .b32 %remote; mapa.shared::cluster.u32 %remote, {}, {}; red.shared::cluster.add.{} [%remote], {}; }}",
            operand(0)?,
            operand(1)?,
            if float { "f32" } else { "u32" },
            operand(2)?
        ),
        Intrinsic::MbarrierWait => format!(
            "{{ .reg .pred %done; $wait: mbarrier.try_wait.parity.shared::cta.b64 %done, [{}], {}; @!%done bra $wait; }}",
            operand(0)?,
            operand(1)?
        ),
        Intrinsic::ClusterArrive => "barrier.cluster.arrive.release.aligned;".to_owned(),
        Intrinsic::ClusterWait => "barrier.cluster.wait.acquire.aligned;".to_owned(),
        Intrinsic::BulkCommit => "cp.async.bulk.commit_group;".to_owned(),
        Intrinsic::BulkWait { read, pending } => {
            let read = if read { ".read" } else { "" };
            format!("cp.async.bulk.wait_group{read} {pending};")
        }
        Intrinsic::PrefetchTensorMap => format!("prefetch.tensormap [{}];", operand(0)?),
        Intrinsic::TmaLoad { rank, reach } => {
            let (dst, map, bar) = (operand(0)?, operand(1)?, operand(2)?);
            let bytes = "mbarrier::complete_tx::bytes";
            match reach {
                TmaReach::Block => {
                    let coords = coordinates(operands, 3)?;
                    format!(
                        "cp.async.bulk.tensor.{rank}d.shared::cluster.global.{bytes} [{dst}], [{map}, {coords}], [{bar}];"
                    )
                }
                TmaReach::Multicast => {
                    let (mask, coords) = (operand(3)?, coordinates(operands, 4)?);
                    format!(
                        "{{ .reg .b16 %mask; cvt.u16.u32 %mask, {mask}; cp.async.bulk.tensor.{rank}d.shared::cluster.global.{bytes}.multicast::cluster [{dst}], [{map}, {coords}], [{bar}], %mask; }}"
                    )
                }
                // The barrier in the pair's even block: `mapa` from this block's rank with
                // its low bit cleared.
                TmaReach::Pair => {
                    let coords = coordinates(operands, 3)?;
                    format!(
                        "{{ .reg .b32 %even; .reg .b32 %leader; mov.u32 %even, %cluster_ctarank; and.b32 %even, %even, 0xFFFFFFFE; mapa.shared::cluster.u32 %leader, {bar}, %even; cp.async.bulk.tensor.{rank}d.cta_group::2.shared::cluster.global.{bytes} [{dst}], [{map}, {coords}], [%leader]; }}"
                    )
                }
            }
        }
        Intrinsic::TmaStore { rank, add } => {
            let (map, src, coords) = (operand(0)?, operand(1)?, coordinates(operands, 2)?);
            // The element type of a reduction is the tensor map's (PTX ISA,
            // `cp.reduce.async.bulk.tensor`).
            let (copy, mode) = if add {
                ("cp.reduce.async.bulk.tensor", ".add.tile")
            } else {
                ("cp.async.bulk.tensor", "")
            };
            format!(
                "{copy}.{rank}d.global.shared::cta{mode}.bulk_group [{map}, {coords}], [{src}];"
            )
        }
        // Every lane of the warp takes part; the elected lane's id is not kept.
        Intrinsic::Elect => format!("elect.sync _|{}, 0xffffffff;", results.first()?),
        Intrinsic::Tcgen05Fence { after } => {
            let when = if after { "after" } else { "before" };
            format!("tcgen05.fence::{when}_thread_sync;")
        }
        Intrinsic::Tcgen05Wait { store } => {
            let what = if store { "st" } else { "ld" };
            format!("tcgen05.wait::{what}.sync.aligned;")
        }
        Intrinsic::Tcgen05Commit { pair, multicast } => {
            let commit = format!(
                "tcgen05.commit.{}.mbarrier::arrive::one.shared::cluster",
                cta_group(pair)
            );
            let bar = operand(0)?;
            match multicast {
                false => format!("{commit}.b64 [{bar}];"),
                true => format!(
                    "{{ .reg .b16 %mask; cvt.u16.u32 %mask, {}; {commit}.multicast::cluster.b64 [{bar}], %mask; }}",
                    operand(1)?
                ),
            }
        }
        Intrinsic::TmemAlloc { columns, pair } => format!(
            "tcgen05.alloc.{}.sync.aligned.shared::cta.b32 [{}], {columns};",
            cta_group(pair),
            operand(0)?
        ),
        Intrinsic::TmemDealloc { columns, pair } => format!(
            "tcgen05.dealloc.{}.sync.aligned.b32 {}, {columns};",
            cta_group(pair),
            operand(0)?
        ),
        Intrinsic::TmemRelinquish { pair } => format!(
            "tcgen05.relinquish_alloc_permit.{}.sync.aligned;",
            cta_group(pair)
        ),
        Intrinsic::WgmmaFence => "wgmma.fence.sync.aligned;".to_owned(),
        Intrinsic::WgmmaCommit => "wgmma.commit_group.sync.aligned;".to_owned(),
        Intrinsic::WgmmaWait { pending } => format!("wgmma.wait_group.sync.aligned {pending};"),
        // The accumulate flag is a predicate of the instruction's own block.
        Intrinsic::Tcgen05Mma {
            kind,
            pair,
            a_in_tmem,
        } => {
            let [taddr, a, desc_b, idesc, flag] = [0, 1, 2, 3, 4].map(operand);
            let a = if a_in_tmem {
                format!("[{}]", a?)
            } else {
                a?.to_owned()
            };
            format!(
                "{{ .reg .pred %accumulate; setp.ne.b32 %accumulate, {}, 0; tcgen05.mma.{}.kind::{} [{}], {a}, {}, {}, %accumulate; }}",
                flag?,
                cta_group(pair),
                kind.name(),
                taddr?,
                desc_b?,
                idesc?
            )
        }
        Intrinsic::TmemLoad { shape, repetitions } => format!(
            "tcgen05.ld.sync.aligned.{}.x{repetitions}.b32 {{{}}}, [{}];",
            shape.name(),
            results.join(", "),
            operand(0)?
        ),
        Intrinsic::TmemStore { shape, repetitions } => format!(
            "tcgen05.st.sync.aligned.{}.x{repetitions}.b32 [{}], {{{}}};",
            shape.name(),
            operand(0)?,
            operands.get(1..)?.join(", ")
        ),
    };
    Some(text)
}

/// The `cta_group` qualifier of a block's (`::1`) or a CTA pair's (`::2`) tcgen05
/// instruction.
fn cta_group(pair: bool) -> &'static str {
    if pair { "cta_group::2" } else { "cta_group::1" }
}

/// A TMA box's coordinates, the operands from `first` on: `{%r1, %r2}`.
fn coordinates(operands: &[String], first: usize) -> Option<String> {
    Some(format!("{{{}}}", operands.get(first..)?.join(", ")))
}
