//! Hopper's asynchronous machinery: the mbarrier operations on a barrier's shared
//! address, the fences, named and cluster barriers, TMA loads and stores, bulk-group
//! commits and waits, `setmaxnreg`, the tensor-map prefetch and the wgmma group
//! instructions as [`kir::Intrinsic`]s (their PTX is `backend-ptx/src/intrinsics.rs`'s).

use cute::Tensor;
use kir::{Intrinsic, Op, TmaReach, Ty, ValueId};
use layout::SymInt;
use trace::{Mbarrier, Term};

use crate::builder::Builder;
use crate::memory::Place;

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
            Mbarrier::Tcgen05Commit { pair } => Intrinsic::Tcgen05Commit {
                pair,
                multicast: value.is_some(),
            },
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
        let mut operands = vec![(address, offset), (map, 0), (bar, bar_offset)];
        let reach = match multicast.filter(|_| self.trace.cluster != [1, 1, 1]) {
            _ if pair => TmaReach::Pair,
            Some(mask) => {
                let Some(mask) = self.term(mask, 0) else {
                    return;
                };
                operands.push((self.convert(mask, Ty::I32), 0));
                TmaReach::Multicast
            }
            None => TmaReach::Block,
        };
        operands.extend(words.into_iter().map(|word| (word, 0)));
        let Some(rank) = self.tma_rank(coords.len()) else {
            return;
        };
        self.push_intrinsic(Intrinsic::TmaLoad { rank, reach }, operands);
    }

    /// `prefetch.tensormap` of the tensor map `map`.
    pub(crate) fn tma_prefetch(&mut self, map: usize) {
        let map = self.pure(Op::Param(map), Ty::I64);
        self.push_intrinsic(Intrinsic::PrefetchTensorMap, vec![(map, 0)]);
    }

    /// A TMA store of `source`'s tile through the tensor map `map` to the box at
    /// `coords` (map order), adding to the box's elements when `add`.
    pub(crate) fn tma_store(&mut self, map: usize, coords: &[SymInt], source: &Tensor, add: bool) {
        let Some((address, offset)) = self.tile_start(source, "a TMA source") else {
            return;
        };
        let Some((map, words)) = self.tma_map_and_coords(map, coords) else {
            return;
        };
        let Some(rank) = self.tma_rank(coords.len()) else {
            return;
        };
        let operands = [(map, 0), (address, offset)]
            .into_iter()
            .chain(words.into_iter().map(|word| (word, 0)))
            .collect();
        self.push_intrinsic(Intrinsic::TmaStore { rank, add }, operands);
    }

    /// A TMA box's rank as an instruction parameter (the checker allows 1 to 5).
    fn tma_rank(&mut self, rank: usize) -> Option<u32> {
        let rank = u32::try_from(rank)
            .ok()
            .filter(|rank| (1..=5).contains(rank));
        if rank.is_none() {
            self.unsupported("a TMA box of more than 5 dimensions".to_owned());
        }
        rank
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
}
