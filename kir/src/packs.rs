//! Words packed from halves that were unpacked from a word are that word, and halves
//! unpacked from a word packed of halves are those halves.
//!
//! Lowering moves 16-bit values (bf16, f16) in pairs, one 32-bit word each: a
//! fragment loaded as words is unpacked into elements, and elements stored or handed
//! to an MMA are packed into words. Where a pair is packed right back from the word it
//! was unpacked from (`pack` of `unpack`'s two halves, in order), the pack is the word;
//! where a word is unpacked into halves of the types it was packed from, the unpack
//! gives those halves. Uses are rewritten to the originals, and the `dead` pass
//! removes what is left unused. A value is visible wherever its users are, so the
//! rewrite holds across regions.

use rustc_hash::FxHashMap;

use crate::ir::{Inst, Kernel, Op, ValueId, replace_uses, resolve};

/// Rewrites every use of a pack of unpacked halves to the word, and of an unpack of a
/// packed word to the halves.
pub fn fold_packs(kernel: &mut Kernel) {
    let mut origins = Origins::default();
    origins.collect(&kernel.body);
    let replaced = origins.replacements(kernel);
    if !replaced.is_empty() {
        replace_uses(&mut kernel.body, &replaced);
    }
}

/// Where each pack's and unpack's operands and results came from.
#[derive(Default)]
struct Origins {
    /// Each unpack's results: the word and which half.
    halves: FxHashMap<ValueId, (ValueId, u8)>,
    /// Each pack's result: its two halves.
    packs: FxHashMap<ValueId, [ValueId; 2]>,
    /// Each unpack: its word and its two results.
    unpacks: Vec<(ValueId, [ValueId; 2])>,
}

impl Origins {
    fn collect(&mut self, body: &[Inst]) {
        for inst in body {
            match (&inst.op, inst.results.as_slice()) {
                (Op::Pack(low, high), [word]) => {
                    self.packs.insert(*word, [*low, *high]);
                }
                (Op::Unpack(word), [low, high]) => {
                    self.halves.insert(*low, (*word, 0));
                    self.halves.insert(*high, (*word, 1));
                    self.unpacks.push((*word, [*low, *high]));
                }
                _ => {}
            }
            for region in inst.op.regions() {
                self.collect(&region.body);
            }
        }
    }

    /// Each value to replace, with its replacement: folds found until none is left,
    /// since one fold can make another (a pack of a folded unpack's halves).
    fn replacements(&self, kernel: &Kernel) -> FxHashMap<ValueId, ValueId> {
        let mut replaced = FxHashMap::default();
        loop {
            let before = replaced.len();
            for (word, [low, high]) in &self.packs {
                let halves = [low, high].map(|half| resolve(&replaced, *half));
                if let (Some(&(from, 0)), Some(&(other, 1))) =
                    (self.halves.get(&halves[0]), self.halves.get(&halves[1]))
                    && from == other
                    && !replaced.contains_key(word)
                {
                    replaced.insert(*word, from);
                }
            }
            for (word, results) in &self.unpacks {
                let Some(halves) = self.packs.get(word) else {
                    continue;
                };
                let halves = halves.map(|half| resolve(&replaced, half));
                let same_types = (halves.iter().zip(results))
                    .all(|(half, result)| kernel.ty(*half) == kernel.ty(*result));
                if same_types && !replaced.contains_key(&results[0]) {
                    replaced.insert(results[0], halves[0]);
                    replaced.insert(results[1], halves[1]);
                }
            }
            if replaced.len() == before {
                return replaced;
            }
        }
    }
}
