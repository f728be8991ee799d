//! The lowering state of one kernel: the KIR being built in its open regions
//! (`regions.rs`), what each load read and what each variable holds, what was
//! evaluated while in scope (`state.rs` groups these); and the effects, lowered one by
//! one in program order.

use rustc_hash::FxHashMap;

use cute::{Dtype, Tensor};
use kir::{Kernel, Op, Signature, Ty, ValueId};
use lang::{Diagnostic, Span};
use layout::SymInt;
use trace::{Effect, KernelTrace, LoadId, Term};

use crate::ranges::Interval;
use crate::signature::shared_layout;
use crate::state::{AddressReuse, Evaluated, Regions, Tabulated, Variables};

/// Swizzled allocations' inner-layout tables by layout: shared by a file's kernels,
/// which may be lowered at the same time.
pub(crate) type InnerTables =
    std::sync::Mutex<FxHashMap<layout::ComposedLayout, Option<std::sync::Arc<Vec<i64>>>>>;

/// The lowering state of one kernel (its parts: `state.rs`).
pub(crate) struct Builder<'t> {
    pub(crate) trace: &'t KernelTrace,
    pub(crate) kernel: Kernel,
    /// Where instructions go.
    pub(crate) regions: Regions,
    /// Each shared allocation's byte offset in the block's shared memory.
    pub(crate) shared_offsets: Vec<i64>,
    /// What each run-time variable holds and is known to be.
    pub(crate) variables: Variables,
    /// What each load read, by its identity: one value, or a fragment's values.
    pub(crate) loads: FxHashMap<LoadId, Vec<ValueId>>,
    /// The terms and symbolic integers evaluated, while in scope.
    pub(crate) evaluated: Evaluated,
    /// What the layout algebra tabulated.
    pub(crate) tables: Tabulated<'t>,
    /// What address arithmetic reuses.
    pub(crate) reuse: AddressReuse,
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
            regions: Regions::new(),
            shared_offsets,
            variables: Variables::default(),
            loads: FxHashMap::default(),
            evaluated: Evaluated::default(),
            tables: Tabulated::new(inner_tables),
            reuse: AddressReuse::default(),
            diagnostics: Vec::new(),
            span: trace.span,
        }
    }

    pub(crate) fn finish(mut self) -> Result<Kernel, Vec<Diagnostic>> {
        if !self.diagnostics.is_empty() {
            return Err(crate::dedup(self.diagnostics));
        }
        self.kernel.body = self.take_body();
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
                if self.store_fp8_fragment(tensor, value) {
                    return;
                }
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
                        self.variables.exact.insert(variable.clone(), exact.clone());
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
            Effect::OnElement {
                intrinsic,
                tensor,
                index,
                value,
                result,
                ..
            } => self.on_element(
                *intrinsic,
                (tensor, index),
                value.as_deref(),
                result.as_deref(),
            ),
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
                add,
                ..
            } => self.tma_store(*map, coords, source, *add),
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
        self.bind_variable(variable, value);
        if !ty.is_unsigned() {
            self.variables.signed.insert(variable.to_owned());
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
        if self.loads.insert(id, values).is_some() {
            self.forget_evaluations();
        }
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
