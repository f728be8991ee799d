//! The lowering state of one kernel: the KIR being built, the run-time integers
//! already computed (each symbolic expression is computed once), and the current
//! value of every register-fragment element.

use std::collections::HashMap;

use cute::Base;
use cute::{Codomain, Dtype, Tensor};
use kir::{Alignment, Assumption, BinOp, Kernel, Op, Signature, Space, Special, Ty, ValueId};
use lang::{Diagnostic, Span};
use layout::{SymFactor, SymInt};
use typecheck::trace::{Effect, KernelTrace, LoadId, TraceParamKind};

use crate::signature::shared_layout;

/// Where an element lives: in memory at `address + offset` bytes, or in a register.
pub(crate) enum Place {
    /// Memory.
    Memory {
        /// The space.
        space: Space,
        /// The address register.
        address: ValueId,
        /// The byte offset folded into the instruction.
        offset: i64,
    },
    /// Element `index` of register fragment `fragment`.
    Register {
        /// The fragment.
        fragment: u32,
        /// The element.
        index: i64,
    },
}

pub(crate) struct Builder<'t> {
    pub(crate) trace: &'t KernelTrace,
    pub(crate) kernel: Kernel,
    shared_offsets: Vec<i64>,
    ints: HashMap<SymInt, ValueId>,
    constants: HashMap<(i64, Ty), ValueId>,
    variables: HashMap<String, ValueId>,
    /// The variables that stand for integers loaded from memory, which may be negative.
    loaded_variables: Vec<String>,
    param_addresses: HashMap<usize, ValueId>,
    shared_base: Option<ValueId>,
    fragments: HashMap<(u32, i64), ValueId>,
    /// What each load read, by its identity: one value, or a fragment's values.
    pub(crate) loads: HashMap<LoadId, Vec<ValueId>>,
    /// Pure instructions already emitted, by their text: computed once.
    pure: HashMap<String, ValueId>,
    /// Partial sums of symbolic terms already emitted, by their terms.
    sums: HashMap<Vec<String>, ValueId>,
    /// Symbolic terms in the order they were first computed.
    seen_terms: HashMap<String, usize>,
    /// Recently computed addresses per memory base: their run-time byte offset and
    /// register, so that the next element's address adds a stride to one of them.
    recent: HashMap<Base, Vec<(SymInt, ValueId)>>,
    assumptions: Vec<Assumption>,
    alignments: Vec<Alignment>,
    diagnostics: Vec<Diagnostic>,
    /// The span of the effect being lowered.
    pub(crate) span: Span,
}

impl<'t> Builder<'t> {
    pub(crate) fn new(trace: &'t KernelTrace, signature: Signature) -> Self {
        let (shared_offsets, _) = shared_layout(trace);
        Builder {
            trace,
            kernel: Kernel::new(signature, trace.span),
            shared_offsets,
            ints: HashMap::new(),
            constants: HashMap::new(),
            variables: HashMap::new(),
            loaded_variables: Vec::new(),
            param_addresses: HashMap::new(),
            shared_base: None,
            fragments: HashMap::new(),
            loads: HashMap::new(),
            pure: HashMap::new(),
            sums: HashMap::new(),
            seen_terms: HashMap::new(),
            recent: HashMap::new(),
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
        self.span = typecheck::trace::effect_span(effect);
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
                ..
            } => self.load(*id, tensor, index.as_ref(), variable.as_deref()),
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
            Effect::Barrier(_) => self.kernel.push_effect(Op::Barrier, self.span),
            Effect::WarpBarrier(_) => self.kernel.push_effect(Op::WarpBarrier, self.span),
            Effect::CpAsyncCommit(_) => self.kernel.push_effect(Op::CpAsyncCommit, self.span),
            Effect::CpAsyncWait(groups, _) => {
                self.kernel.push_effect(Op::CpAsyncWait(*groups), self.span);
            }
            Effect::Unsupported(what, _) => {
                self.unsupported(format!("lowering does not handle {what}"))
            }
        }
    }

    /// Reads a loaded element, or all of a fragment, here in program order.
    fn load(
        &mut self,
        id: LoadId,
        tensor: &Tensor,
        index: Option<&SymInt>,
        variable: Option<&str>,
    ) {
        let values = match index {
            Some(index) => self
                .read_element(tensor, index, None)
                .map(|value| vec![value]),
            None => self.static_size(tensor).and_then(|size| {
                (0..size)
                    .map(|element| {
                        let index = self.element_index(tensor, element)?;
                        self.read_element(tensor, &index, None)
                    })
                    .collect()
            }),
        };
        let Some(values) = values else { return };
        if let (Some(name), [value]) = (variable, values.as_slice()) {
            let wide = self.convert(*value, Ty::I64);
            self.variables.insert(name.to_owned(), wide);
            self.loaded_variables.push(name.to_owned());
        }
        self.loads.insert(id, values);
    }

    // ----- integers -----

    pub(crate) fn constant(&mut self, value: i64, ty: Ty) -> ValueId {
        if let Some(known) = self.constants.get(&(value, ty)) {
            return *known;
        }
        let id = self.kernel.push(Op::ConstInt(value), ty, self.span);
        self.constants.insert((value, ty), id);
        id
    }

    /// Emits a pure instruction once: the same operation on the same values reuses
    /// the first result.
    pub(crate) fn pure(&mut self, op: Op, ty: Ty) -> ValueId {
        let key = format!("{op:?}:{}", ty.name());
        if let Some(known) = self.pure.get(&key) {
            return *known;
        }
        let value = self.kernel.push(op, ty, self.span);
        self.pure.insert(key, value);
        value
    }

    pub(crate) fn binary(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.kernel.ty(a);
        self.pure(Op::Binary(op, a, b), ty)
    }

    pub(crate) fn convert(&mut self, value: ValueId, ty: Ty) -> ValueId {
        if self.kernel.ty(value) == ty {
            return value;
        }
        self.pure(Op::Convert(value), ty)
    }

    /// A symbolic integer as a 64-bit value. Each term is computed once, and a sum
    /// starts with the terms computed before, so expressions that differ in one term
    /// (the addresses of one thread's elements) share everything else.
    pub(crate) fn int(&mut self, value: &SymInt) -> Option<ValueId> {
        if let Some(constant) = value.as_constant() {
            return Some(self.constant(constant, Ty::I64));
        }
        if let Some(known) = self.ints.get(value) {
            return Some(*known);
        }
        let mut terms: Vec<(String, i64, Vec<SymFactor<'_>>)> = value
            .terms()
            .into_iter()
            .map(|(coefficient, factors)| {
                (format!("{coefficient}:{factors:?}"), coefficient, factors)
            })
            .collect();
        let next = self.seen_terms.len();
        terms.sort_by_key(|(key, ..)| self.seen_terms.get(key).copied().unwrap_or(next));
        let mut keys = Vec::with_capacity(terms.len());
        let mut sum: Option<ValueId> = None;
        for (key, coefficient, factors) in terms {
            let order = self.seen_terms.len();
            self.seen_terms.entry(key.clone()).or_insert(order);
            keys.push(key);
            if let Some(known) = self.sums.get(&keys) {
                sum = Some(*known);
                continue;
            }
            let mut product: Option<ValueId> = None;
            for factor in factors {
                let operand = self.factor(factor)?;
                product = Some(match product {
                    None => operand,
                    Some(product) => self.binary(BinOp::Mul, product, operand),
                });
            }
            let term = match product {
                None => self.constant(coefficient, Ty::I64),
                Some(product) => self.scale(product, coefficient),
            };
            let total = match sum {
                None => term,
                Some(sum) => self.binary(BinOp::Add, sum, term),
            };
            self.sums.insert(keys.clone(), total);
            sum = Some(total);
        }
        let result = match sum {
            Some(sum) => sum,
            None => self.constant(0, Ty::I64),
        };
        self.ints.insert(value.clone(), result);
        Some(result)
    }

    /// `value * coefficient`, a shift for powers of two.
    fn scale(&mut self, value: ValueId, coefficient: i64) -> ValueId {
        match coefficient {
            1 => value,
            c if c > 0 && (c as u64).is_power_of_two() => {
                let shift = self.constant(i64::from(c.trailing_zeros()), Ty::I64);
                self.binary(BinOp::Shl, value, shift)
            }
            c => {
                let c = self.constant(c, Ty::I64);
                self.binary(BinOp::Mul, value, c)
            }
        }
    }

    fn factor(&mut self, factor: SymFactor<'_>) -> Option<ValueId> {
        match factor {
            SymFactor::Variable(name) => self.variable(name),
            SymFactor::Div(a, b) | SymFactor::CeilDiv(a, b) | SymFactor::Mod(a, b) => {
                let divisor = b.as_constant();
                let numerator = match factor {
                    SymFactor::CeilDiv(..) => {
                        let bump = layout::Int::sub(b, &SymInt::constant(1)).ok()?;
                        layout::Int::add(a, &bump).ok()?
                    }
                    _ => a.clone(),
                };
                if numerator
                    .variables()
                    .iter()
                    .any(|name| self.loaded_variables.contains(name))
                {
                    self.unsupported(format!(
                        "`{numerator}` divided at run time: it is loaded from memory and may be negative"
                    ));
                    return None;
                }
                let a = self.int(&numerator)?;
                // Run-time integers are non-negative (indices and extents), so a power
                // of two divides by a shift and reduces by a mask.
                match (factor, divisor) {
                    (SymFactor::Mod(..), Some(d)) if d > 0 && (d as u64).is_power_of_two() => {
                        let mask = self.constant(d - 1, Ty::I64);
                        Some(self.binary(BinOp::And, a, mask))
                    }
                    (_, Some(d))
                        if d > 0
                            && (d as u64).is_power_of_two()
                            && !matches!(factor, SymFactor::Mod(..)) =>
                    {
                        let shift = self.constant(i64::from(d.trailing_zeros()), Ty::I64);
                        Some(self.binary(BinOp::Shr, a, shift))
                    }
                    _ => {
                        let b = self.int(b)?;
                        let op = if matches!(factor, SymFactor::Mod(..)) {
                            BinOp::Rem
                        } else {
                            BinOp::Div
                        };
                        Some(self.binary(op, a, b))
                    }
                }
            }
        }
    }

    /// A run-time variable: a hardware index or an integer parameter, as 64 bits.
    fn variable(&mut self, name: &str) -> Option<ValueId> {
        if let Some(known) = self.variables.get(name) {
            return Some(*known);
        }
        let value = if let Some(special) = special(name) {
            let raw = self.pure(Op::Special(special), Ty::I32);
            self.convert(raw, Ty::I64)
        } else if let Some(index) = self.trace.int_param(name) {
            let ty = match &self.trace.params[index].kind {
                TraceParamKind::Int(Dtype::I64 | Dtype::U64, _) => Ty::I64,
                _ => Ty::I32,
            };
            let raw = self.pure(Op::Param(index), ty);
            self.convert(raw, Ty::I64)
        } else {
            self.unsupported(format!(
                "the run-time value `{name}` is neither a parameter nor a thread or block index (values loaded from memory or changed in run-time control flow cannot index tensors yet)"
            ));
            return None;
        };
        self.variables.insert(name.to_owned(), value);
        Some(value)
    }

    // ----- tensors -----

    pub(crate) fn static_size(&mut self, tensor: &Tensor) -> Option<i64> {
        match tensor
            .layout
            .layout
            .size()
            .ok()
            .and_then(|size| size.as_constant())
        {
            Some(size) => Some(size),
            None => {
                self.unsupported(
                    "a tensor of run-time size is moved element by element".to_owned(),
                );
                None
            }
        }
    }

    /// The layout value (before any swizzle) of the `element`-th coordinate.
    pub(crate) fn element_index(&mut self, tensor: &Tensor, element: i64) -> Option<SymInt> {
        let index = tensor
            .layout
            .layout
            .evaluate_index(&SymInt::constant(element))
            .and_then(|index| layout::Int::add(&index, &tensor.layout.offset));
        match index {
            Ok(index) => Some(index),
            Err(error) => {
                self.unsupported(format!("an element's offset does not evaluate: {error}"));
                None
            }
        }
    }

    pub(crate) fn element_ty(&mut self, tensor: &Tensor) -> Option<Ty> {
        let ty = tensor.dtype.and_then(dtype_ty);
        if ty.is_none() {
            self.unsupported(format!("elements of type {}", tensor.element_name()));
        }
        ty
    }

    /// Where the element with layout value `index` is.
    pub(crate) fn place(&mut self, tensor: &Tensor, index: &SymInt) -> Option<Place> {
        let bytes = tensor.dtype.map_or(0, |dtype| dtype.bits() / 8);
        if let Base::Registers(fragment) = tensor.base {
            return match index.as_constant() {
                Some(index) => Some(Place::Register { fragment, index }),
                None => {
                    self.unsupported(format!(
                        "a register fragment indexed at run time (`{index}`) would live in local memory"
                    ));
                    None
                }
            };
        }
        let element = match &tensor.layout.codomain {
            Codomain::Offsets => index.clone(),
            Codomain::Swizzled(composed) => {
                let unswizzled = self.unswizzled(tensor, index)?;
                let swizzle = composed.swizzle();
                if let Some(constant) = unswizzled.as_constant() {
                    SymInt::constant(swizzle.apply(constant))
                } else {
                    return self.swizzled_place(tensor, &unswizzled, swizzle, bytes);
                }
            }
            Codomain::Coordinates(_) => {
                self.unsupported("a coordinate tensor has no memory".to_owned());
                return None;
            }
        };
        let (dynamic, constant) = element.split_constant();
        let offset = constant.checked_mul(bytes)?;
        match tensor.base {
            Base::Param(param) => {
                let base = self.param_address(param);
                let address = if dynamic.as_constant() == Some(0) {
                    base
                } else {
                    self.address(&tensor.base, base, &times(&dynamic, bytes)?)?
                };
                Some(Place::Memory {
                    space: Space::Global,
                    address,
                    offset,
                })
            }
            Base::Shared(buffer) => {
                let start = self.shared_offsets.get(buffer).copied().unwrap_or(0);
                let base = self.shared_base();
                let address = if dynamic.as_constant() == Some(0) {
                    base
                } else {
                    let scaled = self.int(&times(&dynamic, bytes)?)?;
                    let narrow = self.convert(scaled, Ty::I32);
                    self.binary(BinOp::Add, base, narrow)
                };
                Some(Place::Memory {
                    space: Space::Shared,
                    address,
                    offset: offset + start,
                })
            }
            _ => {
                self.unsupported("a tensor whose memory the compiler cannot name".to_owned());
                None
            }
        }
    }

    /// The element offset before the swizzle: the layout value itself, or for a
    /// swizzled allocation its inner layout applied to the index. Vector accesses need
    /// these consecutive (a swizzle whose base covers the vector keeps them so).
    pub(crate) fn unswizzled(&mut self, tensor: &Tensor, index: &SymInt) -> Option<SymInt> {
        let Codomain::Swizzled(composed) = &tensor.layout.codomain else {
            return Some(index.clone());
        };
        let inner = composed.inner().to_symbolic();
        match inner
            .evaluate_index(index)
            .and_then(|value| layout::Int::add(&value, &SymInt::constant(composed.offset())))
        {
            Ok(offset) => Some(offset),
            Err(error) => {
                self.unsupported(format!(
                    "a swizzled element's offset does not evaluate: {error}"
                ));
                None
            }
        }
    }

    fn swizzled_place(
        &mut self,
        tensor: &Tensor,
        unswizzled: &SymInt,
        swizzle: layout::Swizzle,
        bytes: i64,
    ) -> Option<Place> {
        let Base::Shared(buffer) = tensor.base else {
            self.unsupported("a swizzled layout outside shared memory".to_owned());
            return None;
        };
        let x = self.int(unswizzled)?;
        let mask = self.constant(swizzle.yyy_mask(), Ty::I64);
        let selected = self.binary(BinOp::And, x, mask);
        let shift = swizzle.shift();
        let amount = self.constant(i64::from(shift.unsigned_abs()), Ty::I64);
        let moved = if shift >= 0 {
            self.binary(BinOp::Shr, selected, amount)
        } else {
            self.binary(BinOp::Shl, selected, amount)
        };
        let element = self.binary(BinOp::Xor, x, moved);
        let scaled = self.scale(element, bytes);
        let narrow = self.convert(scaled, Ty::I32);
        let base = self.shared_base();
        let address = self.binary(BinOp::Add, base, narrow);
        Some(Place::Memory {
            space: Space::Shared,
            address,
            offset: self.shared_offsets.get(buffer).copied().unwrap_or(0),
        })
    }

    /// `base + offset`, as a stride added to a recent address of the same base when
    /// their offsets differ by one term (consecutive rows of a tile), so each address
    /// costs one add and few stay live.
    fn address(&mut self, memory: &Base, base: ValueId, offset: &SymInt) -> Option<ValueId> {
        let recent = self.recent.get(memory).cloned().unwrap_or_default();
        if let Some((_, known)) = recent.iter().rev().find(|(known, _)| known == offset) {
            return Some(*known);
        }
        let nearby = recent.iter().rev().find_map(|(known, register)| {
            let delta = layout::Int::sub(offset, known).ok()?;
            (delta.terms().len() <= 1).then_some((delta, *register))
        });
        let address = match nearby {
            Some((delta, register)) => {
                let step = self.int(&delta)?;
                self.binary(BinOp::Add, register, step)
            }
            None => {
                let scaled = self.int(offset)?;
                self.binary(BinOp::Add, base, scaled)
            }
        };
        let list = self.recent.entry(memory.clone()).or_default();
        list.push((offset.clone(), address));
        if list.len() > 8 {
            list.remove(0);
        }
        Some(address)
    }

    fn param_address(&mut self, param: usize) -> ValueId {
        if let Some(known) = self.param_addresses.get(&param) {
            return *known;
        }
        let address = self.pure(Op::Param(param), Ty::I64);
        self.param_addresses.insert(param, address);
        address
    }

    fn shared_base(&mut self) -> ValueId {
        if let Some(base) = self.shared_base {
            return base;
        }
        let base = self.kernel.push(Op::SharedBase, Ty::I32, self.span);
        self.shared_base = Some(base);
        base
    }

    /// The value of an element (a load, or a register's current value).
    pub(crate) fn read_element(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        predicate: Option<ValueId>,
    ) -> Option<ValueId> {
        let ty = self.element_ty(tensor)?;
        match self.place(tensor, index)? {
            Place::Register { fragment, index } => Some(self.register(fragment, index, ty)),
            Place::Memory {
                space,
                address,
                offset,
            } => Some(self.kernel.push(
                Op::Load {
                    space,
                    address,
                    offset,
                    predicate,
                },
                ty,
                self.span,
            )),
        }
    }

    /// Stores `value` (converted to the element type) into an element, where
    /// `predicate` is true: a predicated register keeps its value where it is false.
    pub(crate) fn write_element(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        value: ValueId,
        predicate: Option<ValueId>,
    ) {
        let Some(ty) = self.element_ty(tensor) else {
            return;
        };
        let value = self.convert(value, ty);
        match self.place(tensor, index) {
            Some(Place::Register { fragment, index }) => {
                let value = match predicate {
                    None => value,
                    Some(_) if ty == Ty::Pred => {
                        self.unsupported("a predicated copy into a bool fragment".to_owned());
                        return;
                    }
                    Some(predicate) => {
                        let previous = self.register(fragment, index, ty);
                        self.pure(Op::Select(predicate, value, previous), ty)
                    }
                };
                self.fragments.insert((fragment, index), value);
            }
            Some(Place::Memory {
                space,
                address,
                offset,
            }) => {
                if ty == Ty::Pred {
                    self.unsupported("bool tensors in memory".to_owned());
                    return;
                }
                self.kernel.push_effect(
                    Op::Store {
                        space,
                        address,
                        offset,
                        values: vec![value],
                        predicate,
                    },
                    self.span,
                );
            }
            None => {}
        }
    }

    /// A fragment element's current value (zero before any store).
    pub(crate) fn register(&mut self, fragment: u32, index: i64, ty: Ty) -> ValueId {
        if let Some(value) = self.fragments.get(&(fragment, index)) {
            return *value;
        }
        let zero = match ty {
            Ty::F32 | Ty::F64 => self.pure(Op::ConstFloat(0.0), ty),
            _ => self.constant(0, ty),
        };
        self.fragments.insert((fragment, index), zero);
        zero
    }

    /// Records that a vector access of `width` elements at `index` of a global tensor
    /// needs the run-time extents in its address to keep it aligned.
    pub(crate) fn assume_aligned(&mut self, tensor: &Tensor, index: &SymInt, width: i64) {
        let Base::Param(tensor_param) = tensor.base else {
            return;
        };
        if width <= 1 {
            return;
        }
        self.assume_address_aligned(tensor, tensor_param, width);
        for (coefficient, factors) in index.terms() {
            let Some(param) = factors.iter().find_map(|factor| match factor {
                SymFactor::Variable(name) => self.trace.int_param(name),
                _ => None,
            }) else {
                continue;
            };
            let multiple = width / gcd(coefficient.unsigned_abs(), width.unsigned_abs());
            if multiple <= 1 {
                continue;
            }
            let reason = format!(
                "a vector access moves {width} {} at a time, and `{}` is part of its address",
                tensor.element_name(),
                self.trace.params[param].name
            );
            match self
                .assumptions
                .iter_mut()
                .find(|known| known.param == param)
            {
                Some(known) => {
                    known.multiple = lcm(known.multiple, multiple);
                }
                None => self.assumptions.push(Assumption {
                    param,
                    multiple,
                    reason,
                }),
            }
        }
    }
}

impl Builder<'_> {
    /// Records that the tensor parameter's address must be aligned to a vector of
    /// `width` elements.
    fn assume_address_aligned(&mut self, tensor: &Tensor, param: usize, width: i64) {
        let element_bytes = tensor.dtype.map_or(1, |dtype| dtype.bits() / 8).max(1);
        let Ok(bytes) = u32::try_from(width.saturating_mul(element_bytes)) else {
            return;
        };
        match self
            .alignments
            .iter_mut()
            .find(|known| known.param == param)
        {
            Some(known) => known.bytes = known.bytes.max(bytes),
            None => self.alignments.push(Alignment {
                param,
                bytes,
                reason: format!(
                    "a vector access moves {width} {} at a time",
                    tensor.element_name()
                ),
            }),
        }
    }
}

fn special(name: &str) -> Option<Special> {
    let (base, axis) = name.split_once('.')?;
    let axis = match axis {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        _ => return None,
    };
    Some(match base {
        "thread_idx" => Special::ThreadIndex(axis),
        "block_idx" => Special::BlockIndex(axis),
        "block_dim" => Special::BlockDim(axis),
        "grid_dim" => Special::GridDim(axis),
        _ => return None,
    })
}

/// The register type of a dtype's values.
pub(crate) fn dtype_ty(dtype: Dtype) -> Option<Ty> {
    Some(match dtype {
        Dtype::Bf16 => Ty::BF16,
        Dtype::F16 => Ty::F16,
        Dtype::F32 => Ty::F32,
        Dtype::F64 => Ty::F64,
        Dtype::I32 | Dtype::U32 => Ty::I32,
        Dtype::I64 | Dtype::U64 => Ty::I64,
        Dtype::Bool => Ty::Pred,
        _ => return None,
    })
}

/// `value * factor`, symbolically.
fn times(value: &SymInt, factor: i64) -> Option<SymInt> {
    layout::Int::mul(value, &SymInt::constant(factor)).ok()
}

fn gcd(a: u64, b: u64) -> i64 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).unwrap_or(1).max(1)
}

fn lcm(a: i64, b: i64) -> i64 {
    a / gcd(a.unsigned_abs(), b.unsigned_abs()) * b
}
