//! wgmma's shared-memory matrix descriptors (sm_90a): which canonical layout a
//! shared operand tile is, found from the byte address of each of its elements.
//!
//! An operand tile of one wgmma is `rows x 16` 16-bit elements (`64 x 16` of A, `N x 16`
//! of B). The hardware finds element `(r, k)` from a 64-bit descriptor (PTX ISA, "Matrix
//! Descriptor Format"; HOPPER-BLACKWELL.md A.8, verified on an H100 for the 128-byte
//! swizzle): start address, leading and stride byte offsets (LBO, SBO), and a layout
//! type. With a swizzle of `x` bytes (128, 64, 32) the address is
//! `swizzle_x(start + offset)`, where the offset is
//! - K-major (K contiguous): `(r / 8) * SBO + (r % 8) * x + 2k` (LBO unused);
//! - MN-major (rows contiguous): `(r / w) * LBO + (k / 8) * SBO + (k % 8) * x + 2 (r % w)`
//!   with `w = x / 2` elements per swizzle row;
//!
//! and without a swizzle (8 x 16-byte core matrices), K-major only here:
//! `(r / 8) * SBO + (k / 8) * LBO + (r % 8) * 16 + 2 (k % 8)`.
//!
//! [`GmmaDescriptor::derive`] reads LBO and SBO off the tile's own addresses and keeps
//! the first form that reproduces every element; the swizzle applies to absolute
//! shared addresses, so the addresses given must be relative to a base aligned to the
//! swizzle's period.

use layout::{Int, LayoutError, SymInt};

use crate::{Codomain, Error, Tensor, swizzled};

/// Which dimension of an operand tile is contiguous.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Major {
    /// K contiguous (wgmma's transpose flag 0).
    K,
    /// M or N contiguous (flag 1).
    Mn,
}

/// The constant part of a wgmma shared-memory descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GmmaDescriptor {
    /// The swizzle span in bytes: 0 (none), 32, 64 or 128.
    pub swizzle: u32,
    /// Which dimension is contiguous.
    pub major: Major,
    /// The leading-dimension byte offset.
    pub lbo: i64,
    /// The stride-dimension byte offset.
    pub sbo: i64,
    /// The unswizzled address of element `(0, 0)`, relative to the aligned base.
    pub start: i64,
}

/// The elements along K of one wgmma's operand tile (16-bit types).
const K: usize = 16;

impl GmmaDescriptor {
    /// The descriptor that reproduces `bytes`, the byte address of element `(r, k)` at
    /// `bytes[r + rows * k]` (16-bit elements), relative to a base aligned to 1024
    /// bytes; or why no descriptor can express the tile.
    pub fn derive(bytes: &[i64], rows: usize) -> Result<GmmaDescriptor, Error> {
        if rows == 0 || !rows.is_multiple_of(8) || bytes.len() != rows * K {
            return Err(Error::Inconsistent(format!(
                "a wgmma operand tile is a multiple of 8 rows by {K}; this one has {} elements for {rows} rows",
                bytes.len()
            )));
        }
        let at = |r: usize, k: usize| bytes[r + rows * k];
        let mut candidates = Vec::new();
        for swizzle in [128u32, 64, 32, 0] {
            let start = swizzled(at(0, 0), swizzle);
            let unswizzled = |r: usize, k: usize| swizzled(at(r, k), swizzle) - start;
            let down = |r: usize| if r < rows { unswizzled(r, 0) } else { 0 };
            if swizzle == 0 {
                candidates.push(GmmaDescriptor {
                    swizzle,
                    major: Major::K,
                    lbo: unswizzled(0, 8),
                    sbo: down(8),
                    start,
                });
                continue;
            }
            candidates.push(GmmaDescriptor {
                swizzle,
                major: Major::K,
                lbo: 16,
                sbo: down(8),
                start,
            });
            let row = swizzle as usize / 2;
            candidates.push(GmmaDescriptor {
                swizzle,
                major: Major::Mn,
                lbo: down(row),
                sbo: unswizzled(0, 8),
                start,
            });
        }
        let fits = |descriptor: &GmmaDescriptor| {
            let fields_fit = [descriptor.lbo, descriptor.sbo]
                .iter()
                .all(|offset| (0..1 << 18).contains(offset) && offset % 16 == 0);
            fields_fit && (0..K).all(|k| (0..rows).all(|r| descriptor.address(r, k) == at(r, k)))
        };
        candidates.into_iter().find(fits).ok_or_else(|| {
            Error::Inconsistent(format!(
                "no wgmma descriptor reads this {rows} x {K} tile: its rows (K-major) or columns (MN-major) must be 16-bit elements in 8-row groups of 32, 64 or 128-byte swizzled rows, or 8 x 16-byte core matrices, each group a fixed stride from the last"
            ))
        })
    }

    /// The byte address the hardware reads element `(r, k)` from.
    pub fn address(&self, r: usize, k: usize) -> i64 {
        let (r, k) = (r as i64, k as i64);
        let x = i64::from(self.swizzle);
        let offset = match (self.swizzle, self.major) {
            (0, _) => (r / 8) * self.sbo + (k / 8) * self.lbo + (r % 8) * 16 + 2 * (k % 8),
            (_, Major::K) => (r / 8) * self.sbo + (r % 8) * x + 2 * k,
            (_, Major::Mn) => {
                let w = x / 2;
                (r / w) * self.lbo + (k / 8) * self.sbo + (k % 8) * x + 2 * (r % w)
            }
        };
        swizzled(self.start + offset, self.swizzle)
    }

    /// The descriptor's bits but the start address: LBO, SBO (each in 16-byte units)
    /// and the layout type (1: 128-byte swizzle, 2: 64, 3: 32, 0: none).
    pub fn constant_bits(&self) -> u64 {
        let layout: u64 = match self.swizzle {
            128 => 1,
            64 => 2,
            32 => 3,
            _ => 0,
        };
        let field = |bytes: i64| (bytes as u64 >> 4) & 0x3FFF;
        (field(self.lbo) << 16) | (field(self.sbo) << 32) | (layout << 62)
    }

    /// wgmma's transpose flag for this operand: 0 K-major, 1 MN-major.
    pub fn transpose_flag(&self) -> u32 {
        u32::from(self.major == Major::Mn)
    }
}

/// The byte offsets, from the start of its shared buffer, of `tensor`'s elements at
/// the layout values `first + values[i]`, for the thread whose indices `thread` gives,
/// with the other run-time variables at zero (the first pipeline stage). What those
/// variables add must move whole periods of `period` bytes, so that the swizzle the
/// hardware applies to absolute addresses is unchanged: in a swizzled buffer, a
/// multiple of the inner layout's last mode (the stage) whose stride is a multiple of
/// the period, with every element's index below that mode.
pub fn operand_bytes(
    tensor: &Tensor,
    (first, values): (&SymInt, &[i64]),
    period: i64,
    thread: &dyn Fn(&str) -> Option<i64>,
) -> Result<Vec<i64>, Error> {
    let bytes = tensor.dtype.map_or(0, |dtype| dtype.bits() / 8);
    let moving = |what: String| Err(Error::Inconsistent(what));
    let (rest, start) = first.substitute(thread)?.split_constant();
    let whole_periods = |below: i64, stride: i64| {
        let divisor = rest.provable_divisor(&|_| false);
        divisor % below.unsigned_abs().max(1) == 0 && (stride * bytes) % period == 0
    };
    match &tensor.layout.codomain {
        Codomain::Swizzled(composed) => {
            let inner = composed.inner();
            let last = inner.mode(inner.rank().saturating_sub(1))?;
            let below = inner.size()? / last.size()?.max(1);
            let stride = last.stride().leaves().first().copied().unwrap_or(0);
            let within = values.iter().all(|value| start + value < below);
            let stages_only = within && last.stride().leaves().len() == 1;
            if !(rest.is_static(0) || stages_only && whole_periods(below, stride)) {
                return moving(format!(
                    "its position moves by {rest} elements at run time, which is not a whole number of stages of {period}-byte swizzle periods"
                ));
            }
            // A tile outside the buffer (the producer warpgroup's, whose thread index
            // reaches before the consumers' rows) is an error of its own kind.
            let size = inner.size()?;
            if let Some(outside) = values
                .iter()
                .map(|value| start + value)
                .find(|index| !(0..size).contains(index))
            {
                return Err(Error::Layout(LayoutError::CoordinateOutOfRange {
                    coordinate: outside.to_string(),
                    shape: size.to_string(),
                }));
            }
            values
                .iter()
                .map(|value| Ok(composed.evaluate_index(start + value)? * bytes))
                .collect()
        }
        Codomain::Offsets => {
            if !rest.is_static(0) && !whole_periods(1, 1) {
                return moving(format!(
                    "its position moves by {rest} elements at run time, not a multiple of the {period}-byte swizzle period"
                ));
            }
            Ok(values.iter().map(|value| (start + value) * bytes).collect())
        }
        Codomain::Coordinates(_) => moving("a coordinate tensor has no memory".to_owned()),
    }
}

/// The descriptor of the `rows x K` tile (`K` elements in 32 bytes: 16 of a 16-bit type,
/// 32 of an 8-bit one, which must be K-major) whose element `(r, k)` is `tensor`'s layout
/// value `first + values[r + rows k]`, as every one of `warpgroups` warpgroups that
/// `runs` says may run the `gemm` sees it (thread `128 w` standing for warpgroup `w`; a
/// warpgroup whose tile falls outside the buffer is taken not to run it either): the
/// form (swizzle, major, LBO, SBO) all share, with the first one's start. Where a tile
/// starts within the swizzle pattern may differ between warpgroups: the start address
/// is computed at run time.
pub fn warpgroup_descriptor(
    tensor: &Tensor,
    (first, values): (&SymInt, &[i64]),
    rows: usize,
    warpgroups: i64,
    runs: &dyn Fn(i64) -> bool,
) -> Result<GmmaDescriptor, Error> {
    let mut found: Option<GmmaDescriptor> = None;
    let mut skipped = None;
    for warpgroup in (0..warpgroups.max(1)).filter(|&warpgroup| runs(warpgroup)) {
        let thread = warpgroup * 128;
        let value_of = |name: &str| match name {
            "thread_idx.x" => Some(thread),
            "thread_idx.y" | "thread_idx.z" => Some(0),
            _ => None,
        };
        // A warpgroup whose thread index puts the tile outside its buffer does not run
        // this code (a producer warpgroup, in a warp-specialized kernel).
        let bytes = match operand_bytes(tensor, (first, values), 1024, &value_of) {
            Err(Error::Layout(error)) if warpgroups > 1 => {
                skipped.get_or_insert(Error::Layout(error));
                continue;
            }
            other => other?,
        };
        let descriptor = crate::umma::descriptor_of_elements(tensor, &bytes, rows)?;
        let form = |d: &GmmaDescriptor| (d.swizzle, d.major, d.lbo, d.sbo);
        match &found {
            None => found = Some(descriptor),
            Some(first) if form(first) != form(&descriptor) => {
                return Err(Error::Inconsistent(format!(
                    "warpgroup {warpgroup}'s tile has another layout than warpgroup 0's"
                )));
            }
            Some(_) => {}
        }
    }
    match (found, skipped) {
        (Some(found), _) => Ok(found),
        (None, Some(error)) => Err(error),
        (None, None) => Err(Error::Inconsistent("no warpgroup".to_owned())),
    }
}

/// The layout values of the first mode of `tensor` (an MMA partition's values of one
/// atom), relative to the tensor's start: the same at every position of the other
/// modes, which add to the start.
/// `count` above `MAX_OPERAND_VALUES` is an error before any table is built.
pub fn first_mode_values(tensor: &Tensor, count: i64) -> Result<Vec<i64>, Error> {
    crate::umma::too_many_for_an_operand(count)?;
    let mode = tensor.layout.layout.mode(0)?.to_static()?;
    if mode.size()? != count {
        return Err(Error::Inconsistent(format!(
            "its first mode holds {} values, not the atom's {count}",
            mode.size()?
        )));
    }
    Ok(mode.table(count.unsigned_abs())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tile of `rows` rows of 64 bf16 (128 bytes) with CuTe's Swizzle<3,4,3> on bytes,
    /// starting `column` elements into each row.
    fn k_major_sw128(rows: usize, column: i64) -> Vec<i64> {
        let mut bytes = vec![0; rows * K];
        for k in 0..K {
            for r in 0..rows {
                bytes[r + rows * k] = swizzled(r as i64 * 128 + 2 * (column + k as i64), 128);
            }
        }
        bytes
    }

    #[test]
    fn a_k_major_128_byte_swizzled_tile_gives_cutes_descriptor() {
        let descriptor = GmmaDescriptor::derive(&k_major_sw128(64, 0), 64).unwrap();
        assert_eq!((descriptor.swizzle, descriptor.major), (128, Major::K));
        assert_eq!((descriptor.sbo, descriptor.start), (1024, 0));
        // LBO 16 bytes (encoded 1), SBO 1024 (encoded 64), layout type 1.
        assert_eq!(
            descriptor.constant_bits(),
            (1 << 16) | (64 << 32) | (1 << 62)
        );
        // The third k-block starts 64 bytes into the rows: the start moves, not the form.
        let third = GmmaDescriptor::derive(&k_major_sw128(256, 32), 256).unwrap();
        assert_eq!((third.start, third.sbo, third.major), (64, 1024, Major::K));
    }

    #[test]
    fn an_mn_major_tile_in_64_element_chunks_reads_lbo_between_chunks() {
        // B as K = 16 rows of N = 128, two 64-wide chunks 8192 bytes apart (H100-verified form).
        let rows = 128;
        let mut bytes = vec![0; rows * K];
        for k in 0..K {
            for n in 0..rows {
                let offset = (n / 64) as i64 * 8192 + k as i64 * 128 + 2 * (n % 64) as i64;
                bytes[n + rows * k] = swizzled(offset, 128);
            }
        }
        let descriptor = GmmaDescriptor::derive(&bytes, rows).unwrap();
        assert_eq!(descriptor.major, Major::Mn);
        assert_eq!(
            (descriptor.lbo, descriptor.sbo, descriptor.transpose_flag()),
            (8192, 1024, 1)
        );
    }

    #[test]
    fn smaller_swizzles_and_core_matrices_are_found() {
        for (swizzle, width) in [(64u32, 32i64), (32, 16)] {
            let rows = 64;
            let mut bytes = vec![0; rows * K];
            for k in 0..K {
                for r in 0..rows {
                    let offset = r as i64 * 2 * width + 2 * k as i64;
                    bytes[r + rows * k] = swizzled(offset, swizzle);
                }
            }
            let descriptor = GmmaDescriptor::derive(&bytes, rows).unwrap();
            assert_eq!((descriptor.swizzle, descriptor.sbo), (swizzle, 16 * width));
        }
        // Core matrices: 8 rows x 16 bytes, K-blocks 128 bytes apart, row groups 256.
        let rows = 16;
        let mut bytes = vec![0; rows * K];
        for k in 0..K {
            for r in 0..rows {
                bytes[r + rows * k] = (r / 8) as i64 * 256
                    + (k / 8) as i64 * 128
                    + (r % 8) as i64 * 16
                    + 2 * (k % 8) as i64;
            }
        }
        let descriptor = GmmaDescriptor::derive(&bytes, rows).unwrap();
        assert_eq!(
            (descriptor.swizzle, descriptor.lbo, descriptor.sbo),
            (0, 128, 256)
        );
    }

    #[test]
    fn a_row_major_unswizzled_tile_has_no_descriptor() {
        // Rows of 64 bf16 without a swizzle: 16-byte chunks of a row are 128 bytes
        // apart from the next row's, which no form above reproduces for K-blocks.
        let rows = 64;
        let mut bytes = vec![0; rows * K];
        for k in 0..K {
            for r in 0..rows {
                bytes[r + rows * k] = r as i64 * 128 + 2 * k as i64;
            }
        }
        let error = GmmaDescriptor::derive(&bytes, rows)
            .unwrap_err()
            .to_string();
        assert!(error.contains("no wgmma descriptor"), "{error}");
    }
}
