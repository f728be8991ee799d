//! The parts of the builder's state, each about one thing: where instructions go
//! ([`Regions`]), what each run-time variable holds and is known to be
//! ([`Variables`]), what was evaluated while its value is in scope ([`Evaluated`]),
//! what the layout algebra tabulated for swizzled and static layouts ([`Tabulated`]),
//! and what address arithmetic reuses ([`AddressReuse`]).

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use cute::Base;
use kir::ValueId;
use layout::{ComposedLayout, SymInt};
use trace::Term;

use crate::builder::InnerTables;
use crate::likely::OpenLoop;
use crate::ranges::Interval;
use crate::regions::{Frame, Kind, Owner};

/// Where instructions go: the open regions, and what placement knows of each value.
pub(crate) struct Regions {
    /// The open regions, the kernel's body first.
    pub(crate) frames: Vec<Frame>,
    /// The depth of the region that defines each value, indexed by [`ValueId`].
    pub(crate) depths: Vec<usize>,
    /// Whether each value may differ between the threads of a block, indexed by
    /// [`ValueId`] (see `placement.rs`).
    pub(crate) per_thread: Vec<bool>,
    /// The conditions of the branches being lowered, each with the side taken.
    pub(crate) branch_conditions: Vec<(Term, bool)>,
    /// The `for` loops being lowered, the outermost first.
    pub(crate) loops: Vec<OpenLoop>,
    /// The depth of the region each fragment and cell lives in.
    pub(crate) homes: FxHashMap<Owner, usize>,
}

impl Regions {
    /// The kernel's body alone.
    pub(crate) fn new() -> Regions {
        Regions {
            frames: vec![Frame::new(Kind::Body)],
            depths: Vec::new(),
            per_thread: Vec::new(),
            branch_conditions: Vec::new(),
            loops: Vec::new(),
            homes: FxHashMap::default(),
        }
    }
}

/// What lowering knows of each run-time variable, by name.
#[derive(Default)]
pub(crate) struct Variables {
    /// Each variable's value (an integer as 64 bits).
    pub(crate) values: FxHashMap<String, ValueId>,
    /// The variables that may be negative: integers loaded from memory, cells,
    /// shuffles' and atomics' results, counters of loops that may start below zero.
    pub(crate) signed: FxHashSet<String>,
    /// The interval each integer variable lies in, where it is known.
    pub(crate) ranges: FxHashMap<String, Interval>,
    /// Variables the checker defined as an integer held in its type (a quotient's
    /// operand) whose bounds prove it fits: the exact integer each stands for, which
    /// divisions analyse as they would the integer itself.
    pub(crate) exact: FxHashMap<String, SymInt>,
}

/// What was evaluated, while its value is in scope (forgotten with the region that
/// defines it, or all at once when a variable or load it may read is defined again).
#[derive(Default)]
pub(crate) struct Evaluated {
    /// Each trace term's value, by the term's address and the fragment element (see
    /// `terms.rs`): the trace outlives the builder, so an address names one term.
    pub(crate) terms: FxHashMap<(usize, i64), ValueId>,
    /// Each symbolic integer's value.
    pub(crate) ints: FxHashMap<SymInt, ValueId>,
    /// The value and FP8 type each word holding one conversion's byte in all four
    /// places was converted from (see `fp8/store.rs`), by the word: a copy of registers
    /// written one by one converts them again two at a time. Kept across regions: a
    /// word visible where it is read has its value visible too.
    pub(crate) fp8_sources: FxHashMap<ValueId, (ValueId, cute::Dtype)>,
}

/// A swizzled allocation's elements by their thread terms, the constant added to those
/// and the allocation's layout.
type PerThreadKey = (SymInt, i64, ComposedLayout);

/// What the layout algebra tabulated: compile-time evaluations that copies ask for
/// again.
pub(crate) struct Tabulated<'t> {
    /// Each traced tensor's layout values, when it has no run-time extent, by the
    /// tensor's address (the trace outlives the builder).
    pub(crate) statics: FxHashMap<usize, Option<Rc<Vec<i64>>>>,
    /// The unswizzled offset of each swizzled index (evaluating a layout at a run-time
    /// index is symbolic division).
    pub(crate) unswizzled: FxHashMap<(ComposedLayout, SymInt), SymInt>,
    /// Each thread-index expression's value in every thread of the block (`None`
    /// when the block is not a known size).
    pub(crate) thread_values: FxHashMap<SymInt, Option<Rc<Vec<i64>>>>,
    /// Each swizzled index's variable part split into thread terms and the rest.
    pub(crate) thread_splits: FxHashMap<SymInt, Option<Rc<crate::swizzled::ThreadSplit>>>,
    /// Each thread's swizzled offset of a swizzled allocation's elements, by their
    /// thread terms, the constant added to those and the allocation's layout.
    pub(crate) per_thread_offsets: FxHashMap<PerThreadKey, Option<Rc<Vec<i64>>>>,
    /// The inner layout's offsets of each swizzled allocation, when not too many: shared
    /// by a file's kernels.
    pub(crate) inner: &'t InnerTables,
}

impl<'t> Tabulated<'t> {
    /// Nothing tabulated yet but what `inner` holds.
    pub(crate) fn new(inner: &'t InnerTables) -> Tabulated<'t> {
        Tabulated {
            statics: FxHashMap::default(),
            unswizzled: FxHashMap::default(),
            thread_values: FxHashMap::default(),
            thread_splits: FxHashMap::default(),
            per_thread_offsets: FxHashMap::default(),
            inner,
        }
    }
}

/// What address arithmetic reuses as it goes: the one optimization still made while
/// translating (issue 36 moves it to a pass).
#[derive(Default)]
pub(crate) struct AddressReuse {
    /// Symbolic terms in the order they were first computed, each numbered by it: a
    /// sum adds its terms in that order, so that sums which differ in one term (the
    /// addresses of one thread's elements) share the partial sums of the others.
    pub(crate) term_order: FxHashMap<SymInt, usize>,
    /// Recently computed addresses per memory base: their run-time byte offset and
    /// register, so that the next element's address adds a stride to one of them.
    pub(crate) recent: FxHashMap<Base, Vec<(SymInt, ValueId)>>,
    /// The addresses computed for swizzled shared elements, per buffer and element
    /// size, that others reach with an immediate; size 0: descriptors' (`gmma.rs`).
    pub(crate) anchors: FxHashMap<(usize, i64), Vec<crate::anchors::Anchor>>,
}
