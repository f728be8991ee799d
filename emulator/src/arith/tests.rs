//! Tests of `arith.rs`.

use super::*;

fn f(value: f32) -> u64 {
    f32_bits(value)
}

#[test]
fn integers_wrap_shift_and_divide_as_ptx_does() {
    let i32_of = |value: i32| from_int(Ty::I32, i64::from(value));
    let add = binary(BinOp::Add, Ty::I32, i32_of(i32::MAX), i32_of(1)).unwrap();
    assert_eq!(as_i32(add), i32::MIN);
    let shr = binary(BinOp::Shr, Ty::I32, i32_of(-8), i32_of(1)).unwrap();
    assert_eq!(as_i32(shr), -4);
    let far = binary(BinOp::Shr, Ty::I32, i32_of(-8), i32_of(40)).unwrap();
    assert_eq!(as_i32(far), -1);
    let gone = binary(BinOp::Shl, Ty::I64, 1, 64).unwrap();
    assert_eq!(gone, 0);
    let div = binary(BinOp::Div, Ty::I64, (-7i64) as u64, 2).unwrap();
    assert_eq!(div as i64, -3);
    let rem = binary(BinOp::Rem, Ty::I32, i32_of(-7), i32_of(2)).unwrap();
    assert_eq!(as_i32(rem), -1);
    let min = binary(BinOp::Min, Ty::I32, i32_of(-1), i32_of(3)).unwrap();
    assert_eq!(as_i32(min), -1);
    assert!(binary(BinOp::Xor, Ty::F32, 0, 0).is_err());
}

#[test]
fn float_comparisons_with_nan_are_false_but_not_equal_is_true() {
    let nan = f(f32::NAN);
    for op in [CmpOp::Eq, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge] {
        assert!(!compare(op, Ty::F32, nan, f(1.0)).unwrap());
    }
    assert!(compare(CmpOp::Ne, Ty::F32, nan, f(1.0)).unwrap());
    assert!(compare(CmpOp::Ne, Ty::F64, f64::NAN.to_bits(), f64::NAN.to_bits()).unwrap());
    assert!(compare(CmpOp::Ne, Ty::F32, f(2.0), f(1.0)).unwrap());
    assert!(compare(CmpOp::Lt, Ty::I32, from_int(Ty::I32, -1), 0).unwrap());
}

#[test]
fn min_and_max_prefer_numbers_and_order_zeros() {
    let max = binary(BinOp::Max, Ty::F32, f(f32::NAN), f(2.0)).unwrap();
    assert_eq!(as_f32(max), 2.0);
    let min = binary(BinOp::Min, Ty::F32, f(0.0), f(-0.0)).unwrap();
    assert!(as_f32(min).is_sign_negative());
    let max = binary(BinOp::Max, Ty::F32, f(-0.0), f(0.0)).unwrap();
    assert!(as_f32(max).is_sign_positive());
    let max = binary(BinOp::Max, Ty::F32, f(f32::NEG_INFINITY), f(-3.0)).unwrap();
    assert_eq!(as_f32(max), -3.0);
}

#[test]
fn conversions_round_to_nearest_even_and_truncate_toward_zero() {
    assert_eq!(f32_to_bf16(1.0), 0x3F80);
    // 1 + 2^-8 is halfway between two bf16 values: ties go to the even one.
    assert_eq!(f32_to_bf16(1.0 + 1.0 / 256.0), 0x3F80);
    assert_eq!(f32_to_bf16(1.0 + 3.0 / 256.0), 0x3F82);
    assert_eq!(convert(Ty::BF16, Ty::F32, 0x3F80).unwrap(), f(1.0));
    assert_eq!(convert(Ty::F32, Ty::F16, f(1.5)).unwrap(), 0x3E00);
    let truncated = convert(Ty::F32, Ty::I32, f(-2.7)).unwrap();
    assert_eq!(as_i32(truncated), -2);
    let saturated = convert(Ty::F32, Ty::I32, f(1e20)).unwrap();
    assert_eq!(as_i32(saturated), i32::MAX);
    assert_eq!(convert(Ty::F32, Ty::I32, f(f32::NAN)).unwrap(), 0);
    let narrowed = convert(Ty::I64, Ty::I32, (-1i64) as u64).unwrap();
    assert_eq!(as_i32(narrowed), -1);
    assert_eq!(convert(Ty::I64, Ty::I32, 1 << 32).unwrap(), 0);
    assert!(convert(Ty::F16, Ty::F64, 0).is_err());
}

#[test]
fn math_functions_approximate_within_an_ulp() {
    assert_eq!(as_f32(unary(UnOp::Exp2, Ty::F32, f(-2.0)).unwrap()), 0.25);
    // `.ftz`: 2^-130 is subnormal in f32, so 0; 2^-126 is the least normal.
    assert_eq!(as_f32(unary(UnOp::Exp2, Ty::F32, f(-130.0)).unwrap()), 0.0);
    assert_eq!(
        as_f32(unary(UnOp::Exp2, Ty::F32, f(-126.0)).unwrap()),
        f32::MIN_POSITIVE
    );
    assert_eq!(as_f32(unary(UnOp::Log2, Ty::F32, f(8.0)).unwrap()), 3.0);
    assert_eq!(as_f32(unary(UnOp::Rsqrt, Ty::F32, f(4.0)).unwrap()), 0.5);
    assert_eq!(unary(UnOp::Neg, Ty::F32, f(1.0)).unwrap(), f(-1.0));
    assert_eq!(unary(UnOp::Not, Ty::Pred, 1).unwrap(), 0);
    assert!(unary(UnOp::Exp2, Ty::F64, 0).is_err());
}

#[test]
fn fp8_pairs_decode_to_the_f16_they_equal() {
    // Each pair: the low byte into the low f16, the byte above into the high one.
    let e4m3 = |word: u64| unary(UnOp::E4m3x2ToF16x2 { high: false }, Ty::B32, word).unwrap();
    let e4m3_high = |word: u64| unary(UnOp::E4m3x2ToF16x2 { high: true }, Ty::B32, word).unwrap();
    // 1.0 (0x38) and -2.0 (0xc0); 448, the largest (0x7e), and 2^-9, the least
    // subnormal (0x01: f16 0x0080 is 2^-17, so 2^-9 is 0x1800).
    assert_eq!(e4m3(0xc038), 0xc000_3c00);
    assert_eq!(e4m3(0x017e), 0x1800_5f00);
    // The NaNs (0x7f, 0xff) are f16's canonical NaN; zeros keep their signs; only the
    // low two bytes are read.
    assert_eq!(e4m3(0xffff), 0x7fff_7fff);
    assert_eq!(e4m3(0xabcd_8000), 0x8000_0000);
    assert_eq!(e4m3_high(0xc038_ffff), 0xc000_3c00);
    let e5m2 = |word: u64| unary(UnOp::E5m2x2ToF16x2 { high: false }, Ty::B32, word).unwrap();
    let e5m2_high = |word: u64| unary(UnOp::E5m2x2ToF16x2 { high: true }, Ty::B32, word).unwrap();
    // Infinity (0x7c) and 1.5 (0x3e) are f16's high bytes.
    assert_eq!(e5m2(0x3e7c), 0x3e00_7c00);
    assert_eq!(e5m2_high(0x3e7c_0000), 0x3e00_7c00);
    assert!(unary(UnOp::E4m3x2ToF16x2 { high: false }, Ty::F32, 0).is_err());
}

#[test]
fn float_atomics_follow_the_backend() {
    let max =
        |old: f32, value: f32| as_f32(atomic(AtomicOp::Max, Ty::F32, f(old), f(value)).unwrap());
    assert_eq!(max(-3.0, -1.0), -1.0);
    assert_eq!(max(-1.0, -3.0), -1.0);
    assert_eq!(max(2.0, -3.0), 2.0);
    assert_eq!(max(-2.0, 3.0), 3.0);
    let min =
        |old: f32, value: f32| as_f32(atomic(AtomicOp::Min, Ty::F32, f(old), f(value)).unwrap());
    assert_eq!(min(-3.0, -1.0), -3.0);
    assert_eq!(min(2.0, -3.0), -3.0);
    assert_eq!(min(2.0, 1.0), 1.0);
    let tiny = f32::MIN_POSITIVE / 4.0;
    let sum = atomic(AtomicOp::Add, Ty::F32, f(tiny), f(0.0)).unwrap();
    assert_eq!(as_f32(sum), 0.0);
}

#[test]
fn unsigned_arithmetic_divides_shifts_and_compares_as_unsigned() {
    let big = 3_548_625_185u64;
    assert_eq!(binary(BinOp::Div, Ty::U32, big, 7).unwrap(), 506_946_455);
    assert_eq!(binary(BinOp::Rem, Ty::U32, big, 10).unwrap(), 5);
    assert_eq!(binary(BinOp::Shr, Ty::U32, big, 4).unwrap(), 221_789_074);
    assert_eq!(binary(BinOp::Sub, Ty::U32, 7, big).unwrap(), 746_342_118);
    assert_eq!(binary(BinOp::Max, Ty::U32, big, 7).unwrap(), big);
    assert_eq!(binary(BinOp::Shr, Ty::U64, u64::MAX, 60).unwrap(), 15);
    assert_eq!(
        binary(BinOp::Div, Ty::U64, u64::MAX, 3).unwrap(),
        u64::MAX / 3
    );
    assert!(compare(CmpOp::Gt, Ty::U32, big, 7).unwrap());
    assert!(compare(CmpOp::Lt, Ty::U64, 1, u64::MAX).unwrap());
    assert_eq!(unary(UnOp::Neg, Ty::U32, 1).unwrap(), 0xFFFF_FFFF);
}

#[test]
fn integer_conversions_extend_by_the_source_and_floats_by_unsigned_rules() {
    assert_eq!(convert(Ty::U32, Ty::I64, 0xFFFF_FFFF).unwrap(), 0xFFFF_FFFF);
    assert_eq!(convert(Ty::I32, Ty::U64, 0xFFFF_FFFF).unwrap(), u64::MAX);
    assert_eq!(convert(Ty::U64, Ty::U32, u64::MAX).unwrap(), 0xFFFF_FFFF);
    assert_eq!(
        as_f32(convert(Ty::U32, Ty::F32, 0xFFFF_FFFF).unwrap()),
        4_294_967_296.0
    );
    assert_eq!(convert(Ty::F32, Ty::U32, f(-3.5)).unwrap(), 0);
    assert_eq!(
        convert(Ty::F64, Ty::U64, 1e30f64.to_bits()).unwrap(),
        u64::MAX
    );
}

/// The FP8 byte of `op` for the f32 `value` (as an FP8 pair's low byte).
fn fp8_byte(op: BinOp, value: f32) -> u8 {
    binary(op, Ty::B16, f(value), f(0.0)).unwrap() as u8
}

#[test]
fn fp8_encoding_rounds_to_nearest_even_and_saturates_to_the_largest_finite_value() {
    let e4m3 = BinOp::F32x2ToE4m3x2;
    let e5m2 = BinOp::F32x2ToE5m2x2;
    let tiny = |power: i32| 2f32.powi(power);
    let table = [
        // The largest finite values, ties above them, and beyond: the largest.
        (e4m3, 448.0, 0x7e),
        (e4m3, 464.0, 0x7e),
        (e4m3, 465.0, 0x7e),
        (e4m3, -1.0e10, 0xfe),
        (e4m3, f32::INFINITY, 0x7e),
        (e4m3, f32::NEG_INFINITY, 0xfe),
        (e5m2, 57344.0, 0x7b),
        (e5m2, 61440.0, 0x7b),
        (e5m2, f32::INFINITY, 0x7b),
        (e5m2, -1.0e6, 0xfb),
        // Ties go to the even mantissa: 1.0625 between 1 and 1.125, 1.1875 between
        // 1.125 and 1.25; 1.125 and 1.375 in e5m2.
        (e4m3, 1.0625, 0x38),
        (e4m3, 1.1875, 0x3a),
        (e4m3, -1.0625, 0xb8),
        (e5m2, 1.125, 0x3c),
        (e5m2, 1.375, 0x3e),
        // Subnormals (e4m3's unit 2^-9, e5m2's 2^-16): half a unit ties to zero, a
        // unit and a half to two; just under the least normal value rounds up to it.
        (e4m3, tiny(-9), 0x01),
        (e4m3, tiny(-10), 0x00),
        (e4m3, 3.0 * tiny(-10), 0x02),
        (e4m3, 7.75 * tiny(-9), 0x08),
        (e4m3, tiny(-6), 0x08),
        (e4m3, tiny(-40), 0x00),
        (e5m2, tiny(-16), 0x01),
        (e5m2, tiny(-17), 0x00),
        (e5m2, -3.0 * tiny(-17), 0x82),
        (e5m2, tiny(-14), 0x04),
        // Zeros keep their signs; NaN is 0x7f with its sign.
        (e4m3, 0.0, 0x00),
        (e4m3, -0.0, 0x80),
        (e5m2, -0.0, 0x80),
        (e4m3, f32::NAN, 0x7f),
        (e4m3, -f32::NAN, 0xff),
        (e5m2, f32::NAN, 0x7f),
    ];
    for (op, value, byte) in table {
        assert_eq!(fp8_byte(op, value), byte, "{} {value}", op.name());
    }
    // The first operand's byte is the low one.
    assert_eq!(binary(e4m3, Ty::B16, f(1.0), f(-2.0)).unwrap(), 0xc038);
    assert!(binary(e4m3, Ty::B32, f(1.0), f(1.0)).is_err());
    assert!(binary(e4m3, Ty::I32, 0, 0).is_err());
}

#[test]
fn fp8_encoding_agrees_with_cuda_reference_conversion() {
    // float8 follows cuda_fp8.hpp's conversion with saturation to the finite range;
    // every FP8 value, the midpoints between neighbours and the f32s either side of
    // those, and a sweep over all f32 bit patterns.
    let reference = |op: BinOp, value: f32| match op {
        BinOp::F32x2ToE4m3x2 => float8::F8E4M3::from_f32(value).to_bits(),
        _ => float8::F8E5M2::from_f32(value).to_bits(),
    };
    let decode = |op: BinOp, byte: u8| match op {
        BinOp::F32x2ToE4m3x2 => float8::F8E4M3::from_bits(byte).to_f32(),
        _ => float8::F8E5M2::from_bits(byte).to_f32(),
    };
    for op in [BinOp::F32x2ToE4m3x2, BinOp::F32x2ToE5m2x2] {
        let mut values: Vec<f32> = (0..=u32::MAX).step_by(9973).map(f32::from_bits).collect();
        for byte in 0..0x7f_u8 {
            let (low, high) = (decode(op, byte), decode(op, byte + 1));
            let middle = (low + high) / 2.0;
            for value in [low, middle, high] {
                let bits = value.to_bits();
                values.extend([bits.saturating_sub(1), bits, bits + 1].map(f32::from_bits));
            }
        }
        for value in values.into_iter().filter(|value| !value.is_nan()) {
            for signed in [value, -value] {
                assert_eq!(
                    fp8_byte(op, signed),
                    reference(op, signed),
                    "{} {signed:e}",
                    op.name()
                );
            }
        }
    }
}
