//! `ldmatrix` and `stmatrix` (`.x1`, `.x2`, `.x4`, with or without `.trans`): the warp
//! moves 16-bit elements between shared memory and its registers, each lane giving the
//! address of one row of consecutive elements.
//!
//! Which element goes where is the instruction's [`kir::WarpAtom::Copy`], the stdlib
//! atom's thread-value layouts, not a table here: the source layout names the element
//! each `(lane, value)` of the source holds, the destination layout the element each
//! `(lane, value)` of the destination receives. On the memory side, value `v` of a lane
//! is at the lane's address plus `v` elements; on the register side it is packed in the
//! lane's 32-bit words, the lowest value in the lowest bits. Where the memory side's
//! layout gives one element to several lanes (the lanes 8 to 31 of `.x1`, whose
//! addresses the hardware ignores), only the first such lane's address is used: a lane
//! that holds no element first neither reads nor writes memory. Each lane that does
//! accesses its row as one access, aligned to the row's size (16 bytes, as the PTX ISA
//! requires), checked for bounds and races and, for a read, for bytes nothing wrote.

use kir::{Inst, TvLayout, Ty, ValueId};

use crate::atoms::{pack, unpack};
use crate::fault::{Access, FaultKind, Trap};
use crate::shared::Accessor;
use crate::thread::{Context, Thread};

/// Which way the elements go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `ldmatrix`: shared memory to registers.
    Load,
    /// `stmatrix`: registers to shared memory.
    Store,
}

/// A planned `ldmatrix` or `stmatrix`: its layouts as tables, `lane · values + value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixCopy {
    /// Which way.
    pub direction: Direction,
    /// The element's width in bits.
    bits: u32,
    /// The memory side's elements.
    memory: Vec<usize>,
    /// Whether each memory-side `(lane, value)` is the first to hold its element.
    first: Vec<bool>,
    /// The register side's elements.
    registers: Vec<usize>,
    /// One past the largest element.
    elements: usize,
}

/// The plan of `template` moving elements of `element` from `src` to `dst`, when it is
/// an `ldmatrix` or `stmatrix` of shared memory.
pub fn plan(template: &str, element: Ty, src: &TvLayout, dst: &TvLayout) -> Option<MatrixCopy> {
    let opcode = template.split_whitespace().next()?;
    let direction = if opcode.starts_with("ldmatrix.sync.aligned.") {
        Direction::Load
    } else if opcode.starts_with("stmatrix.sync.aligned.") {
        Direction::Store
    } else {
        return None;
    };
    if !opcode.split('.').any(|part| part == "shared") {
        return None;
    }
    let (memory, registers) = match direction {
        Direction::Load => (src, dst),
        Direction::Store => (dst, src),
    };
    let table = |layout: &TvLayout| -> Vec<usize> {
        layout.table().into_iter().map(|e| e as usize).collect()
    };
    let (memory, registers) = (table(memory), table(registers));
    let elements = memory.iter().chain(&registers).max().map_or(0, |e| e + 1);
    let mut seen = vec![false; elements];
    let first = memory
        .iter()
        .map(|element| !std::mem::replace(&mut seen[*element], true))
        .collect();
    Some(MatrixCopy {
        direction,
        bits: element.bits(),
        memory,
        first,
        registers,
        elements,
    })
}

impl MatrixCopy {
    /// Executes the copy `inst` for the 32 `lanes` of a warp; a fault is the lane's.
    pub fn execute<'k>(
        &self,
        inst: &Inst,
        lanes: &mut [Thread<'k>],
        context: &mut Context<'_, 'k>,
    ) -> Result<(), (usize, Trap)> {
        let Some((operands, registers)) = inst.op.atom_operands() else {
            return Ok(());
        };
        let (address_name, words): (&str, &[ValueId]) = match self.direction {
            Direction::Load => ("src", &inst.results),
            Direction::Store => {
                let list = registers.iter().find(|(name, _)| name == "src");
                ("dst", list.map_or(&[], |(_, values)| values.as_slice()))
            }
        };
        let Some(&(_, address, offset)) = operands.iter().find(|(name, ..)| name == address_name)
        else {
            let what = format!("a matrix copy without its `{address_name}` address operand");
            return Err((0, Trap::Fault(FaultKind::Unsupported(what))));
        };
        let mut elements = vec![0u64; self.elements];
        if self.direction == Direction::Store {
            self.read_registers(lanes, words, &mut elements);
        }
        self.access_rows(inst, lanes, context, (address, offset), &mut elements)?;
        if self.direction == Direction::Load {
            self.write_registers(lanes, words, &elements);
        }
        Ok(())
    }

    /// The elements the lanes' register `words` hold (the first holder of each).
    fn read_registers(&self, lanes: &[Thread<'_>], words: &[ValueId], elements: &mut [u64]) {
        let values = self.registers.len() / lanes.len().max(1);
        let mut held = vec![false; self.elements];
        let mut bits = vec![0u64; words.len()];
        for (index, lane) in lanes.iter().enumerate() {
            for (word, value) in bits.iter_mut().zip(words) {
                *word = lane.get(*value);
            }
            for value in 0..values {
                let element = self.registers[index * values + value];
                if !std::mem::replace(&mut held[element], true) {
                    elements[element] = unpack(&bits, value, self.bits);
                }
            }
        }
    }

    /// Sets the lanes' register `words` to the elements the layout gives them.
    fn write_registers(&self, lanes: &mut [Thread<'_>], words: &[ValueId], elements: &[u64]) {
        let values = self.registers.len() / lanes.len().max(1);
        let mut bits = vec![0u64; words.len()];
        for (index, lane) in lanes.iter_mut().enumerate() {
            bits.fill(0);
            for value in 0..values {
                let element = self.registers[index * values + value];
                pack(&mut bits, value, self.bits, elements[element]);
            }
            for (result, word) in words.iter().zip(&bits) {
                lane.set(*result, *word);
            }
        }
    }

    /// Each lane that holds an element first reads its row into `elements` (a load) or
    /// writes it from them (a store), at its `address` register plus the offset.
    fn access_rows<'k>(
        &self,
        inst: &Inst,
        lanes: &[Thread<'k>],
        context: &mut Context<'_, 'k>,
        (address, offset): (ValueId, i64),
        elements: &mut [u64],
    ) -> Result<(), (usize, Trap)> {
        let values = self.memory.len() / lanes.len().max(1);
        let element_bytes = (self.bits / 8) as usize;
        let mut row = vec![0u8; values * element_bytes];
        let access = match self.direction {
            Direction::Load => Access::Load,
            Direction::Store => Access::Store,
        };
        for (index, lane) in lanes.iter().enumerate() {
            let at = index * values..(index + 1) * values;
            if !self.first[at.clone()].contains(&true) {
                continue;
            }
            let fail = |trap| (index, trap);
            let start = lane
                .shared_address(context, address, offset, row.len(), access)
                .map_err(fail)?;
            let who = Accessor {
                thread: lane.index,
                warp_epoch: context.warp_epoch,
                span: inst.span,
            };
            let lane_elements = self.memory[at.clone()].iter().zip(&self.first[at]);
            if self.direction == Direction::Load {
                context.shared.read(&who, start, &mut row).map_err(fail)?;
                for ((element, first), chunk) in lane_elements.zip(row.chunks(element_bytes)) {
                    if *first {
                        elements[*element] = from_le(chunk);
                    }
                }
            } else {
                for ((element, _), chunk) in lane_elements.zip(row.chunks_mut(element_bytes)) {
                    chunk.copy_from_slice(&elements[*element].to_le_bytes()[..element_bytes]);
                }
                context
                    .shared
                    .write(&who, start, &row, Access::Store)
                    .map_err(fail)?;
            }
        }
        Ok(())
    }
}

/// Little-endian bytes as the low bits of a register.
fn from_le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0, |bits, byte| (bits << 8) | u64::from(*byte))
}
