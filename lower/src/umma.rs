//! tcgen05's MMA and tensor-memory moves (sm_100a) as [`kir::Intrinsic`]s (their PTX is
//! `backend-ptx/src/intrinsics.rs`'s, the forms `../shared/design/HOPPER-BLACKWELL.md`
//! (D.3, D.6) lists as assembled by ptxas):
//! - the MMA, one thread's, its kind from A's type: the shared-memory descriptors are
//!   wgmma's canonical forms in the SM100 encoding
//!   (`cute::GmmaDescriptor::umma_constant_bits`, the start address at run time, as
//!   `gmma.rs` computes it) and the instruction descriptor a constant
//!   (`cute::UmmaShape`);
//! - the loads and stores of `32x32b`, `16x64b`, `16x128b` or `16x256b` repeated: each
//!   thread's registers the fragment's values in order.

use cute::{
    GmmaDescriptor, Tensor, UmmaShape, tile_extents, tile_values, umma_descriptor, umma_kind,
};
use kir::{Intrinsic, MmaKind, Op, TmemShape, Ty, ValueId};
use trace::{Term, UmmaA};

use crate::builder::Builder;

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
                (desc_a, major_a, m, a.dtype)
            }
            UmmaA::Tmem(address) => {
                let Some(address) = self.tmem_address(address) else {
                    return;
                };
                (address, cute::Major::K, 128, b.dtype)
            }
        };
        let Some((desc_b, major_b, n)) = self.umma_operand(b) else {
            return;
        };
        let (Some(a_type), Some(b_type)) = (a_type, b.dtype) else {
            return;
        };
        let Some(kind) = umma_kind(a_type).and_then(|(kind, _)| MmaKind::named(kind)) else {
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
        let intrinsic = Intrinsic::Tcgen05Mma {
            kind,
            pair,
            a_in_tmem: matches!(a, UmmaA::Tmem(_)),
        };
        let operands = [taddr, a_operand, desc_b, idesc, flag];
        self.push_intrinsic(intrinsic, operands.map(|value| (value, 0)).to_vec());
    }

    /// A shared `(rows, K)` operand's descriptor value, majorness and rows.
    fn umma_operand(&mut self, tile: &Tensor) -> Option<(ValueId, cute::Major, i64)> {
        let (rows, k) = tile_extents(tile)?;
        let first = &tile.layout.offset;
        let derived = tile_values(tile, rows * k)
            .and_then(|values| umma_descriptor(tile, (first, &values), rows as usize));
        let bits = GmmaDescriptor::umma_constant_bits;
        let (descriptor, value) =
            self.shared_descriptor(derived, (tile, first), bits, "`tcgen05_mma`")?;
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
        let Some(shape) = TmemShape::named(shape) else {
            self.unsupported(format!("a tensor-memory move of shape {shape}"));
            return;
        };
        let Ok(repetitions) = u32::try_from(registers / i64::from(shape.registers())) else {
            self.unsupported(format!("a tensor-memory move of {registers} registers"));
            return;
        };
        let operand = (taddr, 0);
        if !load {
            let values: Option<Vec<ValueId>> = (indices.iter())
                .map(|index| self.read_element(fragment, index, None))
                .collect();
            let Some(values) = values else {
                return;
            };
            let words = self.pack(&values, Ty::B32);
            let operands = std::iter::once(operand).chain(words.into_iter().map(|word| (word, 0)));
            let intrinsic = Intrinsic::TmemStore { shape, repetitions };
            self.push_intrinsic(intrinsic, operands.collect());
            return;
        }
        let op = Op::Intrinsic {
            intrinsic: Intrinsic::TmemLoad { shape, repetitions },
            operands: vec![operand],
        };
        // Loads are of 32-bit values only: unpacking halves would read the registers
        // before `tcgen05_wait_ld()`.
        let results = self.push_many(op, &vec![ty; indices.len()]);
        for (index, value) in indices.iter().zip(results) {
            self.write_element(fragment, index, value, None);
        }
    }
}
