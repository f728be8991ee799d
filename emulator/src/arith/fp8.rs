//! Encoding f32 values as FP8 (e4m3, e5m2), as `cvt.rn.satfinite.e4m3x2.f32` (and
//! `.e5m2x2`) does: to the nearest FP8 value, ties to the even one, a magnitude beyond
//! the largest finite value (infinity included) to that value with its sign, a NaN to a
//! NaN (`0x7f` with the input's sign, as CUDA's `cuda_fp8.hpp` writes e4m3's).
//!
//! The model works on the f32's bits with integers alone, as the backend's sm_80
//! sequence does: a normal FP8 value's exponent and mantissa are the f32's rebiased and
//! rounded at the FP8 mantissa's last bit (a carry out of the mantissa steps the
//! exponent, as it should); below the least normal value the significand is shifted to
//! the subnormal's unit and rounded there.

use kir::BinOp;

/// An FP8 format.
struct Format {
    /// Mantissa bits.
    mantissa: u32,
    /// Exponent bias.
    bias: u32,
    /// The byte of the largest finite magnitude.
    largest: u32,
}

const E4M3: Format = Format {
    mantissa: 3,
    bias: 7,
    largest: 0x7e,
};

const E5M2: Format = Format {
    mantissa: 2,
    bias: 15,
    largest: 0x7b,
};

/// The FP8 pair `op` ([`BinOp::F32x2ToE4m3x2`] or [`BinOp::F32x2ToE5m2x2`]) makes of
/// the f32 registers `a` and `b`: a 16-bit register, `a`'s byte low; `None` for any
/// other operation.
pub(super) fn encode_pair(op: BinOp, a: u64, b: u64) -> Option<u64> {
    let format = match op {
        BinOp::F32x2ToE4m3x2 => &E4M3,
        BinOp::F32x2ToE5m2x2 => &E5M2,
        _ => return None,
    };
    let byte = |register: u64| u64::from(encode(format, register as u32));
    Some(byte(a) | byte(b) << 8)
}

/// The FP8 byte of `format` nearest the f32 whose bits are `bits`.
fn encode(format: &Format, bits: u32) -> u8 {
    let sign = (bits >> 24) & 0x80;
    let magnitude = bits & 0x7fff_ffff;
    if magnitude > 0x7f80_0000 {
        return (sign | 0x7f) as u8;
    }
    let exponent = magnitude >> 23;
    let code = if exponent > 127 - format.bias {
        let rebiased = magnitude - ((127 - format.bias) << 23);
        round(rebiased, 23 - format.mantissa)
    } else {
        // The significand in units of the least subnormal, 2^(1 - bias - mantissa):
        // shifted by 151 - bias - mantissa - exponent, at least 21 here; from 31 on,
        // every value rounds to zero.
        let significand = (magnitude & 0x7f_ffff) | 0x80_0000;
        let shift = (151 - format.bias - format.mantissa - exponent).min(31);
        round(significand, shift)
    };
    (sign | code.min(format.largest)) as u8
}

/// `value >> shift`, rounded to nearest even: half a unit less one, plus the bit that
/// stays lowest, carries into it exactly when the discarded bits are over half, or half
/// with that bit odd. `value` is below 2^31 and `shift` at most 31: nothing overflows.
fn round(value: u32, shift: u32) -> u32 {
    (value + (1 << (shift - 1)) - 1 + ((value >> shift) & 1)) >> shift
}
