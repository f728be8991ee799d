//! Entering and leaving regions: a `for` runs its body while the counter is below the
//! end (not at all when it starts at or past it, the results then being the initial
//! values), a do-while `loop` until its condition, read at the end of the body, is
//! false, an `if` one side. At the end of a region the yields are copied all at once
//! into the parameters (the next iteration) or the instruction's results.
//!
//! An iteration of a `loop` that wrote nothing (no store, no atomic that changed memory,
//! no atom or wait) and yields the values it started with leaves the thread spinning
//! ([`Status::Spinning`]): the next iteration would do the same, so the thread stops
//! there until another thread has moved ([`crate::block`]). So does one whose values,
//! over iterations that wrote nothing, come back to values an earlier one ended with (a
//! cycle: a toggled turn, a counter modulo n), found by Brent's method ([`Cycle`]).

use kir::{Inst, Kernel, Op, Region, ValueId};

use super::{Context, Flow, Frame, FrameKind, Status, Stopped, Thread};
use crate::arith;

impl<'k> Thread<'k> {
    /// The end of the innermost frame's instructions: the next iteration, or the
    /// instruction's results, or the thread's exit.
    pub(super) fn end_region(&mut self, context: &mut Context<'_, 'k>) -> Result<(), Stopped> {
        let Some(frame) = self.frames.last_mut() else {
            return Ok(());
        };
        let ending = match &mut frame.kind {
            FrameKind::Kernel => None,
            FrameKind::For {
                inst,
                region,
                counter,
                end,
            } => {
                *counter += 1;
                let again = *counter < *end;
                Some((*inst, *region, again, Some(*counter)))
            }
            FrameKind::Loop {
                inst,
                region,
                condition,
                effects,
                cycle,
            } => {
                let again = self.registers[condition.0 as usize] != 0;
                let registers = &self.registers;
                let quiet = *effects == self.effects;
                if again {
                    let unchanged = (region.yields.iter().zip(&region.params))
                        .all(|(next, now)| registers[next.0 as usize] == registers[now.0 as usize]);
                    let repeats = cycle.repeats(registers, &region.yields, !quiet);
                    if quiet && (unchanged || repeats) {
                        self.status = Status::Spinning(inst);
                    }
                }
                *effects = self.effects;
                Some((*inst, *region, again, None))
            }
            FrameKind::Branch { inst, region } => Some((*inst, *region, false, None)),
        };
        let Some((inst, region, again, counter)) = ending else {
            self.frames.clear();
            self.status = Status::Exited;
            let copies = self.copies.drain();
            return self.land(copies, context);
        };
        if again {
            frame.next = 0;
            match counter {
                Some(counter) => {
                    self.copy(&region.yields, &region.params[1..]);
                    let ty = context.kernel.ty(region.params[0]);
                    self.set(region.params[0], arith::from_int(ty, counter));
                }
                None => self.copy(&region.yields, &region.params),
            }
        } else {
            self.frames.pop();
            self.copy(&region.yields, &inst.results);
        }
        Ok(())
    }

    /// Starts a loop or branch: its frame, or its results when it runs no region.
    pub(super) fn enter(&mut self, inst: &'k Inst, kernel: &Kernel) -> Flow<'k> {
        let frame = |region: &'k Region, kind| Frame {
            body: &region.body,
            next: 0,
            kind,
        };
        match &inst.op {
            Op::For {
                start,
                end,
                inits,
                body,
                ..
            } => {
                let ty = kernel.ty(*start);
                let (first, end) = (self.signed(*start, ty), self.signed(*end, ty));
                if first >= end {
                    self.copy(inits, &inst.results);
                    return Flow::Next;
                }
                self.set(body.params[0], arith::from_int(ty, first));
                self.copy(inits, &body.params[1..]);
                Flow::Enter(frame(
                    body,
                    FrameKind::For {
                        inst,
                        region: body,
                        counter: first,
                        end,
                    },
                ))
            }
            Op::Loop {
                inits,
                body,
                condition,
                ..
            } => {
                self.copy(inits, &body.params);
                Flow::Enter(frame(
                    body,
                    FrameKind::Loop {
                        inst,
                        region: body,
                        condition: *condition,
                        effects: self.effects,
                        cycle: Cycle::default(),
                    },
                ))
            }
            Op::If {
                condition,
                then,
                otherwise,
                ..
            } => {
                let region = if self.get(*condition) != 0 {
                    then
                } else {
                    otherwise
                };
                Flow::Enter(frame(region, FrameKind::Branch { inst, region }))
            }
            _ => Flow::Next,
        }
    }
}

/// Brent's cycle detection over a do-while loop's values at the ends of its iterations
/// since the last that wrote: a saved state, replaced after 1, 2, 4, ... iterations, and
/// compared with each end; a cycle of any length is found within a few of its turns.
#[derive(Debug, Default)]
pub(super) struct Cycle {
    saved: Vec<u64>,
    power: u32,
    steps: u32,
}

impl Cycle {
    /// Whether `next`'s values (in `registers`) repeat the saved state; `fresh` (the
    /// iteration wrote) starts again from them.
    fn repeats(&mut self, registers: &[u64], next: &[ValueId], fresh: bool) -> bool {
        let value = |id: &ValueId| registers[id.0 as usize];
        if !fresh
            && self.power > 0
            && (next.iter().zip(&self.saved)).all(|(id, saved)| value(id) == *saved)
        {
            return true;
        }
        self.steps += 1;
        if fresh || self.steps >= self.power {
            self.saved.clear();
            self.saved.extend(next.iter().map(value));
            self.power = if fresh {
                1
            } else {
                self.power.saturating_mul(2).max(1)
            };
            self.steps = 0;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_of_values_is_found_and_a_changing_sequence_is_not() {
        let ids: Vec<ValueId> = vec![ValueId(0)];
        let mut cycle = Cycle::default();
        let mut found = None;
        for step in 0..100u64 {
            if cycle.repeats(&[step % 5], &ids, step == 0) {
                found = Some(step);
                break;
            }
        }
        assert!(found.is_some_and(|step| step < 20), "{found:?}");
        let mut counting = Cycle::default();
        assert!((0..1000u64).all(|step| !counting.repeats(&[step], &ids, step == 0)));
    }
}
