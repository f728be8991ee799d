//! Run-time loops and branches, and the cells that carry locals through them.
//!
//! Each becomes one KIR region instruction (`regions.rs` carries the state): a `for`
//! with its counter as the first parameter, an `if` whose sides yield what either
//! wrote, a do-while `loop` whose condition its body computes.

use cute::Dtype;
use kir::{Op, Ty, ValueId};
use layout::SymInt;
use trace::{CellId, Effect, Term};

use crate::builder::{Builder, dtype_ty};
use crate::likely::OpenLoop;
use crate::ranges::Interval;
use crate::regions::{Kind, Slot};

impl Builder<'_> {
    /// The register type a cell of `dtype` lives in (integers are 64-bit).
    fn cell_ty(&mut self, dtype: Dtype) -> Option<Ty> {
        let ty = dtype_ty(dtype);
        if ty.is_none() {
            self.unsupported(format!("a {dtype} local changed in run-time control flow"));
        }
        ty
    }

    pub(crate) fn write_cell(&mut self, cell: CellId, dtype: Dtype, value: &Term) {
        let (Some(ty), Some(value)) = (self.cell_ty(dtype), self.term(value, 0)) else {
            return;
        };
        let value = self.convert(value, ty);
        let value = self.wrap(value, dtype);
        self.write_slot(Slot::Cell(cell), value);
    }

    pub(crate) fn read_cell(&mut self, cell: CellId, dtype: Dtype, variable: &str) {
        let Some(ty) = self.cell_ty(dtype) else {
            return;
        };
        let value = match self.read_slot(Slot::Cell(cell), ty) {
            Some(value) => value,
            None => self.zero(ty),
        };
        self.define_variable(variable, value);
    }

    /// The effects of a region's body, in order.
    fn effects(&mut self, effects: &[Effect]) {
        let span = self.span;
        for effect in effects {
            self.effect(effect);
        }
        self.span = span;
    }

    pub(crate) fn lower_for(
        &mut self,
        counter: &str,
        (start, end): (&SymInt, &SymInt),
        body: &[Effect],
    ) {
        if start.as_constant().is_none_or(|first| first < 0) {
            self.variables.signed.insert(counter.to_owned());
        }
        // The counter runs from the least start to below the greatest end.
        if let (Some(first), Some(last)) = (self.range(start), self.range(end)) {
            let interval = Interval::new(first.lo, (last.hi - 1).max(first.lo));
            self.bound(counter, interval);
        }
        let open_loop = OpenLoop {
            counter: counter.to_owned(),
            start: start.clone(),
            end: end.clone(),
        };
        let (Some(start), Some(end)) = (self.int(start), self.int(end)) else {
            return;
        };
        self.open(Kind::Loop);
        let index = self.region_parameter(Ty::I64);
        self.regions.per_thread[index.0 as usize] = self.differs(start) || self.differs(end);
        self.bind_variable(counter, index);
        self.regions.loops.push(open_loop);
        self.effects(body);
        self.regions.loops.pop();
        let closed = self.close(vec![index]);
        let inits = self.inits(&closed);
        let (slots, tys) = self.carried_types(&closed.carried);
        let op = Op::For {
            start,
            end,
            inits,
            body: closed.region,
            uniform: false,
        };
        self.push_region(op, &slots, &tys);
    }

    pub(crate) fn lower_if(&mut self, term: &Term, then: &[Effect], otherwise: &[Effect]) {
        // Nothing to branch around (`while c { }`'s body): the condition alone would be
        // placed inside a region that is never emitted.
        if then.is_empty() && otherwise.is_empty() {
            return;
        }
        let Some(condition) = self.condition(term) else {
            return;
        };
        let mut then = self.lower_side((term, true), condition, then);
        let mut otherwise = self.lower_side((term, false), condition, otherwise);
        let slots = self.join(&mut then, &mut otherwise);
        let tys: Vec<Ty> = (then.region.yields.iter())
            .map(|value| self.kernel.ty(*value))
            .collect();
        let op = Op::If {
            condition,
            then: then.region,
            otherwise: otherwise.region,
            uniform: false,
        };
        self.push_region(op, &slots, &tys);
    }

    /// One side of a branch: its effects, with the condition that leads there known
    /// while they are lowered (see [`Builder::may_run`]).
    fn lower_side(
        &mut self,
        (term, side): (&Term, bool),
        condition: ValueId,
        effects: &[Effect],
    ) -> crate::regions::Closed {
        let kind = self.branch_side(condition, term, side);
        self.regions.branch_conditions.push((term.clone(), side));
        self.open(kind);
        self.effects(effects);
        let closed = self.close(Vec::new());
        self.regions.branch_conditions.pop();
        closed
    }

    pub(crate) fn lower_loop(&mut self, body: &[Effect], condition: &Term) {
        self.open(Kind::Loop);
        self.effects(body);
        let Some(test) = self.condition(condition) else {
            self.close(Vec::new());
            return;
        };
        let closed = self.close(Vec::new());
        let inits = self.inits(&closed);
        let (slots, tys) = self.carried_types(&closed.carried);
        let op = Op::Loop {
            inits,
            body: closed.region,
            condition: test,
            uniform: false,
        };
        self.push_region(op, &slots, &tys);
    }

    /// A condition as a pred.
    fn condition(&mut self, condition: &Term) -> Option<ValueId> {
        let value = self.term(condition, 0)?;
        if self.kernel.ty(value) == Ty::Pred {
            Some(value)
        } else {
            self.unsupported("a condition that is not a bool".to_owned());
            None
        }
    }

    fn carried_types(&self, carried: &[(Slot, ValueId)]) -> (Vec<Slot>, Vec<Ty>) {
        carried
            .iter()
            .map(|(slot, value)| (*slot, self.kernel.ty(*value)))
            .unzip()
    }
}
