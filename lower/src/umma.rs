//! tcgen05's MMA and tensor-memory moves (sm_100a) as atom instructions, in the forms
//! `../shared/design/HOPPER-BLACKWELL.md` (D.3, D.6) lists as assembled by ptxas:
//! - `tcgen05.mma.cta_group::1.kind::f16 [{taddr}], {desc_a}, {desc_b}, {idesc}, p`
//!   (or `kind::tf32`, `kind::f8f6f4`),
//!   one thread's, with `p` set from `{accumulate}` in the instruction's own block; the
//!   shared-memory descriptors are wgmma's canonical forms in the SM100 encoding
//!   (`cute::GmmaDescriptor::umma_constant_bits`, the start address at run time, as
//!   `gmma.rs` computes it) and the instruction descriptor a constant
//!   (`cute::UmmaShape`);
//! - `tcgen05.ld.sync.aligned.32x32b.xN.b32` / `tcgen05.st...` (and the 16x64b,
//!   16x128b and 16x256b shapes): each thread's registers the fragment's values in
//!   order.

use cute::{
    GmmaDescriptor, Tensor, UmmaShape, tile_extents, tile_values, tmem_shape_registers,
    umma_descriptor, umma_kind,
};
use kir::{Op, Ty, ValueId};
use trace::{Term, UmmaA};

use crate::builder::Builder;

/// `tcgen05.mma` of `kind` (`f16`, `tf32` or `f8f6f4`), D in tensor memory, B from
/// shared memory, A from shared memory or (`a_in_tmem`) tensor memory.
pub fn tcgen05_mma_template(kind: &str, pair: bool, a_in_tmem: bool) -> String {
    let group = crate::blackwell::cta_group(pair);
    let a = if a_in_tmem { "[{a_taddr}]" } else { "{desc_a}" };
    format!(
        "{{{{ .reg .pred %accumulate; setp.ne.b32 %accumulate, {{accumulate}}, 0; tcgen05.mma.{group}.kind::{kind} [{{taddr}}], {a}, {{desc_b}}, {{idesc}}, %accumulate; }}}}"
    )
}

/// `tcgen05.ld` (`load`) or `tcgen05.st` of `repetitions` of `shape` (`32x32b`, ...).
pub fn tmem_copy_template(load: bool, shape: &str, repetitions: i64) -> String {
    let form = format!("sync.aligned.{shape}.x{repetitions}.b32");
    match load {
        true => format!("tcgen05.ld.{form} {{{{r}}}}, [{{taddr}}];"),
        false => format!("tcgen05.st.{form} [{{taddr}}], {{{{r}}}};"),
    }
}

impl Builder<'_> {
    /// `D (tensor memory at taddr) += A Bᵀ`, or `=` when `accumulate` is false.
    /// A CTA pair's (`pair`) is M = 256 and N twice B's rows in each block.
    pub(crate) fn tcgen05_mma(
        &mut self,
        taddr: &Term,
        (a, b): (&UmmaA, &Tensor),
        accumulate: &Term,
        pair: bool,
    ) {
        // A in tensor memory: 128 lanes, K-major, of B's type.
        let (a_operand, major_a, m, a_type) = match a {
            UmmaA::Shared(a) => {
                let Some((desc_a, major_a, m)) = self.umma_operand(a) else {
                    return;
                };
                (("desc_a", desc_a), major_a, m, a.dtype)
            }
            UmmaA::Tmem(address) => {
                let Some(address) = self.tmem_address(address) else {
                    return;
                };
                (("a_taddr", address), cute::Major::K, 128, b.dtype)
            }
        };
        let Some((desc_b, major_b, n)) = self.umma_operand(b) else {
            return;
        };
        let (Some(a_type), Some(b_type)) = (a_type, b.dtype) else {
            return;
        };
        let Some((kind, _)) = umma_kind(a_type) else {
            return;
        };
        let blocks = if pair { 2 } else { 1 };
        let shape = UmmaShape {
            inputs: [a_type, b_type],
            m: m * blocks,
            n: n * blocks,
            major: [major_a, major_b],
        };
        let idesc = self.constant(i64::from(shape.instruction_descriptor()), Ty::I32);
        let (Some(taddr), Some(flag)) = (self.tmem_address(taddr), self.term(accumulate, 0)) else {
            return;
        };
        let flag = self.convert(flag, Ty::I32);
        let operands = [
            ("taddr", taddr),
            a_operand,
            ("desc_b", desc_b),
            ("idesc", idesc),
            ("accumulate", flag),
        ];
        self.push_effect(Op::Atom {
            template: tcgen05_mma_template(kind, pair, matches!(a, UmmaA::Tmem(_))),
            operands: (operands.iter())
                .map(|(name, value)| ((*name).to_owned(), *value, 0))
                .collect(),
            registers: Vec::new(),
            output: None,
            warp: None,
            predicate: None,
        });
    }

    /// A shared `(rows, K)` operand's descriptor value, majorness and rows.
    fn umma_operand(&mut self, tile: &Tensor) -> Option<(ValueId, cute::Major, i64)> {
        let (rows, k) = tile_extents(tile)?;
        let first = &tile.layout.offset;
        let derived = tile_values(tile, rows * k)
            .and_then(|values| umma_descriptor(tile, (first, &values), rows as usize));
        let bits = GmmaDescriptor::umma_constant_bits;
        let (descriptor, value) =
            self.shared_descriptor(derived, (tile, first), bits, "tcgen05.mma")?;
        Some((value, descriptor.major, rows))
    }

    /// The warp's tensor-memory load of `shape` into `fragment`, or store from it.
    pub(crate) fn tmem_copy(
        &mut self,
        (load, shape): (bool, &str),
        fragment: &Tensor,
        taddr: &Term,
    ) {
        let Some(taddr) = self.tmem_address(taddr) else {
            return;
        };
        let Some(count) = fragment
            .layout
            .layout
            .size()
            .ok()
            .and_then(|size| size.as_constant())
        else {
            return;
        };
        let indices: Option<Vec<_>> = (0..count)
            .map(|value| self.element_index(fragment, value))
            .collect();
        let Some(indices) = indices else {
            return;
        };
        // A store's 16-bit values travel in pairs, the first in a register's low half.
        let Some(ty) = self.element_ty(fragment) else {
            return;
        };
        let registers = count * i64::from(ty.bits()) / 32;
        let per_repetition = tmem_shape_registers(shape).unwrap_or(1);
        let template = tmem_copy_template(load, shape, registers / per_repetition);
        let operands = vec![("taddr".to_owned(), taddr, 0)];
        if !load {
            let values: Option<Vec<ValueId>> = (indices.iter())
                .map(|index| self.read_element(fragment, index, None))
                .collect();
            let Some(values) = values else {
                return;
            };
            let words = self.pack(&values, Ty::B32);
            self.push_effect(Op::Atom {
                template,
                operands,
                registers: vec![("r".to_owned(), words)],
                output: None,
                warp: None,
                predicate: None,
            });
            return;
        }
        let op = Op::Atom {
            template,
            operands,
            registers: Vec::new(),
            output: Some("r".to_owned()),
            warp: None,
            predicate: None,
        };
        // Loads are of 32-bit values only: unpacking halves would read the registers
        // before `tcgen05_wait_ld()`.
        let results = self.push_many(op, &vec![ty; indices.len()]);
        for (index, value) in indices.iter().zip(results) {
            self.write_element(fragment, index, value, None);
        }
    }
}
