//! Registers read and written in place. An atom whose output list is also one of its
//! input lists (wgmma's accumulators `{{d}}`) computes each result in its input's
//! register: the hardware updates them asynchronously, and a group of wgmmas in flight
//! chains them, so no move may come between. Where an input is used only by that
//! atom, its result takes the input's register name (so a loop-carried accumulator
//! stays in one register across the loop, and its yield is no move at all); otherwise
//! the result gets a copy of the input just before the atom, and for wgmma a
//! `wgmma.fence` after the copies, which the PTX ISA requires between a register write
//! and the wgmma that reads it.

use rustc_hash::FxHashMap;

use kir::{Inst, Kernel, Op, ValueId};

/// Renames the results of in-place atoms to their inputs' registers where the input
/// has no other use.
pub(super) fn tie_in_place_results(kernel: &Kernel, names: &mut [String]) {
    let mut uses: FxHashMap<ValueId, usize> = FxHashMap::default();
    count_uses(&kernel.body, &mut uses);
    tie(&kernel.body, &uses, names);
}

/// The input list an atom updates in place (its output's name among its lists).
pub(super) fn in_place_inputs(op: &Op) -> Option<&[ValueId]> {
    let Op::Atom {
        registers, output, ..
    } = op
    else {
        return None;
    };
    let output = output.as_ref()?;
    registers
        .iter()
        .find(|(name, _)| name == output)
        .map(|(_, values)| values.as_slice())
}

fn count_uses(body: &[Inst], uses: &mut FxHashMap<ValueId, usize>) {
    for inst in body {
        for operand in inst.op.operands() {
            *uses.entry(operand).or_insert(0) += 1;
        }
        if let Op::Loop { condition, .. } = &inst.op {
            *uses.entry(*condition).or_insert(0) += 1;
        }
        for region in inst.op.regions() {
            count_uses(&region.body, uses);
            for value in &region.yields {
                *uses.entry(*value).or_insert(0) += 1;
            }
        }
    }
}

fn tie(body: &[Inst], uses: &FxHashMap<ValueId, usize>, names: &mut [String]) {
    for inst in body {
        if let Some(inputs) = in_place_inputs(&inst.op) {
            for (input, result) in inputs.iter().zip(&inst.results) {
                if uses.get(input) == Some(&1) {
                    names[result.0 as usize] = names[input.0 as usize].clone();
                }
            }
        }
        for region in inst.op.regions() {
            tie(&region.body, uses, names);
        }
    }
}
