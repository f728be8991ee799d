//! Structured control flow in PTX: each region instruction becomes labels, branches
//! and moves between the registers of its operands, its regions' parameters and
//! yields, and its results. ptxas allocates the registers, so the moves cost nothing
//! where it can coalesce them.
//!
//! - `for`: the start and the initial values move into the counter and the carried
//!   parameters; a loop that may run no iteration is skipped when `start >= end`;
//!   at the end of the body the yields move into the parameters, the counter steps
//!   by one and the body runs again while it is below `end`; after the loop, the
//!   parameters move into the results.
//! - `if`: a branch over the `then` region to the `else` region when the condition
//!   is false; each side moves its yields into the results.
//! - `loop` (do-while): like `for` without a counter; the body runs again while its
//!   condition is true.
//!
//! The yields move into the parameters all at once, as a parallel copy: a yield that
//! is itself a parameter of the region (two carried values that swap) is read into a
//! scratch register before any parameter is written. Branches of a region marked
//! uniform are `bra.uni`.

use kir::{Inst, Op, Region, Ty, ValueId};
use rustc_hash::FxHashSet;

use super::{EmitError, Emitter, class};

impl Emitter<'_, '_> {
    /// A [`Op::For`], [`Op::If`] or [`Op::Loop`].
    pub(super) fn control(&mut self, inst: &Inst) -> Result<(), EmitError> {
        match &inst.op {
            Op::For {
                start,
                end,
                inits,
                body,
                uniform,
            } => self.counted_loop(inst, *start, *end, inits, body, *uniform),
            Op::If {
                condition,
                then,
                otherwise,
                uniform,
            } => self.branch(inst, *condition, then, otherwise, *uniform),
            Op::Loop {
                inits,
                body,
                condition,
                uniform,
            } => self.do_while(inst, inits, body, *condition, *uniform),
            _ => Err("not control flow".into()),
        }
    }

    fn counted_loop(
        &mut self,
        inst: &Inst,
        start: ValueId,
        end: ValueId,
        inits: &[ValueId],
        body: &Region,
        uniform: bool,
    ) -> Result<(), EmitError> {
        let (&counter, carried) = body
            .params
            .split_first()
            .ok_or("a loop without a counter")?;
        let counter_ty = self.kernel.ty(counter);
        let suffix = match counter_ty {
            Ty::I32 => ".s32",
            Ty::I64 => ".s64",
            other => return Err(format!("a loop counter of {}", other.name()).into()),
        };
        let (repeat, done) = (self.label(), self.label());
        let bra = branch_instruction(uniform);
        let again = self.scratch(Ty::Pred);
        self.copy(&[counter], &[start]);
        self.copy(carried, inits);
        let runs_once = matches!(
            (self.constants.get(&start), self.constants.get(&end)),
            (Some(start), Some(end)) if start < end
        );
        if !runs_once {
            let end = self.operand(end);
            let counter = self.name(counter).to_owned();
            self.emit(&format!("setp.ge{suffix} {again}, {counter}, {end};"));
            self.emit(&format!("@{again} {bra} {done};"));
        }
        self.place(&repeat);
        self.instructions(&body.body)?;
        self.locate(inst.span.start);
        self.copy(carried, &body.yields);
        let (end, counter) = (self.operand(end), self.name(counter).to_owned());
        self.emit(&format!("add{suffix} {counter}, {counter}, 1;"));
        self.emit(&format!("setp.lt{suffix} {again}, {counter}, {end};"));
        self.emit(&format!("@{again} {bra} {repeat};"));
        self.place(&done);
        self.copy(&inst.results, carried);
        Ok(())
    }

    fn branch(
        &mut self,
        inst: &Inst,
        condition: ValueId,
        then: &Region,
        otherwise: &Region,
        uniform: bool,
    ) -> Result<(), EmitError> {
        let bra = branch_instruction(uniform);
        let has_else = !otherwise.body.is_empty() || !inst.results.is_empty();
        let (other_side, done) = if has_else {
            (Some(self.label()), self.label())
        } else {
            (None, self.label())
        };
        let skip_to = other_side.as_ref().unwrap_or(&done);
        let text = format!("@!{} {bra} {skip_to};", self.name(condition));
        self.emit(&text);
        self.instructions(&then.body)?;
        self.copy(&inst.results, &then.yields);
        if let Some(other_side) = other_side {
            self.emit(&format!("{bra} {done};"));
            self.place(&other_side);
            self.instructions(&otherwise.body)?;
            self.copy(&inst.results, &otherwise.yields);
        }
        self.place(&done);
        Ok(())
    }

    fn do_while(
        &mut self,
        inst: &Inst,
        inits: &[ValueId],
        body: &Region,
        condition: ValueId,
        uniform: bool,
    ) -> Result<(), EmitError> {
        let repeat = self.label();
        let bra = branch_instruction(uniform);
        self.copy(&body.params, inits);
        self.place(&repeat);
        self.instructions(&body.body)?;
        self.locate(inst.span.start);
        // The condition is read after the yields move; one that is a parameter
        // would be overwritten, so it is kept aside first.
        let again = if body.params.contains(&condition) {
            let kept = self.scratch(Ty::Pred);
            let text = format!("mov.pred {kept}, {};", self.name(condition));
            self.emit(&text);
            kept
        } else {
            self.name(condition).to_owned()
        };
        self.copy(&body.params, &body.yields);
        self.emit(&format!("@{again} {bra} {repeat};"));
        self.copy(&inst.results, &body.params);
        Ok(())
    }

    /// A new label, numbered in emission order.
    pub(super) fn label(&mut self) -> String {
        self.labels += 1;
        format!("$L_cuk_{}", self.labels)
    }

    /// `label` at the current point.
    pub(super) fn place(&mut self, label: &str) {
        self.body.push_str(label);
        self.body.push_str(":\n");
    }

    /// Moves `sources` into `destinations` pairwise, as if all at once: a source
    /// that is also a destination is read into a scratch register first.
    fn copy(&mut self, destinations: &[ValueId], sources: &[ValueId]) {
        // By register name: an in-place atom's results share their inputs' registers.
        let pairs: Vec<(ValueId, ValueId)> = destinations
            .iter()
            .copied()
            .zip(sources.iter().copied())
            .filter(|(destination, source)| self.name(*destination) != self.name(*source))
            .collect();
        // A loop's carried values are copied all at once (hundreds of accumulators in a
        // GEMM): a set of the destinations' names keeps the test linear.
        let written: FxHashSet<&str> = (pairs.iter())
            .map(|(destination, _)| self.name(*destination))
            .collect();
        let overwritten: Vec<bool> = (pairs.iter())
            .map(|(_, source)| written.contains(self.name(*source)))
            .collect();
        let mut read_from = Vec::with_capacity(pairs.len());
        for ((_, source), overwritten) in pairs.iter().zip(overwritten) {
            let ty = self.kernel.ty(*source);
            if overwritten {
                let scratch = self.scratch(ty);
                let text = format!("mov{} {scratch}, {};", class(ty).1, self.operand(*source));
                self.emit(&text);
                read_from.push(scratch);
            } else {
                read_from.push(self.operand(*source));
            }
        }
        for ((destination, _), source) in pairs.iter().zip(read_from) {
            let ty = self.kernel.ty(*destination);
            let text = format!("mov{} {}, {source};", class(ty).1, self.name(*destination));
            self.emit(&text);
        }
    }
}

fn branch_instruction(uniform: bool) -> &'static str {
    if uniform { "bra.uni" } else { "bra" }
}

#[cfg(test)]
mod tests {
    use cute::Target;

    use crate::{EmitOptions, emit_module};

    #[test]
    fn region_parameters_and_results_are_registers_never_immediates() {
        let text = "kernel k {
          launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)
          %0:i32 = const 0
          %1:i32 = const 8
          %2:i32 = for %3:i32 in %0..%1 carry(%4:i32 = %0) {
            %5:i32 = add %4, %3
            yield %5
          }
          %6:i32 = add %2, %2
        }";
        let kernel = kir::verify(kir::from_text(text).unwrap()).unwrap();
        let ptx = emit_module(&[kernel], Target::Sm80, &EmitOptions::default()).unwrap();
        // The constants are immediates; the counter, the carried value and the
        // loop's result are registers.
        assert!(ptx.contains("mov.b32 %r4, 0;"), "{ptx}");
        assert!(ptx.contains("add.s32 %r6, %r5, %r4;"), "{ptx}");
        assert!(ptx.contains("setp.lt.s32 %p1, %r4, 8;"), "{ptx}");
        assert!(ptx.contains("add.s32 %r7, %r3, %r3;"), "{ptx}");
        assert!(
            !ptx.contains("setp.ge"),
            "the bounds show the loop runs: {ptx}"
        );
    }
}
