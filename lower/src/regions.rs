//! Regions: where instructions go, and the state that flows through loops and
//! branches.
//!
//! The builder keeps a stack of open regions, the kernel's body at the bottom. An
//! instruction with effects goes to the innermost region; a pure one as far out as
//! `placement.rs` lets it, computed once there. When a region closes, what was
//! computed inside it is forgotten.
//!
//! Mutable state (each register-fragment element, each cell) is a [`Slot`] whose
//! current value each region tracks. Reading a slot inside a loop that has not
//! written it yet makes it a parameter of the loop, initialised from the value
//! outside when the loop closes; every slot a loop writes is carried through its
//! parameters and results the same way. A branch yields each slot either side wrote.
//! A slot lives in the region where its fragment was allocated or its cell first
//! written (its *home*): a fragment allocated in a loop's body is new in every
//! iteration, so the loop neither carries nor returns it.

use rustc_hash::FxHashMap;

use kir::{Inst, Op, Region, Ty, ValueId};
use trace::CellId;

use crate::builder::Builder;

/// What a slot belongs to: a fragment or a cell, whose home region they share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Owner {
    /// A register fragment.
    Fragment(u32),
    /// A cell.
    Cell(CellId),
}

/// A piece of mutable state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Slot {
    /// Element `index` of register fragment `fragment`.
    Register(u32, i64),
    /// A cell.
    Cell(CellId),
}

impl Slot {
    fn owner(self) -> Owner {
        match self {
            Slot::Register(fragment, _) => Owner::Fragment(fragment),
            Slot::Cell(cell) => Owner::Cell(cell),
        }
    }

    /// The order in which a loop carries slots and a branch yields them: that of the
    /// slots' `Debug` text (`Cell(CellId(12))` before `Register(10, 3)`, and
    /// `Register(10, 3)` before `Register(2, 0)`), which fixed the order of the
    /// parameters of earlier builds, compared without writing the text.
    fn text_order(self) -> (bool, DecimalText, DecimalText) {
        match self {
            Slot::Cell(cell) => (false, DecimalText::of(cell.0.into()), DecimalText::of(0)),
            Slot::Register(fragment, index) => (
                true,
                DecimalText::of(fragment.into()),
                DecimalText::of(index),
            ),
        }
    }
}

/// A number's decimal text padded with zero bytes, so that comparing two of them
/// compares the texts (a text before every longer text it begins). Every character
/// that follows a number in a slot's `Debug` text (`,` or `)`) sorts before a digit
/// or a minus sign, just as the padding does.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct DecimalText([u8; 20]);

impl DecimalText {
    fn of(number: i64) -> DecimalText {
        let mut digits = itoa::Buffer::new();
        let text = digits.format(number).as_bytes();
        let mut padded = [0_u8; 20];
        padded[..text.len()].copy_from_slice(text);
        DecimalText(padded)
    }
}

/// What kind of region is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The kernel's body.
    Body,
    /// A loop's body: slots read before they are written become parameters.
    Loop,
    /// One side of a branch: slots it does not write are read from outside. Whether the
    /// pure instructions only it needs stay in it is `placement.rs`'s choice.
    Branch { keeps_pure_work: bool },
}

/// An open region.
pub(crate) struct Frame {
    pub(crate) kind: Kind,
    insts: Vec<Inst>,
    /// Each slot's current value here.
    state: FxHashMap<Slot, ValueId>,
    /// The loop parameters made for slots, in order.
    params: Vec<(Slot, ValueId)>,
}

impl Frame {
    pub(crate) fn new(kind: Kind) -> Frame {
        Frame {
            kind,
            insts: Vec::new(),
            state: FxHashMap::default(),
            params: Vec::new(),
        }
    }
}

/// A closed region, ready to become an instruction: the slots it carries with their
/// yields, and its region.
pub(crate) struct Closed {
    pub(crate) region: Region,
    pub(crate) carried: Vec<(Slot, ValueId)>,
    state: FxHashMap<Slot, ValueId>,
}

impl Builder<'_> {
    /// The depth of the innermost open region.
    pub(crate) fn depth(&self) -> usize {
        self.regions.frames.len() - 1
    }

    /// Defines values of types `tys` by `op` in the region at `depth`.
    pub(crate) fn define_at(&mut self, depth: usize, op: Op, tys: &[Ty]) -> Vec<ValueId> {
        let per_thread = self.may_differ_between_threads(&op);
        let results: Vec<ValueId> = tys
            .iter()
            .map(|ty| {
                let value = self.kernel.new_value(*ty);
                self.regions.depths.push(depth);
                self.regions.per_thread.push(per_thread);
                value
            })
            .collect();
        self.regions.frames[depth].insts.push(Inst {
            op,
            results: results.clone(),
            span: self.span,
        });
        results
    }

    /// Appends an instruction defining one value here.
    pub(crate) fn push(&mut self, op: Op, ty: Ty) -> ValueId {
        self.define_at(self.depth(), op, &[ty])[0]
    }

    /// Appends an instruction defining one value of each of `tys` here.
    pub(crate) fn push_many(&mut self, op: Op, tys: &[Ty]) -> Vec<ValueId> {
        self.define_at(self.depth(), op, tys)
    }

    /// Appends an instruction that defines nothing here.
    pub(crate) fn push_effect(&mut self, op: Op) {
        self.define_at(self.depth(), op, &[]);
    }

    /// The depth of the region that defines `value`.
    pub(crate) fn depth_of(&self, value: ValueId) -> usize {
        self.regions
            .depths
            .get(value.0 as usize)
            .copied()
            .unwrap_or(0)
    }

    /// A new value defined at the current depth without an instruction (a region's
    /// parameter), taken to differ between threads until known otherwise.
    fn parameter(&mut self, ty: Ty, depth: usize) -> ValueId {
        let value = self.kernel.new_value(ty);
        self.regions.depths.push(depth);
        self.regions.per_thread.push(true);
        value
    }

    /// The depth of the region `slot` lives in (the kernel's body when unknown).
    fn home(&self, slot: Slot) -> usize {
        self.regions.homes.get(&slot.owner()).copied().unwrap_or(0)
    }

    /// A register fragment allocated here.
    pub(crate) fn allocate(&mut self, fragment: u32) {
        let depth = self.depth();
        self.regions.homes.insert(Owner::Fragment(fragment), depth);
    }

    /// The current value of `slot`, or `None` when nothing was ever stored there.
    pub(crate) fn read_slot(&mut self, slot: Slot, ty: Ty) -> Option<ValueId> {
        let home = self.home(slot);
        for depth in (0..self.regions.frames.len()).rev() {
            if let Some(value) = self.regions.frames[depth].state.get(&slot) {
                return Some(*value);
            }
            if depth <= home {
                return None;
            }
            if self.regions.frames[depth].kind == Kind::Loop {
                let param = self.parameter(ty, depth);
                let frame = &mut self.regions.frames[depth];
                frame.state.insert(slot, param);
                frame.params.push((slot, param));
                return Some(param);
            }
        }
        None
    }

    /// Sets the current value of `slot` (a cell's first write is its home).
    pub(crate) fn write_slot(&mut self, slot: Slot, value: ValueId) {
        let depth = self.depth();
        self.regions.homes.entry(slot.owner()).or_insert(depth);
        if let Some(frame) = self.regions.frames.last_mut() {
            frame.state.insert(slot, value);
        }
    }

    /// Opens a region of `kind`; a loop's `params` (its counter) come first.
    pub(crate) fn open(&mut self, kind: Kind) {
        self.regions.frames.push(Frame::new(kind));
    }

    /// A new value of type `ty` for a loop counter or similar, defined on entry to
    /// the innermost region.
    pub(crate) fn region_parameter(&mut self, ty: Ty) -> ValueId {
        self.parameter(ty, self.depth())
    }

    /// Closes the innermost region: for a loop, every slot it read or wrote becomes a
    /// carried parameter (`leading` parameters, such as a counter, go first).
    pub(crate) fn close(&mut self, leading: Vec<ValueId>) -> Closed {
        let depth = self.depth();
        let Some(mut frame) = self.regions.frames.pop() else {
            return Closed {
                region: Region::default(),
                carried: Vec::new(),
                state: FxHashMap::default(),
            };
        };
        self.forget_from(depth);
        let homes = &self.regions.homes;
        frame
            .state
            .retain(|slot, _| homes.get(&slot.owner()).copied().unwrap_or(0) < depth);
        frame
            .params
            .retain(|(slot, _)| frame.state.contains_key(slot));
        let mut params = leading;
        let mut carried = Vec::new();
        if frame.kind == Kind::Loop {
            let mut written: Vec<(Slot, ValueId)> = frame
                .state
                .iter()
                .filter(|(slot, _)| !frame.params.iter().any(|(known, _)| known == *slot))
                .map(|(slot, value)| (*slot, *value))
                .collect();
            written.sort_by_key(|(slot, _)| slot.text_order());
            for (slot, value) in written {
                let ty = self.kernel.ty(value);
                let param = self.parameter(ty, depth);
                frame.params.push((slot, param));
            }
            for (slot, param) in &frame.params {
                params.push(*param);
                carried.push((*slot, frame.state[slot]));
            }
        }
        Closed {
            region: Region {
                params,
                body: frame.insts,
                yields: carried.iter().map(|(_, value)| *value).collect(),
            },
            carried,
            state: frame.state,
        }
    }

    /// The initial values of a closed loop's carried slots, read here.
    pub(crate) fn inits(&mut self, closed: &Closed) -> Vec<ValueId> {
        let carried = closed.carried.clone();
        carried
            .into_iter()
            .map(|(slot, value)| {
                let ty = self.kernel.ty(value);
                match self.read_slot(slot, ty) {
                    Some(init) => init,
                    None => self.zero(ty),
                }
            })
            .collect()
    }

    /// Makes both sides of a branch yield each slot either side wrote (the value from
    /// before the branch where a side did not); returns the slots in order.
    pub(crate) fn join(&mut self, then: &mut Closed, otherwise: &mut Closed) -> Vec<Slot> {
        let mut slots: Vec<Slot> = then
            .state
            .keys()
            .chain(otherwise.state.keys())
            .copied()
            .collect();
        slots.sort_by_key(|slot| slot.text_order());
        slots.dedup();
        for slot in &slots {
            let known = then.state.get(slot).or(otherwise.state.get(slot)).copied();
            let Some(known) = known else { continue };
            let ty = self.kernel.ty(known);
            for side in [&mut *then, &mut *otherwise] {
                let value = match side.state.get(slot) {
                    Some(value) => *value,
                    None => match self.read_slot(*slot, ty) {
                        Some(value) => value,
                        None => self.zero(ty),
                    },
                };
                side.region.yields.push(value);
            }
        }
        slots
    }

    /// Appends a region instruction with one result per slot, which become the slots'
    /// current values.
    pub(crate) fn push_region(&mut self, op: Op, slots: &[Slot], tys: &[Ty]) {
        let results = self.push_many(op, tys);
        for (slot, result) in slots.iter().zip(results) {
            self.write_slot(*slot, result);
        }
    }

    /// Forgets every cached value defined at `depth` or deeper (the region closing).
    fn forget_from(&mut self, depth: usize) {
        let depths = &self.regions.depths;
        let live = |value: &ValueId| depths.get(value.0 as usize).copied().unwrap_or(0) < depth;
        self.variables.values.retain(|_, value| live(value));
        self.evaluated.terms.retain(|_, value| live(value));
        self.evaluated.ints.retain(|_, value| live(value));
        for list in self.reuse.recent.values_mut() {
            list.retain(|(_, value)| live(value));
        }
        for list in self.reuse.anchors.values_mut() {
            list.retain(|anchor| live(&anchor.address));
        }
    }

    /// Names `value` the run-time variable `name`; defining one again forgets every
    /// evaluation, which may have read the old value.
    pub(crate) fn bind_variable(&mut self, name: &str, value: ValueId) {
        if self
            .variables
            .values
            .insert(name.to_owned(), value)
            .is_some()
        {
            self.forget_evaluations();
        }
    }

    /// Forgets every term and symbolic integer evaluated: a variable or load they may
    /// read was defined again.
    pub(crate) fn forget_evaluations(&mut self) {
        self.evaluated.terms.clear();
        self.evaluated.ints.clear();
    }

    /// The kernel's body, once every region is closed.
    pub(crate) fn take_body(&mut self) -> Vec<Inst> {
        self.regions
            .frames
            .first_mut()
            .map(|frame| std::mem::take(&mut frame.insts))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::Slot;
    use trace::CellId;

    #[test]
    fn slots_are_ordered_as_their_debug_text() {
        let mut slots = vec![
            Slot::Register(10, 3),
            Slot::Register(2, 0),
            Slot::Register(1, 12),
            Slot::Register(1, 2),
            Slot::Register(1, -1),
            Slot::Register(12, 0),
            Slot::Cell(CellId(9)),
            Slot::Cell(CellId(10)),
            Slot::Register(1, i64::MIN),
            Slot::Register(u32::MAX, i64::MAX),
        ];
        let mut by_text = slots.clone();
        by_text.sort_by_key(|slot| format!("{slot:?}"));
        slots.sort_by_key(|slot| slot.text_order());
        assert_eq!(slots, by_text);
    }
}
