//! Register fragments: each element's current value, and 16-bit elements kept in
//! pairs.
//!
//! A fragment of 16-bit values (bf16, f16) lives in 32-bit words, two elements to a
//! word, low half first, as the tensor-core instructions read and write them. Its
//! slots are words: reading an element unpacks its word, writing one packs it with
//! its neighbour. Packing the two halves of one unpacked word gives the word back
//! and unpacking a packed pair gives the pair back, so a fragment that `ldmatrix`
//! fills and `mma.sync` reads passes through as the words themselves, and a k-loop
//! carries it as one 32-bit register per pair instead of one per element.

use kir::{Op, Ty, ValueId};

use crate::builder::Builder;
use crate::regions::Slot;

impl Builder<'_> {
    /// A fragment element's current value (zero before any store).
    pub(crate) fn register(&mut self, fragment: u32, index: i64, ty: Ty) -> ValueId {
        if is_paired(ty) {
            let word = self.register_word(fragment, index.div_euclid(2), ty);
            let halves = self.unpack_word(word, ty);
            return halves[index.rem_euclid(2) as usize];
        }
        let slot = Slot::Register(fragment, index);
        let value = match self.read_slot(slot, ty) {
            Some(value) => value,
            None => {
                let zero = self.zero(ty);
                self.write_slot(slot, zero);
                zero
            }
        };
        self.convert(value, ty)
    }

    /// Sets a fragment element (`value` already of the element type).
    pub(crate) fn write_register(&mut self, fragment: u32, index: i64, value: ValueId) {
        let ty = self.kernel.ty(value);
        if !is_paired(ty) {
            self.write_slot(Slot::Register(fragment, index), value);
            return;
        }
        let word_index = index.div_euclid(2);
        let word = self.register_word(fragment, word_index, ty);
        let [low, high] = self.unpack_word(word, ty);
        let packed = if index.rem_euclid(2) == 0 {
            self.pack_pair(value, high)
        } else {
            self.pack_pair(low, value)
        };
        self.write_slot(Slot::Register(fragment, word_index), packed);
    }

    /// The word holding elements `2 * word_index` and the next of a 16-bit fragment
    /// (zeros before any store).
    fn register_word(&mut self, fragment: u32, word_index: i64, element: Ty) -> ValueId {
        let slot = Slot::Register(fragment, word_index);
        match self.read_slot(slot, Ty::B32) {
            Some(word) => word,
            None => {
                let zero = self.zero(element);
                let word = self.pack_pair(zero, zero);
                self.write_slot(slot, word);
                word
            }
        }
    }

    /// Element values packed into words (pairs of 16-bit values into b32).
    pub(crate) fn pack(&mut self, elements: &[ValueId], word: Ty) -> Vec<ValueId> {
        if word.bits() == self.kernel.ty(elements[0]).bits() {
            return elements.to_vec();
        }
        elements
            .chunks(2)
            .map(|pair| self.pack_pair(pair[0], *pair.get(1).unwrap_or(&pair[0])))
            .collect()
    }

    /// Words split into element values.
    pub(crate) fn unpack(&mut self, words: &[ValueId], element: Ty) -> Vec<ValueId> {
        let mut elements = Vec::new();
        for word in words {
            if self.kernel.ty(*word).bits() == element.bits() {
                elements.push(self.convert(*word, element));
            } else {
                elements.extend(self.unpack_word(*word, element));
            }
        }
        elements
    }

    /// `low` and `high` in one b32 word (the `packs` pass makes it the word they were
    /// unpacked from, if they were).
    fn pack_pair(&mut self, low: ValueId, high: ValueId) -> ValueId {
        self.pure(Op::Pack(low, high), Ty::B32)
    }

    /// A b32 word's halves as elements of type `element` (the `values` pass keeps one
    /// unpack of each word, and the `packs` pass makes them the pair it was packed from,
    /// if it was).
    fn unpack_word(&mut self, word: ValueId, element: Ty) -> [ValueId; 2] {
        let halves = self.pure_many(Op::Unpack(word), &[element, element]);
        [halves[0], halves[1]]
    }
}

/// Whether a fragment of `ty` keeps its elements in pairs.
fn is_paired(ty: Ty) -> bool {
    matches!(ty, Ty::BF16 | Ty::F16)
}
