//! Element types (`bf16`, `f32`, `i32`, ...) and their properties.

use std::fmt;

/// An element type of tensors and scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// 8-bit float, 4 exponent bits, 3 mantissa bits.
    E4m3,
    /// 8-bit float, 5 exponent bits, 2 mantissa bits.
    E5m2,
    /// IEEE half precision.
    F16,
    /// bfloat16.
    Bf16,
    /// TensorFloat-32 (stored in 32 bits).
    Tf32,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
    /// Signed integers.
    I8,
    /// Signed 16-bit integer.
    I16,
    /// Signed 32-bit integer.
    I32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 8-bit integer.
    U8,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
    /// A truth value (one byte in memory).
    Bool,
}

impl Dtype {
    /// Every dtype, in the order they are listed to users.
    pub const ALL: [Dtype; 16] = [
        Dtype::E4m3,
        Dtype::E5m2,
        Dtype::F16,
        Dtype::Bf16,
        Dtype::Tf32,
        Dtype::F32,
        Dtype::F64,
        Dtype::I8,
        Dtype::I16,
        Dtype::I32,
        Dtype::I64,
        Dtype::U8,
        Dtype::U16,
        Dtype::U32,
        Dtype::U64,
        Dtype::Bool,
    ];

    /// The dtype a source name spells, if any.
    pub fn from_name(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|dtype| dtype.name() == name)
    }

    /// The name as written in source.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::E4m3 => "e4m3",
            Dtype::E5m2 => "e5m2",
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
            Dtype::Tf32 => "tf32",
            Dtype::F32 => "f32",
            Dtype::F64 => "f64",
            Dtype::I8 => "i8",
            Dtype::I16 => "i16",
            Dtype::I32 => "i32",
            Dtype::I64 => "i64",
            Dtype::U8 => "u8",
            Dtype::U16 => "u16",
            Dtype::U32 => "u32",
            Dtype::U64 => "u64",
            Dtype::Bool => "bool",
        }
    }

    /// Storage size in bits.
    pub fn bits(self) -> i64 {
        match self {
            Dtype::E4m3 | Dtype::E5m2 | Dtype::I8 | Dtype::U8 | Dtype::Bool => 8,
            Dtype::F16 | Dtype::Bf16 | Dtype::I16 | Dtype::U16 => 16,
            Dtype::Tf32 | Dtype::F32 | Dtype::I32 | Dtype::U32 => 32,
            Dtype::F64 | Dtype::I64 | Dtype::U64 => 64,
        }
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Dtype::E4m3
                | Dtype::E5m2
                | Dtype::F16
                | Dtype::Bf16
                | Dtype::Tf32
                | Dtype::F32
                | Dtype::F64
        )
    }

    /// Whether this is an integer type.
    pub fn is_integer(self) -> bool {
        !self.is_float() && self != Dtype::Bool
    }

    /// The inclusive range of an integer type, `None` for other types.
    pub fn integer_range(self) -> Option<(i128, i128)> {
        let bits = u32::try_from(self.bits()).ok()?;
        match self {
            Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64 => {
                Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
            }
            Dtype::U8 | Dtype::U16 | Dtype::U32 | Dtype::U64 => Some((0, (1i128 << bits) - 1)),
            _ => None,
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Dtype;

    #[test]
    fn names_round_trip_and_sizes_are_the_storage_sizes() {
        for dtype in Dtype::ALL {
            assert_eq!(Dtype::from_name(dtype.name()), Some(dtype));
        }
        assert_eq!(Dtype::Bf16.bits(), 16);
        assert_eq!(Dtype::Tf32.bits(), 32);
        assert_eq!(Dtype::from_name("float"), None);
        assert_eq!(Dtype::I8.integer_range(), Some((-128, 127)));
        assert_eq!(Dtype::U32.integer_range(), Some((0, 4_294_967_295)));
        assert!(Dtype::E4m3.is_float() && !Dtype::Bool.is_integer());
    }
}
