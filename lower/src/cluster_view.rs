//! Distributed shared memory: the elements of a cluster view (`cluster_view(s, r)`,
//! a tensor based at `cute::Base::Cluster`), loaded, stored and atomically added to one
//! 32-bit word at a time by [`Intrinsic::ClusterLoad`], [`Intrinsic::ClusterStore`] and
//! [`Intrinsic::ClusterAdd`] on the element's address in this block's shared memory
//! and the rank of the block it lies in (the instruction maps one to the other:
//! `mapa`). Other uses of a view (copies, other atomics, MMA operands) are refused where
//! `Builder::place` meets its base.

use cute::{Base, Tensor};
use kir::{BinOp, Intrinsic, Op, Ty, ValueId};
use layout::SymInt;
use trace::{Atomic, Term};

use crate::builder::Builder;
use crate::memory::Place;

impl Builder<'_> {
    /// The value of the element of cluster view `tensor` at layout value `index`.
    pub(crate) fn read_cluster_element(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        predicate: Option<ValueId>,
    ) -> Option<ValueId> {
        let ty = self.cluster_word(tensor, predicate)?;
        let (address, rank) = self.cluster_address(tensor, index)?;
        let op = Op::Intrinsic {
            intrinsic: Intrinsic::ClusterLoad,
            operands: vec![(address, 0), (rank, 0)],
        };
        Some(self.push(op, ty))
    }

    /// Stores `value` into the element of cluster view `tensor` at layout value `index`.
    pub(crate) fn write_cluster_element(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        value: ValueId,
        predicate: Option<ValueId>,
    ) {
        let Some(ty) = self.cluster_word(tensor, predicate) else {
            return;
        };
        let value = self.convert(value, ty);
        let Some((address, rank)) = self.cluster_address(tensor, index) else {
            return;
        };
        self.push_intrinsic(
            Intrinsic::ClusterStore,
            vec![(address, 0), (rank, 0), (value, 0)],
        );
    }

    /// `atomic_add(view, coord, value)` on a cluster view's element, whose old value
    /// nothing reads (`red`): the only atomic the view has.
    pub(crate) fn cluster_atomic(
        &mut self,
        op: Atomic,
        (tensor, index): (&Tensor, &SymInt),
        value: &Term,
        old: Option<&str>,
    ) {
        if op != Atomic::Add || old.is_some() {
            self.unsupported(
                "an atomic on a cluster view other than `atomic_add` whose old value is unread"
                    .to_owned(),
            );
            return;
        }
        let Some(ty) = self.cluster_word(tensor, None) else {
            return;
        };
        let Some(value) = self.term(value, 0) else {
            return;
        };
        let value = self.convert(value, ty);
        let Some((address, rank)) = self.cluster_address(tensor, index) else {
            return;
        };
        self.push_intrinsic(
            Intrinsic::ClusterAdd {
                float: ty == Ty::F32,
            },
            vec![(address, 0), (rank, 0), (value, 0)],
        );
    }

    /// The register type of a cluster view's elements (32 bits: the checker allows no
    /// other), refusing a predicated access (a masked copy), which has no form here.
    fn cluster_word(&mut self, tensor: &Tensor, predicate: Option<ValueId>) -> Option<Ty> {
        let ty = self.element_ty(tensor)?;
        if predicate.is_some() || ty.bits() != 32 {
            self.unsupported(format!(
                "a cluster view of {} accessed {}: it moves one unpredicated 32-bit element at a time",
                tensor.element_name(),
                if predicate.is_some() { "under a predicate" } else { "here" },
            ));
            return None;
        }
        Some(ty)
    }

    /// The element's shared address in this block, as one register (`mapa` takes no
    /// offset), and the rank of the view's block.
    fn cluster_address(&mut self, tensor: &Tensor, index: &SymInt) -> Option<(ValueId, ValueId)> {
        let Base::Cluster { buffer, entry } = tensor.base else {
            return None;
        };
        let local = Tensor {
            base: Base::Shared(buffer),
            ..tensor.clone()
        };
        let Some(Place::Memory {
            address, offset, ..
        }) = self.place(&local, index)
        else {
            return None;
        };
        let address = if offset == 0 {
            address
        } else {
            let offset = self.constant(offset, Ty::I32);
            self.binary(BinOp::Add, address, offset)
        };
        let Some(variable) = self.trace.cluster_ranks.get(entry as usize).cloned() else {
            self.unsupported("a cluster view the trace does not name".to_owned());
            return None;
        };
        let rank = self.int(&SymInt::variable(&variable))?;
        Some((address, self.convert(rank, Ty::I32)))
    }
}
