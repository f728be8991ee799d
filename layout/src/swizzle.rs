//! CuTe's `Swizzle<B,M,S>`: a bit-permutation of offsets that spreads shared-memory
//! accesses over banks.
//!
//! An offset is read as bits `...YYY...ZZZ...` where the `ZZZ` field starts `base` bits
//! above bit 0, the `YYY` field lies `shift` bits above it, and both are `bits` wide.
//! Applying the swizzle XORs `YYY` into `ZZZ` and leaves every other bit alone:
//!
//! ```text
//! apply(x) = x ^ ((x & yyy_mask) >> shift)     shift >= 0
//! apply(x) = x ^ ((x & yyy_mask) << -shift)    shift <  0   (YYY lies below ZZZ)
//! ```
//!
//! with `yyy_mask = (2^bits - 1) << (base + max(0, shift))` and
//! `zzz_mask = (2^bits - 1) << (base - min(0, shift))`. A valid swizzle has
//! `|shift| >= bits`, so the two masks never overlap: the function is an involution
//! and a bijection on `[0, 2^(bits + base + |shift|))`. With `bits = 0` it is the
//! identity, whatever the shift (C++ CuTe's behaviour; pycute never returns for
//! `shift = 0`).
//!
//! `Sw<3,3,3>` (its printed form) is the standard 128-byte swizzle of 16-bit data:
//! bits 7..9 of the element offset select which 8-element chunk of a row is exchanged.

use std::fmt;
use std::str::FromStr;

use crate::LayoutError;

/// The largest `bits + base + |shift|`: every mask and the domain size fit in an `i64`.
pub const MAX_SWIZZLE_SPAN: i64 = 62;

/// A validated `Swizzle<bits, base, shift>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle {
    bits: u32,
    base: u32,
    shift: i32,
}

/// Why a swizzle's parameters or text were rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SwizzleError {
    /// `bits` was negative.
    NegativeBits(i64),
    /// `base` was negative.
    NegativeBase(i64),
    /// `|shift| < bits`: the YYY and ZZZ fields would overlap.
    ShiftSmallerThanBits {
        /// The requested mask width.
        bits: i64,
        /// The requested shift.
        shift: i64,
    },
    /// `bits + base + |shift|` exceeds [`MAX_SWIZZLE_SPAN`], so a mask would overflow.
    MaskOverflow {
        /// The requested mask width.
        bits: i64,
        /// The requested base.
        base: i64,
        /// The requested shift.
        shift: i64,
    },
    /// The text is not of the form `Sw<bits,base,shift>`.
    Syntax(String),
}

impl fmt::Display for SwizzleError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SwizzleError::NegativeBits(bits) => {
                write!(formatter, "swizzle bits must be non-negative, got {bits}")
            }
            SwizzleError::NegativeBase(base) => {
                write!(formatter, "swizzle base must be non-negative, got {base}")
            }
            SwizzleError::ShiftSmallerThanBits { bits, shift } => write!(
                formatter,
                "swizzle shift {shift} is smaller in magnitude than its {bits} bits, \
                 so the two bit fields would overlap"
            ),
            SwizzleError::MaskOverflow { bits, base, shift } => write!(
                formatter,
                "swizzle Sw<{bits},{base},{shift}> needs bits + base + |shift| <= \
                 {MAX_SWIZZLE_SPAN}"
            ),
            SwizzleError::Syntax(text) => {
                write!(
                    formatter,
                    "expected a swizzle such as Sw<3,3,3>, got `{text}`"
                )
            }
        }
    }
}

impl std::error::Error for SwizzleError {}

impl From<SwizzleError> for LayoutError {
    fn from(error: SwizzleError) -> LayoutError {
        match error {
            SwizzleError::Syntax(text) => LayoutError::Parse {
                column: 1,
                expected: "a swizzle such as Sw<3,3,3>".to_owned(),
                found: format!("`{text}`"),
            },
            other => LayoutError::Unsupported {
                operation: "swizzle",
                reason: other.to_string(),
            },
        }
    }
}

impl Swizzle {
    /// Validates and builds `Swizzle<bits, base, shift>`.
    pub fn new(bits: i64, base: i64, shift: i64) -> Result<Swizzle, SwizzleError> {
        if bits < 0 {
            return Err(SwizzleError::NegativeBits(bits));
        }
        if base < 0 {
            return Err(SwizzleError::NegativeBase(base));
        }
        let overflow = SwizzleError::MaskOverflow { bits, base, shift };
        let shift_magnitude = shift.checked_abs().ok_or_else(|| overflow.clone())?;
        if shift_magnitude < bits {
            return Err(SwizzleError::ShiftSmallerThanBits { bits, shift });
        }
        let span = bits
            .checked_add(base)
            .and_then(|sum| sum.checked_add(shift_magnitude));
        match span {
            Some(span) if span <= MAX_SWIZZLE_SPAN => {}
            _ => return Err(overflow),
        }
        // Every parameter is now within 0..=62 in magnitude.
        let narrow = |value: i64| i32::try_from(value).map_err(|_| overflow.clone());
        Ok(Swizzle {
            bits: narrow(bits)?.unsigned_abs(),
            base: narrow(base)?.unsigned_abs(),
            shift: narrow(shift)?,
        })
    }

    /// The identity swizzle `Sw<0,0,0>`.
    pub fn identity() -> Swizzle {
        Swizzle {
            bits: 0,
            base: 0,
            shift: 0,
        }
    }

    /// The width of the YYY and ZZZ fields (CuTe's `BBits`).
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The number of low bits left untouched (CuTe's `MBase`).
    pub fn base(&self) -> u32 {
        self.base
    }

    /// The distance from ZZZ up to YYY; negative when YYY lies below ZZZ (CuTe's `SShift`).
    pub fn shift(&self) -> i32 {
        self.shift
    }

    /// True when the swizzle changes no offset (`bits = 0`).
    pub fn is_identity(&self) -> bool {
        self.bits == 0
    }

    /// The bits read: `(2^bits - 1) << (base + max(0, shift))`.
    pub fn yyy_mask(&self) -> i64 {
        self.field_mask() << (self.base + self.shift.max(0).unsigned_abs())
    }

    /// The bits written: `(2^bits - 1) << (base - min(0, shift))`.
    pub fn zzz_mask(&self) -> i64 {
        self.field_mask() << (self.base + self.shift.min(0).unsigned_abs())
    }

    /// The size of the domain on which the swizzle is a permutation:
    /// `2^(bits + base + |shift|)`.
    pub fn size(&self) -> i64 {
        1_i64 << (self.bits + self.base + self.shift.unsigned_abs())
    }

    /// Swizzles one offset: `offset ^ shiftr(offset & yyy_mask, shift)`.
    pub fn apply(&self, offset: i64) -> i64 {
        let selected = offset & self.yyy_mask();
        let moved = if self.shift >= 0 {
            selected >> self.shift.unsigned_abs()
        } else {
            // `selected` has no bit above bit 61 - |shift|, so the left shift stays in range.
            selected << self.shift.unsigned_abs()
        };
        offset ^ moved
    }

    fn field_mask(&self) -> i64 {
        (1_i64 << self.bits) - 1
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}

impl FromStr for Swizzle {
    type Err = SwizzleError;

    /// Parses `Sw<bits,base,shift>`, whitespace allowed between the tokens.
    fn from_str(text: &str) -> Result<Swizzle, SwizzleError> {
        let syntax = || SwizzleError::Syntax(text.to_owned());
        let arguments = text
            .trim()
            .strip_prefix("Sw")
            .map(str::trim_start)
            .and_then(|rest| rest.strip_prefix('<'))
            .and_then(|rest| rest.trim_end().strip_suffix('>'))
            .ok_or_else(syntax)?;
        let numbers = arguments
            .split(',')
            .map(|number| number.trim().parse::<i64>().map_err(|_| syntax()))
            .collect::<Result<Vec<i64>, SwizzleError>>()?;
        match numbers.as_slice() {
            [bits, base, shift] => Swizzle::new(*bits, *base, *shift),
            _ => Err(syntax()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_of_the_128_byte_swizzle() {
        let swizzle = Swizzle::new(3, 3, 3).unwrap();
        assert_eq!(swizzle.yyy_mask(), 0b111_000_000);
        assert_eq!(swizzle.zzz_mask(), 0b000_111_000);
        assert_eq!(swizzle.size(), 512);
        assert_eq!(swizzle.apply(0b101_000_000), 0b101_101_000);
        assert_eq!(swizzle.apply(0b101_011_111), 0b101_110_111);
    }

    #[test]
    fn negative_shift_moves_low_bits_up() {
        // Sw<2,1,-3>: YYY = bits 1..2, ZZZ = bits 4..5.
        let swizzle = Swizzle::new(2, 1, -3).unwrap();
        assert_eq!(swizzle.yyy_mask(), 0b000_110);
        assert_eq!(swizzle.zzz_mask(), 0b110_000);
        assert_eq!(swizzle.apply(0b000_010), 0b010_010);
        assert_eq!(swizzle.apply(0b110_110), 0b000_110);
    }

    #[test]
    fn zero_bits_is_the_identity_even_with_zero_shift() {
        for swizzle in [
            Swizzle::new(0, 0, 0).unwrap(),
            Swizzle::new(0, 4, -2).unwrap(),
        ] {
            assert!(swizzle.is_identity());
            for offset in [-7, 0, 1, 5, 1023] {
                assert_eq!(swizzle.apply(offset), offset);
            }
        }
        assert_eq!(Swizzle::identity(), Swizzle::new(0, 0, 0).unwrap());
    }

    #[test]
    fn nonsense_parameters_are_typed_errors() {
        assert_eq!(Swizzle::new(-1, 0, 0), Err(SwizzleError::NegativeBits(-1)));
        assert_eq!(Swizzle::new(1, -2, 1), Err(SwizzleError::NegativeBase(-2)));
        assert_eq!(
            Swizzle::new(3, 0, 2),
            Err(SwizzleError::ShiftSmallerThanBits { bits: 3, shift: 2 })
        );
        assert!(matches!(
            Swizzle::new(30, 10, 30),
            Err(SwizzleError::MaskOverflow { .. })
        ));
        assert!(matches!(
            Swizzle::new(1, 0, i64::MIN),
            Err(SwizzleError::MaskOverflow { .. })
        ));
        assert!(Swizzle::new(20, 22, -20).is_ok());
    }

    #[test]
    fn display_and_parse_round_trip() {
        let swizzle = Swizzle::new(2, 4, -3).unwrap();
        assert_eq!(swizzle.to_string(), "Sw<2,4,-3>");
        assert_eq!("Sw<2,4,-3>".parse::<Swizzle>(), Ok(swizzle));
        assert_eq!(" Sw < 2 , 4 , -3 > ".parse::<Swizzle>(), Ok(swizzle));
        for bad in [
            "Sw<1,2>",
            "Sw<1,2,3,4>",
            "Sw(3,3,3)",
            "Sw<a,3,3>",
            "SW<3,3,3>",
            "",
        ] {
            assert!(matches!(
                bad.parse::<Swizzle>(),
                Err(SwizzleError::Syntax(_))
            ));
        }
        assert_eq!(
            "Sw<3,0,1>".parse::<Swizzle>(),
            Err(SwizzleError::ShiftSmallerThanBits { bits: 3, shift: 1 })
        );
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_parameters_and_text_never_panic(
            bits in proptest::num::i64::ANY,
            base in proptest::num::i64::ANY,
            shift in proptest::num::i64::ANY,
            offset in proptest::num::i64::ANY,
            text in "[Sw<>0-9, -]{0,16}",
        ) {
            if let Ok(swizzle) = Swizzle::new(bits, base, shift) {
                proptest::prop_assert_eq!(swizzle.apply(swizzle.apply(offset)), offset);
            }
            let _ = text.parse::<Swizzle>();
        }
    }
}
