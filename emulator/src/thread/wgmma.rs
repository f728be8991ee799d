//! A thread's wgmmas in flight (PTX ISA, `wgmma.mma_async`, `wgmma.commit_group`,
//! `wgmma.wait_group`): a wgmma's accumulator registers are written asynchronously, so
//! the emulator, which computes them when the warpgroup issues it, holds them *in
//! flight* until the thread's `wgmma.wait_group n` leaves only groups committed after
//! theirs pending. Any instruction but another wgmma (which may chain the same
//! accumulators) that reads one before is a fault (`E0415`); a region's yields carry the
//! mark to the registers they are copied to. The wgmma's shared operands stay read
//! until the same wait ([`crate::shared::Reader::Wgmma`], held by the warpgroup's first
//! thread).

use kir::{Inst, Op, ValueId};
use lang::Span;

use super::{Context, Thread};
use crate::atoms::Model;
use crate::atoms::hopper::Hopper;
use crate::fault::{Access, Pending, Trap};
use crate::shared::Reader;

/// The registers of a thread's wgmmas that no wait has completed.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    /// Per register: 0, or 1 + the index in `issues` of the wgmma that writes it.
    issue_of: Vec<u32>,
    /// Each wgmma issued: its group and its instruction.
    issues: Vec<(u32, Span)>,
    /// The registers marked in `issue_of`.
    marked: Vec<ValueId>,
}

impl<'k> Thread<'k> {
    /// The warpgroup issued the wgmma at `span`, writing `results` in this thread.
    pub(crate) fn wgmma_issued(&mut self, results: &[ValueId], span: Span) {
        let flight = &mut self.in_flight;
        if flight.issue_of.is_empty() {
            flight.issue_of = vec![0; self.registers.len()];
        }
        flight.issues.push((self.wgmma_groups, span));
        let issue = flight.issues.len() as u32;
        for value in results {
            flight.issue_of[value.0 as usize] = issue;
            flight.marked.push(*value);
        }
    }

    /// `wgmma.wait_group pending`: every group but the `pending` latest committed is
    /// complete.
    pub(super) fn wgmma_wait(&mut self, pending: u32, context: &mut Context<'_, 'k>) {
        let complete = self.wgmma_groups.saturating_sub(pending);
        if self.index.is_multiple_of(128) {
            (context.shared).groups_complete(Reader::Wgmma, self.index, complete);
        }
        let flight = &mut self.in_flight;
        let (issue_of, issues) = (&mut flight.issue_of, &flight.issues);
        flight.marked.retain(|value| {
            let issue = issue_of[value.0 as usize];
            let done = issue == 0 || issues[issue as usize - 1].0 < complete;
            if done {
                issue_of[value.0 as usize] = 0;
            }
            !done
        });
        if flight.marked.is_empty() {
            flight.issues.clear();
        }
    }

    /// The group the thread's next wgmma joins.
    pub(crate) fn wgmma_groups(&self) -> u32 {
        self.wgmma_groups
    }

    /// Whether some wgmma register is in flight.
    pub(super) fn wgmma_in_flight(&self) -> bool {
        !self.in_flight.marked.is_empty()
    }

    /// `E0415` if `inst`, not a wgmma, reads a register a wgmma still writes.
    pub(super) fn check_in_flight(
        &self,
        inst: &Inst,
        context: &Context<'_, 'k>,
    ) -> Result<(), Trap> {
        let flight = &self.in_flight;
        let check = |value: &ValueId| match flight.issue_of[value.0 as usize] {
            0 => Ok(()),
            issue => Err(Trap::Early {
                access: Access::Load,
                address: 0,
                pending: Pending::WgmmaAccumulator,
                other_thread: self.index,
                other_span: flight.issues[issue as usize - 1].1,
            }),
        };
        // The common operations without the operand list's allocation; an atom's
        // operands are checked unless it is a wgmma (found only then: a model lookup).
        match &inst.op {
            Op::ConstInt(_) | Op::ConstFloat(_) | Op::Param(_) | Op::Special(_) => Ok(()),
            Op::Unary(_, a) | Op::Convert(a) | Op::Unpack(a) => check(a),
            Op::Binary(_, a, b) | Op::Compare(_, a, b) | Op::Pack(a, b) => {
                check(a).and_then(|()| check(b))
            }
            Op::Fma(a, b, c) | Op::Select(a, b, c) => [a, b, c].into_iter().try_for_each(check),
            Op::Atom { .. } => match context.models.get(inst) {
                Some(Model::Hopper(Hopper::Wgmma(_))) => Ok(()),
                _ => inst.op.operands().iter().try_for_each(check),
            },
            op => op.operands().iter().try_for_each(check),
        }
    }

    /// A region's `from` values are copied to `to`: the marks go with them.
    pub(super) fn carry_in_flight(&mut self, from: &[ValueId], to: &[ValueId]) {
        let flight = &mut self.in_flight;
        self.scratch.clear();
        for value in from {
            self.scratch
                .push(u64::from(flight.issue_of[value.0 as usize]));
        }
        for (value, issue) in to.iter().zip(&self.scratch) {
            let slot = &mut flight.issue_of[value.0 as usize];
            if *slot == 0 && *issue != 0 {
                flight.marked.push(*value);
            }
            *slot = *issue as u32;
        }
    }
}
