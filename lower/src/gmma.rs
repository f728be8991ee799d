//! wgmma's shared-memory descriptors at run time: the tile's canonical form is found
//! from its elements' positions in the first pipeline stage (`cute::GmmaDescriptor`),
//! and the run-time address of its first element supplies the start address.
//!
//! A descriptor is `constant | ((start & 0x3FFFF) >> 4)`, where the constant holds the
//! leading and stride byte offsets and the swizzle mode, and `start` is the
//! unswizzled address of element `(0, 0)`: the address of its element as the
//! compiler places it, minus its swizzled offset in the stage, plus the unswizzled
//! one (the run-time part moves whole swizzle periods, which the checker required).

use cute::{Atom, Tensor, first_mode_values, warpgroup_descriptor};
use kir::{BinOp, Op, Ty, ValueId};
use layout::SymInt;

use crate::builder::Builder;
use crate::memory::Place;

impl Builder<'_> {
    /// The descriptor value of the shared tile of `rows x 16` elements whose first
    /// element is `tensor`'s layout value `first` (the others follow the tensor's first
    /// mode: value `r + rows * k` is element `(r, k)`), and its transpose flag (`"0"`
    /// K-major, `"1"` MN-major).
    pub(crate) fn gmma_descriptor(
        &mut self,
        atom: &Atom,
        tensor: &Tensor,
        first: &SymInt,
        rows: usize,
    ) -> Option<(ValueId, String)> {
        let threads = (self.trace.block.iter())
            .map(|extent| extent.as_constant().unwrap_or(1))
            .product::<i64>();
        let derived = first_mode_values(tensor, rows as i64 * 16)
            .and_then(|values| warpgroup_descriptor(tensor, (first, &values), rows, threads / 128));
        let (descriptor, first_bytes) = match derived {
            Ok(found) => found,
            Err(error) => {
                self.unsupported(format!(
                    "`{}` on this shared tile: {error}",
                    atom.display_name()
                ));
                return None;
            }
        };
        let Some(Place::Memory {
            address, offset, ..
        }) = self.place(tensor, first)
        else {
            self.unsupported("a wgmma operand outside shared memory".to_owned());
            return None;
        };
        let shift = offset - first_bytes + descriptor.start;
        let start = if shift == 0 {
            address
        } else {
            let shift = self.constant(shift, Ty::I32);
            self.pure(Op::Binary(BinOp::Add, address, shift), Ty::I32)
        };
        let four = self.constant(4, Ty::I32);
        let units = self.pure(Op::Binary(BinOp::Shr, start, four), Ty::I32);
        let mask = self.constant(0x3FFF, Ty::I32);
        let field = self.pure(Op::Binary(BinOp::And, units, mask), Ty::I32);
        let wide = self.convert(field, Ty::I64);
        let constant = self.constant(descriptor.constant_bits() as i64, Ty::I64);
        let value = self.pure(Op::Binary(BinOp::Or, wide, constant), Ty::I64);
        Some((value, descriptor.transpose_flag().to_string()))
    }
}
