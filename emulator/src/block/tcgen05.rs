//! The block's side of tcgen05's warp instructions (sm_100a): a warp's tensor-memory
//! allocation, release and relinquished permit, executed once all 32 lanes are there
//! on the block's [`crate::tmem::TensorMemory`]. An allocation writes its address
//! (lane 0 in bits 31-16, the first column in bits 15-0) to the shared 32-bit slot,
//! as the warp's first lane for the race checks. The lanes must agree on the slot or
//! address (`.sync.aligned`: one instruction for the warp), else E0413.

use kir::Inst;

use super::Grid;
use crate::atoms::tcgen05::Tcgen05;
use crate::fault::{Access, Fault, FaultKind, Location, Trap};
use crate::thread::{Context, Thread, atom_operand};

impl<'k> Grid<'_, 'k> {
    /// Executes the warp's tcgen05 instruction `inst`, modelled as `tcgen05`.
    pub(super) fn tcgen05_warp(
        &self,
        tcgen05: &Tcgen05,
        inst: &'k Inst,
        lanes: &mut [Thread<'k>],
        context: &mut Context<'_, 'k>,
    ) -> Result<(), Fault> {
        let location = Location {
            thread: lanes[0].coordinates,
            block: context.block,
        };
        warp_tcgen05(tcgen05, inst, lanes, context)
            .map_err(|trap| self.fault(trap, inst.span, location))
    }
}

fn warp_tcgen05<'k>(
    tcgen05: &Tcgen05,
    inst: &'k Inst,
    lanes: &[Thread<'k>],
    context: &mut Context<'_, 'k>,
) -> Result<(), Trap> {
    match tcgen05 {
        Tcgen05::Alloc { columns } => {
            let (register, offset) = atom_operand(inst, "slot")?;
            let slot = uniform(lanes, register, "the address slot")?;
            let slot = lanes[0].shared_address(context, slot, offset, 4, Access::Store)?;
            let address = context
                .tmem
                .allocate(*columns, inst.span, lanes[0].coordinates)?;
            let who = lanes[0].accessor(context, inst);
            context
                .shared
                .write(&who, slot, &address.to_le_bytes(), Access::Store)
        }
        Tcgen05::Dealloc { columns } => {
            let (register, _) = atom_operand(inst, "taddr")?;
            let address = uniform(lanes, register, "the tensor-memory address")?;
            let address = lanes[0].get(address) as u32;
            context.tmem.free(address, *columns)
        }
        Tcgen05::Relinquish => {
            context.tmem.relinquish();
            Ok(())
        }
        Tcgen05::Commit | Tcgen05::Ordering => Ok(()),
    }
}

/// `register`, after checking that every lane holds the same value in it.
fn uniform(lanes: &[Thread<'_>], register: kir::ValueId, what: &str) -> Result<kir::ValueId, Trap> {
    let first = lanes[0].get(register);
    match lanes.iter().position(|lane| lane.get(register) != first) {
        None => Ok(register),
        Some(lane) => Err(Trap::Fault(FaultKind::Tmem(format!(
            "lanes 0 and {lane} of the warp give {what} different values ({first:#x} and {:#x}); the warp executes one instruction",
            lanes[lane].get(register)
        )))),
    }
}
