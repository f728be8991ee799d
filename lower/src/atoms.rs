//! Atom instructions from their PTX templates: a copy atom's memory side is an
//! address (`{src}`, `{dst}`), its register side a list of 32-bit words (`{{src}}`,
//! `{{dst}}`: 16-bit values packed in pairs, low half first), and `{src_bytes}` the
//! bytes to read, which a predicate sets to zero (zero fill); an MMA atom reads the
//! register lists `{{a}}`, `{{b}}`, `{{c}}` and defines `{{d}}`.
//!
//! `gemm` over register fragments expands as CuTe's does: k outer, then m, then n in
//! serpentine order (n reversed on odd m, so consecutive instructions share A or B),
//! one MMA per step, accumulators read and written through the fragments, so a
//! k-loop carries them in registers. An atom that reads A and B from shared memory
//! (wgmma) gets a 64-bit descriptor per tile instead (`gmma.rs`) and its accumulator
//! list `{{d}}` both in and out.

use cute::{Atom, Base, Tensor};
use kir::{Op, Ty, ValueId};
use layout::SymInt;

use crate::builder::Builder;
use crate::memory::Place;

impl Builder<'_> {
    /// One application of a template copy atom moving `indices` from `tensors[0]` to
    /// `tensors[1]`; `contiguous` says per side whether its values are consecutive.
    pub(crate) fn template_copy(
        &mut self,
        atom: &Atom,
        tensors: [&Tensor; 2],
        indices: &[(SymInt, SymInt)],
        contiguous: [bool; 2],
        guard: Option<ValueId>,
    ) {
        let width = indices.len() as i64;
        let mut operands = Vec::new();
        let mut registers = Vec::new();
        let mut output = None;
        for (side, name) in ["src", "dst"].into_iter().enumerate() {
            let tensor = tensors[side];
            let first = if side == 0 {
                &indices[0].0
            } else {
                &indices[0].1
            };
            if matches!(tensor.base, Base::Registers(_)) {
                let Some(element) = self.element_ty(tensor) else {
                    return;
                };
                let Some(word) = self.word_of(atom, element, width) else {
                    return;
                };
                if side == 0 {
                    let words =
                        self.fragment_words(tensor, indices.iter().map(|pair| &pair.0), word);
                    let Some(words) = words else { return };
                    registers.push((name.to_owned(), words));
                } else {
                    let count = (i64::from(element.bits()) * width / 32) as usize;
                    output = Some((name.to_owned(), vec![word; count], element));
                }
                continue;
            }
            if !contiguous[side] {
                self.unsupported(format!(
                    "`{}` needs its values contiguous in memory",
                    atom.display_name()
                ));
                return;
            }
            self.assume_aligned(tensor, first, width);
            match self.place(tensor, first) {
                Some(Place::Memory {
                    address, offset, ..
                }) => operands.push((name.to_owned(), address, offset)),
                _ => return,
            }
        }
        // A template with `{src_bytes}` takes the predicate as its source size (zero
        // fill) instead of being skipped.
        let mut predicate = guard;
        if atom.ptx.contains("{src_bytes}") {
            let bytes = tensors[0].dtype.map_or(0, |dtype| dtype.bits() / 8) * width;
            let full = self.constant(bytes, Ty::I32);
            let size = match guard {
                Some(guard) => {
                    let none = self.constant(0, Ty::I32);
                    self.pure(Op::Select(guard, full, none), Ty::I32)
                }
                None => full,
            };
            operands.push(("src_bytes".to_owned(), size, 0));
            predicate = None;
        }
        let Some(scope) = self.atom_scope(atom) else {
            return;
        };
        let op = Op::Atom {
            template: atom.ptx.clone(),
            operands,
            registers,
            output: output.as_ref().map(|(name, ..)| name.clone()),
            warp: crate::tv::warp_copy(atom),
            predicate,
            scope,
        };
        let Some((_, tys, element)) = output else {
            self.push_effect(op);
            return;
        };
        let words = self.push_many(op, &tys);
        let values = self.unpack(&words, element);
        for ((_, index), value) in indices.iter().zip(values) {
            self.write_element(tensors[1], index, value, guard);
        }
    }

    /// `d = a * b + c` over register fragments, one MMA instruction per step.
    /// `accumulate`, for an atom with a `{scale_d}` operand, says whether the first k
    /// step adds C (later steps always do).
    pub(crate) fn gemm(
        &mut self,
        atom: &Atom,
        [d, a, b, c]: [&Tensor; 4],
        accumulate: Option<&trace::Term>,
    ) {
        let Some(facts) = atom.as_mma() else {
            self.unsupported(format!("`{}` is not an MMA atom", atom.display_name()));
            return;
        };
        let values =
            |layout: &layout::Layout<i64>| layout.mode(1).and_then(|mode| mode.size()).unwrap_or(0);
        let [va, vb, vc] = [&facts.layout_a, &facts.layout_b, &facts.layout_c].map(values);
        let extents = |tensor: &Tensor| -> Vec<i64> {
            (0..tensor.layout.layout.rank())
                .map(|mode| {
                    (tensor.layout.layout.mode(mode).ok())
                        .and_then(|mode| mode.size().ok())
                        .and_then(|size| size.as_constant())
                        .unwrap_or(0)
                })
                .collect()
        };
        let (shape_a, shape_b, shape_c) = (extents(a), extents(b), extents(c));
        let at = |shape: &[i64], index: usize| shape.get(index).copied().unwrap_or(1);
        let (m_steps, n_steps, k_steps) = (at(&shape_a, 1), at(&shape_b, 1), at(&shape_a, 2));
        if at(&shape_a, 0) != va || at(&shape_b, 0) != vb || at(&shape_c, 0) != vc {
            self.unsupported(format!(
                "`gemm` with `{}` on fragments whose first modes are not its {va}, {vb} and {vc} values per thread",
                atom.display_name()
            ));
            return;
        }
        // A shared operand (wgmma's) is a descriptor: its elements need no register type
        // (8-bit floats have none).
        let shared = [a, b].map(|tensor| !matches!(tensor.base, Base::Registers(_)));
        let Some(tc) = self.element_ty(c) else {
            return;
        };
        let words = |builder: &mut Self, tensor: &Tensor, count: i64, shared: bool| match shared {
            true => Some(Ty::B32),
            false => {
                let ty = builder.element_ty(tensor)?;
                builder.word_of(atom, ty, count)
            }
        };
        let (Some(wa), Some(wb), Some(wc)) = (
            words(self, a, va, shared[0]),
            words(self, b, vb, shared[1]),
            self.word_of(atom, tc, vc),
        ) else {
            return;
        };
        let Some(scope) = self.atom_scope(atom) else {
            return;
        };
        let scale = match accumulate {
            Some(flag) => match self.term(flag, 0) {
                Some(value) => Some(value),
                None => return,
            },
            None => None,
        };
        for k in 0..k_steps {
            for m in 0..m_steps {
                for step in 0..n_steps {
                    let n = if m % 2 == 1 { n_steps - 1 - step } else { step };
                    let positions = [m + m_steps * k, n + n_steps * k];
                    // A shared operand's descriptor needs only its first element here.
                    let a_at = match shared[0] {
                        true => self.indices(a, 1, va * positions[0]),
                        false => self.indices(a, va, positions[0]),
                    };
                    let b_at = match shared[1] {
                        true => self.indices(b, 1, vb * positions[1]),
                        false => self.indices(b, vb, positions[1]),
                    };
                    let c_at = self.indices(c, vc, m + m_steps * n);
                    let d_at = self.indices(d, vc, m + m_steps * n);
                    let (Some(a_at), Some(b_at), Some(c_at), Some(d_at)) = (a_at, b_at, c_at, d_at)
                    else {
                        return;
                    };
                    let mut template = atom.ptx.clone();
                    let mut operands = Vec::new();
                    match scale.filter(|_| k == 0) {
                        Some(flag) => operands.push(("scale_d".to_owned(), flag, 0)),
                        None => template = template.replace("{scale_d}", "1"),
                    }
                    let mut registers = Vec::new();
                    for (tensor, at, word, name) in [
                        (a, &a_at, wa, "a"),
                        (b, &b_at, wb, "b"),
                        (c, &c_at, wc, "c"),
                    ] {
                        if name != "c" && shared[usize::from(name == "b")] {
                            let side = usize::from(name == "b");
                            let rows = facts.shape_mnk[side] as usize;
                            let k = facts.shape_mnk[2];
                            let first = &at[0];
                            let Some((descriptor, flag)) =
                                self.gmma_descriptor(atom, tensor, first, (rows, k))
                            else {
                                return;
                            };
                            operands.push((format!("desc_{name}"), descriptor, 0));
                            template = template.replace(&format!("{{trans_{name}}}"), &flag);
                            continue;
                        }
                        let Some(list) = self.fragment_words(tensor, at.iter(), word) else {
                            return;
                        };
                        // With shared operands (wgmma) the accumulator is read and
                        // written in place: the input list is the output's.
                        let list_name = if name == "c" && shared.contains(&true) {
                            "d"
                        } else {
                            name
                        };
                        registers.push((list_name.to_owned(), list));
                    }
                    let count = (i64::from(tc.bits()) * vc / 32) as usize;
                    let results = self.push_many(
                        Op::Atom {
                            template,
                            operands,
                            registers,
                            output: Some("d".to_owned()),
                            // wgmma is a warpgroup's, not a warp's: no warp layouts.
                            warp: if shared.contains(&true) {
                                None
                            } else {
                                crate::tv::warp_mma(atom)
                            },
                            predicate: None,
                            scope,
                        },
                        &vec![wc; count],
                    );
                    let values = self.unpack(&results, tc);
                    for (index, value) in d_at.iter().zip(values) {
                        self.write_element(d, index, value, None);
                    }
                }
            }
        }
    }

    /// The layout values of the `count` elements of `(V, rest...)` at position `rest`
    /// of the modes after the first (colexicographic, as CuTe counts).
    fn indices(&mut self, tensor: &Tensor, count: i64, rest: i64) -> Option<Vec<SymInt>> {
        (0..count)
            .map(|value| self.element_index(tensor, value + count * rest))
            .collect()
    }

    /// The fragment elements at `indices` as 32-bit words of type `word`.
    fn fragment_words<'i>(
        &mut self,
        tensor: &Tensor,
        indices: impl Iterator<Item = &'i SymInt>,
        word: Ty,
    ) -> Option<Vec<ValueId>> {
        let elements: Option<Vec<ValueId>> = indices
            .map(|index| self.read_element(tensor, index, None))
            .collect();
        Some(self.pack(&elements?, word))
    }

    /// The 32-bit word `count` values of `element` travel in through an atom's
    /// register list: the element itself when it is 32 bits, b32 pairs of 16-bit ones.
    fn word_of(&mut self, atom: &Atom, element: Ty, count: i64) -> Option<Ty> {
        match element.bits() {
            32 => Some(element),
            16 if count % 2 == 0 => Some(Ty::B32),
            bits => {
                self.unsupported(format!(
                    "`{}` on {count} values of {bits} bits: its registers are 32-bit words",
                    atom.display_name()
                ));
                None
            }
        }
    }

    /// The threads that execute `atom` together, or an error at the call for a count
    /// other than one thread, a warp or a warpgroup.
    fn atom_scope(&mut self, atom: &Atom) -> Option<kir::Scope> {
        let scope = crate::tv::atom_scope(atom);
        if scope.is_none() {
            self.unsupported(format!(
                "`{}` is executed by a number of threads other than 1, 32 (a warp) or 128 (a warpgroup)",
                atom.display_name()
            ));
        }
        scope
    }
}
