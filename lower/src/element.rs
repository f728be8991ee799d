//! Instructions on one element of a global tensor (`trace::Effect::OnElement`): the
//! ordered loads, stores and adds of `load_acquire`, `store_release` and the atomics
//! with an `order`. The element's address is the intrinsic's first operand, the value
//! converted to the element's type its second; a result defines the effect's variable.

use kir::{Intrinsic, Op, Space};
use layout::SymInt;
use trace::Term;

use crate::builder::Builder;
use crate::memory::Place;

impl Builder<'_> {
    /// `intrinsic` on the element `tensor[index]`, with `value` after its address,
    /// defining `result` when it is used.
    pub(crate) fn on_element(
        &mut self,
        intrinsic: Intrinsic,
        (tensor, index): (&cute::Tensor, &SymInt),
        value: Option<&Term>,
        result: Option<&str>,
    ) {
        let Some(ty) = self.element_ty(tensor) else {
            return;
        };
        let value = match value {
            Some(value) => match self.term(value, 0) {
                Some(value) => Some(self.convert(value, ty)),
                None => return,
            },
            None => None,
        };
        let Some(Place::Memory {
            space: Space::Global,
            address,
            offset,
        }) = self.place(tensor, index)
        else {
            self.unsupported(format!("`{}` outside global memory", intrinsic.row().name));
            return;
        };
        let operands = std::iter::once((address, offset))
            .chain(value.map(|value| (value, 0)))
            .collect();
        let op = Op::Intrinsic {
            intrinsic,
            operands,
        };
        let returns = intrinsic.list_len() > 0;
        match (returns, result) {
            (true, Some(variable)) => {
                let word = self.push(op, ty);
                self.define_variable(variable, word);
            }
            (true, None) => {
                self.push(op, ty);
            }
            (false, _) => self.push_effect(op),
        }
    }
}
