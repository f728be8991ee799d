//! Decoding a pair of FP8 values to the f16 pair they equal ([`kir::UnOp::E4m3x2ToF16x2`],
//! [`kir::UnOp::E5m2x2ToF16x2`]): the operand's low (or high) two bytes, the first in the
//! half's low byte; and encoding two f32 values as the FP8 pair nearest them
//! ([`kir::BinOp::F32x2ToE4m3x2`], [`kir::BinOp::F32x2ToE5m2x2`]).
//!
//! An e5m2 value is the high byte of the f16 it equals, so one byte permute places both
//! (infinities and NaNs included), on any target. e4m3 has `cvt.rn.f16x2.e4m3x2` from
//! sm_89 (PTX ISA 7.8, `cvt`); before it, the bytes are placed as for e5m2, each one's
//! seven low bits shifted into the f16's exponent and mantissa fields (the value times
//! 2^-8, since the biases are 7 and 15), multiplied back by 256 (exact: every e4m3 value,
//! subnormals included, is an f16), and the NaN (all seven bits set) selected apart.

use cute::Target;
use kir::BinOp;

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

/// The PTX for `target` of `op`, an FP8 pair encode, of the f32 registers `a` (the low
/// byte) and `b` into the b16 register `d`. From sm_89 one `cvt.rn.satfinite` (PTX ISA
/// 7.8), whose first source gives the high byte. Before it, each value is encoded with
/// integers as the emulator's model does (`emulator/src/arith/fp8.rs`): the f32's
/// magnitude rebiased and rounded to nearest even at the FP8 mantissa's last bit, or,
/// below the least normal value, its significand rounded at the least subnormal's
/// unit; the larger of the two kept to the largest finite byte, a NaN made `0x7f`, the
/// sign put back.
pub(super) fn pair_encode(op: BinOp, d: &str, a: &str, b: &str, target: Target) -> String {
    let (name, mantissa, bias, largest) = match op {
        BinOp::F32x2ToE5m2x2 => ("e5m2x2", 2, 15, 0x7b),
        _ => ("e4m3x2", 3, 7, 0x7e),
    };
    if target.arch() >= 89 {
        return format!("cvt.rn.satfinite.{name}.f32 {d}, {b}, {a};");
    }
    let shift = 23 - mantissa;
    let encode = |value: &str, byte: &str| {
        [
            format!("mov.b32 %fp8_x, {value};"),
            format!("shr.u32 {byte}, %fp8_x, 24;"),
            format!("and.b32 {byte}, {byte}, 0x80;"),
            "and.b32 %fp8_x, %fp8_x, 0x7FFFFFFF;".to_owned(),
            // A normal value: rebiased, rounded at bit `shift`.
            format!("sub.u32 %fp8_n, %fp8_x, {};", (127 - bias) << 23),
            format!("bfe.u32 %fp8_q, %fp8_n, {shift}, 1;"),
            "add.u32 %fp8_n, %fp8_n, %fp8_q;".to_owned(),
            format!("add.u32 %fp8_n, %fp8_n, {};", (1 << (shift - 1)) - 1),
            format!("shr.u32 %fp8_n, %fp8_n, {shift};"),
            // A subnormal one: the significand rounded at bit `s`, 151 - bias -
            // mantissa less the exponent, at most 31; half a unit less one is all ones
            // shifted right by 33 - s.
            "shr.u32 %fp8_e, %fp8_x, 23;".to_owned(),
            format!("sub.s32 %fp8_s, {}, %fp8_e;", 151 - bias - mantissa),
            "min.s32 %fp8_s, %fp8_s, 31;".to_owned(),
            "sub.s32 %fp8_t, 33, %fp8_s;".to_owned(),
            "shr.u32 %fp8_t, 0xFFFFFFFF, %fp8_t;".to_owned(),
            "and.b32 %fp8_m, %fp8_x, 0x7FFFFF;".to_owned(),
            "or.b32 %fp8_m, %fp8_m, 0x800000;".to_owned(),
            "shr.u32 %fp8_q, %fp8_m, %fp8_s;".to_owned(),
            "and.b32 %fp8_q, %fp8_q, 1;".to_owned(),
            "add.u32 %fp8_m, %fp8_m, %fp8_q;".to_owned(),
            "add.u32 %fp8_m, %fp8_m, %fp8_t;".to_owned(),
            "shr.u32 %fp8_m, %fp8_m, %fp8_s;".to_owned(),
            format!("setp.gt.u32 %fp8_p, %fp8_e, {};", 127 - bias),
            "selp.b32 %fp8_n, %fp8_n, %fp8_m, %fp8_p;".to_owned(),
            format!("min.u32 %fp8_n, %fp8_n, {largest};"),
            "setp.gt.u32 %fp8_p, %fp8_x, 0x7F800000;".to_owned(),
            "selp.b32 %fp8_n, 0x7F, %fp8_n, %fp8_p;".to_owned(),
            format!("or.b32 {byte}, {byte}, %fp8_n;"),
        ]
        .join(" ")
    };
    [
        "{ .reg .b32 %fp8_x, %fp8_n, %fp8_q, %fp8_e, %fp8_s, %fp8_t, %fp8_m, %fp8_lo, %fp8_hi;"
            .to_owned(),
        ".reg .b16 %fp8_d, %fp8_u; .reg .pred %fp8_p;".to_owned(),
        encode(a, "%fp8_lo"),
        encode(b, "%fp8_hi"),
        "shl.b32 %fp8_hi, %fp8_hi, 8;".to_owned(),
        "or.b32 %fp8_lo, %fp8_lo, %fp8_hi;".to_owned(),
        format!("mov.b32 {{{d}, %fp8_u}}, %fp8_lo; }}"),
    ]
    .join(" ")
}
