//! The lowering state of one kernel: the KIR being built in its open regions
//! (`regions.rs`), the run-time integers already computed (each symbolic expression is
//! computed once, `integers.rs`), what each load read and what each variable holds;
//! and the effects, lowered one by one in program order.

use rustc_hash::{FxHashMap, FxHashSet};

use cute::Base;
use cute::{Dtype, Tensor};
use kir::{Alignment, Assumption, Kernel, Op, Signature, Ty, ValueId};
use lang::{Diagnostic, Span};
use layout::SymInt;
use trace::{Effect, KernelTrace, LoadId, Term};

use crate::ranges::Interval;
use crate::regions::{Frame, Kind};
use crate::signature::shared_layout;

/// Swizzled allocations' inner-layout tables by layout: shared by a file's kernels,
/// which may be lowered at the same time.
pub(crate) type InnerTables =
    std::sync::Mutex<FxHashMap<layout::ComposedLayout, Option<std::sync::Arc<Vec<i64>>>>>;

/// Swizzled offsets of every thread, by thread terms, shift and swizzled layout.
type PerThreadOffsets =
    FxHashMap<(SymInt, i64, layout::ComposedLayout), Option<std::rc::Rc<Vec<i64>>>>;

/// The lowering state of one kernel.
pub(crate) struct Builder<'t> {
    pub(crate) trace: &'t KernelTrace,
    pub(crate) kernel: Kernel,
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
    pub(crate) loops: Vec<crate::likely::OpenLoop>,
    /// The depth of the region each fragment and cell lives in.
    pub(crate) homes: FxHashMap<crate::regions::Owner, usize>,
    pub(crate) shared_offsets: Vec<i64>,
    pub(crate) ints: FxHashMap<SymInt, ValueId>,
    pub(crate) constants: FxHashMap<(i64, Ty), ValueId>,
    pub(crate) variables: FxHashMap<String, ValueId>,
    /// The variables that may be negative: integers loaded from memory, cells,
    /// shuffles' and atomics' results, counters of loops that may start below zero.
    pub(crate) signed_variables: FxHashSet<String>,
    /// The interval each run-time integer variable lies in, where it is known.
    pub(crate) ranges: FxHashMap<String, Interval>,
    /// The i32 each sign-extension to i64 was made from.
    pub(crate) widened: FxHashMap<ValueId, ValueId>,
    /// Variables the checker defined as an integer held in its type (a quotient's
    /// operand) whose bounds prove it fits: the exact integer each stands for, which
    /// divisions analyse as they would the integer itself.
    pub(crate) exact_values: FxHashMap<String, SymInt>,
    pub(crate) param_addresses: FxHashMap<usize, ValueId>,
    pub(crate) shared_base: Option<ValueId>,
    /// What each load read, by its identity: one value, or a fragment's values.
    pub(crate) loads: FxHashMap<LoadId, Vec<ValueId>>,
    /// Pure instructions already emitted, by operation and type: computed once.
    pub(crate) pure_cache: FxHashMap<(kir::PureKey, Ty), ValueId>,
    /// Each traced tensor's layout values, tabulated when it has no run-time extent,
    /// by the tensor's address (the trace outlives the builder).
    pub(crate) static_tables: FxHashMap<usize, Option<std::rc::Rc<Vec<i64>>>>,
    /// The unswizzled offset of each swizzled index already computed (evaluating a
    /// layout at a run-time index is symbolic division, and copies ask twice).
    pub(crate) unswizzled_cache: FxHashMap<(layout::ComposedLayout, SymInt), SymInt>,
    /// The addresses computed for swizzled shared elements, per buffer and element
    /// size, that others reach with an immediate; size 0: descriptors' (`gmma.rs`).
    pub(crate) swizzle_anchors: FxHashMap<(usize, i64), Vec<crate::anchors::Anchor>>,
    /// Each thread-index expression's value in every thread of the block (`None`
    /// when the block is not a known size).
    pub(crate) thread_values: FxHashMap<SymInt, Option<std::rc::Rc<Vec<i64>>>>,
    /// Each swizzled index's variable part split into thread terms and the rest.
    pub(crate) thread_splits: FxHashMap<SymInt, Option<std::rc::Rc<crate::swizzled::ThreadSplit>>>,
    /// The inner layout's offsets of each swizzled allocation, when not too many.
    pub(crate) inner_tables: &'t InnerTables,
    /// Each thread's swizzled offset of a swizzled allocation's elements, by their
    /// thread terms, the constant added to those and the allocation's layout.
    pub(crate) per_thread_offsets: PerThreadOffsets,
    /// The halves of each word already unpacked, by element type.
    pub(crate) unpacked: FxHashMap<(ValueId, Ty), [ValueId; 2]>,
    /// Partial sums of symbolic terms already emitted, by the numbers `seen_terms`
    /// gives their terms (each partial sum's key extends the last one's, so it is
    /// copied once per term: numbers keep that cheap).
    pub(crate) sums: FxHashMap<Vec<usize>, ValueId>,
    /// Symbolic terms in the order they were first computed, each numbered by it.
    pub(crate) seen_terms: FxHashMap<SymInt, usize>,
    /// Recently computed addresses per memory base: their run-time byte offset and
    /// register, so that the next element's address adds a stride to one of them.
    pub(crate) recent: FxHashMap<Base, Vec<(SymInt, ValueId)>>,
    pub(crate) assumptions: Vec<Assumption>,
    pub(crate) alignments: Vec<Alignment>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The span of the effect being lowered.
    pub(crate) span: Span,
}

impl<'t> Builder<'t> {
    pub(crate) fn new(
        trace: &'t KernelTrace,
        signature: Signature,
        inner_tables: &'t InnerTables,
    ) -> Self {
        let (shared_offsets, _) = shared_layout(trace);
        Builder {
            trace,
            kernel: Kernel::new(signature, trace.span),
            frames: vec![Frame::new(Kind::Body)],
            depths: Vec::new(),
            per_thread: Vec::new(),
            branch_conditions: Vec::new(),
            loops: Vec::new(),
            homes: FxHashMap::default(),
            shared_offsets,
            ints: FxHashMap::default(),
            constants: FxHashMap::default(),
            variables: FxHashMap::default(),
            signed_variables: FxHashSet::default(),
            ranges: FxHashMap::default(),
            widened: FxHashMap::default(),
            exact_values: FxHashMap::default(),
            param_addresses: FxHashMap::default(),
            shared_base: None,
            loads: FxHashMap::default(),
            pure_cache: FxHashMap::default(),
            unswizzled_cache: FxHashMap::default(),
            static_tables: FxHashMap::default(),
            swizzle_anchors: FxHashMap::default(),
            thread_values: FxHashMap::default(),
            inner_tables,
            per_thread_offsets: FxHashMap::default(),
            thread_splits: FxHashMap::default(),
            unpacked: FxHashMap::default(),
            sums: FxHashMap::default(),
            seen_terms: FxHashMap::default(),
            recent: FxHashMap::default(),
            assumptions: Vec::new(),
            alignments: Vec::new(),
            diagnostics: Vec::new(),
            span: trace.span,
        }
    }

    pub(crate) fn finish(mut self) -> Result<Kernel, Vec<Diagnostic>> {
        if !self.diagnostics.is_empty() {
            return Err(crate::dedup(self.diagnostics));
        }
        self.kernel.body = self.take_body();
        self.kernel.signature.assumptions = self.assumptions;
        self.kernel.signature.alignments = self.alignments;
        Ok(self.kernel)
    }

    /// Reports that something at the current effect cannot be lowered.
    pub(crate) fn unsupported(&mut self, what: String) {
        self.diagnostics.push(
            Diagnostic::error(
                "E0301",
                format!("kernel `{}` cannot be built yet: {what}", self.trace.name),
            )
            .with_primary(self.span, "not lowered yet"),
        );
    }

    pub(crate) fn effect(&mut self, effect: &Effect) {
        self.span = trace::effect_span(effect);
        match effect {
            Effect::Copy {
                atom,
                source,
                destination,
                predicate,
                ..
            } => self.copy(atom.as_deref(), source, destination, predicate.as_ref()),
            Effect::Load {
                id,
                tensor,
                index,
                variable,
                guard,
                ..
            } => {
                let predicate = match guard {
                    Some(guard) => match self.term(guard, 0) {
                        Some(predicate) => Some(predicate),
                        None => return,
                    },
                    None => None,
                };
                self.load(*id, tensor, index.as_ref(), variable.as_deref(), predicate);
            }
            Effect::StoreElement {
                tensor,
                index,
                value,
                ..
            } => {
                if let Some(value) = self.term(value, 0) {
                    self.write_element(tensor, index, value, None);
                }
            }
            Effect::StoreFragment { tensor, value, .. } => {
                let Some(size) = self.static_size(tensor) else {
                    return;
                };
                for element in 0..size {
                    let Some(index) = self.element_index(tensor, element) else {
                        return;
                    };
                    if let Some(value) = self.term(value, element) {
                        self.write_element(tensor, &index, value, None);
                    }
                }
            }
            Effect::Barrier(_) => self.push_effect(Op::Barrier),
            Effect::WarpBarrier(_) => self.push_effect(Op::WarpBarrier),
            Effect::CpAsyncCommit(_) => self.push_effect(Op::CpAsyncCommit),
            Effect::CpAsyncWait(groups, _) => self.push_effect(Op::CpAsyncWait(*groups)),
            Effect::Registers(fragment, _) => self.allocate(*fragment),
            Effect::Define {
                variable, value, ..
            } => {
                // An integer its type holds as computed (its bounds say so) needs no
                // wrapping: the 64-bit value is the variable.
                let computed = match value.as_ref() {
                    Term::Int(exact, dtype) if self.fits(exact, *dtype) => {
                        self.exact_values.insert(variable.clone(), exact.clone());
                        self.int(exact)
                    }
                    _ => self.term(value, 0),
                };
                if let Some(computed) = computed {
                    self.define_variable(variable, computed);
                    if let Some(interval) = self.term_range(value) {
                        self.bound(variable, interval);
                    }
                }
            }
            Effect::WriteCell {
                cell, dtype, value, ..
            } => self.write_cell(*cell, *dtype, value),
            Effect::ReadCell {
                cell,
                dtype,
                variable,
                ..
            } => self.read_cell(*cell, *dtype, variable),
            Effect::For {
                counter,
                start,
                end,
                body,
                ..
            } => self.lower_for(counter, (start, end), body),
            Effect::If {
                condition,
                then,
                otherwise,
                ..
            } => self.lower_if(condition, then, otherwise),
            Effect::Loop {
                body, condition, ..
            } => self.lower_loop(body, condition),
            Effect::Gemm {
                atom,
                d,
                a,
                b,
                c,
                accumulate,
                ..
            } => self.gemm(atom, [d, a, b, c], accumulate.as_deref()),
            Effect::Shuffle {
                mode,
                value,
                lane,
                variable,
                dtype,
                ..
            } => self.shuffle(*mode, (value, lane), variable, *dtype),
            Effect::Elect { variable, .. } => self.elect(variable),
            Effect::Atomic {
                op,
                tensor,
                index,
                value,
                old,
                ..
            } => self.atomic(*op, (tensor, index), value, old.as_deref()),
            Effect::Mbarrier {
                action,
                tensor,
                index,
                operand,
                ..
            } => self.mbarrier(*action, (tensor, index), operand.as_deref()),
            Effect::Intrinsic(intrinsic, _) => self.push_intrinsic(*intrinsic, Vec::new()),
            Effect::Print { format, values, .. } => self.print(format, values),
            Effect::NamedBarrier {
                arrive,
                id,
                threads,
                ..
            } => self.named_barrier(*arrive, id, *threads),
            Effect::Tmem {
                action,
                pair,
                columns,
                ..
            } => self.tmem(action, *columns, *pair),
            Effect::Tcgen05Mma {
                pair,
                taddr,
                a,
                b,
                accumulate,
                ..
            } => self.tcgen05_mma(taddr, (a, b), accumulate, *pair),
            Effect::TmemCopy {
                load,
                shape,
                fragment,
                taddr,
                ..
            } => self.tmem_copy((*load, shape), fragment, taddr),
            Effect::TmaLoad {
                map,
                coords,
                destination,
                barriers,
                barrier,
                multicast,
                pair,
                ..
            } => self.tma_load(
                *map,
                coords,
                destination,
                (barriers, barrier),
                (multicast.as_deref(), *pair),
            ),
            Effect::TmaPrefetch { map, .. } => self.tma_prefetch(*map),
            Effect::TmaStore {
                map,
                coords,
                source,
                ..
            } => self.tma_store(*map, coords, source),
            Effect::Unsupported(what, _) => {
                self.unsupported(format!("lowering does not handle {what}"))
            }
        }
    }

    /// Names a run-time value that may be negative (a cell's read, a shuffle's or
    /// atomic's result, a definition): integers as the 64-bit values symbolic integers
    /// use.
    pub(crate) fn define_variable(&mut self, variable: &str, value: ValueId) {
        let ty = self.kernel.ty(value);
        if let Some(held) = Interval::of_ty(ty) {
            self.bound(variable, held);
        }
        let value = if ty.is_integer() {
            self.convert(value, Ty::I64)
        } else {
            value
        };
        self.variables.insert(variable.to_owned(), value);
        if !ty.is_unsigned() {
            self.signed_variables.insert(variable.to_owned());
        }
    }

    /// Reads a loaded element, or all of a fragment, here in program order (only where
    /// `predicate` holds, when there is one).
    fn load(
        &mut self,
        id: LoadId,
        tensor: &Tensor,
        index: Option<&SymInt>,
        variable: Option<&str>,
        predicate: Option<ValueId>,
    ) {
        let values = match index {
            Some(index) => self
                .read_element(tensor, index, predicate)
                .map(|value| vec![value]),
            None => self.static_size(tensor).and_then(|size| {
                (0..size)
                    .map(|element| {
                        let index = self.element_index(tensor, element)?;
                        self.read_element(tensor, &index, predicate)
                    })
                    .collect()
            }),
        };
        let Some(values) = values else { return };
        if let (Some(name), [value]) = (variable, values.as_slice()) {
            self.define_variable(name, *value);
        }
        self.loads.insert(id, values);
    }
}

/// The register type that holds a value of `dtype`: integers narrower than 32 bits in
/// an `i32`, as C's integer promotions compute them in `int` (`a - 3` of a `u8`
/// holding 2 is -1), sign- or zero-extended by their signedness where they are loaded.
pub(crate) fn dtype_ty(dtype: Dtype) -> Option<Ty> {
    Some(match dtype {
        Dtype::Bf16 => Ty::BF16,
        Dtype::F16 => Ty::F16,
        Dtype::F32 => Ty::F32,
        Dtype::F64 => Ty::F64,
        Dtype::I8 | Dtype::I16 | Dtype::U8 | Dtype::U16 | Dtype::I32 => Ty::I32,
        Dtype::U32 => Ty::U32,
        Dtype::I64 => Ty::I64,
        Dtype::U64 => Ty::U64,
        Dtype::Bool => Ty::Pred,
        _ => return None,
    })
}
