//! Blackwell's tensor memory (sm_100a): allocation and release as [`kir::Intrinsic`]s
//! (their PTX is `backend-ptx/src/intrinsics.rs`'s), each `cta_group::1` (one block's
//! tensor memory) or `cta_group::2` (a CTA pair's), and the addresses they take.

use cute::Tensor;
use kir::{Intrinsic, Ty};
use layout::SymInt;
use trace::{Term, Tmem};

use crate::builder::Builder;
use crate::memory::Place;

impl Builder<'_> {
    /// A tensor-memory allocation into a shared slot, or a release of an address.
    pub(crate) fn tmem(&mut self, action: &Tmem, columns: i64, pair: bool) {
        let Ok(columns) = u32::try_from(columns) else {
            self.unsupported(format!("{columns} tensor-memory columns"));
            return;
        };
        let (intrinsic, operand) = match action {
            Tmem::Alloc { slot, index } => {
                let what = "a tensor-memory address slot";
                let Some(slot) = self.shared_element(slot, index, what) else {
                    return;
                };
                (Intrinsic::TmemAlloc { columns, pair }, slot)
            }
            Tmem::Dealloc { address } => {
                let Some(value) = self.tmem_address(address) else {
                    return;
                };
                (Intrinsic::TmemDealloc { columns, pair }, (value, 0))
            }
        };
        self.push_intrinsic(intrinsic, vec![operand]);
    }

    /// A tensor-memory address term as a 32-bit register.
    pub(crate) fn tmem_address(&mut self, address: &Term) -> Option<kir::ValueId> {
        let value = self.term(address, 0)?;
        Some(self.convert(value, Ty::I32))
    }

    /// The shared address (register and immediate) of `tensor`'s element at layout
    /// value `index`; `what` names it if it has none.
    pub(crate) fn shared_element(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        what: &str,
    ) -> Option<(kir::ValueId, i64)> {
        match self.place(tensor, index) {
            Some(Place::Memory {
                address, offset, ..
            }) => Some((address, offset)),
            _ => {
                self.unsupported(format!("{what} outside shared memory"));
                None
            }
        }
    }
}
