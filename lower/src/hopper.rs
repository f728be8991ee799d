//! Hopper's asynchronous machinery as atom instructions with fixed templates: the
//! mbarrier operations on a barrier's shared address, the fences, and the wgmma group
//! instructions. Their PTX forms are the ones `../shared/design/HOPPER-BLACKWELL.md`
//! (A.3, A.4, A.7) lists as assembled by ptxas for sm_90a; anything that executes KIR
//! (the CPU emulator) recognises them by these templates.
//!
//! `mbarrier_wait` is a loop inside its own PTX block, so its predicate and label are
//! local to each use: `try_wait.parity` may give up after a time the hardware chooses,
//! and the loop asks again until the phase has completed.

use cute::Tensor;
use kir::{Op, Ty, ValueId};
use layout::SymInt;
use trace::{AsyncSync, Mbarrier, Term};

use crate::blackwell;
use crate::builder::Builder;
use crate::memory::Place;

/// `mbarrier.init`: `{bar}` the barrier, `{count}` the arrivals per phase.
pub const MBARRIER_INIT: &str = "mbarrier.init.shared::cta.b64 [{bar}], {count};";
/// `mbarrier.arrive`: one arrival on `{bar}`.
pub const MBARRIER_ARRIVE: &str = "mbarrier.arrive.shared::cta.b64 _, [{bar}];";
/// One arrival on the barrier at `{bar}`'s place in block `{cta}` of the cluster: `mapa`
/// gives that block's `shared::cluster` address (`{bar}` a plain register, no offset).
/// The arrival has `mbarrier.arrive`'s default semantics (release, CTA scope), as
/// CUTLASS's `ClusterBarrier::arrive(cta_id)` does: a cluster-scope release on every
/// consumer warp's arrival would cost the pipeline's throughput.
pub const MBARRIER_ARRIVE_CLUSTER: &str = "{{ .reg .b32 %remote; mapa.shared::cluster.u32 %remote, {bar}, {cta}; mbarrier.arrive.shared::cluster.b64 _, [%remote]; }}";
/// `mbarrier.arrive.expect_tx`: `{bytes}` more transaction bytes, then one arrival.
pub const MBARRIER_ARRIVE_EXPECT_TX: &str =
    "mbarrier.arrive.expect_tx.shared::cta.b64 _, [{bar}], {bytes};";
/// `mbarrier.try_wait.parity` until the phase of parity `{parity}` has completed.
pub const MBARRIER_WAIT: &str = "{{ .reg .pred %done; $wait: mbarrier.try_wait.parity.shared::cta.b64 %done, [{bar}], {parity}; @!%done bra $wait; }}";
/// The thread arrives at the cluster barrier, its earlier writes released to the cluster.
pub const CLUSTER_ARRIVE: &str = "barrier.cluster.arrive.release.aligned;";
/// The thread waits until every thread of the cluster has arrived.
pub const CLUSTER_WAIT: &str = "barrier.cluster.wait.acquire.aligned;";
/// Barrier inits visible to the async proxy and the cluster.
pub const FENCE_BARRIER_INIT: &str = "fence.mbarrier_init.release.cluster;";
/// This thread's generic shared-memory writes visible to the async proxy.
pub const FENCE_PROXY_ASYNC: &str = "fence.proxy.async.shared::cta;";
/// Register accesses ordered before the following wgmmas.
pub const WGMMA_FENCE: &str = "wgmma.fence.sync.aligned;";
/// The wgmmas issued since the last commit become a group.
pub const WGMMA_COMMIT: &str = "wgmma.commit_group.sync.aligned;";

/// `cp.async.bulk.tensor` of a `rank`-dimensional box: `{dst}` the shared
/// destination, `{map}` the tensor map's address, `{{coords}}` the box's first
/// coordinates (innermost first), `{bar}` the mbarrier its bytes complete on.
pub fn tma_load_template(rank: usize) -> String {
    format!(
        "cp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::complete_tx::bytes [{{dst}}], [{{map}}, {{{{coords}}}}], [{{bar}}];"
    )
}

/// A TMA load multicast to the cluster's blocks in the 16-bit mask `{mask}` (given as
/// 32 bits), otherwise as [`tma_load_template`]: the box lands at the same offset in
/// each block and completes on each one's barrier at `{bar}`'s offset.
pub fn tma_multicast_template(rank: usize) -> String {
    format!(
        "{{{{ .reg .b16 %mask; cvt.u16.u32 %mask, {{mask}}; cp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [{{dst}}], [{{map}}, {{{{coords}}}}], [{{bar}}], %mask; }}}}"
    )
}

/// A CTA pair's TMA load (sm_100a, `.cta_group::2`): the box lands in this block, its
/// bytes complete on the barrier at `{bar}`'s place (a plain register) in the even block
/// of the pair, which `mapa` gives from this block's rank with its low bit cleared.
pub fn tma_pair_template(rank: usize) -> String {
    format!(
        "{{{{ .reg .b32 %even; .reg .b32 %leader; mov.u32 %even, %cluster_ctarank; and.b32 %even, %even, 0xFFFFFFFE; mapa.shared::cluster.u32 %leader, {{bar}}, %even; cp.async.bulk.tensor.{rank}d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [{{dst}}], [{{map}}, {{{{coords}}}}], [%leader]; }}}}"
    )
}

/// The tensor map at generic address `{map}` into the cache.
pub const PREFETCH_TENSOR_MAP: &str = "prefetch.tensormap [{map}];";

/// `cp.async.bulk.tensor` store of a `rank`-dimensional box: `{map}` the tensor map's
/// address, `{{coords}}` the box's first coordinates (innermost first), `{src}` the
/// shared tile.
pub fn tma_store_template(rank: usize) -> String {
    format!(
        "cp.async.bulk.tensor.{rank}d.global.shared::cta.bulk_group [{{map}}, {{{{coords}}}}], [{{src}}];"
    )
}

impl Builder<'_> {
    /// An mbarrier operation on `tensor`'s element at layout value `index`. In a
    /// kernel without a cluster, an arrival on block `cta` of the cluster is one on
    /// this block's barrier (the only block; the checker saw `cta` is 0 if constant).
    pub(crate) fn mbarrier(
        &mut self,
        action: Mbarrier,
        (tensor, index): (&Tensor, &SymInt),
        operand: Option<&Term>,
    ) {
        let (action, operand) = match action {
            Mbarrier::ArriveCluster if self.trace.cluster == [1, 1, 1] => (Mbarrier::Arrive, None),
            _ => (action, operand),
        };
        let Some(Place::Memory {
            address, offset, ..
        }) = self.place(tensor, index)
        else {
            self.unsupported("an mbarrier outside shared memory".to_owned());
            return;
        };
        let (template, name) = match action {
            Mbarrier::Init => (MBARRIER_INIT.to_owned(), "count"),
            Mbarrier::Arrive => (MBARRIER_ARRIVE.to_owned(), ""),
            Mbarrier::ArriveCluster => (MBARRIER_ARRIVE_CLUSTER.to_owned(), "cta"),
            Mbarrier::ArriveExpectTx => (MBARRIER_ARRIVE_EXPECT_TX.to_owned(), "bytes"),
            Mbarrier::Wait => (MBARRIER_WAIT.to_owned(), "parity"),
            Mbarrier::Tcgen05Commit { pair } => (
                blackwell::tcgen05_commit_template(pair, operand.is_some()),
                "mask",
            ),
        };
        let (address, offset) = if action == Mbarrier::ArriveCluster && offset != 0 {
            let offset = self.constant(offset, Ty::I32);
            (self.binary(kir::BinOp::Add, address, offset), 0)
        } else {
            (address, offset)
        };
        let mut operands = vec![("bar".to_owned(), address, offset)];
        if let Some(operand) = operand {
            let Some(value) = self.term(operand, 0) else {
                return;
            };
            let value = self.convert(value, Ty::I32);
            operands.push((name.to_owned(), value, 0));
        }
        self.push_effect_atom(template, operands);
    }

    /// A TMA load of the box at `coords` (map order) through the tensor map `map`
    /// into `destination`'s first element, completing on the barrier; to the blocks of
    /// the cluster in the `multicast` mask when there is one (a kernel without a
    /// cluster has one block, which a plain load reaches).
    pub(crate) fn tma_load(
        &mut self,
        map: usize,
        coords: &[SymInt],
        destination: &Tensor,
        (barriers, barrier): (&Tensor, &SymInt),
        (multicast, pair): (Option<&Term>, bool),
    ) {
        let Some((address, offset)) = self.tile_start(destination, "a TMA destination") else {
            return;
        };
        let Some(Place::Memory {
            address: bar,
            offset: bar_offset,
            ..
        }) = self.place(barriers, barrier)
        else {
            self.unsupported("an mbarrier outside shared memory".to_owned());
            return;
        };
        // A pair's load maps the barrier to the even block with `mapa`: a plain register.
        let (bar, bar_offset) = if pair && bar_offset != 0 {
            let offset = self.constant(bar_offset, Ty::I32);
            (self.binary(kir::BinOp::Add, bar, offset), 0)
        } else {
            (bar, bar_offset)
        };
        let Some((map, words)) = self.tma_map_and_coords(map, coords) else {
            return;
        };
        let mut operands = vec![
            ("dst".to_owned(), address, offset),
            ("map".to_owned(), map, 0),
            ("bar".to_owned(), bar, bar_offset),
        ];
        let template = match multicast.filter(|_| self.trace.cluster != [1, 1, 1]) {
            _ if pair => tma_pair_template(coords.len()),
            Some(mask) => {
                let Some(mask) = self.term(mask, 0) else {
                    return;
                };
                let mask = self.convert(mask, Ty::I32);
                operands.push(("mask".to_owned(), mask, 0));
                tma_multicast_template(coords.len())
            }
            None => tma_load_template(coords.len()),
        };
        self.push_effect(Op::Atom {
            template,
            operands,
            registers: vec![("coords".to_owned(), words)],
            output: None,
            warp: None,
            predicate: None,
        });
    }

    /// `prefetch.tensormap` of the tensor map `map`.
    pub(crate) fn tma_prefetch(&mut self, map: usize) {
        let map = self.pure(Op::Param(map), Ty::I64);
        self.push_effect_atom(
            PREFETCH_TENSOR_MAP.to_owned(),
            vec![("map".to_owned(), map, 0)],
        );
    }

    /// A TMA store of `source`'s tile through the tensor map `map` to the box at
    /// `coords` (map order).
    pub(crate) fn tma_store(&mut self, map: usize, coords: &[SymInt], source: &Tensor) {
        let Some((address, offset)) = self.tile_start(source, "a TMA source") else {
            return;
        };
        let Some((map, words)) = self.tma_map_and_coords(map, coords) else {
            return;
        };
        self.push_effect(Op::Atom {
            template: tma_store_template(coords.len()),
            operands: vec![
                ("map".to_owned(), map, 0),
                ("src".to_owned(), address, offset),
            ],
            registers: vec![("coords".to_owned(), words)],
            output: None,
            warp: None,
            predicate: None,
        });
    }

    /// The shared address (register and immediate) of `tile`'s first element, whose
    /// layout value at coordinate 0 is its offset; `what` names it if it has none.
    fn tile_start(&mut self, tile: &Tensor, what: &str) -> Option<(ValueId, i64)> {
        self.shared_element(tile, &tile.layout.offset, what)
    }

    /// The tensor map `map`'s address and the box's coordinates as i32 registers.
    fn tma_map_and_coords(
        &mut self,
        map: usize,
        coords: &[SymInt],
    ) -> Option<(ValueId, Vec<ValueId>)> {
        let mut words = Vec::with_capacity(coords.len());
        for coordinate in coords {
            let value = self.int(coordinate)?;
            words.push(self.convert(value, Ty::I32));
        }
        Some((self.pure(Op::Param(map), Ty::I64), words))
    }

    /// `bar.sync` / `bar.arrive`: the id a literal when it is a constant, else a
    /// register (PTX takes either).
    pub(crate) fn named_barrier(&mut self, arrive: bool, id: &Term, threads: i64) {
        let way = if arrive { "arrive" } else { "sync" };
        let constant = match id {
            Term::Int(value, _) => value.as_constant(),
            _ => None,
        };
        let (template, operands) = match constant {
            Some(id) => (format!("bar.{way} {id}, {threads};"), Vec::new()),
            None => {
                let Some(value) = self.term(id, 0) else {
                    return;
                };
                let value = self.convert(value, Ty::I32);
                let template = format!("bar.{way} {{id}}, {threads};");
                (template, vec![("id".to_owned(), value, 0)])
            }
        };
        self.push_effect_atom(template, operands);
    }

    /// Appends an atom instruction that only reads `operands` (a barrier, a fence, a
    /// prefetch): no register lists, no result, not a warp collective.
    pub(crate) fn push_effect_atom(
        &mut self,
        template: String,
        operands: Vec<(String, ValueId, i64)>,
    ) {
        self.push_effect(Op::Atom {
            template,
            operands,
            registers: Vec::new(),
            output: None,
            warp: None,
            predicate: None,
        });
    }

    /// A fence, a wgmma group instruction or a tcgen05 wait.
    pub(crate) fn async_sync(&mut self, sync: AsyncSync) {
        let template = match sync {
            AsyncSync::FenceBarrierInit => FENCE_BARRIER_INIT.to_owned(),
            AsyncSync::FenceProxyAsync => FENCE_PROXY_ASYNC.to_owned(),
            AsyncSync::WgmmaFence => WGMMA_FENCE.to_owned(),
            AsyncSync::WgmmaCommit => WGMMA_COMMIT.to_owned(),
            AsyncSync::WgmmaWait(groups) => format!("wgmma.wait_group.sync.aligned {groups};"),
            AsyncSync::BulkCommit => "cp.async.bulk.commit_group;".to_owned(),
            AsyncSync::BulkWaitRead(groups) => format!("cp.async.bulk.wait_group.read {groups};"),
            AsyncSync::BulkWaitAll => "cp.async.bulk.wait_group 0;".to_owned(),
            AsyncSync::ClusterArrive => CLUSTER_ARRIVE.to_owned(),
            AsyncSync::ClusterWait => CLUSTER_WAIT.to_owned(),
            AsyncSync::SetMaxNReg {
                increase,
                registers,
            } => {
                let way = if increase { "inc" } else { "dec" };
                format!("setmaxnreg.{way}.sync.aligned.u32 {registers};")
            }
            AsyncSync::Tcgen05FenceBefore => blackwell::TCGEN05_FENCE_BEFORE.to_owned(),
            AsyncSync::Tcgen05FenceAfter => blackwell::TCGEN05_FENCE_AFTER.to_owned(),
            AsyncSync::Tcgen05WaitLd => blackwell::TCGEN05_WAIT_LD.to_owned(),
            AsyncSync::Tcgen05WaitSt => blackwell::TCGEN05_WAIT_ST.to_owned(),
            AsyncSync::TmemRelinquish { pair } => blackwell::tmem_relinquish_template(pair),
        };
        self.push_effect_atom(template, Vec::new());
    }
}
