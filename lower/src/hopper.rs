//! Hopper's asynchronous machinery: the mbarrier operations on a barrier's shared
//! address, the fences, named and cluster barriers, bulk-group commits and waits,
//! `setmaxnreg` and the tensor-map prefetch as [`kir::Intrinsic`]s (their PTX is
//! `backend-ptx/src/intrinsics.rs`'s); TMA loads and stores and the wgmma group
//! instructions still as atom instructions with fixed templates, the forms
//! `../shared/design/HOPPER-BLACKWELL.md` (A.3, A.4, A.7) lists as assembled by ptxas
//! for sm_90a, which the CPU emulator recognises.

use cute::Tensor;
use kir::{Fence, Intrinsic, Op, Ty, ValueId};
use layout::SymInt;
use trace::{AsyncSync, Mbarrier, Term};

use crate::blackwell;
use crate::builder::Builder;
use crate::memory::Place;

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
        // `mapa` takes the barrier's address in a register, without an offset.
        let (address, offset) = if action == Mbarrier::ArriveCluster && offset != 0 {
            let offset = self.constant(offset, Ty::I32);
            (self.binary(kir::BinOp::Add, address, offset), 0)
        } else {
            (address, offset)
        };
        let value = match operand {
            Some(operand) => {
                let Some(value) = self.term(operand, 0) else {
                    return;
                };
                Some(self.convert(value, Ty::I32))
            }
            None => None,
        };
        let intrinsic = match action {
            Mbarrier::Init => Intrinsic::MbarrierInit,
            Mbarrier::Arrive => Intrinsic::MbarrierArrive,
            Mbarrier::ArriveCluster => Intrinsic::MbarrierArriveCluster,
            Mbarrier::ArriveExpectTx => Intrinsic::MbarrierArriveExpectTx,
            Mbarrier::Wait => Intrinsic::MbarrierWait,
            Mbarrier::Tcgen05Commit { pair } => {
                let template = blackwell::tcgen05_commit_template(pair, value.is_some());
                let operands = std::iter::once(("bar".to_owned(), address, offset))
                    .chain(value.map(|mask| ("mask".to_owned(), mask, 0)))
                    .collect();
                self.push_effect_atom(template, operands);
                return;
            }
        };
        let operands = std::iter::once((address, offset))
            .chain(value.map(|value| (value, 0)))
            .collect();
        self.push_intrinsic(intrinsic, operands);
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
        self.push_intrinsic(Intrinsic::PrefetchTensorMap, vec![(map, 0)]);
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

    /// A named barrier: its id a parameter when it is a constant, else an operand
    /// (PTX takes either).
    pub(crate) fn named_barrier(&mut self, arrive: bool, id: &Term, threads: i64) {
        let constant = match id {
            Term::Int(value, _) => value.as_constant(),
            _ => None,
        };
        let Ok(threads) = u32::try_from(threads) else {
            self.unsupported(format!("a named barrier of {threads} threads"));
            return;
        };
        let (id, operands) = match constant {
            Some(id) => {
                let Ok(id) = u32::try_from(id) else {
                    self.unsupported(format!("named barrier {id}"));
                    return;
                };
                (Some(id), Vec::new())
            }
            None => {
                let Some(value) = self.term(id, 0) else {
                    return;
                };
                (None, vec![(self.convert(value, Ty::I32), 0)])
            }
        };
        let intrinsic = Intrinsic::NamedBarrier {
            arrive,
            id,
            threads,
        };
        self.push_intrinsic(intrinsic, operands);
    }

    /// Appends the intrinsic `intrinsic` on `operands`, defining nothing.
    pub(crate) fn push_intrinsic(&mut self, intrinsic: Intrinsic, operands: Vec<(ValueId, i64)>) {
        self.push_effect(Op::Intrinsic {
            intrinsic,
            operands,
        });
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

    /// A fence, a barrier, a group instruction or a tcgen05 wait.
    pub(crate) fn async_sync(&mut self, sync: AsyncSync) {
        if let Some(intrinsic) = self.sync_intrinsic(sync) {
            self.push_intrinsic(intrinsic, Vec::new());
            return;
        }
        let template = match sync {
            AsyncSync::WgmmaFence => WGMMA_FENCE.to_owned(),
            AsyncSync::WgmmaCommit => WGMMA_COMMIT.to_owned(),
            AsyncSync::WgmmaWait(groups) => format!("wgmma.wait_group.sync.aligned {groups};"),
            AsyncSync::Tcgen05FenceBefore => blackwell::TCGEN05_FENCE_BEFORE.to_owned(),
            AsyncSync::Tcgen05FenceAfter => blackwell::TCGEN05_FENCE_AFTER.to_owned(),
            AsyncSync::Tcgen05WaitLd => blackwell::TCGEN05_WAIT_LD.to_owned(),
            AsyncSync::Tcgen05WaitSt => blackwell::TCGEN05_WAIT_ST.to_owned(),
            AsyncSync::TmemRelinquish { pair } => blackwell::tmem_relinquish_template(pair),
            _ => return,
        };
        self.push_effect_atom(template, Vec::new());
    }

    /// The intrinsic `sync` is, where it is one (the wgmma and tcgen05 ones are still
    /// atoms).
    fn sync_intrinsic(&mut self, sync: AsyncSync) -> Option<Intrinsic> {
        let intrinsic = match sync {
            AsyncSync::FenceBarrierInit => Intrinsic::Fence(Fence::BarrierInit),
            AsyncSync::FenceProxyAsync => Intrinsic::Fence(Fence::ProxyAsync),
            AsyncSync::BulkCommit => Intrinsic::BulkCommit,
            AsyncSync::BulkWaitRead(groups) => Intrinsic::BulkWait {
                read: true,
                pending: self.small_count(groups, "bulk groups"),
            },
            AsyncSync::BulkWaitAll => Intrinsic::BulkWait {
                read: false,
                pending: 0,
            },
            AsyncSync::ClusterArrive => Intrinsic::ClusterArrive,
            AsyncSync::ClusterWait => Intrinsic::ClusterWait,
            AsyncSync::SetMaxNReg {
                increase,
                registers,
            } => Intrinsic::SetMaxNReg {
                increase,
                registers: self.small_count(registers, "registers"),
            },
            _ => return None,
        };
        Some(intrinsic)
    }

    /// A count the checker bounded (registers, groups), as an instruction parameter.
    fn small_count(&mut self, count: i64, what: &str) -> u32 {
        u32::try_from(count).unwrap_or_else(|_| {
            self.unsupported(format!("{count} {what}"));
            0
        })
    }
}
