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
    Tensor, UmmaShape, tile_extents, tile_values, tmem_shape_registers, umma_descriptor, umma_kind,
};
use kir::{BinOp, Op, Ty, ValueId};
use trace::Term;

use crate::builder::Builder;

/// `tcgen05.mma` of `kind` (`f16`, `tf32` or `f8f6f4`), D in tensor memory, A and B
/// from shared memory.
pub fn tcgen05_mma_template(kind: &str, pair: bool) -> String {
    let group = crate::blackwell::cta_group(pair);
    format!(
        "{{{{ .reg .pred %accumulate; setp.ne.b32 %accumulate, {{accumulate}}, 0; tcgen05.mma.{group}.kind::{kind} [{{taddr}}], {{desc_a}}, {{desc_b}}, {{idesc}}, %accumulate; }}}}"
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
        [a, b]: [&Tensor; 2],
        accumulate: &Term,
        pair: bool,
    ) {
        let (Some((desc_a, major_a, m)), Some((desc_b, major_b, n))) =
            (self.umma_operand(a), self.umma_operand(b))
        else {
            return;
        };
        let (Some(a_type), Some(b_type)) = (a.dtype, b.dtype) else {
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
            ("desc_a", desc_a),
            ("desc_b", desc_b),
            ("idesc", idesc),
            ("accumulate", flag),
        ];
        self.push_effect(Op::Atom {
            template: tcgen05_mma_template(kind, pair),
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
        let (descriptor, start) = self.shared_descriptor(derived, tile, first, "tcgen05.mma")?;
        let constant = self.constant(descriptor.umma_constant_bits() as i64, Ty::I64);
        let value = self.pure(Op::Binary(BinOp::Or, start, constant), Ty::I64);
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
        let per_repetition = tmem_shape_registers(shape).unwrap_or(1);
        let template = tmem_copy_template(load, shape, count / per_repetition);
        let operands = vec![("taddr".to_owned(), taddr, 0)];
        if !load {
            let values: Option<Vec<ValueId>> = (indices.iter())
                .map(|index| self.read_element(fragment, index, None))
                .collect();
            let Some(values) = values else {
                return;
            };
            self.push_effect(Op::Atom {
                template,
                operands,
                registers: vec![("r".to_owned(), values)],
                output: None,
                warp: None,
                predicate: None,
            });
            return;
        }
        let Some(ty) = self.element_ty(fragment) else {
            return;
        };
        let op = Op::Atom {
            template,
            operands,
            registers: Vec::new(),
            output: Some("r".to_owned()),
            warp: None,
            predicate: None,
        };
        let results = self.push_many(op, &vec![ty; indices.len()]);
        for (index, value) in indices.iter().zip(results) {
            self.write_element(fragment, index, value, None);
        }
    }
}
