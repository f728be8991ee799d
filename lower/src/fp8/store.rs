//! Computed values converted to FP8 and FP8 registers stored to memory.
//!
//! `x.to(e4m3)` of a computed value rounds it as an f32 (an f16 or bf16 widened
//! exactly first) with KIR's `f32x2_to_e4m3x2` (`cvt.rn.satfinite` from sm_89): the
//! nearest FP8 value, ties to even, magnitudes past the largest finite one to it, NaN
//! to NaN. One conversion alone is its byte in all four places of a word, as a constant
//! is; a fragment stored whole (`r.store(v.to(e4m3))`) has each pair of register
//! elements converted by one instruction and each four's word written to all four,
//! as a load leaves them. A copy of 4, 8 or 16 FP8 registers to consecutive bytes of
//! memory stores a word per four: the word itself where all four hold it; where each
//! holds one conversion alone (registers written one by one), the four values
//! converted again two at a time (the lone conversions are then dead); else each
//! register's byte moved to its place.

use cute::{Base, Dtype, Tensor};
use kir::{BinOp, Op, Ty, ValueId};
use layout::SymInt;
use trace::Term;

use super::is_fp8;
use crate::builder::Builder;
use crate::memory::Place;

/// The FP8 type of the value `term` gives as a word, if it is one: a conversion, a
/// constant or a variable of an FP8 type (an FP8 register's element reads as its f32).
fn fp8_dtype(term: &Term) -> Option<Dtype> {
    match term {
        Term::Float(_, dtype) | Term::Variable(_, dtype) | Term::Convert(dtype, _) => {
            Some(*dtype).filter(|dtype| is_fp8(*dtype))
        }
        _ => None,
    }
}

impl Builder<'_> {
    /// `value`, the value of `term`, as an f32 where `term` is an FP8 word (its byte
    /// decoded, exactly), else unchanged.
    pub(crate) fn fp8_decoded(&mut self, term: &Term, value: ValueId) -> ValueId {
        match fp8_dtype(term) {
            Some(dtype) if self.kernel.ty(value) == Ty::I32 => self.decode_fp8(value, 0, dtype),
            _ => value,
        }
    }

    /// `operand.to(dtype)` (an FP8 type) at fragment element `element`: the word of
    /// its byte in all four places.
    pub(crate) fn convert_to_fp8(
        &mut self,
        operand: &Term,
        element: i64,
        dtype: Dtype,
    ) -> Option<ValueId> {
        let value = self.term(operand, element)?;
        let value = self.fp8_decoded(operand, value);
        Some(self.fp8_word_of(value, dtype))
    }

    /// The word of the FP8 byte of `dtype` nearest `value` (a float or an integer) in
    /// all four places.
    pub(crate) fn fp8_word_of(&mut self, value: ValueId, dtype: Dtype) -> ValueId {
        let pair = self.encode_fp8_pair(value, value, dtype);
        let word = self.pure(Op::Pack(pair, pair), Ty::B32);
        let word = self.convert(word, Ty::I32);
        self.evaluated.fp8_sources.insert(word, (value, dtype));
        word
    }

    /// The FP8 pair of `dtype` nearest `low` and `high` (a b16, `low`'s byte first).
    fn encode_fp8_pair(&mut self, low: ValueId, high: ValueId, dtype: Dtype) -> ValueId {
        let op = match dtype {
            Dtype::E5m2 => BinOp::F32x2ToE5m2x2,
            _ => BinOp::F32x2ToE4m3x2,
        };
        let (low, high) = (self.convert(low, Ty::F32), self.convert(high, Ty::F32));
        self.pure(Op::Binary(op, low, high), Ty::B16)
    }

    /// `tensor.store(value)` where `tensor` is an FP8 register fragment and `value` a
    /// computed fragment converted to its type: each four registers of a word that all
    /// take an element get the word of two pair conversions; the others are written one
    /// by one. `false` (nothing done) for any other store.
    pub(crate) fn store_fp8_fragment(&mut self, tensor: &Tensor, value: &Term) -> bool {
        let (Base::Registers(fragment), Some(dtype), Term::Convert(to, operand)) =
            (&tensor.base, tensor.dtype, value)
        else {
            return false;
        };
        if !is_fp8(dtype) || *to != dtype || fp8_dtype(operand).is_some() {
            return false;
        }
        let Some(size) = self.static_size(tensor) else {
            return true;
        };
        // Each register's source value, by register index.
        let mut sources = std::collections::BTreeMap::new();
        for element in 0..size {
            let Some(index) = self.element_index(tensor, element) else {
                return true;
            };
            let Some(Place::Register { index, .. }) = self.place(tensor, &index) else {
                return true;
            };
            let Some(source) = self.term(operand, element) else {
                return true;
            };
            sources.insert(index, source);
        }
        let mut words = std::collections::BTreeMap::new();
        for (&index, &source) in &sources {
            let first = index - index.rem_euclid(4);
            let group: Vec<ValueId> = (first..first + 4)
                .filter_map(|register| sources.get(&register).copied())
                .collect();
            let word = match (group.as_slice(), words.get(&first)) {
                (_, Some(word)) => *word,
                ([a, b, c, d], None) => {
                    let low = self.encode_fp8_pair(*a, *b, dtype);
                    let high = self.encode_fp8_pair(*c, *d, dtype);
                    let word = self.pure(Op::Pack(low, high), Ty::B32);
                    let word = self.convert(word, Ty::I32);
                    words.insert(first, word);
                    word
                }
                _ => self.fp8_word_of(source, dtype),
            };
            self.write_register(*fragment, index, word);
        }
        true
    }

    /// Copies FP8 registers to `indices.len()` (4, 8 or 16) consecutive bytes of memory
    /// in one store, a word per four registers.
    pub(super) fn store_fp8_registers(
        &mut self,
        source: &Tensor,
        destination: &Tensor,
        indices: &[(SymInt, SymInt)],
        guard: Option<ValueId>,
    ) {
        let mut words = Vec::with_capacity(indices.len() / 4);
        for group in indices.chunks(4) {
            let mut parts = Vec::with_capacity(4);
            for (index, _) in group {
                let Some(Place::Register { fragment, index }) = self.place(source, index) else {
                    return;
                };
                let word = self.register(fragment, index, Ty::I32);
                parts.push((word, index.rem_euclid(4)));
            }
            let word = self
                .paired_word(&parts, source.dtype)
                .unwrap_or_else(|| self.gather_word(&parts));
            words.push(self.convert(word, Ty::B32));
        }
        let width = indices.len() as i64;
        self.store_at(destination, &indices[0].1, width, words, None, guard);
    }

    /// Where each of the four words was converted alone from a value (registers written
    /// one by one), the word of the four values converted two at a time.
    fn paired_word(&mut self, parts: &[(ValueId, i64)], dtype: Option<Dtype>) -> Option<ValueId> {
        let dtype = dtype?;
        let mut values = Vec::with_capacity(4);
        for (word, _) in parts {
            let &(value, from) = self.evaluated.fp8_sources.get(word)?;
            if from != dtype {
                return None;
            }
            values.push(value);
        }
        let [a, b, c, d] = values[..] else {
            return None;
        };
        let low = self.encode_fp8_pair(a, b, dtype);
        let high = self.encode_fp8_pair(c, d, dtype);
        let word = self.pure(Op::Pack(low, high), Ty::B32);
        Some(self.convert(word, Ty::I32))
    }

    /// The word whose byte `j` is byte `parts[j].1` of the word `parts[j].0`: that word
    /// when the four are one word with each byte in place, else each byte shifted to
    /// its place, masked and or-ed in.
    fn gather_word(&mut self, parts: &[(ValueId, i64)]) -> ValueId {
        let (first, _) = parts[0];
        if (parts.iter().enumerate()).all(|(j, (word, byte))| *word == first && *byte == j as i64) {
            return first;
        }
        let mut gathered: Option<ValueId> = None;
        for (j, &(word, byte)) in parts.iter().enumerate() {
            let shift = 8 * (j as i64 - byte);
            let moved = match shift {
                0 => word,
                up if up > 0 => {
                    let amount = self.constant(up, Ty::I32);
                    self.binary(BinOp::Shl, word, amount)
                }
                down => {
                    let amount = self.constant(-down, Ty::I32);
                    self.binary(BinOp::Shr, word, amount)
                }
            };
            let mask = self.constant(i64::from((0xffu32 << (8 * j)) as i32), Ty::I32);
            let byte = self.binary(BinOp::And, moved, mask);
            gathered = Some(match gathered {
                None => byte,
                Some(bytes) => self.binary(BinOp::Or, bytes, byte),
            });
        }
        gathered.unwrap_or(first)
    }

    /// Stores the FP8 element `value` (a word holding it in its low byte, or a number,
    /// rounded) at memory `place`, where `predicate` is true.
    pub(super) fn store_fp8_byte(
        &mut self,
        place: Place,
        value: ValueId,
        dtype: Dtype,
        predicate: Option<ValueId>,
    ) {
        let Place::Memory {
            space,
            address,
            offset,
        } = place
        else {
            return;
        };
        let word = match self.kernel.ty(value) {
            Ty::I32 => value,
            _ => self.fp8_word_of(value, dtype),
        };
        self.push_effect(Op::Store {
            space,
            address,
            offset,
            narrow: Some(kir::Narrow::U8),
            values: vec![word],
            predicate,
        });
    }
}
