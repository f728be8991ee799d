//! `wgmma.mma_async` with both operands in shared memory, for a warpgroup of 128
//! threads: `D (64 x N, f32) += A (64 x K) · B (N x K)ᵀ` (`=` when its scale-d
//! operand is false; K is 16 of bf16 or f16, 32 of e4m3 or e5m2), computed when the
//! warpgroup issues it (the emulator runs it to completion there, so the group
//! instructions around it have nothing left to wait for).
//!
//! Facts, from the PTX ISA ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate",
//! matrix descriptors and shared-memory layouts), written here independently of the
//! compiler's descriptor code so that the emulator checks it:
//! - a descriptor's start address is `(desc & 0x3FFF) << 4`, its leading byte offset
//!   `((desc >> 16) & 0x3FFF) << 4`, its stride byte offset `((desc >> 32) & 0x3FFF) << 4`,
//!   its layout `desc >> 62`: 0 no swizzle, 1 a 128-byte, 2 a 64-byte, 3 a 32-byte one;
//! - element `(r, k)` of a K-major operand (r a row of A or of B's N) with an `x`-byte
//!   swizzle is at `swizzle(start + (r / 8) SBO + (r % 8) x + 2k)`; without a swizzle
//!   at `start + (r / 8) SBO + (k / 8) LBO + (r % 8) 16 + 2 (k % 8)`; MN-major with an
//!   `x`-byte swizzle at `swizzle(start + (r / w) LBO + (k / 8) SBO + (k % 8) x + 2 (r %
//!   w))`, `w = x / 2`; the swizzle XORs address bits 7 and up into bits 4 and up,
//!   `a ^ (((a >> 7) & (x / 16 - 1)) << 4)`;
//! - thread `t` (lane `l`, warp `w` of the warpgroup) holds D's register `v` at row
//!   `16w + l / 4 + 8 ((v >> 1) & 1)`, column `2 (l % 4) + (v & 1) + 8 (v >> 2)`.
//!
//! Arithmetic as the `mma.sync` model's: exact products, summed in f64, rounded once.
//! Hopper's FP8 wgmma adds with fewer bits than that (an H200 came out up to 0.032 off
//! sums of about 40, tests/hopper/wgmma_fp8.cuk), which tests of it must allow for.

use kir::{Inst, ValueId};

use crate::atoms::hopper::swizzled;
use crate::fault::{FaultKind, Trap};
use crate::shared::SharedMemory;
use crate::thread::Thread;

/// An operand tile's place in shared memory, as a descriptor gives it: byte offsets
/// and the swizzle span (0, 32, 64 or 128 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedTile {
    /// The start address.
    pub start: u64,
    /// The leading byte offset.
    pub lbo: u64,
    /// The stride byte offset.
    pub sbo: u64,
    /// The swizzle span in bytes, 0 for none.
    pub swizzle: u64,
}

impl SharedTile {
    /// The byte address of element `(row, k)` (a 16-bit value) of the tile, K-major or
    /// (`transposed`) MN-major.
    pub fn address(&self, row: u64, k: u64, transposed: bool) -> Result<u64, Trap> {
        let SharedTile {
            start,
            lbo,
            sbo,
            swizzle,
        } = *self;
        let offset = match (swizzle, transposed) {
            (0, false) => (row / 8) * sbo + (k / 8) * lbo + (row % 8) * 16 + 2 * (k % 8),
            (0, true) => return Err(unsupported("an MN-major operand without a swizzle")),
            (x, false) => (row / 8) * sbo + (row % 8) * x + 2 * k,
            (x, true) => {
                let w = x / 2;
                (row / w) * lbo + (k / 8) * sbo + (k % 8) * x + 2 * (row % w)
            }
        };
        Ok(swizzled(start + offset, swizzle as u32))
    }
}

/// The tile a wgmma descriptor (sm_90) names.
fn decode(descriptor: u64) -> Result<SharedTile, Trap> {
    let field = |shift: u32| ((descriptor >> shift) & 0x3FFF) << 4;
    let swizzle = match descriptor >> 62 {
        1 => 128,
        2 => 64,
        3 => 32,
        _ => 0,
    };
    if (descriptor >> 49) & 7 != 0 {
        return Err(unsupported("a wgmma descriptor with a base offset"));
    }
    Ok(SharedTile {
        start: field(0),
        lbo: field(16),
        sbo: field(32),
        swizzle,
    })
}

pub(crate) fn unsupported(what: &str) -> Trap {
    Trap::Fault(FaultKind::Unsupported(what.to_owned()))
}

/// An operand's element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// bf16.
    Bf16,
    /// f16.
    F16,
    /// 32-bit floats read as tf32 (their 13 low mantissa bits ignored).
    Tf32,
    /// FP8 E4M3 (tcgen05.mma kind::f8f6f4, wgmma's `.e4m3`).
    E4m3,
    /// FP8 E5M2 (tcgen05.mma kind::f8f6f4, wgmma's `.e5m2`).
    E5m2,
}

impl Element {
    /// The bits an element occupies.
    pub fn bits(self) -> u32 {
        match self {
            Element::Tf32 => 32,
            Element::Bf16 | Element::F16 => 16,
            Element::E4m3 | Element::E5m2 => 8,
        }
    }

    /// The value of an element with these bits (the low [`Element::bits`] of `bits`);
    /// tf32 ignores the 13 low mantissa bits.
    pub fn value(self, bits: u32) -> f64 {
        match self {
            Element::Tf32 => f64::from(f32::from_bits(bits & !0x1FFF)),
            Element::Bf16 => f64::from(f32::from_bits(bits << 16)),
            Element::F16 => f64::from(half::f16::from_bits(bits as u16).to_f32()),
            Element::E4m3 => f64::from(float8::F8E4M3::from_bits(bits as u8).to_f32()),
            Element::E5m2 => f64::from(float8::F8E5M2::from_bits(bits as u8).to_f32()),
        }
    }

    /// The elements along K of one instruction's 32-byte rows.
    pub fn k(self) -> u64 {
        match self {
            Element::Tf32 => 8,
            Element::Bf16 | Element::F16 => 16,
            Element::E4m3 | Element::E5m2 => 32,
        }
    }
}

/// The `rows x K` operand `tile` holds, row-major, as f64. A tf32 element `(row, k)` is
/// the four bytes at 16-bit element `(row, 2k)`, an 8-bit one the byte `k % 2` of 16-bit
/// element `(row, k / 2)` (K-major only, both).
pub fn operand(
    shared: &SharedMemory,
    tile: &SharedTile,
    rows: u64,
    transposed: bool,
    element: Element,
) -> Result<Vec<f64>, Trap> {
    if matches!(element, Element::Tf32 | Element::E4m3 | Element::E5m2) && transposed {
        return Err(unsupported(&format!("an MN-major {element:?} operand")));
    }
    let k_extent = element.k();
    shared.next_operand();
    let mut values = Vec::with_capacity((rows * k_extent) as usize);
    for row in 0..rows {
        for k in 0..k_extent {
            let (half, byte) = match element {
                Element::Tf32 => (2 * k, 0),
                Element::E4m3 | Element::E5m2 => (k / 2, k % 2),
                Element::Bf16 | Element::F16 => (k, 0),
            };
            let address = tile.address(row, half, transposed)? + byte;
            let address = u32::try_from(address).unwrap_or(u32::MAX);
            let mut bytes = [0u8; 4];
            let width = element.bits() as usize / 8;
            shared.peek(address, &mut bytes[..width])?;
            values.push(element.value(u32::from_le_bytes(bytes)));
        }
    }
    Ok(values)
}

/// What a wgmma template says of its instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WgmmaShape {
    /// N of `m64nNkK`.
    pub n: usize,
    /// A's and B's element types: bf16 or f16 (both the same), or e4m3 or e5m2.
    pub elements: [Element; 2],
    /// Whether A and B are MN-major (the transpose immediates; A's is false in
    /// registers).
    pub transposed: [bool; 2],
    /// Whether A comes from registers (`{{a}}`, the RS form) rather than a descriptor.
    pub a_in_registers: bool,
}

/// Where value `v` of thread `thread` of a warpgroup is in a 64-row tile: the
/// accumulator's pattern (CuTe's CLayout_64xN), which A in registers shares for its
/// 64 x 16 (ALayout_64x16): (row, column).
fn fragment_position(thread: usize, v: usize) -> (usize, usize) {
    let (lane, warp) = (thread % 32, thread / 32);
    let row = 16 * warp + lane / 4 + 8 * ((v >> 1) & 1);
    let column = 2 * (lane % 4) + (v & 1) + 8 * (v >> 2);
    (row, column)
}

/// A (64 x 16, row-major, as f64) from the warpgroup's `{{a}}` registers: four 32-bit
/// words per thread, each two 16-bit values, the even one in the low half.
fn register_operand(
    lanes: &[Thread<'_>],
    words: &[ValueId],
    element: Element,
) -> Result<Vec<f64>, Trap> {
    if words.len() != 4 {
        return Err(Trap::Fault(FaultKind::Unsupported(
            "a wgmma whose A is not four registers per thread".to_owned(),
        )));
    }
    let mut values = vec![0.0; 64 * 16];
    for (thread, lane) in lanes.iter().enumerate() {
        for v in 0..8 {
            let word = lane.get(words[v / 2]) as u32;
            let bits = (word >> (16 * (v % 2))) & 0xFFFF;
            let (row, k) = fragment_position(thread, v);
            values[row * 16 + k] = element.value(bits);
        }
    }
    Ok(values)
}

/// Executes the wgmma `inst` for the warpgroup's 128 `lanes`.
pub fn execute(
    inst: &Inst,
    lanes: &mut [Thread<'_>],
    shared: &SharedMemory,
    shape: WgmmaShape,
) -> Result<(), Trap> {
    let WgmmaShape {
        n,
        elements: [element_a, element_b],
        transposed,
        a_in_registers,
    } = shape;
    let k_extent = element_a.k() as usize;
    let Some((operands, registers)) = inst.op.atom_operands() else {
        return Ok(());
    };
    let operand_value = |name: &str| {
        operands
            .iter()
            .find(|(operand, _, _)| operand == name)
            .map(|(_, value, _)| *value)
    };
    let list = |name: &str| {
        registers
            .iter()
            .find(|(list, _)| list == name)
            .map(|(_, values)| values.as_slice())
    };
    let accumulators: &[ValueId] = list("d").unwrap_or(&[]);
    let a = match (a_in_registers, operand_value("desc_a"), list("a")) {
        (false, Some(desc_a), _) => operand(
            shared,
            &decode(lanes[0].get(desc_a))?,
            64,
            transposed[0],
            element_a,
        )?,
        (true, _, Some(words)) if element_a.bits() == 16 => {
            register_operand(lanes, words, element_a)?
        }
        _ => {
            return Err(Trap::Fault(FaultKind::Unsupported(
                "a wgmma without its A operand".to_owned(),
            )));
        }
    };
    let Some(desc_b) = operand_value("desc_b") else {
        return Err(Trap::Fault(FaultKind::Unsupported(
            "a wgmma without B's descriptor".to_owned(),
        )));
    };
    if accumulators.len() != n / 2 || inst.results.len() != n / 2 || lanes.len() != 128 {
        return Err(Trap::Fault(FaultKind::Unsupported(
            "a wgmma whose accumulators are not N / 2 registers per thread".to_owned(),
        )));
    }
    // scale-d false: D = A·B, the old D ignored.
    let add_d = operand_value("scale_d").is_none_or(|flag| lanes[0].get(flag) != 0);
    let b = operand(
        shared,
        &decode(lanes[0].get(desc_b))?,
        n as u64,
        transposed[1],
        element_b,
    )?;
    for (thread, lane) in lanes.iter_mut().enumerate() {
        for (v, (input, result)) in accumulators.iter().zip(&inst.results).enumerate() {
            let (row, column) = fragment_position(thread, v);
            let products: f64 = (0..k_extent)
                .map(|k| a[row * k_extent + k] * b[column * k_extent + k])
                .sum();
            let c = match add_d {
                true => f64::from(f32::from_bits(lane.get(*input) as u32)),
                false => 0.0,
            };
            lane.set(*result, u64::from(((c + products) as f32).to_bits()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_place_elements_as_the_ptx_isa_says() {
        // K-major, 128-byte swizzle, SBO 1024: row 1, k 0 is at 128 ^ (1 << 4) = 144.
        let sw128 = (1u64 << 62) | (64 << 32) | (1 << 16);
        assert_eq!(decode(sw128).unwrap().address(1, 0, false).unwrap(), 144);
        assert_eq!(
            decode(sw128).unwrap().address(8, 3, false).unwrap(),
            1024 + 6
        );
        // Start 32 bytes in (the second k-block): row 2, k 0 at (256 + 32) ^ 32 = 256.
        let shifted = sw128 | 2;
        assert_eq!(decode(shifted).unwrap().address(2, 0, false).unwrap(), 256);
        // No swizzle, core matrices: LBO 128 between k-blocks, SBO 256 between rows of 8.
        let plain = (16u64 << 32) | (8 << 16);
        assert_eq!(
            decode(plain).unwrap().address(9, 9, false).unwrap(),
            256 + 128 + 16 + 2
        );
        // MN-major, 128-byte swizzle, LBO 8192 between 64-wide chunks, SBO 1024.
        let mn = (1u64 << 62) | (64 << 32) | (512 << 16);
        assert_eq!(
            decode(mn).unwrap().address(65, 1, true).unwrap(),
            (8192 + 128 + 2) ^ 16
        );
        // 64 and 32-byte swizzles XOR two and one row bits.
        let sw64 = (2u64 << 62) | (32 << 32);
        assert_eq!(
            decode(sw64).unwrap().address(3, 0, false).unwrap(),
            192 ^ 16
        );
        let sw32 = (3u64 << 62) | (16 << 32);
        assert_eq!(
            decode(sw32).unwrap().address(5, 0, false).unwrap(),
            160 ^ 16
        );
    }
}
