//! Blackwell's tensor memory and tcgen05 synchronization (sm_100a) as atom
//! instructions with fixed templates, in the forms `../shared/design/HOPPER-BLACKWELL.md`
//! (D.2, D.6, D.8) lists as assembled by ptxas for sm_100a, each `cta_group::1` (one
//! block's tensor memory) or `cta_group::2` (a CTA pair's). Anything that executes KIR
//! (the CPU emulator) recognises them by these templates.

use cute::Tensor;
use kir::Ty;
use layout::SymInt;
use trace::{Term, Tmem};

use crate::builder::Builder;
use crate::memory::Place;

/// `tcgen05.commit`: one arrival on the mbarrier at `{bar}` (a shared::cta address,
/// which the shared::cluster window contains) once the thread's earlier tcgen05
/// operations have completed; with `multicast`, on the barrier at that offset in each
/// block of the cluster in the 16-bit mask `{mask}` (given as 32 bits).
pub fn tcgen05_commit_template(pair: bool, multicast: bool) -> String {
    let group = cta_group(pair);
    let commit = format!("tcgen05.commit.{group}.mbarrier::arrive::one.shared::cluster");
    match multicast {
        false => format!("{commit}.b64 [{{bar}}];"),
        true => format!(
            "{{{{ .reg .b16 %mask; cvt.u16.u32 %mask, {{mask}}; {commit}.multicast::cluster.b64 [{{bar}}], %mask; }}}}"
        ),
    }
}

/// The `cta_group` qualifier of a block's (`::1`) or a CTA pair's (`::2`) instruction.
pub fn cta_group(pair: bool) -> &'static str {
    if pair { "cta_group::2" } else { "cta_group::1" }
}
/// The thread's tcgen05 operations ordered before the next thread synchronization.
pub const TCGEN05_FENCE_BEFORE: &str = "tcgen05.fence::before_thread_sync;";
/// The thread's tcgen05 operations ordered after the last thread synchronization.
pub const TCGEN05_FENCE_AFTER: &str = "tcgen05.fence::after_thread_sync;";
/// The warp's tensor-memory loads complete, their registers valid.
pub const TCGEN05_WAIT_LD: &str = "tcgen05.wait::ld.sync.aligned;";
/// The warp's tensor-memory stores complete.
pub const TCGEN05_WAIT_ST: &str = "tcgen05.wait::st.sync.aligned;";
/// The block (or the pair) gives up its right to allocate tensor memory.
pub fn tmem_relinquish_template(pair: bool) -> String {
    format!(
        "tcgen05.relinquish_alloc_permit.{}.sync.aligned;",
        cta_group(pair)
    )
}

/// `tcgen05.alloc` of `columns` columns, the address written to the shared `{slot}`.
pub fn tmem_alloc_template(columns: i64, pair: bool) -> String {
    let group = cta_group(pair);
    format!("tcgen05.alloc.{group}.sync.aligned.shared::cta.b32 [{{slot}}], {columns};")
}

/// `tcgen05.dealloc` of the `columns` columns at `{taddr}`.
pub fn tmem_dealloc_template(columns: i64, pair: bool) -> String {
    let group = cta_group(pair);
    format!("tcgen05.dealloc.{group}.sync.aligned.b32 {{taddr}}, {columns};")
}

impl Builder<'_> {
    /// A tensor-memory allocation into a shared slot, or a release of an address.
    pub(crate) fn tmem(&mut self, action: &Tmem, columns: i64, pair: bool) {
        let (template, operand) = match action {
            Tmem::Alloc { slot, index } => {
                let what = "a tensor-memory address slot";
                let Some((address, offset)) = self.shared_element(slot, index, what) else {
                    return;
                };
                (
                    tmem_alloc_template(columns, pair),
                    ("slot", address, offset),
                )
            }
            Tmem::Dealloc { address } => {
                let Some(value) = self.tmem_address(address) else {
                    return;
                };
                (tmem_dealloc_template(columns, pair), ("taddr", value, 0))
            }
        };
        let (name, value, offset) = operand;
        self.push_effect_atom(template, vec![(name.to_owned(), value, offset)]);
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
