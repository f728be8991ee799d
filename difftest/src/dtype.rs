//! The dtypes the language lists for scalar values, with what C says about each: its
//! width, whether it is signed, its range, and (for floats) its format.

use crate::float::Format;

/// A scalar dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// Signed 8-bit.
    I8,
    /// Signed 16-bit.
    I16,
    /// Signed 32-bit.
    I32,
    /// Signed 64-bit.
    I64,
    /// Unsigned 8-bit.
    U8,
    /// Unsigned 16-bit.
    U16,
    /// Unsigned 32-bit.
    U32,
    /// Unsigned 64-bit.
    U64,
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
    /// `bool`.
    Bool,
}

impl Dtype {
    /// Every integer dtype.
    pub const INTS: [Dtype; 8] = [
        Dtype::I8,
        Dtype::I16,
        Dtype::I32,
        Dtype::I64,
        Dtype::U8,
        Dtype::U16,
        Dtype::U32,
        Dtype::U64,
    ];
    /// Every float dtype.
    pub const FLOATS: [Dtype; 4] = [Dtype::F16, Dtype::BF16, Dtype::F32, Dtype::F64];

    /// The name CuK spells it with.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::I8 => "i8",
            Dtype::I16 => "i16",
            Dtype::I32 => "i32",
            Dtype::I64 => "i64",
            Dtype::U8 => "u8",
            Dtype::U16 => "u16",
            Dtype::U32 => "u32",
            Dtype::U64 => "u64",
            Dtype::F16 => "f16",
            Dtype::BF16 => "bf16",
            Dtype::F32 => "f32",
            Dtype::F64 => "f64",
            Dtype::Bool => "bool",
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Dtype::I8 | Dtype::U8 | Dtype::Bool => 8,
            Dtype::I16 | Dtype::U16 | Dtype::F16 | Dtype::BF16 => 16,
            Dtype::I32 | Dtype::U32 | Dtype::F32 => 32,
            Dtype::I64 | Dtype::U64 | Dtype::F64 => 64,
        }
    }

    /// An integer dtype.
    pub fn is_int(self) -> bool {
        Dtype::INTS.contains(&self)
    }

    /// A float dtype.
    pub fn is_float(self) -> bool {
        Dtype::FLOATS.contains(&self)
    }

    /// A signed integer dtype.
    pub fn is_signed(self) -> bool {
        matches!(self, Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64)
    }

    /// An unsigned integer dtype.
    pub fn is_unsigned(self) -> bool {
        self.is_int() && !self.is_signed()
    }

    /// 8 or 16 bits wide: C promotes these to `int` before arithmetic.
    pub fn is_small_int(self) -> bool {
        self.is_int() && self.bits() < 32
    }

    /// The smallest value of an integer dtype.
    pub fn int_min(self) -> i128 {
        if self.is_signed() {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }

    /// The largest value of an integer dtype.
    pub fn int_max(self) -> i128 {
        if self.is_signed() {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }

    /// `value` reduced modulo 2^bits into the dtype's range (C's conversion to an
    /// unsigned type, and CUDA's to a signed one).
    pub fn wrap(self, value: i128) -> i128 {
        let bits = self.bits();
        let modulus = 1i128 << bits;
        let low = value.rem_euclid(modulus);
        if self.is_signed() && low > self.int_max() {
            low - modulus
        } else {
            low
        }
    }

    /// The format of a float dtype.
    pub fn format(self) -> Format {
        match self {
            Dtype::F16 => Format::F16,
            Dtype::BF16 => Format::BF16,
            Dtype::F32 => Format::F32,
            _ => Format::F64,
        }
    }

    /// The element type a host tensor of this dtype has, where the runtime has one.
    pub fn element(self) -> Option<kir::Element> {
        Some(match self {
            Dtype::I8 => kir::Element::I8,
            Dtype::U8 => kir::Element::U8,
            Dtype::I16 => kir::Element::I16,
            Dtype::U16 => kir::Element::U16,
            Dtype::I32 => kir::Element::I32,
            Dtype::U32 => kir::Element::U32,
            Dtype::I64 => kir::Element::I64,
            Dtype::U64 => kir::Element::U64,
            Dtype::F16 => kir::Element::F16,
            Dtype::BF16 => kir::Element::BF16,
            Dtype::F32 => kir::Element::F32,
            Dtype::F64 => kir::Element::F64,
            Dtype::Bool => return None,
        })
    }
}
