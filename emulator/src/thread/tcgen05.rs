//! tcgen05 instructions one thread executes (sm_100a; HOPPER-BLACKWELL.md D.6): a
//! `tcgen05.commit` is one arrival on its mbarrier, since every tcgen05 operation the
//! thread issued before it has completed at issue here; the fences and waits order
//! nothing the emulator's execution does not already order.

use kir::{Inst, Op, ValueId};

use super::{Context, Flow, Thread};
use crate::atoms::tcgen05::Tcgen05;
use crate::fault::{Access, FaultKind, Trap};

impl<'k> Thread<'k> {
    /// Executes the one-thread tcgen05 instruction `inst`, modelled as `tcgen05`.
    pub(super) fn tcgen05(
        &mut self,
        tcgen05: &Tcgen05,
        inst: &'k Inst,
        context: &mut Context<'_, 'k>,
    ) -> Result<Flow<'k>, Trap> {
        if *tcgen05 == Tcgen05::Commit {
            let (register, offset) = atom_operand(inst, "bar")?;
            let address = self.shared_address(context, register, offset, 8, Access::Atomic)?;
            if context.barriers.update(address, 1, 0)? {
                context.shared.barrier();
            }
        }
        Ok(Flow::Next)
    }
}

/// The register and immediate offset of atom `inst`'s operand `name`.
pub(crate) fn atom_operand(inst: &Inst, name: &str) -> Result<(ValueId, i64), Trap> {
    let Op::Atom { operands, .. } = &inst.op else {
        return Err(missing(name));
    };
    operands
        .iter()
        .find(|(operand, _, _)| operand == name)
        .map(|(_, value, offset)| (*value, *offset))
        .ok_or_else(|| missing(name))
}

fn missing(name: &str) -> Trap {
    Trap::Fault(FaultKind::Unsupported(format!(
        "a tcgen05 instruction without its `{name}` operand"
    )))
}
