//! wgmma's (and tcgen05.mma's, `umma.rs`) shared-memory descriptors at run time: the tile's canonical form is found
//! from its elements' positions in the first pipeline stage (`cute::GmmaDescriptor`),
//! and the run-time address of its first element supplies the start address.
//!
//! A descriptor is `constant | ((start & 0x3FFFF) >> 4)`, where the constant holds the
//! leading and stride byte offsets and the swizzle mode, and `start` is the
//! unswizzled address of element `(0, 0)`: the swizzle (an involution on absolute
//! addresses) applied to the address the compiler places that element at, so a tile
//! may start anywhere in the swizzle pattern.

use std::rc::Rc;

use cute::{
    Atom, Base, Codomain, GmmaDescriptor, Tensor, first_mode_values, swizzled, warpgroup_descriptor,
};
use kir::{BinOp, Op, Ty, ValueId};
use layout::SymInt;

use crate::anchors::SplitAddress;
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

    /// The descriptor value of the shared tile of `rows x k` elements whose first
    /// element is `tensor`'s layout value `first` (the others follow the tensor's first
    /// mode: value `r + rows * k` is element `(r, k)`), and its transpose flag (`"0"`
    /// K-major, `"1"` MN-major).
    pub(crate) fn gmma_descriptor(
        &mut self,
        atom: &Atom,
        tensor: &Tensor,
        first: &SymInt,
        (rows, k): (usize, i64),
    ) -> Option<(ValueId, String)> {
        let threads = (self.trace.block.iter())
            .map(|extent| extent.as_constant().unwrap_or(1))
            .product::<i64>();
        let runs = |warpgroup: i64| self.may_run(warpgroup * 128);
        let derived = first_mode_values(tensor, rows as i64 * k).and_then(|values| {
            warpgroup_descriptor(tensor, (first, &values), rows, threads / 128, &runs)
        });
        let name = format!("`{}`", atom.display_name());
        let bits = GmmaDescriptor::constant_bits;
        let (descriptor, value) = self.shared_descriptor(derived, (tensor, first), bits, &name)?;
        Some((value, descriptor.transpose_flag().to_string()))
    }

    /// The descriptor `derived` for `tensor`'s tile whose first element is at layout
    /// value `first`: its `constant_bits` and its start-address field (bits 0-13)
    /// computed at run time; what cannot be one is unsupported, `what` naming the
    /// instruction.
    pub(crate) fn shared_descriptor(
        &mut self,
        derived: Result<GmmaDescriptor, cute::Error>,
        (tensor, first): (&Tensor, &SymInt),
        constant_bits: fn(&GmmaDescriptor) -> u64,
        what: &str,
    ) -> Option<(GmmaDescriptor, ValueId)> {
        let descriptor = match derived {
            Ok(found) => found,
            Err(error) => {
                self.unsupported(format!("{what} on this shared tile: {error}"));
                return None;
            }
        };
        let bits = constant_bits(&descriptor) as i64;
        if let Some(value) = self.descriptor_from_anchor(tensor, first, descriptor.swizzle, bits) {
            return Some((descriptor, value));
        }
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
        Some((descriptor, self.with_constant_bits(field, bits)))
    }

    /// The 64-bit descriptor of a start-address `field` (an i32 below 2^14) and the
    /// descriptor's other `bits`.
    fn with_constant_bits(&mut self, field: ValueId, bits: i64) -> ValueId {
        let field = self.convert(field, Ty::I64);
        let constant = self.constant(bits, Ty::I64);
        self.pure(Op::Binary(BinOp::Or, field, constant), Ty::I64)
    }

    /// The descriptor of a swizzled tile whose first element is an anchor's address
    /// plus whole swizzle periods plus a constant (`swizzled.rs`): the anchor
    /// un-swizzled once, and each tile of the family its descriptor plus an immediate,
    /// as CUTLASS's descriptor iterators step. `None` when that does not hold for every
    /// thread.
    ///
    /// The swizzle acts on bits 4-9 of an address (128-byte span; fewer for less), so
    /// adding a multiple of its period (`8 * span`) commutes with it; the buffer starts
    /// on a period, and shared addresses are below 2^18, so the 14-bit field never
    /// carries into the constant bits.
    fn descriptor_from_anchor(
        &mut self,
        tensor: &Tensor,
        first: &SymInt,
        swizzle: u32,
        bits: i64,
    ) -> Option<ValueId> {
        let Codomain::Swizzled(composed) = &tensor.layout.codomain else {
            return None;
        };
        let bytes = tensor.dtype?.bits() / 8;
        let period = i64::from(swizzle) * 8;
        if swizzle == 0 || bytes == 0 {
            return None;
        }
        let parts = self.split_address(tensor, first, composed, bytes)?;
        let rest_divisor = i64::try_from(parts.rest.provable_divisor(&|_| false)).ok()?;
        let whole_periods = parts.rest.as_constant() == Some(0)
            || (rest_divisor != 0 && (rest_divisor * bytes) % period == 0);
        let within = parts.offset.rem_euclid(period);
        let periods = parts.offset - within;
        let mut steps = parts.anchor_offsets.iter().map(|&anchor| {
            (anchor % 16 == 0)
                .then(|| swizzled(anchor + within, swizzle) - swizzled(anchor, swizzle))
        });
        let step = steps.next()??;
        if !whole_periods || !steps.all(|other| other == Some(step)) {
            return None;
        }
        let immediate = periods + step;
        if immediate % 16 != 0 {
            return None;
        }
        let (anchor, shift) = self.descriptor_anchor(tensor, &parts, swizzle)?;
        let immediate = immediate + shift;
        let base = self.plus_rest(anchor, &parts.rest, bytes)?;
        let four = self.constant(4, Ty::I32);
        let units = self.pure(Op::Binary(BinOp::Shr, base, four), Ty::I32);
        let descriptor = self.with_constant_bits(units, bits);
        if immediate == 0 {
            return Some(descriptor);
        }
        let immediate = self.constant(immediate >> 4, Ty::I64);
        let stepped = Op::Binary(BinOp::Add, descriptor, immediate);
        let depth = self.rematerialized_depth(&stepped);
        Some(self.define_at(depth, stepped, &[Ty::I64])[0])
    }

    /// The un-swizzled address of `parts`' anchor, as an earlier descriptor's anchor
    /// still in scope and the bytes to add to it, when every thread finds the same
    /// difference; else the anchor un-swizzled anew.
    fn descriptor_anchor(
        &mut self,
        tensor: &Tensor,
        parts: &SplitAddress,
        swizzle: u32,
    ) -> Option<(ValueId, i64)> {
        let Base::Shared(buffer) = tensor.base else {
            return None;
        };
        let unswizzled: Vec<i64> = (parts.anchor_offsets.iter())
            .map(|&offset| swizzled(offset, swizzle))
            .collect();
        if let Some(known) = self.known_anchor((buffer, 0), &unswizzled) {
            return Some(known);
        }
        let address = self.descriptor_start(parts.anchor, swizzle);
        self.remember_anchor((buffer, 0), Rc::new(unswizzled), address);
        Some((address, 0))
    }
}
