//! Blackwell's tensor memory and tcgen05 synchronization (sm_100a) as atom
//! instructions with fixed templates, in the forms `../shared/design/HOPPER-BLACKWELL.md`
//! (D.2, D.6) lists as assembled by ptxas for sm_100a. Every form is `cta_group::1`:
//! one block's tensor memory, MMAs issued for one block. Anything that executes KIR
//! (the CPU emulator) recognises them by these templates.

use cute::Tensor;
use kir::{Op, Ty};
use layout::SymInt;
use trace::{Term, Tmem};

use crate::builder::Builder;
use crate::memory::Place;

/// `tcgen05.commit`: one arrival on the mbarrier at `{bar}` (a shared::cta address,
/// which the shared::cluster window contains) once the thread's earlier tcgen05
/// operations have completed.
pub const TCGEN05_COMMIT: &str =
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [{bar}];";
/// The thread's tcgen05 operations ordered before the next thread synchronization.
pub const TCGEN05_FENCE_BEFORE: &str = "tcgen05.fence::before_thread_sync;";
/// The thread's tcgen05 operations ordered after the last thread synchronization.
pub const TCGEN05_FENCE_AFTER: &str = "tcgen05.fence::after_thread_sync;";
/// The warp's tensor-memory loads complete, their registers valid.
pub const TCGEN05_WAIT_LD: &str = "tcgen05.wait::ld.sync.aligned;";
/// The warp's tensor-memory stores complete.
pub const TCGEN05_WAIT_ST: &str = "tcgen05.wait::st.sync.aligned;";
/// The block gives up its right to allocate tensor memory.
pub const TMEM_RELINQUISH: &str = "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;";

/// `tcgen05.alloc` of `columns` columns, the address written to the shared `{slot}`.
pub fn tmem_alloc_template(columns: i64) -> String {
    format!("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{slot}}], {columns};")
}

/// `tcgen05.dealloc` of the `columns` columns at `{taddr}`.
pub fn tmem_dealloc_template(columns: i64) -> String {
    format!("tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{taddr}}, {columns};")
}

impl Builder<'_> {
    /// A tensor-memory allocation into a shared slot, or a release of an address.
    pub(crate) fn tmem(&mut self, action: &Tmem, columns: i64) {
        let (template, operand) = match action {
            Tmem::Alloc { slot, index } => {
                let what = "a tensor-memory address slot";
                let Some((address, offset)) = self.shared_element(slot, index, what) else {
                    return;
                };
                (tmem_alloc_template(columns), ("slot", address, offset))
            }
            Tmem::Dealloc { address } => {
                let Some(value) = self.tmem_address(address) else {
                    return;
                };
                (tmem_dealloc_template(columns), ("taddr", value, 0))
            }
        };
        let (name, value, offset) = operand;
        self.push_effect(Op::Atom {
            template,
            operands: vec![(name.to_owned(), value, offset)],
            registers: Vec::new(),
            output: None,
            warp: None,
            predicate: None,
        });
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
