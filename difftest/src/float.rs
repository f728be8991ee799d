//! IEEE 754 binary formats written out from the standard, not taken from a library the
//! compiler uses: decoding and encoding bits, and rounding an exact value (a float of a
//! wider format, or an integer) to nearest, ties to even, with subnormals and overflow
//! to infinity. Every value of the four formats is an `f64`, so the reference holds
//! floats as `f64`s that the dtype can represent.

/// A binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// binary16: 5 exponent bits, 10 fraction bits.
    F16,
    /// bfloat16: 8 exponent bits, 7 fraction bits.
    BF16,
    /// binary32.
    F32,
    /// binary64.
    F64,
}

impl Format {
    /// Fraction bits (the significand's precision less one).
    fn fraction_bits(self) -> u32 {
        match self {
            Format::F16 => 10,
            Format::BF16 => 7,
            Format::F32 => 23,
            Format::F64 => 52,
        }
    }

    /// Exponent bits.
    fn exponent_bits(self) -> u32 {
        match self {
            Format::F16 => 5,
            Format::BF16 | Format::F32 => 8,
            Format::F64 => 11,
        }
    }

    fn bias(self) -> i32 {
        (1 << (self.exponent_bits() - 1)) - 1
    }

    /// The value of `bits` (the low `1 + exponent + fraction` bits).
    pub fn decode(self, bits: u64) -> f64 {
        let m = self.fraction_bits();
        let e = self.exponent_bits();
        let fraction = bits & ((1 << m) - 1);
        let exponent = ((bits >> m) & ((1 << e) - 1)) as i32;
        let negative = (bits >> (m + e)) & 1 == 1;
        let magnitude = if exponent == (1 << e) - 1 {
            if fraction == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if exponent == 0 {
            scale(fraction as f64, 1 - self.bias() - m as i32)
        } else {
            scale(
                ((1u64 << m) | fraction) as f64,
                exponent - self.bias() - m as i32,
            )
        };
        if negative { -magnitude } else { magnitude }
    }

    /// The bits of `value`, which the format must represent; a NaN is the quiet NaN
    /// with only the top fraction bit set.
    pub fn encode(self, value: f64) -> u64 {
        let m = self.fraction_bits();
        let e = self.exponent_bits();
        let sign = u64::from(value.is_sign_negative()) << (m + e);
        let all_ones = (1u64 << e) - 1;
        if value.is_nan() {
            return (all_ones << m) | (1 << (m - 1));
        }
        if value.is_infinite() {
            return sign | (all_ones << m);
        }
        if value == 0.0 {
            return sign;
        }
        let (significand, exponent) = split(value.abs());
        // value = significand * 2^exponent, significand odd
        let top = exponent + 63 - significand.leading_zeros() as i32;
        let min_normal = 1 - self.bias();
        if top < min_normal {
            let fraction = significand << (exponent - (min_normal - m as i32));
            sign | fraction
        } else {
            let biased = (top + self.bias()) as u64;
            let fraction = (significand << (m as i32 - (top - exponent))) & ((1 << m) - 1);
            sign | (biased << m) | fraction
        }
    }

    /// `value` rounded to this format, to nearest with ties to even.
    pub fn round(self, value: f64) -> f64 {
        if !value.is_finite() || value == 0.0 {
            return value;
        }
        let (significand, exponent) = split(value.abs());
        self.round_exact(value < 0.0, u128::from(significand), exponent)
    }

    /// The integer `value` rounded to this format, once.
    pub fn round_int(self, value: i128) -> f64 {
        if value == 0 {
            return 0.0;
        }
        self.round_exact(value < 0, value.unsigned_abs(), 0)
    }

    /// `(-1)^negative * magnitude * 2^exponent` rounded to this format.
    fn round_exact(self, negative: bool, magnitude: u128, exponent: i32) -> f64 {
        let m = self.fraction_bits() as i32;
        let top = exponent + 127 - magnitude.leading_zeros() as i32;
        let min_normal = 1 - self.bias();
        let quantum = if top < min_normal {
            min_normal - m
        } else {
            top - m
        };
        let shift = quantum - exponent;
        let mut kept = if shift <= 0 {
            magnitude << (-shift)
        } else if shift > 128 {
            0
        } else {
            let kept = if shift == 128 { 0 } else { magnitude >> shift };
            let rest = if shift == 128 {
                magnitude
            } else {
                magnitude & ((1u128 << shift) - 1)
            };
            let half = 1u128 << (shift - 1);
            if rest > half || (rest == half && kept & 1 == 1) {
                kept + 1
            } else {
                kept
            }
        };
        let max_exponent = self.bias();
        let mut quantum = quantum;
        if kept >> (m + 1) != 0 {
            kept >>= 1;
            quantum += 1;
        }
        let magnitude = if kept != 0 && quantum + m > max_exponent {
            f64::INFINITY
        } else {
            scale(kept as f64, quantum)
        };
        if negative { -magnitude } else { magnitude }
    }
}

/// `value * 2^exponent`, exactly when the result is a double.
fn scale(mut value: f64, mut exponent: i32) -> f64 {
    while exponent > 600 {
        value *= 2f64.powi(600);
        exponent -= 600;
    }
    while exponent < -600 {
        value *= 2f64.powi(-600);
        exponent += 600;
    }
    value * 2f64.powi(exponent)
}

/// A positive finite double as (odd significand, exponent).
fn split(value: f64) -> (u64, i32) {
    let bits = value.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mut significand, mut exponent) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    let zeros = significand.trailing_zeros();
    significand >>= zeros;
    exponent += zeros as i32;
    (significand, exponent)
}

#[cfg(test)]
mod tests {
    use super::Format;

    #[test]
    fn halves_round_to_nearest_even_with_subnormals_and_overflow() {
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even gives 1.
        assert_eq!(Format::F16.round(1.0 + 2f64.powi(-11)), 1.0);
        assert_eq!(
            Format::F16.round(1.0 + 3.0 * 2f64.powi(-11)),
            1.0 + 2.0 * 2f64.powi(-10)
        );
        assert_eq!(Format::F16.round(65520.0), f64::INFINITY);
        assert_eq!(Format::F16.round(65519.0), 65504.0);
        assert_eq!(Format::F16.round(2f64.powi(-25)), 0.0);
        assert_eq!(Format::F16.round(2f64.powi(-25) * 1.5), 2f64.powi(-24));
        assert_eq!(Format::F16.encode(2f64.powi(-24)), 1);
        assert_eq!(Format::F16.encode(-2.0), 0xC000);
        assert_eq!(Format::BF16.round_int(257), 256.0);
        assert_eq!(Format::BF16.round_int(259), 260.0);
        assert_eq!(Format::F32.round_int(16_777_217), 16_777_216.0);
        assert_eq!(Format::F32.round_int(i128::from(u64::MAX)), 2f64.powi(64));
        assert_eq!(Format::F32.round(1e-46), 0.0);
        assert_eq!(
            Format::F32.round(f64::from(f32::MAX) * 1.0000001),
            f64::INFINITY
        );
    }

    #[test]
    fn encoding_inverts_decoding_for_every_half_and_many_singles() {
        for bits in 0..=0xFFFFu64 {
            for format in [Format::F16, Format::BF16] {
                let value = format.decode(bits);
                if !value.is_nan() {
                    assert_eq!(format.encode(value), bits, "{format:?} {bits:#x}");
                    assert_eq!(format.round(value), value);
                }
            }
            let single = (bits * 65_537) as u32;
            let value = f32::from_bits(single);
            if !value.is_nan() {
                assert_eq!(Format::F32.decode(u64::from(single)), f64::from(value));
                assert_eq!(Format::F32.encode(f64::from(value)), u64::from(single));
                assert_eq!(Format::F32.round(f64::from(value)), f64::from(value));
            }
        }
    }
}
