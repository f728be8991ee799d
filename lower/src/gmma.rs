//! wgmma's (and tcgen05.mma's, `umma.rs`) shared-memory descriptors at run time: the tile's canonical form is found
//! from its elements' positions in the first pipeline stage (`cute::GmmaDescriptor`),
//! and the run-time address of its first element supplies the start address.
//!
//! A descriptor is `constant | ((start & 0x3FFFF) >> 4)`, where the constant holds the
//! leading and stride byte offsets and the swizzle mode, and `start` is the
//! unswizzled address of element `(0, 0)`: the swizzle (an involution on absolute
//! addresses) applied to the address the compiler places that element at, so a tile
//! may start anywhere in the swizzle pattern.

use cute::{Atom, GmmaDescriptor, Tensor, first_mode_values, warpgroup_descriptor};
use kir::{BinOp, Op, Ty, ValueId};
use layout::SymInt;

use crate::builder::Builder;
use crate::memory::Place;

impl Builder<'_> {
    /// The address the hardware swizzles into `physical`: the swizzle is an
    /// involution, `x ^ (((x >> 7) & (span / 16 - 1)) << 4)`.
    fn descriptor_start(&mut self, physical: ValueId, swizzle: u32) -> ValueId {
        if swizzle == 0 {
            return physical;
        }
        let seven = self.constant(7, Ty::I32);
        let row = self.pure(Op::Binary(BinOp::Shr, physical, seven), Ty::I32);
        let mask = self.constant(i64::from(swizzle / 16 - 1), Ty::I32);
        let phase = self.pure(Op::Binary(BinOp::And, row, mask), Ty::I32);
        let four = self.constant(4, Ty::I32);
        let chunks = self.pure(Op::Binary(BinOp::Shl, phase, four), Ty::I32);
        self.pure(Op::Binary(BinOp::Xor, physical, chunks), Ty::I32)
    }

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
        let runs = |warpgroup: i64| self.may_run(warpgroup * 128);
        let derived = first_mode_values(tensor, rows as i64 * 16).and_then(|values| {
            warpgroup_descriptor(tensor, (first, &values), rows, threads / 128, &runs)
        });
        let name = format!("`{}`", atom.display_name());
        let (descriptor, start) = self.shared_descriptor(derived, tensor, first, &name)?;
        let constant = self.constant(descriptor.constant_bits() as i64, Ty::I64);
        let value = self.pure(Op::Binary(BinOp::Or, start, constant), Ty::I64);
        Some((value, descriptor.transpose_flag().to_string()))
    }

    /// The descriptor `derived` for `tensor`'s tile whose first element is at layout
    /// value `first`, with its start-address field (bits 0-13, as i64) computed at run
    /// time; what cannot be one is unsupported, `what` naming the instruction.
    pub(crate) fn shared_descriptor(
        &mut self,
        derived: Result<GmmaDescriptor, cute::Error>,
        tensor: &Tensor,
        first: &SymInt,
        what: &str,
    ) -> Option<(GmmaDescriptor, ValueId)> {
        let descriptor = match derived {
            Ok(found) => found,
            Err(error) => {
                self.unsupported(format!("{what} on this shared tile: {error}"));
                return None;
            }
        };
        let Some(Place::Memory {
            address, offset, ..
        }) = self.place(tensor, first)
        else {
            self.unsupported(format!("a {what} operand outside shared memory"));
            return None;
        };
        let physical = if offset == 0 {
            address
        } else {
            let offset = self.constant(offset, Ty::I32);
            self.pure(Op::Binary(BinOp::Add, address, offset), Ty::I32)
        };
        let start = self.descriptor_start(physical, descriptor.swizzle);
        let four = self.constant(4, Ty::I32);
        let units = self.pure(Op::Binary(BinOp::Shr, start, four), Ty::I32);
        let mask = self.constant(0x3FFF, Ty::I32);
        let field = self.pure(Op::Binary(BinOp::And, units, mask), Ty::I32);
        Some((descriptor, self.convert(field, Ty::I64)))
    }
}
