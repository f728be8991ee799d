//! `copy` expanded per atom application.
//!
//! A partitioned tensor's first mode holds the values one atom application moves
//! (CuTe's `(AtomV, RestV)`), so application `g` moves the elements `g*V .. g*V+V` in
//! coordinate order. A universal copy of `V` values is one vector load and one vector
//! store when both sides are contiguous; a template atom (`cp.async`, `ldmatrix`,
//! `stmatrix`) is its PTX with a memory side's address and a register side's words
//! (`atoms.rs`); no atom moves element by element. A predicate tensor's
//! value at an application's first element guards the whole application.

use cute::{Atom, Base, Codomain, Tensor};
use kir::{Narrow, Op, Ty, ValueId};
use layout::SymInt;

use crate::builder::Builder;
use crate::fp8::is_fp8;
use crate::memory::Place;
use crate::swizzled::inner_offset;

impl Builder<'_> {
    pub(crate) fn copy(
        &mut self,
        atom: Option<&Atom>,
        source: &Tensor,
        destination: &Tensor,
        predicate: Option<&std::sync::Arc<Tensor>>,
    ) {
        let Some(size) = self.static_size(source) else {
            return;
        };
        let width = match atom.and_then(Atom::as_copy) {
            Some(copy) => match copy.values_per_thread() {
                Ok(width) if width >= 1 && size % width == 0 => width,
                _ => {
                    self.unsupported(format!(
                        "a copy of {size} values with an atom that moves a different number"
                    ));
                    return;
                }
            },
            None => 1,
        };
        let template = atom.filter(|atom| is_template_atom(atom));
        for group in 0..size / width {
            let first = group * width;
            let guard = match predicate {
                Some(mask) => {
                    let Some(index) = self.element_index(mask, first) else {
                        return;
                    };
                    let Some(value) = self.read_element(mask, &index, None) else {
                        return;
                    };
                    Some(value)
                }
                None => None,
            };
            let indices: Option<Vec<(SymInt, SymInt)>> = (first..first + width)
                .map(|element| {
                    Some((
                        self.element_index(source, element)?,
                        self.element_index(destination, element)?,
                    ))
                })
                .collect();
            let Some(indices) = indices else { return };
            match template {
                Some(atom) => {
                    let sides = [source, destination].map(|tensor| {
                        let in_registers = matches!(tensor.base, Base::Registers(_));
                        (tensor, in_registers)
                    });
                    let contiguous = [0, 1].map(|side| {
                        let side_indices: Vec<&SymInt> = (indices.iter())
                            .map(|pair| if side == 0 { &pair.0 } else { &pair.1 })
                            .collect();
                        sides[side].1 || self.consecutive(sides[side].0, &side_indices)
                    });
                    self.template_copy(atom, [source, destination], &indices, contiguous, guard);
                }
                None => {
                    let contiguous = self.contiguous([source, destination], &indices);
                    self.move_values(source, destination, &indices, contiguous, guard);
                }
            }
        }
    }

    /// Moves values through registers: vector words when both sides are contiguous
    /// in memory, element by element otherwise.
    fn move_values(
        &mut self,
        source: &Tensor,
        destination: &Tensor,
        indices: &[(SymInt, SymInt)],
        contiguous: bool,
        guard: Option<ValueId>,
    ) {
        if [source, destination]
            .iter()
            .any(|tensor| tensor.dtype.is_some_and(is_fp8))
        {
            self.move_fp8(source, destination, indices, contiguous, guard);
            return;
        }
        let Some((element, narrow)) = self.memory_element(source) else {
            return;
        };
        let width = indices.len() as i64;
        let in_registers = |tensor: &Tensor| matches!(tensor.base, Base::Registers(_));
        if let Some(narrow) = narrow
            && (in_registers(source) || in_registers(destination))
        {
            self.move_narrow(source, destination, indices, contiguous, guard, narrow);
            return;
        }
        // Memory to memory, narrow elements move as raw words.
        let bits = narrow.map_or(element.bits(), Narrow::bits);
        let vector = width > 1 && contiguous && words(element, bits, width).is_some();
        if !vector {
            for (source_index, destination_index) in indices {
                if let Some(value) = self.read_element(source, source_index, guard) {
                    self.write_element(destination, destination_index, value, guard);
                }
            }
            return;
        }
        let Some((word, count)) = words(element, bits, width) else {
            return;
        };
        let (source_index, destination_index) = &indices[0];
        // Read the words.
        let values: Vec<ValueId> = if in_registers(source) {
            let elements: Option<Vec<ValueId>> = indices
                .iter()
                .map(|(index, _)| self.read_element(source, index, None))
                .collect();
            let Some(elements) = elements else { return };
            self.pack(&elements, word)
        } else {
            let loaded = self.load_at(source, source_index, width, &vec![word; count], None, guard);
            let Some(loaded) = loaded else { return };
            loaded
        };
        // Write them.
        if in_registers(destination) {
            // A guard covers the whole application: a word keeps the fragment's previous
            // word when it is false, so the words are selected before they are split
            // (one select a word, not one an element; the halves stay packed until used).
            let (values, guard) = match guard {
                Some(guard) if self.memory_element(destination) == Some((element, None)) => {
                    let previous: Option<Vec<ValueId>> = (indices.iter())
                        .map(|(_, index)| self.read_element(destination, index, None))
                        .collect();
                    let Some(previous) = previous else { return };
                    let previous = self.pack(&previous, word);
                    let kept = (values.into_iter().zip(previous))
                        .map(|(loaded, previous)| {
                            self.pure(Op::Select(guard, loaded, previous), word)
                        })
                        .collect();
                    (kept, None)
                }
                _ => (values, guard),
            };
            let elements = self.unpack(&values, element);
            for ((_, index), value) in indices.iter().zip(elements) {
                self.write_element(destination, index, value, guard);
            }
            return;
        }
        self.store_at(destination, destination_index, width, values, None, guard);
    }

    /// Loads `elements` consecutive elements of `source` from `index` as values of
    /// `tys` (a vector when more than one); `narrow` extends each from 8 or 16 bits.
    /// `None` when `source` is not in memory.
    pub(crate) fn load_at(
        &mut self,
        source: &Tensor,
        index: &SymInt,
        elements: i64,
        tys: &[Ty],
        narrow: Option<Narrow>,
        guard: Option<ValueId>,
    ) -> Option<Vec<ValueId>> {
        self.assume_aligned(source, index, elements);
        let Some(Place::Memory {
            space,
            address,
            offset,
        }) = self.place(source, index)
        else {
            return None;
        };
        let load = Op::Load {
            space,
            address,
            offset,
            narrow,
            predicate: guard,
        };
        Some(self.push_many(load, tys))
    }

    /// Stores `values` (a vector when more than one), which hold `elements`
    /// consecutive elements of `destination` from `index`; `narrow` truncates each
    /// value to 8 or 16 bits.
    pub(crate) fn store_at(
        &mut self,
        destination: &Tensor,
        index: &SymInt,
        elements: i64,
        values: Vec<ValueId>,
        narrow: Option<Narrow>,
        guard: Option<ValueId>,
    ) {
        self.assume_aligned(destination, index, elements);
        if let Some(Place::Memory {
            space,
            address,
            offset,
        }) = self.place(destination, index)
        {
            self.push_effect(Op::Store {
                space,
                address,
                offset,
                narrow,
                values,
                predicate: guard,
            });
        }
    }

    /// Moves narrow integer elements (i8, u16) between memory and registers, where each
    /// element has a 32-bit register of its own: narrow vector loads and stores of up
    /// to 4 elements when the memory side is contiguous (`ld.global.v4.s8` extends each
    /// into its register, `st.global.v4.s8` truncates each), element by element
    /// otherwise.
    fn move_narrow(
        &mut self,
        source: &Tensor,
        destination: &Tensor,
        indices: &[(SymInt, SymInt)],
        contiguous: bool,
        guard: Option<ValueId>,
        narrow: Narrow,
    ) {
        let in_registers = |tensor: &Tensor| matches!(tensor.base, Base::Registers(_));
        let chunk = indices.len().min(NARROW_VECTOR);
        let vector = contiguous
            && chunk > 1
            && indices.len().is_multiple_of(chunk)
            && chunk.is_power_of_two()
            && in_registers(source) != in_registers(destination);
        if !vector {
            for (source_index, destination_index) in indices {
                if let Some(value) = self.read_element(source, source_index, guard) {
                    self.write_element(destination, destination_index, value, guard);
                }
            }
            return;
        }
        for group in indices.chunks(chunk) {
            let (source_index, destination_index) = &group[0];
            if in_registers(destination) {
                let Some((ty, _)) = self.memory_element(source) else {
                    return;
                };
                let tys = vec![ty; chunk];
                let loaded = self.load_at(
                    source,
                    source_index,
                    chunk as i64,
                    &tys,
                    Some(narrow),
                    guard,
                );
                let Some(values) = loaded else { return };
                for ((_, index), value) in group.iter().zip(values) {
                    self.write_element(destination, index, value, guard);
                }
            } else {
                let values: Option<Vec<ValueId>> = group
                    .iter()
                    .map(|(index, _)| self.read_element(source, index, None))
                    .collect();
                let Some(values) = values else { return };
                let elements = values.len() as i64;
                self.store_at(
                    destination,
                    destination_index,
                    elements,
                    values,
                    Some(narrow),
                    guard,
                );
            }
        }
    }
}

/// Most narrow elements one load or store moves (`.v4`).
const NARROW_VECTOR: usize = 4;

/// Whether an atom is issued from its PTX template rather than as loads and stores.
fn is_template_atom(atom: &Atom) -> bool {
    !atom.ptx.trim_start().starts_with("mov.")
}

impl Builder<'_> {
    /// Whether both sides' values are consecutive elements (offsets before any swizzle).
    fn contiguous(&self, tensors: [&Tensor; 2], indices: &[(SymInt, SymInt)]) -> bool {
        let sources: Vec<&SymInt> = indices.iter().map(|(source, _)| source).collect();
        let destinations: Vec<&SymInt> =
            indices.iter().map(|(_, destination)| destination).collect();
        self.consecutive(tensors[0], &sources) && self.consecutive(tensors[1], &destinations)
    }

    /// Whether the elements of `tensor` at layout values `indices` are consecutive before
    /// any swizzle, compared at several values of their variables (`div` and `mod` of a
    /// thread index do not cancel symbolically), each evaluated as a number: a swizzled
    /// allocation's inner layout then applies to the number, not to the symbolic index.
    /// An index that differs from the first by a constant alone is the first's value
    /// plus that constant, which evaluating it would give too (its constant term is
    /// added last).
    fn consecutive(&self, tensor: &Tensor, indices: &[&SymInt]) -> bool {
        let inner = match &tensor.layout.codomain {
            Codomain::Swizzled(composed) => Some((composed.inner(), self.inner_table(composed))),
            _ => None,
        };
        let offset = |value: i64| match &inner {
            Some((inner, table)) => inner_offset(inner, table.as_deref(), value),
            None => Some(value),
        };
        let from_first: Vec<Option<i64>> = (indices.iter())
            .map(|index| index.constant_difference(indices[0]))
            .collect();
        SAMPLES.iter().all(|&sample| {
            // A thread index takes a value inside the block: past it, a partition's
            // row leaves its tile and is no evidence either way.
            let value_of = |name: &str| {
                let value = sample.wrapping_add(name.len() as i64 * 7);
                Some(match self.thread_extent(name) {
                    Some(extent) => value.rem_euclid(extent),
                    None => value,
                })
            };
            let Some(first) = indices[0].evaluate(&value_of) else {
                return false;
            };
            let Some(start) = offset(first) else {
                return false;
            };
            // The first index is `start` itself.
            (indices.iter().zip(&from_first).enumerate().skip(1)).all(
                |(step, (index, difference))| {
                    let value = match difference {
                        Some(difference) => first.checked_add(*difference),
                        None => index.evaluate(&value_of),
                    };
                    value.and_then(offset) == Some(start + step as i64)
                },
            )
        })
    }
}

impl Builder<'_> {
    /// The block's extent along the axis `name` (`thread_idx.x`) indexes, when it is
    /// a constant.
    fn thread_extent(&self, name: &str) -> Option<i64> {
        let axis = ["thread_idx.x", "thread_idx.y", "thread_idx.z"]
            .iter()
            .position(|axis| *axis == name)?;
        (self.trace.block.get(axis)?.as_constant()).filter(|extent| *extent > 0)
    }
}

/// Values run-time variables take when contiguity is checked.
const SAMPLES: [i64; 5] = [0, 1, 5, 37, 130];

/// How `width` elements of `element`, each `element_bits` wide in memory, move between
/// memory and memory or packed registers: the word type and the number of words (at
/// most 4 words, at most 128 bits).
fn words(element: Ty, element_bits: u32, width: i64) -> Option<(Ty, usize)> {
    let bits = i64::from(element_bits) * width;
    if bits > 128 {
        return None;
    }
    let (word, count) = if element_bits >= 32 {
        (element, width)
    } else if bits >= 32 && bits % 32 == 0 {
        (Ty::B32, bits / 32)
    } else if bits == 16 {
        (Ty::B16, 1)
    } else {
        return None;
    };
    let count = usize::try_from(count).ok()?;
    matches!(count, 1 | 2 | 4).then_some((word, count))
}
