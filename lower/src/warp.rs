//! Warp shuffles, `elect_one` and atomics: run-time values with an identity that other
//! threads' values, the warp or memory decide.

use cute::{Dtype, Tensor};
use kir::{AtomicOp, Intrinsic, Op, ShuffleMode, Ty};
use layout::SymInt;
use trace::{Atomic, Shuffle, Term};

use crate::builder::{Builder, dtype_ty};
use crate::memory::Place;

impl Builder<'_> {
    /// `variable = shfl_*(value, lane)` over the whole warp.
    pub(crate) fn shuffle(
        &mut self,
        mode: Shuffle,
        (value, lane): (&Term, &Term),
        variable: &str,
        dtype: Dtype,
    ) {
        let Some(ty) = dtype_ty(dtype).filter(|ty| ty.bits() == 32) else {
            self.unsupported(format!("a shuffle of {dtype}"));
            return;
        };
        let (Some(value), Some(lane)) = (self.term(value, 0), self.term(lane, 0)) else {
            return;
        };
        let value = self.convert(value, ty);
        let lane = self.convert(lane, Ty::I32);
        let mode = match mode {
            Shuffle::Up => ShuffleMode::Up,
            Shuffle::Down => ShuffleMode::Down,
            Shuffle::Xor => ShuffleMode::Xor,
            Shuffle::Index => ShuffleMode::Index,
        };
        let received = self.push(Op::Shuffle { mode, value, lane }, ty);
        self.define_variable(variable, received);
    }

    /// `elect_one()`, defining `variable`: a pred true in one lane of the warp.
    pub(crate) fn elect(&mut self, variable: &str) {
        let elect = Op::Intrinsic {
            intrinsic: Intrinsic::Elect,
            operands: Vec::new(),
        };
        let elected = self.push(elect, Ty::Pred);
        self.define_variable(variable, elected);
    }

    /// `atomic_*(tensor[index], value)`, defining `old` when the old value is used.
    pub(crate) fn atomic(
        &mut self,
        op: Atomic,
        (tensor, index): (&Tensor, &SymInt),
        value: &Term,
        old: Option<&str>,
    ) {
        if let cute::Base::Cluster { .. } = tensor.base {
            self.cluster_atomic(op, (tensor, index), value, old);
            return;
        }
        let Some(ty) = self.element_ty(tensor) else {
            return;
        };
        let Some(value) = self.term(value, 0) else {
            return;
        };
        let value = self.convert(value, ty);
        let Some(Place::Memory {
            space,
            address,
            offset,
        }) = self.place(tensor, index)
        else {
            self.unsupported("an atomic on a register fragment".to_owned());
            return;
        };
        let op = match op {
            Atomic::Add => AtomicOp::Add,
            Atomic::Max => AtomicOp::Max,
            Atomic::Min => AtomicOp::Min,
        };
        let atomic = Op::Atomic {
            op,
            space,
            address,
            offset,
            value,
        };
        match old {
            Some(variable) => {
                let previous = self.push(atomic, ty);
                self.define_variable(variable, previous);
            }
            None => self.push_effect(atomic),
        }
    }
}
