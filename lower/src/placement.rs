//! Where a pure instruction goes, and which values may differ between threads.
//!
//! A pure instruction is computed once, as far out as its operands allow, so that a
//! tile's base address is computed before the k-loop and `8192 * (k % 3)` inside it.
//! Leaving a loop saves its iterations. Leaving a branch makes every pass do what only
//! the passes that take it need: a *divergent* branch (`if thread_idx.x == 0`) makes
//! every thread do what one does (a 64-bit division there is a long subroutine on each
//! of the block's threads, in every iteration: the SM90 GEMM's producer, 3x slower), and
//! a rarely taken one makes every iteration do its work (the attention example's
//! causal mask, taken only on the diagonal tiles, put its 400 comparisons in every
//! tile). So a pure instruction leaves a branch only when it also leaves a loop around
//! that branch, or when the branch's condition is the same for every thread and its
//! side is foreseen taken on nearly every iteration of a loop around it
//! (`likely.rs`): the SM80 GEMM's refill (`if k + STAGES - 1 < k_tiles`) then keeps
//! only its copies, which ptxas predicates and schedules among the MMAs.
//!
//! Whether a value may differ between threads is tracked as it is defined: thread
//! indices, loads and the values of collective instructions may; parameters, block
//! indices and constants may not; arithmetic may when an operand may. Region results
//! and loop-carried values are taken to, except a loop's counter over bounds that may
//! not.
//!
//! Which threads may reach an instruction follows from the conditions of the
//! branches around it, evaluated for a thread's index where that alone decides them
//! (`thread_idx.x / 128 == 0` for a warpgroup's first thread, say): a wgmma's
//! descriptors need only fit the warpgroups that run it.

use kir::{Op, Special, ValueId};
use trace::Term;

use crate::builder::Builder;
use crate::known;
use crate::likely;
use crate::regions::Kind;

impl Builder<'_> {
    /// The depth of the region a pure instruction `op` goes to (see the module docs).
    /// What reads no value (a parameter, a special register) is read once, at the
    /// kernel's entry.
    pub(crate) fn hoisting_depth(&self, op: &Op) -> usize {
        let Some(operands) = op
            .operands()
            .into_iter()
            .map(|operand| self.depth_of(operand))
            .max()
        else {
            return 0;
        };
        let open = operands + 1..self.regions.frames.len();
        let outermost_loop_left = open
            .clone()
            .find(|&depth| self.regions.frames[depth].kind == Kind::Loop)
            .unwrap_or(self.regions.frames.len());
        let innermost_kept_branch = open
            .take_while(|&depth| depth < outermost_loop_left)
            .filter(|&depth| {
                self.regions.frames[depth].kind
                    == Kind::Branch {
                        keeps_pure_work: true,
                    }
            })
            .last();
        innermost_kept_branch.unwrap_or(operands)
    }

    /// The depth a pure instruction that is as cheap to compute again as to keep (an
    /// immediate added to a register) goes to: as [`Builder::hoisting_depth`] says, but
    /// never out of the innermost open loop, where it would hold a register of its own
    /// through every iteration. A wgmma's descriptors of a tile that stays put (the
    /// attention backward's k and v) are one base and an immediate per k-step: hoisted,
    /// each would be a 64-bit register for the whole loop.
    pub(crate) fn rematerialized_depth(&self, op: &Op) -> usize {
        let innermost_loop = (self.regions.frames.iter())
            .rposition(|frame| frame.kind == Kind::Loop)
            .unwrap_or(0);
        self.hoisting_depth(op).max(innermost_loop)
    }

    /// The kind of region for the side of a branch on `condition` (its value, and its
    /// term) where the condition is `taken`: whether it keeps the pure instructions only
    /// it needs (see the module docs).
    pub(crate) fn branch_side(&self, condition: ValueId, term: &Term, taken: bool) -> Kind {
        let nearly_always = likely::foreseen(term, &self.regions.loops) == Some(taken);
        Kind::Branch {
            keeps_pure_work: self.differs(condition) || !nearly_always,
        }
    }

    /// Whether `value` may differ between the threads of a block.
    pub(crate) fn differs(&self, value: ValueId) -> bool {
        self.regions
            .per_thread
            .get(value.0 as usize)
            .copied()
            .unwrap_or(true)
    }

    /// Whether the results of `op` may differ between the threads of a block.
    pub(crate) fn may_differ_between_threads(&self, op: &Op) -> bool {
        match op {
            Op::Special(special) => matches!(special, Special::ThreadIndex(_)),
            // Constants and parameters read nothing; arithmetic follows its operands.
            op if op.is_pure() => op.operands().into_iter().any(|value| self.differs(value)),
            _ => true,
        }
    }

    /// Whether thread `thread` (its x index) may reach what is being lowered: no
    /// enclosing branch's condition decides, for that thread, against the side taken.
    pub(crate) fn may_run(&self, thread: i64) -> bool {
        self.regions
            .branch_conditions
            .iter()
            .all(|(condition, side)| {
                let value_of = |name: &str| (name == "thread_idx.x").then_some(thread);
                known::truth(condition, &value_of) != Some(!side)
            })
    }
}
