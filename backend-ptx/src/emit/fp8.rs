//! Decoding a pair of FP8 values to the f16 pair they equal ([`kir::UnOp::E4m3x2ToF16x2`],
//! [`kir::UnOp::E5m2x2ToF16x2`]): the operand's low (or high) two bytes, the first in the
//! half's low byte.
//!
//! An e5m2 value is the high byte of the f16 it equals, so one byte permute places both
//! (infinities and NaNs included), on any target. e4m3 has `cvt.rn.f16x2.e4m3x2` from
//! sm_89 (PTX ISA 7.8, `cvt`); before it, the bytes are placed as for e5m2, each one's
//! seven low bits shifted into the f16's exponent and mantissa fields (the value times
//! 2^-8, since the biases are 7 and 15), multiplied back by 256 (exact: every e4m3 value,
//! subnormals included, is an f16), and the NaN (all seven bits set) selected apart.

use cute::Target;

/// The `prmt` selector putting the pair's first byte at byte 1 of the result and its
/// second at byte 3, the others zero (bytes of the second source, 0): `b1 << 24 | b0 <<
/// 8` for the low pair (bytes 0 and 1), `b3 << 24 | b2 << 8` for the high one.
fn high_bytes(high: bool) -> &'static str {
    if high { "0x3424" } else { "0x1404" }
}

/// The PTX of `UnOp::E5m2x2ToF16x2 { high }` of the register `a` into `d`.
pub(super) fn e5m2_pair(d: &str, a: &str, high: bool) -> String {
    format!("prmt.b32 {d}, {a}, 0, {};", high_bytes(high))
}

/// The PTX for `target` of `UnOp::E4m3x2ToF16x2 { high }` of the register `a` into `d`.
pub(super) fn e4m3_pair(d: &str, a: &str, high: bool, target: Target) -> String {
    if target.arch() >= 89 {
        return format!(
            "{{ .reg .b16 %fp8_lo, %fp8_hi; mov.b32 {{%fp8_lo, %fp8_hi}}, {a}; \
                 cvt.rn.f16x2.e4m3x2 {d}, {}; }}",
            if high { "%fp8_hi" } else { "%fp8_lo" }
        );
    }
    [
        "{ .reg .b32 %fp8_t, %fp8_s, %fp8_k; .reg .b16 %fp8_lo, %fp8_hi, %fp8_mlo, %fp8_mhi;",
        ".reg .pred %fp8_plo, %fp8_phi;",
        &format!("prmt.b32 %fp8_t, {a}, 0, {};", high_bytes(high)),
        "and.b32 %fp8_s, %fp8_t, 0x80008000;",
        "and.b32 %fp8_t, %fp8_t, 0x7F007F00;",
        "mov.b32 {%fp8_mlo, %fp8_mhi}, %fp8_t;",
        "setp.eq.b16 %fp8_plo, %fp8_mlo, 0x7F00;",
        "setp.eq.b16 %fp8_phi, %fp8_mhi, 0x7F00;",
        "shr.b32 %fp8_t, %fp8_t, 1;",
        "or.b32 %fp8_t, %fp8_t, %fp8_s;",
        // 256 in each f16 half.
        "mov.b32 %fp8_k, 0x5C005C00;",
        "mul.rn.f16x2 %fp8_t, %fp8_t, %fp8_k;",
        "mov.b32 {%fp8_lo, %fp8_hi}, %fp8_t;",
        "selp.b16 %fp8_lo, 0x7FFF, %fp8_lo, %fp8_plo;",
        "selp.b16 %fp8_hi, 0x7FFF, %fp8_hi, %fp8_phi;",
        &format!("mov.b32 {d}, {{%fp8_lo, %fp8_hi}}; }}"),
    ]
    .join(" ")
}
