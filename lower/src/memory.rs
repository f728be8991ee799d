//! Tensor elements: where an element lives (a global or shared address, or a register
//! fragment's element), reading and writing it, and the alignment a vector access
//! needs the host to check.

use cute::{Base, Codomain, Tensor};
use kir::{Alignment, Assumption, BinOp, Narrow, Op, Space, Ty, ValueId};
use layout::{SymFactor, SymInt};
use trace::TraceParamKind;

use crate::builder::{Builder, dtype_ty};
use crate::fp8::is_fp8;

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

/// Most elements of a static layout tabulated for element lookups.
const MAX_TABLE: u64 = 1 << 16;

impl Builder<'_> {
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
        // A static layout (the usual partition) is a table of integers, built once.
        let key = std::ptr::from_ref(tensor) as usize;
        let table = self
            .tables
            .statics
            .entry(key)
            .or_insert_with(|| {
                let layout = tensor.layout.layout.to_static().ok()?;
                layout.table(MAX_TABLE).ok().map(std::rc::Rc::new)
            })
            .clone();
        let index = match table
            .as_ref()
            .and_then(|table| table.get(usize::try_from(element).ok()?))
        {
            Some(value) => layout::Int::add(&tensor.layout.offset, &SymInt::constant(*value)),
            None => tensor
                .layout
                .layout
                .evaluate_index(&SymInt::constant(element))
                .and_then(|index| layout::Int::add(&index, &tensor.layout.offset)),
        };
        match index {
            Ok(index) => Some(index),
            Err(error) => {
                self.unsupported(format!("an element's offset does not evaluate: {error}"));
                None
            }
        }
    }

    /// The register type of an element that atoms, atomics and tensor-core operands
    /// move as it is held: an element narrower than its register (i8, u16) is refused
    /// here, since those instructions would need it packed.
    pub(crate) fn element_ty(&mut self, tensor: &Tensor) -> Option<Ty> {
        let element = self.memory_element(tensor)?;
        match element.1 {
            None => Some(element.0),
            Some(_) => {
                self.unsupported(format!(
                    "elements of type {} in this operation (they are loaded, stored and copied)",
                    tensor.element_name()
                ));
                None
            }
        }
    }

    /// The register type of an element, and its width in memory where narrower (an i8
    /// element is loaded into an `i32` register by sign extension, a u16 one by zeros,
    /// and stored by truncation).
    pub(crate) fn memory_element(&mut self, tensor: &Tensor) -> Option<(Ty, Option<Narrow>)> {
        let element = (tensor.dtype).and_then(|dtype| {
            let ty = dtype_ty(dtype)?;
            let narrow = if ty.is_integer() && dtype.bits() < i64::from(ty.bits()) {
                let signed = dtype.integer_range().is_some_and(|(low, _)| low < 0);
                Some(Narrow::of(dtype.bits(), signed)?)
            } else {
                None
            };
            Some((ty, narrow))
        });
        if element.is_none() {
            self.unsupported(format!("elements of type {}", tensor.element_name()));
        }
        element
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
                return self.swizzled_place(tensor, index, composed, bytes);
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
            Base::Peer { entry, .. } => {
                let base = self.peer_address(entry)?;
                let address = if dynamic.as_constant() == Some(0) {
                    base
                } else {
                    let scaled = self.int(&times(&dynamic, bytes)?)?;
                    self.binary(BinOp::Add, base, scaled)
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
            Base::Cluster { .. } => {
                self.unsupported(
                    "a cluster view used other than element by element (`v[i]`, `v[i] = x`)"
                        .to_owned(),
                );
                None
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
        self.unswizzled_index(composed, index)
    }

    /// The inner layout of a swizzled allocation applied to `index`, plus its offset.
    pub(crate) fn unswizzled_index(
        &mut self,
        composed: &layout::ComposedLayout,
        index: &SymInt,
    ) -> Option<SymInt> {
        let key = (composed.clone(), index.clone());
        if let Some(known) = self.tables.unswizzled.get(&key) {
            return Some(known.clone());
        }
        let inner = composed.inner().to_symbolic();
        match inner
            .evaluate_index(index)
            .and_then(|value| layout::Int::add(&value, &SymInt::constant(composed.offset())))
        {
            Ok(offset) => {
                self.tables.unswizzled.insert(key, offset.clone());
                Some(offset)
            }
            Err(error) => {
                self.unsupported(format!(
                    "a swizzled element's offset does not evaluate: {error}"
                ));
                None
            }
        }
    }

    /// `base + offset`, as a stride added to a recent address of the same base when
    /// their offsets differ by one term (consecutive rows of a tile), so each address
    /// costs one add and few stay live.
    fn address(&mut self, memory: &Base, base: ValueId, offset: &SymInt) -> Option<ValueId> {
        let recent = self.reuse.recent.get(memory).cloned().unwrap_or_default();
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
        let list = self.reuse.recent.entry(memory.clone()).or_default();
        list.push((offset.clone(), address));
        if list.len() > 8 {
            list.remove(0);
        }
        Some(address)
    }

    /// The base address of peer view `entry` (`peer(t, r)`): read, where the access is,
    /// from its entry in the peer table, whose address the trace defined.
    fn peer_address(&mut self, entry: u32) -> Option<ValueId> {
        let Some(variable) = self.trace.peers.get(entry as usize).cloned() else {
            self.unsupported("a peer view the trace does not name".to_owned());
            return None;
        };
        let at = self.int(&SymInt::variable(&variable))?;
        let load = Op::Load {
            space: Space::Global,
            address: at,
            offset: 0,
            narrow: None,
            predicate: None,
        };
        Some(self.push(load, Ty::I64))
    }

    /// A tensor parameter's address (read once: the `values` pass keeps the first).
    fn param_address(&mut self, param: usize) -> ValueId {
        self.pure(Op::Param(param), Ty::I64)
    }

    /// The shared memory window's base address, in the kernel's body (read once: the
    /// `values` pass keeps the first).
    pub(crate) fn shared_base(&mut self) -> ValueId {
        self.define_at(0, Op::SharedBase, &[Ty::I32])[0]
    }

    /// The value of an element (a load, or a register's current value).
    pub(crate) fn read_element(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        predicate: Option<ValueId>,
    ) -> Option<ValueId> {
        if let Base::Cluster { .. } = tensor.base {
            return self.read_cluster_element(tensor, index, predicate);
        }
        if tensor.dtype.is_some_and(is_fp8) {
            return self.read_fp8_element(tensor, index, predicate);
        }
        let (ty, narrow) = self.memory_element(tensor)?;
        match self.place(tensor, index)? {
            Place::Register { fragment, index } => Some(self.register(fragment, index, ty)),
            Place::Memory {
                space,
                address,
                offset,
            } => {
                let value = self.push(
                    Op::Load {
                        space,
                        address,
                        offset,
                        narrow,
                        predicate,
                    },
                    ty,
                );
                Some(value)
            }
        }
    }

    /// Stores `value` (converted to the element type) into an element, where
    /// `predicate` is true: a predicated register keeps its value where it is false.
    /// A narrow integer element keeps the value wrapped to its width (a narrow store
    /// truncates it in memory).
    pub(crate) fn write_element(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        value: ValueId,
        predicate: Option<ValueId>,
    ) {
        if let Base::Cluster { .. } = tensor.base {
            self.write_cluster_element(tensor, index, value, predicate);
            return;
        }
        if tensor.dtype.is_some_and(is_fp8) {
            self.write_fp8_element(tensor, index, value, predicate);
            return;
        }
        let Some((ty, narrow)) = self.memory_element(tensor) else {
            return;
        };
        let value = self.convert(value, ty);
        match self.place(tensor, index) {
            Some(Place::Register { fragment, index }) => {
                let value = match (narrow, tensor.dtype) {
                    (Some(_), Some(dtype)) => self.wrap(value, dtype),
                    _ => value,
                };
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
                self.write_register(fragment, index, value);
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
                self.push_effect(Op::Store {
                    space,
                    address,
                    offset,
                    narrow,
                    values: vec![value],
                    predicate,
                });
            }
            None => {}
        }
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
        // Each term of the address is a constant times run-time factors; the integer
        // parameters among them must make it a multiple of the vector. Terms of one
        // parameter are settled first: `row * n` makes `n` a multiple, and a term
        // `i * blocks * n` is then aligned already, whatever `blocks` is.
        let mut terms: Vec<(i64, Vec<usize>)> = (index.terms().into_iter())
            .map(|(coefficient, factors)| {
                let params = (factors.iter())
                    .filter_map(|factor| match factor {
                        SymFactor::Variable(name) => self.trace.int_param(name),
                        _ => None,
                    })
                    .collect();
                (coefficient, params)
            })
            .filter(|(_, params): &(i64, Vec<usize>)| !params.is_empty())
            .collect();
        terms.sort_by_key(|(_, params)| params.len());
        let strides = self.stride_params(tensor_param);
        for (coefficient, params) in terms {
            let multiple = width / gcd(coefficient.unsigned_abs(), width.unsigned_abs());
            let known = |param: usize| {
                (self.kernel.signature.assumptions.iter())
                    .find(|known| known.param == param)
                    .map_or(1, |known| known.multiple)
            };
            let covered = (params.iter()).fold(1i64, |product, param| {
                product.saturating_mul(known(*param)) % multiple.max(1)
            });
            if multiple <= 1 || covered == 0 {
                continue;
            }
            // A parameter the tensor's strides hold (its row length) before any other.
            let param = (params.iter())
                .find(|param| strides.contains(param))
                .unwrap_or(&params[0]);
            let reason = format!(
                "a vector access moves {width} {} at a time, and `{}` is part of its address",
                tensor.element_name(),
                self.trace.params[*param].name
            );
            match (self.kernel.signature.assumptions.iter_mut()).find(|known| known.param == *param)
            {
                Some(known) => {
                    known.multiple = lcm(known.multiple, multiple);
                }
                None => self.kernel.signature.assumptions.push(Assumption {
                    param: *param,
                    multiple,
                    reason,
                }),
            }
        }
    }

    /// The integer parameters in the strides of tensor parameter `tensor_param`'s
    /// declared layout.
    fn stride_params(&self, tensor_param: usize) -> Vec<usize> {
        let TraceParamKind::Tensor(_, layout) = &self.trace.params[tensor_param].kind else {
            return Vec::new();
        };
        (layout.stride().leaves().iter())
            .flat_map(SymInt::variables)
            .filter_map(|name| self.trace.int_param(&name))
            .collect()
    }

    /// Records that the tensor parameter's address must be aligned to a vector of
    /// `width` elements.
    fn assume_address_aligned(&mut self, tensor: &Tensor, param: usize, width: i64) {
        let element_bytes = tensor.dtype.map_or(1, |dtype| dtype.bits() / 8).max(1);
        let Ok(bytes) = u32::try_from(width.saturating_mul(element_bytes)) else {
            return;
        };
        match (self.kernel.signature.alignments.iter_mut()).find(|known| known.param == param) {
            Some(known) => known.bytes = known.bytes.max(bytes),
            None => self.kernel.signature.alignments.push(Alignment {
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
