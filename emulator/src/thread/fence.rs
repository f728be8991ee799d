//! A thread's register writes that its last `wgmma.fence` does not order before a
//! wgmma (PTX ISA, `wgmma.fence`: the fence is required before a warpgroup's first
//! wgmma, and between a thread's access to a register and a wgmma that uses it as an
//! accumulator or as A's fragment, except for accumulators passed from one wgmma to the
//! next).
//!
//! From its first fence, a thread keeps, per register, the count of fences it had run
//! when an instruction last wrote the register, and that instruction: a wgmma's results
//! are written by the wgmma itself and carry no mark, and a region's yields carry their
//! marks to the registers they are copied to. A wgmma reading a register written since
//! the thread's last fence, as A (`{{a}}`) or as the accumulator it adds to (`{{d}}`
//! with a true scale-d: with a false one D = A·B reads no accumulator), is `E0419`,
//! naming the write; before the first fence a wgmma is `E0418`.

use kir::{Inst, Op, ValueId};
use lang::Span;

use super::Thread;
use crate::fault::{FaultKind, Trap};

/// The thread's fences and the writes they order.
#[derive(Debug, Default)]
pub(super) struct Fences {
    /// The `wgmma.fence`s it ran.
    count: u32,
    /// Per register, from the first fence: 1 + the count of fences when an instruction
    /// (the span) last wrote it, or 0 for a register no instruction wrote since (or a
    /// wgmma wrote).
    written: Vec<(u32, Span)>,
    carried: Vec<(u32, Span)>,
}

impl Thread<'_> {
    /// `wgmma.fence`: the writes so far are ordered before the wgmmas after it.
    pub(super) fn wgmma_fence(&mut self) {
        let fences = &mut self.fences;
        if fences.written.is_empty() {
            fences.written = vec![(0, Span::default()); self.registers.len()];
        }
        fences.count += 1;
    }

    /// Whether the thread has run a `wgmma.fence`.
    pub(super) fn wgmma_fenced(&self) -> bool {
        self.fences.count > 0
    }

    /// `inst` wrote its results (a loop's or branch's are its region's yields, or its
    /// initial values, whose marks [`Self::carry_written`] copies).
    pub(super) fn mark_written(&mut self, inst: &Inst) {
        let fences = &mut self.fences;
        let copied = matches!(inst.op, Op::For { .. } | Op::Loop { .. } | Op::If { .. });
        if fences.written.is_empty() || copied {
            return;
        }
        for result in &inst.results {
            fences.written[result.0 as usize] = (fences.count + 1, inst.span);
        }
    }

    /// A wgmma wrote `results`: no thread's write is pending on them.
    pub(crate) fn mark_wgmma_results(&mut self, results: &[ValueId]) {
        let fences = &mut self.fences;
        if fences.written.is_empty() {
            return;
        }
        for result in results {
            fences.written[result.0 as usize] = (0, Span::default());
        }
    }

    /// A region's `from` values are copied to `to`: their marks go with them.
    pub(super) fn carry_written(&mut self, from: &[ValueId], to: &[ValueId]) {
        let fences = &mut self.fences;
        if fences.written.is_empty() {
            return;
        }
        fences.carried.clear();
        for value in from {
            fences.carried.push(fences.written[value.0 as usize]);
        }
        for (value, mark) in to.iter().zip(&fences.carried) {
            fences.written[value.0 as usize] = *mark;
        }
    }

    /// `E0419` if the wgmma `inst` reads (its `{{a}}` registers, and its `{{d}}` ones
    /// unless its scale-d operand is false) a register written since the thread's last
    /// `wgmma.fence`.
    pub(super) fn check_fenced_registers(&self, inst: &Inst) -> Result<(), Trap> {
        let Some((operands, registers)) = inst.op.atom_operands() else {
            return Ok(());
        };
        let fences = &self.fences;
        let scale_d = operands.iter().find(|(name, ..)| name == "scale_d");
        let reads_d = scale_d.is_none_or(|(_, flag, _)| self.get(*flag) != 0);
        let lists = (registers.iter()).filter(|(name, _)| name == "a" || (name == "d" && reads_d));
        for value in lists.flat_map(|(_, values)| values) {
            let (mark, write) = fences.written[value.0 as usize];
            if mark == fences.count + 1 {
                return Err(Trap::Fault(FaultKind::UnfencedRegister { write }));
            }
        }
        Ok(())
    }
}
