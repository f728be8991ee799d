//! `tcgen05.mma.cta_group::1.kind::f16` (and `kind::tf32`, `kind::f8f6f4`) with A and B
//! in shared memory, by one thread: `D (M x N, f32, tensor memory) += A (M x K) · B (N x
//! K)ᵀ` (`=` when its enable operand is false), K = 16 (bf16, f16), 8 (tf32) or 32
//! (e4m3, e5m2), run to completion when it is issued (so a `tcgen05.commit` after it
//! arrives at once).
//!
//! Facts, from the PTX ISA (tcgen05 "Instruction descriptor", "Shared memory
//! descriptor", "Matrix fragments") and CUTLASS's `cute/arch/mma_sm100_desc.hpp`
//! (HOPPER-BLACKWELL.md D.4, D.5, D.7), written here independently of the compiler's
//! encoding so that the emulator checks it:
//! - the instruction descriptor: bits 0-3 (sparsity, saturation) 0; D's format in
//!   bits 4-5, 1 for f32; A's and B's formats in bits 7-9 and 10-12, 0 f16 and 1 bf16
//!   (kind::f16), 2 tf32 (kind::tf32; a tf32 element `(r, k)` is the four bytes at the
//!   16-bit element `(r, 2k)` of the canonical layout, its 13 low mantissa bits ignored),
//!   0 e4m3 and 1 e5m2 (kind::f8f6f4, CUTLASS's `MXF8F6F4Format`, A's and B's each their
//!   own; an 8-bit element `(r, k)` is byte `k % 2` of the 16-bit element `(r, k / 2)`);
//!   negation bits 13 and 14 clear; A MN-major if bit 15, B if bit 16; N = 8 × bits
//!   17-22; M = 16 × bits 24-28;
//! - a shared-memory descriptor: start `(d & 0x3FFF) << 4`, LBO `((d >> 16) & 0x3FFF)
//!   << 4`, SBO `((d >> 32) & 0x3FFF) << 4`, bits 46-48 the version 0b001, base offset
//!   (bits 49-51) and LBO mode (bit 52) 0, layout `d >> 61`: 0 none, 2 a 128-byte, 4 a
//!   64-byte, 6 a 32-byte swizzle; the canonical layouts are wgmma's
//!   ([`SharedTile::address`]);
//! - with M = 128, D's row m is tensor-memory lane `lane(taddr) + m` and its column n
//!   is column `column(taddr) + n` (an address: lane in bits 31-16, column in 15-0);
//! - a CTA pair's (`cta_group::2`, M = 256, HOPPER-BLACKWELL.md D.8): each block of the
//!   pair holds 128 rows of A and N / 2 rows of B at the same shared offsets (the even
//!   block's first), and D's rows 0-127 land in the even block's tensor memory, rows
//!   128-255 in the odd one's, each at `taddr`;
//! - A in tensor memory (`[a_taddr]`, K-major, B's format): row m is lane m from
//!   `lane(a_taddr)` (each block of a pair its own 128 rows), its K elements packed
//!   into 32-bit columns from `column(a_taddr)`, as many a column as fit, the first in
//!   the low bits (as `tcgen05.st` of packed registers leaves them; the form
//!   FlashAttention-4 feeds P through).
//!
//! Arithmetic as the wgmma model's: exact products, summed in f64, rounded once.

use kir::MmaKind;

use crate::atoms::wgmma::{Element, SharedTile, operand, unsupported};
use crate::fault::Trap;
use crate::shared::SharedMemory;
use crate::tmem::TensorMemory;

/// The element of format field value `format` in an MMA of `kind`, if the kind has it.
fn element(kind: MmaKind, format: u32) -> Option<Element> {
    Some(match (kind, format) {
        (MmaKind::F16, 0) => Element::F16,
        (MmaKind::F16, 1) => Element::Bf16,
        (MmaKind::Tf32, 2) => Element::Tf32,
        (MmaKind::F8f6f4, 0) => Element::E4m3,
        (MmaKind::F8f6f4, 1) => Element::E5m2,
        _ => return None,
    })
}

/// The shape and types an instruction descriptor gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// M.
    pub m: u64,
    /// N.
    pub n: u64,
    /// A's and B's element types.
    pub elements: [Element; 2],
    /// Whether A and B are MN-major.
    pub transposed: [bool; 2],
}

/// The MMA of `kind` an instruction descriptor describes, if the model runs it: M = 128
/// for a block's, 256 for a CTA pair's (`pair`).
pub fn instruction(idesc: u32, (kind, pair): (MmaKind, bool)) -> Result<Instruction, Trap> {
    let bits = |shift: u32, width: u32| (idesc >> shift) & ((1 << width) - 1);
    let (d_format, a_format, b_format) = (bits(4, 2), bits(7, 3), bits(10, 3));
    let elements = (element(kind, a_format), element(kind, b_format));
    let one_format = a_format == b_format || kind == MmaKind::F8f6f4;
    let plain = bits(0, 4) == 0 && bits(13, 2) == 0 && d_format == 1 && one_format;
    let (true, (Some(a), Some(b))) = (plain, elements) else {
        return Err(unsupported(&format!(
            "a {kind:?} tcgen05.mma with instruction descriptor {idesc:#010x} (the model takes f32 D, A and B of formats the kind has, of one format but in kind::f8f6f4, no sparsity or negation)"
        )));
    };
    let (m, n) = (u64::from(bits(24, 5)) * 16, u64::from(bits(17, 6)) * 8);
    let (rows, group) = if pair { (256, 2) } else { (128, 1) };
    if m != rows || n == 0 || n > 256 || !n.is_multiple_of(8 * group) {
        return Err(unsupported(&format!(
            "a cta_group::{group} tcgen05.mma of M = {m}, N = {n} (the model takes M = {rows})"
        )));
    }
    Ok(Instruction {
        m,
        n,
        elements: [a, b],
        transposed: [bits(15, 1) == 1, bits(16, 1) == 1],
    })
}

/// The tile an SM100 shared-memory descriptor names.
pub fn decode(descriptor: u64) -> Result<SharedTile, Trap> {
    let field = |shift: u32| ((descriptor >> shift) & 0x3FFF) << 4;
    if (descriptor >> 46) & 7 != 1 || (descriptor >> 49) & 0xF != 0 {
        return Err(unsupported(&format!(
            "a tcgen05 shared-memory descriptor {descriptor:#018x} without version 1 in bits 46-48, or with a base offset or absolute LBO"
        )));
    }
    let swizzle = match descriptor >> 61 {
        0 => 0,
        2 => 128,
        4 => 64,
        6 => 32,
        layout => {
            return Err(unsupported(&format!(
                "a tcgen05 shared-memory descriptor of layout {layout}"
            )));
        }
    };
    Ok(SharedTile {
        start: field(0),
        lbo: field(16),
        sbo: field(32),
        swizzle,
    })
}

/// Where an MMA reads A.
#[derive(Clone, Copy, Debug)]
pub enum OperandA {
    /// Shared memory, through this descriptor.
    Shared(u64),
    /// Tensor memory from this address.
    Tmem(u32),
}

/// An issued MMA: D's tensor-memory address, A's source and B's descriptor, the
/// instruction descriptor, its kind, and whether it adds to D.
#[derive(Clone, Copy, Debug)]
pub struct Issue {
    /// D's tensor-memory address.
    pub taddr: u32,
    /// Where A is.
    pub a: OperandA,
    /// B's shared-memory descriptor.
    pub desc_b: u64,
    /// The instruction descriptor.
    pub idesc: u32,
    /// Its kind.
    pub kind: MmaKind,
    /// Whether D is added to (else overwritten).
    pub accumulate: bool,
}

/// The lanes and columns (first, one past the last) of the accumulator at `taddr` an MMA
/// of `shape` writes `rows` rows of (f32: a column per element).
pub fn accumulator(taddr: u32, shape: Instruction, rows: u64) -> ((u32, u32), (u32, u32)) {
    let (lane, column) = (taddr >> 16, taddr & 0xFFFF);
    let (rows, columns) = (rows as u32, shape.n as u32);
    ((lane, lane + rows), (column, column + columns))
}

/// The lanes and columns (first, one past the last) an MMA of `shape` reads A from at
/// tensor-memory `address` (M rows of K elements packed into 32-bit columns).
pub fn a_in_tmem(address: u32, shape: Instruction) -> ((u32, u32), (u32, u32)) {
    let (lane, column) = (address >> 16, address & 0xFFFF);
    let element = shape.elements[0];
    let columns = (element.k() as u32 * element.bits()).div_ceil(32);
    ((lane, lane + shape.m as u32), (column, column + columns))
}

/// Executes a block's `D += A Bᵀ` (or `=` unless it accumulates).
pub fn execute(shared: &SharedMemory, tmem: &mut TensorMemory, issue: Issue) -> Result<(), Trap> {
    let shape = instruction(issue.idesc, (issue.kind, false))?;
    let a = read_a(shared, tmem, issue.a, shape.m, shape)?;
    let b = read(shared, issue.desc_b, shape.n, 1, shape)?;
    multiply(tmem, issue, (&a, &b), shape.elements[0])
}

/// Executes a CTA pair's `D += A Bᵀ` (M = 256): each block holds 128 rows of A and N /
/// 2 rows of B at the descriptors' addresses (the even block's first) and receives its
/// 128 rows of D at `taddr` in its own tensor memory.
pub fn execute_pair(
    shared: [&SharedMemory; 2],
    tmem: [&mut TensorMemory; 2],
    issue: Issue,
) -> Result<(), Trap> {
    let shape = instruction(issue.idesc, (issue.kind, true))?;
    let mut b = read(shared[0], issue.desc_b, shape.n / 2, 1, shape)?;
    b.extend(read(shared[1], issue.desc_b, shape.n / 2, 1, shape)?);
    for (shared, tmem) in shared.into_iter().zip(tmem) {
        let a = read_a(shared, tmem, issue.a, shape.m / 2, shape)?;
        multiply(tmem, issue, (&a, &b), shape.elements[0])?;
    }
    Ok(())
}

/// `rows` rows of A, row-major, from shared or tensor memory.
fn read_a(
    shared: &SharedMemory,
    tmem: &TensorMemory,
    a: OperandA,
    rows: u64,
    shape: Instruction,
) -> Result<Vec<f64>, Trap> {
    let address = match a {
        OperandA::Shared(descriptor) => return read(shared, descriptor, rows, 0, shape),
        OperandA::Tmem(address) => address,
    };
    let element = shape.elements[0];
    if shape.transposed[0] {
        return Err(unsupported("an MN-major A in tensor memory"));
    }
    let bits = element.bits();
    let per_column = u64::from(32 / bits);
    let (lane, column) = (address >> 16, address & 0xFFFF);
    let mut values = Vec::new();
    for row in 0..rows as u32 {
        for k in 0..element.k() {
            let word = tmem.read(lane + row, column + (k / per_column) as u32)?;
            let shift = bits * (k % per_column) as u32;
            values.push(element.value(word.checked_shr(shift).unwrap_or(0)));
        }
    }
    Ok(values)
}

/// `rows` rows of operand `side` (0 A, 1 B) through `descriptor`, row-major.
fn read(
    shared: &SharedMemory,
    descriptor: u64,
    rows: u64,
    side: usize,
    shape: Instruction,
) -> Result<Vec<f64>, Trap> {
    let tile = decode(descriptor)?;
    operand(
        shared,
        &tile,
        rows,
        shape.transposed[side],
        shape.elements[side],
    )
}

/// D's rows (as many as `a` has) `+= a bᵀ` in `tmem` from `issue.taddr`'s lane and
/// column, exact products summed in f64 and rounded once.
fn multiply(
    tmem: &mut TensorMemory,
    issue: Issue,
    (a, b): (&[f64], &[f64]),
    element: Element,
) -> Result<(), Trap> {
    let k_extent = element.k() as usize;
    let (lane, column) = (issue.taddr >> 16, issue.taddr & 0xFFFF);
    for m in 0..a.len() / k_extent {
        for n in 0..b.len() / k_extent {
            let products: f64 = (0..k_extent)
                .map(|k| a[m * k_extent + k] * b[n * k_extent + k])
                .sum();
            let (lane, column) = (lane + m as u32, column + n as u32);
            let c = match issue.accumulate {
                true => f64::from(f32::from_bits(tmem.read(lane, column)?)),
                false => 0.0,
            };
            tmem.write(lane, column, ((c + products) as f32).to_bits())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_descriptors_decode_as_the_ptx_isa_says() {
        // HOPPER-BLACKWELL.md D.4's worked value: bf16, f32, K-major, M = 128, N = 256.
        let bf16 = instruction(0x0840_0490, (MmaKind::F16, false)).unwrap();
        assert_eq!(
            (bf16.m, bf16.n, bf16.elements),
            (128, 256, [Element::Bf16; 2])
        );
        assert_eq!(bf16.transposed, [false, false]);
        // f16 inputs (formats 0), B MN-major, N = 64.
        let f16 = instruction(
            (1 << 4) | (1 << 16) | (8 << 17) | (8 << 24),
            (MmaKind::F16, false),
        )
        .unwrap();
        assert_eq!(
            (f16.n, f16.elements, f16.transposed),
            (64, [Element::F16; 2], [false, true])
        );
        // tf32 (formats 2) in kind::tf32 only.
        let tf32 = (1 << 4) | (2 << 7) | (2 << 10) | (16 << 17) | (8 << 24);
        assert_eq!(
            instruction(tf32, (MmaKind::Tf32, false)).unwrap().elements,
            [Element::Tf32; 2]
        );
        // e4m3 (0) and e5m2 (1) in kind::f8f6f4, where A and B may differ.
        let fp8 = (1 << 4) | (1 << 10) | (32 << 17) | (8 << 24);
        assert_eq!(
            instruction(fp8, (MmaKind::F8f6f4, false)).unwrap().elements,
            [Element::E4m3, Element::E5m2]
        );
        assert!(instruction(fp8, (MmaKind::F16, false)).is_err());
        assert!(
            instruction(tf32, (MmaKind::F16, false)).is_err()
                && instruction(0x0840_0490, (MmaKind::Tf32, false)).is_err()
        );
        // M = 256 (D.4's worked value 0x10400490) for a CTA pair only.
        assert_eq!(
            instruction(0x1040_0490, (MmaKind::F16, true)).unwrap().m,
            256
        );
        assert!(instruction(0x1040_0490, (MmaKind::F16, false)).is_err());
        assert!(instruction(0x0840_0490, (MmaKind::F16, true)).is_err());
        // M = 64 and f16 D are outside the model.
        let m64 = instruction(0x0440_0490, (MmaKind::F16, false));
        assert!(m64.is_err() && instruction(0x0840_0480, (MmaKind::F16, false)).is_err());
    }

    #[test]
    fn shared_descriptors_decode_each_swizzle_mode() {
        let base = (1u64 << 16) | (64 << 32) | (1 << 46);
        for (layout, swizzle) in [(2u64, 128), (4, 64), (6, 32), (0, 0)] {
            let tile = decode(base | (layout << 61) | 0x20).unwrap();
            assert_eq!(
                (tile.start, tile.lbo, tile.sbo, tile.swizzle),
                (0x200, 16, 1024, swizzle)
            );
        }
        // K-major 128-byte swizzle: row 1, k 0 at 128 ^ 16; a 64-byte one: row 3 at 192 ^ 16.
        assert_eq!(
            decode(base | (2 << 61))
                .unwrap()
                .address(1, 0, false)
                .unwrap(),
            144
        );
        let sw64 = (32u64 << 32) | (1 << 46) | (4 << 61);
        assert_eq!(
            decode(sw64).unwrap().address(3, 0, false).unwrap(),
            192 ^ 16
        );
        let sw32 = (16u64 << 32) | (1 << 46) | (6 << 61);
        assert_eq!(
            decode(sw32).unwrap().address(5, 0, false).unwrap(),
            160 ^ 16
        );
        // Hopper's descriptor (no version bits, layout 1 in bit 62) is refused.
        assert!(decode((1u64 << 62) | (64 << 32)).is_err());
        assert!(decode(base | (3 << 61)).is_err());
    }
}
