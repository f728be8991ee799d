//! tcgen05.mma's descriptors (sm_100a; HOPPER-BLACKWELL.md D.4 and D.5, CUTLASS's
//! `cute/arch/mma_sm100_desc.hpp`): the shared-memory descriptor of an operand tile,
//! the same canonical forms as wgmma's ([`GmmaDescriptor`]) in another encoding, and
//! the 32-bit instruction descriptor that says the MMA's types, shape and majorness.
//!
//! The shared-memory descriptor: start address `>> 4` in bits 0-13 (at run time), LBO
//! `>> 4` in bits 16-29, SBO `>> 4` in bits 32-45, the fixed version `0b001` in bits
//! 46-48, base offset 0 in bits 49-51, and the layout in bits 61-63: 0 none, 2 a
//! 128-byte swizzle, 4 a 64-byte one, 6 a 32-byte one.
//!
//! The instruction descriptor (kind::f16, kind::tf32 and kind::f8f6f4, dense): D's
//! format in bits 4-5 (f32 = 1), A's and B's in bits 7-9 and 10-12 (f16 = 0, bf16 = 1
//! for kind::f16; tf32 = 2 for kind::tf32; e4m3 = 0, e5m2 = 1 for kind::f8f6f4, CUTLASS's
//! `MXF8F6F4Format`), A's and B's majorness in bits 15 and 16 (0 K-major, 1 MN-major),
//! N >> 3 in bits 17-22, M >> 4 in bits 24-28.
//!
//! One MMA reads 32 bytes of each row along K: 16 elements of bf16 or f16, 8 of tf32,
//! 32 of e4m3 or e5m2. A tf32 tile's element `(r, k)` is the pair of 16-bit halves
//! `(r, 2k)` and `(r, 2k + 1)` of a 16-bit tile with the same bytes, and an 8-bit tile's
//! elements `(r, 2h)` and `(r, 2h + 1)` are the two bytes of half `(r, h)`, so K-major
//! tiles of either have wgmma's canonical forms; MN-major ones are not taken here.

use crate::{Dtype, Error, GmmaDescriptor, Major, Tensor, operand_bytes};

impl GmmaDescriptor {
    /// The tcgen05 descriptor's bits but the start address: wgmma's
    /// ([`GmmaDescriptor::constant_bits`]), whose 2-bit layout type at bit 62 is the
    /// 3-bit one at bit 61 here (2, 4, 6 for 1, 2, 3), and the version 1 at bit 46.
    pub fn umma_constant_bits(&self) -> u64 {
        self.constant_bits() | (1 << 46)
    }
}

/// A kind::f16, kind::tf32 or kind::f8f6f4 tcgen05.mma with f32 accumulators: `D (M x
/// N) += A (M x K) B (N x K)ᵀ`, K = 16 (bf16, f16), 8 (tf32) or 32 (e4m3, e5m2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UmmaShape {
    /// A's and B's element types: both bf16 or both f16, f32 (or tf32) read as tf32,
    /// or e4m3 and e5m2 in any pairing.
    pub inputs: [Dtype; 2],
    /// M: 64 or 128 for one block.
    pub m: i64,
    /// N: 8 to 256.
    pub n: i64,
    /// A's and B's majorness.
    pub major: [Major; 2],
}

impl UmmaShape {
    /// The instruction descriptor.
    pub fn instruction_descriptor(&self) -> u32 {
        let format = |side: usize| match self.inputs[side] {
            Dtype::Bf16 | Dtype::E5m2 => 1,
            Dtype::F32 | Dtype::Tf32 => 2,
            _ => 0,
        };
        let major = |side: usize| u32::from(self.major[side] == Major::Mn);
        (1 << 4)
            | (format(0) << 7)
            | (format(1) << 10)
            | (major(0) << 15)
            | (major(1) << 16)
            | ((self.n as u32 >> 3) << 17)
            | ((self.m as u32 >> 4) << 24)
    }
}

/// The MMA kind and K of operands of `dtype`: `("f16", 16)` for bf16 and f16,
/// `("tf32", 8)` for f32 and tf32, `("f8f6f4", 32)` for e4m3 and e5m2.
pub fn umma_kind(dtype: Dtype) -> Option<(&'static str, i64)> {
    match dtype {
        Dtype::Bf16 | Dtype::F16 => Some(("f16", 16)),
        Dtype::F32 | Dtype::Tf32 => Some(("tf32", 8)),
        Dtype::E4m3 | Dtype::E5m2 => Some(("f8f6f4", 32)),
        _ => None,
    }
}

/// The descriptor of the `rows x K` tile whose element `(r, k)` is `tensor`'s layout
/// value `first + values[r + rows k]` (one block's, its thread indices at zero), read
/// as a 16-bit tile of the same bytes; 32-bit and 8-bit elements must be K-major.
pub fn umma_descriptor(
    tensor: &Tensor,
    (first, values): (&layout::SymInt, &[i64]),
    rows: usize,
) -> Result<GmmaDescriptor, Error> {
    let thread = |name: &str| name.starts_with("thread_idx.").then_some(0);
    let bytes = operand_bytes(tensor, (first, values), 1024, &thread)?;
    descriptor_of_elements(tensor, &bytes, rows)
}

/// The descriptor of a `rows x K` operand tile (`K` elements of `tensor`'s type in 32
/// bytes) whose element `(r, k)` is at byte address `bytes[r + rows k]`, read as a
/// 16-bit tile of the same bytes; 32-bit and 8-bit elements must be K-major. wgmma's
/// tiles are read so too.
pub(crate) fn descriptor_of_elements(
    tensor: &Tensor,
    bytes: &[i64],
    rows: usize,
) -> Result<GmmaDescriptor, Error> {
    let bits = tensor.dtype.map_or(16, |dtype| dtype.bits());
    if ![8, 16, 32].contains(&bits) {
        return Err(Error::Inconsistent(format!(
            "no descriptor reads {bits}-bit elements"
        )));
    }
    let k = (256 / bits) as usize;
    if bits != 16 && bytes.len() != rows * k {
        return Err(Error::Inconsistent(format!(
            "an operand tile of {bits}-bit elements is {rows} x {k}; this one has {} elements",
            bytes.len()
        )));
    }
    let halves: Vec<i64> = match bits {
        16 => return GmmaDescriptor::derive(bytes, rows),
        // Halves (r, 2k) and (r, 2k + 1) of element (r, k), column-major over 16 halves.
        32 => (0..16)
            .flat_map(|half| (0..rows).map(move |r| (r, half)))
            .map(|(r, half)| bytes[r + rows * (half / 2)] + 2 * (half % 2) as i64)
            .collect(),
        // Half (r, h) holds elements (r, 2h) and (r, 2h + 1), which must be adjacent.
        _ => {
            let pairs = (0..16).flat_map(|half| (0..rows).map(move |r| (r, half)));
            let adjacent = |(r, half): (usize, usize)| {
                let first = bytes[r + rows * 2 * half];
                (bytes[r + rows * (2 * half + 1)] == first + 1).then_some(first)
            };
            let halves: Option<Vec<i64>> = pairs.map(adjacent).collect();
            halves.ok_or_else(|| k_major_only(bits))?
        }
    };
    let descriptor = GmmaDescriptor::derive(&halves, rows)?;
    if descriptor.major == Major::Mn {
        return Err(k_major_only(bits));
    }
    Ok(descriptor)
}

/// Why an MN-major tile of `bits`-bit elements has no descriptor here.
fn k_major_only(bits: i64) -> Error {
    let what = if bits == 32 { "a tf32" } else { "an 8-bit" };
    Error::Inconsistent(format!("{what} tile must be K-major (K contiguous) here"))
}

/// The layout values of every element of the `(rows, cols)` tile `tensor`, relative
/// to its start, column-major (`r + rows * c`), as a descriptor reads them.
/// `count` above [`MAX_OPERAND_VALUES`] is an error before any table is built.
pub fn tile_values(tensor: &Tensor, count: i64) -> Result<Vec<i64>, Error> {
    too_many_for_an_operand(count)?;
    let layout = tensor.layout.layout.to_static()?;
    if layout.size()? != count {
        return Err(Error::Inconsistent(format!(
            "it holds {} elements, not {count}",
            layout.size()?
        )));
    }
    Ok(layout.table(count.unsigned_abs())?)
}

/// The most elements an MMA operand tile holds, with room to spare: 256 rows of
/// K = 32 (tcgen05.mma's widest B of 8-bit elements) is 8,192. A tile claimed
/// larger is refused before its table is built: a 334-byte file once asked for a
/// 256 GiB table here.
pub const MAX_OPERAND_VALUES: i64 = 1 << 14;

/// An error when `count` elements are more than any MMA operand holds.
pub(crate) fn too_many_for_an_operand(count: i64) -> Result<(), Error> {
    if count > MAX_OPERAND_VALUES {
        return Err(Error::Inconsistent(format!(
            "it holds {count} elements, more than any MMA operand ({MAX_OPERAND_VALUES} at most)"
        )));
    }
    Ok(())
}

/// The tensor-memory move shapes (`tcgen05.ld` / `st`) and the 32-bit registers per
/// thread of one repetition (`.x1`): 32 lanes of 32 bits, or 16 lanes of 64, 128 or
/// 256 bits.
pub const TMEM_SHAPES: [(&str, i64); 4] =
    [("32x32b", 1), ("16x64b", 1), ("16x128b", 2), ("16x256b", 4)];

/// The registers per thread of one repetition of tensor-memory move shape `shape`.
pub fn tmem_shape_registers(shape: &str) -> Option<i64> {
    TMEM_SHAPES
        .iter()
        .find(|(name, _)| *name == shape)
        .map(|(_, registers)| *registers)
}

/// A two-mode tile's constant extents.
pub fn tile_extents(tensor: &Tensor) -> Option<(i64, i64)> {
    let layout = tensor.layout.layout.to_static().ok()?;
    if layout.rank() != 2 {
        return None;
    }
    let extent = |mode: usize| layout.mode(mode).ok()?.size().ok();
    Some((extent(0)?, extent(1)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor(swizzle: u32, lbo: i64, sbo: i64) -> GmmaDescriptor {
        GmmaDescriptor {
            swizzle,
            major: Major::K,
            lbo,
            sbo,
            start: 0,
        }
    }

    #[test]
    fn a_huge_tile_is_refused_before_its_table_is_built() {
        let rows = 1_i64 << 30;
        let layout = layout::Layout::<i64>::new(
            layout::IntTuple::ints(&[rows, 16]),
            layout::IntTuple::ints(&[16, 1]),
        )
        .expect("a layout");
        let tile = Tensor {
            space: crate::MemorySpace::Shared,
            dtype: Some(Dtype::Bf16),
            layout: crate::TensorLayout {
                layout: layout.to_symbolic(),
                offset: layout::SymInt::constant(0),
                codomain: crate::Codomain::Offsets,
            },
            read_only: false,
            base: crate::Base::Shared(0),
        };
        let refused = tile_values(&tile, rows * 16).expect_err("too large");
        assert!(
            refused.to_string().contains("more than any MMA operand"),
            "{refused}"
        );
        let refused = crate::first_mode_values(&tile, rows).expect_err("too large");
        assert!(
            refused.to_string().contains("more than any MMA operand"),
            "{refused}"
        );
    }

    #[test]
    fn the_shared_descriptor_carries_the_version_bit_and_the_wider_layout_field() {
        // K-major 128-byte swizzle, SBO 1024 (D.5's example): 1 << 16 | 64 << 32 | 1 << 46 | 2 << 61.
        let sw128 = descriptor(128, 16, 1024).umma_constant_bits();
        assert_eq!(sw128, (1 << 16) | (64 << 32) | (1 << 46) | (2 << 61));
        assert_eq!(descriptor(64, 16, 512).umma_constant_bits() >> 61, 4);
        assert_eq!(descriptor(32, 16, 256).umma_constant_bits() >> 61, 6);
        assert_eq!(descriptor(0, 128, 256).umma_constant_bits() >> 61, 0);
    }

    #[test]
    fn instruction_descriptors_match_the_worked_values() {
        // D.4's worked values (assembled into PTX there): bf16, f32, K-major.
        let shape = |m, n| UmmaShape {
            inputs: [Dtype::Bf16; 2],
            m,
            n,
            major: [Major::K, Major::K],
        };
        assert_eq!(shape(128, 256).instruction_descriptor(), 0x0840_0490);
        assert_eq!(shape(128, 128).instruction_descriptor(), 0x0820_0490);
        let f16_mn = UmmaShape {
            inputs: [Dtype::F16; 2],
            m: 64,
            n: 8,
            major: [Major::Mn, Major::K],
        };
        assert_eq!(
            f16_mn.instruction_descriptor(),
            (1 << 4) | (1 << 15) | (1 << 17) | (4 << 24)
        );
        let tf32 = UmmaShape {
            inputs: [Dtype::F32; 2],
            ..shape(128, 64)
        };
        let expected = (1 << 4) | (2 << 7) | (2 << 10) | (8 << 17) | (8 << 24);
        assert_eq!(tf32.instruction_descriptor(), expected);
        // kind::f8f6f4: e4m3 is format 0 and e5m2 format 1, each side its own.
        let fp8 = UmmaShape {
            inputs: [Dtype::E5m2, Dtype::E4m3],
            ..shape(128, 256)
        };
        let expected = (1 << 4) | (1 << 7) | (32 << 17) | (8 << 24);
        assert_eq!(fp8.instruction_descriptor(), expected);
    }
}
