//! Element encodings: a tensor's values as the bytes the GPU reads (little-endian), and
//! back. Floats narrower than `f64` are rounded to nearest, ties to even, exactly once;
//! integers saturate. `empty` fills tensors with [`POISON_BYTE`], which every float type
//! reads as NaN, so an element a kernel never wrote fails `assert_close`.

use kir::Element;

/// The byte `empty` fills tensors with: all ones, a NaN in every float type.
pub const POISON_BYTE: u8 = 0xFF;

/// Writes `value` rounded to `element` into `out` (exactly `element.bytes()` long).
pub fn encode(element: Element, value: f64, out: &mut [u8]) {
    match element {
        Element::F16 => {
            out.copy_from_slice(&half::f16::from_f32(f64_to_f32_odd(value)).to_le_bytes())
        }
        Element::BF16 => out.copy_from_slice(&f32_to_bf16(f64_to_f32_odd(value)).to_le_bytes()),
        Element::F32 => out.copy_from_slice(&(value as f32).to_le_bytes()),
        Element::F64 => out.copy_from_slice(&value.to_le_bytes()),
        // Saturated to the largest finite value, as `cvt.rn.satfinite` does.
        Element::E4M3 => out[0] = float8::F8E4M3::from_f64(value).to_bits(),
        Element::E5M2 => out[0] = float8::F8E5M2::from_f64(value).to_bits(),
        Element::I8 => out.copy_from_slice(&(value as i8).to_le_bytes()),
        Element::U8 => out.copy_from_slice(&(value as u8).to_le_bytes()),
        Element::I16 => out.copy_from_slice(&(value as i16).to_le_bytes()),
        Element::U16 => out.copy_from_slice(&(value as u16).to_le_bytes()),
        Element::I32 => out.copy_from_slice(&(value as i32).to_le_bytes()),
        Element::U32 => out.copy_from_slice(&(value as u32).to_le_bytes()),
        Element::I64 => out.copy_from_slice(&(value as i64).to_le_bytes()),
        Element::U64 => out.copy_from_slice(&(value as u64).to_le_bytes()),
    }
}

/// Reads one element from `bytes` (at least `element.bytes()` long).
pub fn decode(element: Element, bytes: &[u8]) -> f64 {
    fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
        let mut out = [0; N];
        for (target, source) in out.iter_mut().zip(bytes) {
            *target = *source;
        }
        out
    }
    match element {
        Element::F16 => half::f16::from_le_bytes(array(bytes)).to_f64(),
        Element::BF16 => f64::from(f32::from_bits(
            u32::from(u16::from_le_bytes(array(bytes))) << 16,
        )),
        Element::F32 => f64::from(f32::from_le_bytes(array(bytes))),
        Element::F64 => f64::from_le_bytes(array(bytes)),
        Element::E4M3 => f64::from(float8::F8E4M3::from_bits(bytes[0]).to_f32()),
        Element::E5M2 => f64::from(float8::F8E5M2::from_bits(bytes[0]).to_f32()),
        Element::I8 => f64::from(i8::from_le_bytes(array(bytes))),
        Element::U8 => f64::from(u8::from_le_bytes(array(bytes))),
        Element::I16 => f64::from(i16::from_le_bytes(array(bytes))),
        Element::U16 => f64::from(u16::from_le_bytes(array(bytes))),
        Element::I32 => f64::from(i32::from_le_bytes(array(bytes))),
        Element::U32 => f64::from(u32::from_le_bytes(array(bytes))),
        Element::I64 => i64::from_le_bytes(array(bytes)) as f64,
        Element::U64 => u64::from_le_bytes(array(bytes)) as f64,
    }
}

/// `value` rounded to `element` and read back: what storing it in a tensor keeps.
pub fn round_to(element: Element, value: f64) -> f64 {
    let mut bytes = [0u8; 8];
    let width = element.bytes();
    encode(element, value, &mut bytes[..width]);
    decode(element, &bytes[..width])
}

/// Whether the element type is a floating-point one.
pub fn is_float(element: Element) -> bool {
    matches!(
        element,
        Element::F16 | Element::BF16 | Element::F32 | Element::F64 | Element::E4M3 | Element::E5M2
    )
}

/// `value` as `f32`, rounded to odd: when inexact, the result's last mantissa bit is set.
/// Rounding that to a narrower float (to nearest even) then gives the same result as
/// rounding `value` directly, since `f32` keeps more than two extra bits.
fn f64_to_f32_odd(value: f64) -> f32 {
    let nearest = value as f32;
    if !nearest.is_finite() || f64::from(nearest) == value || nearest.to_bits() & 1 == 1 {
        return nearest;
    }
    // Step one unit in the last place toward `value`: away from zero when the magnitude
    // was rounded down, toward zero when it was rounded up.
    let bits = nearest.to_bits();
    let rounded_up = f64::from(nearest).abs() > value.abs();
    f32::from_bits(if rounded_up { bits - 1 } else { bits + 1 })
}

/// `f32` to bfloat16 bits, to nearest even; NaN stays a (quiet) NaN.
fn f32_to_bf16(value: f32) -> u16 {
    let bits = value.to_bits();
    if value.is_nan() {
        return ((bits >> 16) | 0x0040) as u16;
    }
    let rounding = 0x7FFF + ((bits >> 16) & 1);
    (bits.wrapping_add(rounding) >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_rounds_to_nearest_even() {
        // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even mantissa, 1.
        assert_eq!(round_to(Element::BF16, 1.0 + 2f64.powi(-8)), 1.0);
        // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: even is 1 + 2^-6.
        assert_eq!(
            round_to(Element::BF16, 1.0 + 3.0 * 2f64.powi(-8)),
            1.0 + 2f64.powi(-6)
        );
        // Just above the tie (by less than f32 can hold) rounds up: no double rounding.
        assert_eq!(
            round_to(Element::BF16, 1.0 + 2f64.powi(-8) + 2f64.powi(-40)),
            1.0 + 2f64.powi(-7)
        );
        assert_eq!(
            round_to(Element::BF16, -(1.0 + 2f64.powi(-8) + 2f64.powi(-40))),
            -(1.0 + 2f64.powi(-7))
        );
        assert_eq!(round_to(Element::BF16, 1e39), f64::INFINITY);
    }

    #[test]
    fn f16_rounds_to_nearest_even() {
        assert_eq!(round_to(Element::F16, 1.0 + 2f64.powi(-11)), 1.0);
        assert_eq!(
            round_to(Element::F16, 1.0 + 2f64.powi(-11) + 2f64.powi(-40)),
            1.0 + 2f64.powi(-10)
        );
        assert_eq!(round_to(Element::F16, 65520.0), f64::INFINITY);
    }

    #[test]
    fn fp8_rounds_to_nearest_even_and_saturates() {
        // e4m3 keeps 3 mantissa bits: 1.0625 is a tie between 1.0 and 1.125.
        assert_eq!(round_to(Element::E4M3, 1.0625), 1.0);
        assert_eq!(round_to(Element::E4M3, 1.07), 1.125);
        assert_eq!(round_to(Element::E4M3, -1000.0), -448.0);
        assert_eq!(round_to(Element::E4M3, 2f64.powi(-9)), 2f64.powi(-9));
        // e5m2 keeps 2: 1.125 is a tie between 1.0 and 1.25.
        assert_eq!(round_to(Element::E5M2, 1.125), 1.0);
        assert_eq!(round_to(Element::E5M2, 1e6), 57344.0);
    }

    #[test]
    fn integers_saturate_and_truncate() {
        assert_eq!(round_to(Element::I8, 300.0), 127.0);
        assert_eq!(round_to(Element::U8, -5.0), 0.0);
        assert_eq!(round_to(Element::I16, -40000.0), -32768.0);
        assert_eq!(round_to(Element::U16, 70000.0), 65535.0);
        assert_eq!(decode(Element::I16, &[0x00, 0x80]), -32768.0);
        assert_eq!(decode(Element::U16, &[0xFF, 0xFF]), 65535.0);
        assert_eq!(round_to(Element::I32, -2.7), -2.0);
        assert_eq!(round_to(Element::I32, f64::NAN), 0.0);
    }

    #[test]
    fn poison_reads_as_nan_in_every_float_type() {
        let floats = [Element::F16, Element::BF16, Element::F32, Element::F64];
        for element in floats.into_iter().chain([Element::E4M3, Element::E5M2]) {
            let bytes = vec![POISON_BYTE; element.bytes()];
            assert!(decode(element, &bytes).is_nan(), "{}", element.name());
        }
        assert_eq!(decode(Element::I32, &[POISON_BYTE; 4]), -1.0);
    }

    #[test]
    fn names_round_trip() {
        for name in [
            "f16", "bf16", "f32", "f64", "e4m3", "e5m2", "i8", "u8", "i16", "u16", "i32", "u32",
            "i64", "u64",
        ] {
            assert_eq!(Element::from_name(name).map(Element::name), Some(name));
        }
        assert_eq!(Element::from_name("bool"), None);
    }
}
