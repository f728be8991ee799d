//! The block's side of tcgen05's warp instructions (sm_100a): a warp's tensor-memory
//! allocation, release and relinquished permit, and its loads and stores, executed
//! once all 32 lanes are there on the block's [`crate::tmem::TensorMemory`]. An
//! allocation writes its address (lane 0 in bits 31-16, the first column in bits 15-0)
//! to the shared 32-bit slot, as the warp's first lane for the race checks. A move puts
//! each thread's registers where its shape says ([`crate::atoms::tcgen05::position`]: 32x32b gives
//! thread `i` lane `lane(taddr) + i` and its register `j` column `column(taddr) + j`);
//! warp `w` may reach only lanes `32 (w % 4)` to `32 (w % 4) + 31`, which must hold
//! every lane the move touches. The lanes must
//! agree on the slot or address (`.sync.aligned`: one instruction for the warp). Each
//! breach is E0413. A load or store touching an MMA's accumulator that has not been
//! handed over to its thread ([`crate::tmem::Accumulators`]) is E0415, at that thread.

use kir::{Inst, Op};

use super::Grid;
use kir::TmemShape;

use crate::atoms::tcgen05::{Tcgen05, position};
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
        warp_tcgen05(tcgen05, inst, lanes, context).map_err(|(trap, lane)| {
            let location = Location {
                thread: lanes[lane].coordinates,
                block: context.block,
            };
            self.fault(trap, inst.span, location)
        })
    }
}

/// Executes the warp's tcgen05 instruction; a fault with the lane (an index in `lanes`)
/// that hit it.
fn warp_tcgen05<'k>(
    tcgen05: &Tcgen05,
    inst: &'k Inst,
    lanes: &mut [Thread<'k>],
    context: &mut Context<'_, 'k>,
) -> Result<(), (Trap, usize)> {
    if let Tcgen05::Copy {
        load,
        shape,
        repetitions,
    } = tcgen05
    {
        return copy(inst, (*load, *shape, *repetitions), lanes, context);
    }
    warp_allocation(tcgen05, inst, lanes, context).map_err(|trap| (trap, 0))
}

/// A `tcgen05.ld` (`load`) or `tcgen05.st` of `shape`, `repetitions` times: each lane's
/// words, which must not hold an accumulator in flight for it.
fn copy(
    inst: &Inst,
    (load, shape, repetitions): (bool, TmemShape, u32),
    lanes: &mut [Thread<'_>],
    context: &mut Context<'_, '_>,
) -> Result<(), (Trap, usize)> {
    let (register, _) = atom_operand(inst, "taddr").map_err(|trap| (trap, 0))?;
    let taddr = uniform(lanes, register, "the tensor-memory address").map_err(|trap| (trap, 0))?;
    let taddr = lanes[0].get(taddr) as u32;
    let (first, column) =
        quadrant_lanes(lanes[0].index / 32, taddr, shape.lanes()).map_err(|trap| (trap, 0))?;
    let access = if load { Access::Load } else { Access::Store };
    for (l, lane) in (0..).zip(lanes.iter_mut()) {
        for r in 0..repetitions * shape.registers() {
            let (at, on) = position(shape, l, r);
            let (at, on) = (first + at, column + on);
            let reader = (&*context.shared, lane.index);
            (context.tmem)
                .handed_over(reader, (at, at + 1), (on, on + 1), access)
                .and_then(|()| copy_word(inst, load, lane, r, (context.tmem, at, on)))
                .map_err(|trap| (trap, l as usize))?;
        }
    }
    Ok(())
}

/// The warp's allocation, release or relinquished permit.
fn warp_allocation<'k>(
    tcgen05: &Tcgen05,
    inst: &'k Inst,
    lanes: &mut [Thread<'k>],
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
        Tcgen05::Commit { .. }
        | Tcgen05::Ordering
        | Tcgen05::WaitLd
        | Tcgen05::Mma { .. }
        | Tcgen05::Copy { .. } => Ok(()),
    }
}

/// The first lane and column of `taddr`, after checking that warp `warp` may reach
/// the `count` lanes from it.
fn quadrant_lanes(warp: u32, taddr: u32, count: u32) -> Result<(u32, u32), Trap> {
    let (lane, column) = (taddr >> 16, taddr & 0xFFFF);
    let quadrant = 32 * (warp % 4);
    if lane < quadrant || lane + count > quadrant + 32 {
        return Err(Trap::Fault(FaultKind::Tmem(format!(
            "warp {warp} moves tensor-memory lanes {lane} to {}, but warp w may reach only lanes 32 (w % 4) to 32 (w % 4) + 31: {quadrant} to {}",
            lane + count - 1,
            quadrant + 31
        ))));
    }
    Ok((lane, column))
}

/// Moves register `j` of `lane` (the load's result `j`, or the store's word operand
/// `j`) from or to tensor memory at (lane, column).
fn copy_word(
    inst: &Inst,
    load: bool,
    lane: &mut Thread<'_>,
    j: u32,
    (tmem, at, column): (&mut crate::tmem::TensorMemory, u32, u32),
) -> Result<(), Trap> {
    let j = j as usize;
    if load {
        let result = inst.results.get(j).copied().ok_or_else(missing_register)?;
        lane.set(result, u64::from(tmem.read(at, column)?));
        lane.load_from_tmem(result);
        return Ok(());
    }
    // The store's words are its operands after the address.
    let Op::Intrinsic { operands, .. } = &inst.op else {
        return Err(missing_register());
    };
    let (value, _) = operands.get(1 + j).ok_or_else(missing_register)?;
    tmem.write(at, column, lane.get(*value) as u32)
}

fn missing_register() -> Trap {
    Trap::Fault(FaultKind::Unsupported(
        "a tcgen05.ld or st without a register per column".to_owned(),
    ))
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
