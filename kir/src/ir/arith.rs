//! The unary and binary operations, each described once by its [`ArithRow`]: its name in
//! KIR text and what it requires of its operands' and result's types. The printer, the
//! reader and the verifier read the rows, so a new operation is its variant and its row
//! here (and its PTX and its emulator model).

use super::Ty;

/// A two-operand operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b` (low half for integers).
    Mul,
    /// `a / b`, toward zero for integers.
    Div,
    /// `a % b`.
    Rem,
    /// Bitwise or logical and.
    And,
    /// Bitwise or logical or.
    Or,
    /// Bitwise or logical exclusive or.
    Xor,
    /// `a << b`.
    Shl,
    /// `a >> b`, arithmetic.
    Shr,
    /// The smaller.
    Min,
    /// The larger.
    Max,
    /// Two f32 values as the e4m3 pair nearest them (ties to even), finite ones beyond
    /// the largest (448) as it, NaN as NaN: a `b16`, `a`'s byte low
    /// (`cvt.rn.satfinite.e4m3x2.f32`, sm_89 on).
    F32x2ToE4m3x2,
    /// The same to an e5m2 pair (largest 57344).
    F32x2ToE5m2x2,
}

/// A one-operand operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-a`.
    Neg,
    /// Logical or bitwise not.
    Not,
    /// `|a|`, a float.
    Abs,
    /// The square root, rounded to nearest (a float).
    Sqrt,
    /// `1 / sqrt(a)`, approximate (a float).
    Rsqrt,
    /// `2^a`, approximate (f32).
    Exp2,
    /// `log2(a)`, approximate (f32).
    Log2,
    /// The two e4m3 values in the low (or `high`) 16 bits of a 32-bit word (the first
    /// in the half's low byte) as the f16 pair they equal, exactly: a `b32` of two f16,
    /// the first low (`cvt.rn.f16x2.e4m3x2`, sm_89 on).
    E4m3x2ToF16x2 {
        /// Whether the pair is the word's high half.
        high: bool,
    },
    /// The same for two e5m2 values.
    E5m2x2ToF16x2 {
        /// Whether the pair is the word's high half.
        high: bool,
    },
}

/// What an operation requires of its operands' and result's types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeRule {
    /// Operands and result of one type, any.
    Alike,
    /// Operand and result of one float type, f32 or f64 (a math function).
    AlikeFloat,
    /// Operands of one fixed type to a result of another.
    Fixed {
        /// Each operand's type.
        operands: Ty,
        /// The result's type.
        result: Ty,
    },
}

/// An operation's description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArithRow {
    /// Its name in KIR text.
    pub name: &'static str,
    /// What it requires of its operands' and result's types.
    pub types: TypeRule,
}

impl ArithRow {
    const fn alike(name: &'static str) -> ArithRow {
        ArithRow {
            name,
            types: TypeRule::Alike,
        }
    }

    const fn math(name: &'static str) -> ArithRow {
        ArithRow {
            name,
            types: TypeRule::AlikeFloat,
        }
    }

    const fn fixed(name: &'static str, operands: Ty, result: Ty) -> ArithRow {
        ArithRow {
            name,
            types: TypeRule::Fixed { operands, result },
        }
    }
}

impl UnOp {
    /// Every unary operation, each once (the reader finds a name among them).
    pub const ALL: [UnOp; 11] = [
        UnOp::Neg,
        UnOp::Not,
        UnOp::Abs,
        UnOp::Sqrt,
        UnOp::Rsqrt,
        UnOp::Exp2,
        UnOp::Log2,
        UnOp::E4m3x2ToF16x2 { high: false },
        UnOp::E4m3x2ToF16x2 { high: true },
        UnOp::E5m2x2ToF16x2 { high: false },
        UnOp::E5m2x2ToF16x2 { high: true },
    ];

    /// Its description.
    pub fn row(self) -> ArithRow {
        let pair = |name| ArithRow::fixed(name, Ty::B32, Ty::B32);
        match self {
            UnOp::Neg => ArithRow::alike("neg"),
            UnOp::Not => ArithRow::alike("not"),
            UnOp::Abs => ArithRow::math("abs"),
            UnOp::Sqrt => ArithRow::math("sqrt"),
            UnOp::Rsqrt => ArithRow::math("rsqrt"),
            UnOp::Exp2 => ArithRow::math("exp2"),
            UnOp::Log2 => ArithRow::math("log2"),
            UnOp::E4m3x2ToF16x2 { high: false } => pair("e4m3x2_to_f16x2"),
            UnOp::E4m3x2ToF16x2 { high: true } => pair("e4m3x2_high_to_f16x2"),
            UnOp::E5m2x2ToF16x2 { high: false } => pair("e5m2x2_to_f16x2"),
            UnOp::E5m2x2ToF16x2 { high: true } => pair("e5m2x2_high_to_f16x2"),
        }
    }

    /// Its name in KIR text.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The operation named `name` in KIR text, if one is.
    pub fn named(name: &str) -> Option<UnOp> {
        UnOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether it decodes a pair of FP8 values (a `b32` word to a `b32` word).
    pub fn is_fp8_pair(self) -> bool {
        matches!(
            self,
            UnOp::E4m3x2ToF16x2 { .. } | UnOp::E5m2x2ToF16x2 { .. }
        )
    }
}

impl BinOp {
    /// Every binary operation, each once (the reader finds a name among them).
    pub const ALL: [BinOp; 14] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::Min,
        BinOp::Max,
        BinOp::F32x2ToE4m3x2,
        BinOp::F32x2ToE5m2x2,
    ];

    /// Its description.
    pub fn row(self) -> ArithRow {
        let pair = |name| ArithRow::fixed(name, Ty::F32, Ty::B16);
        match self {
            BinOp::Add => ArithRow::alike("add"),
            BinOp::Sub => ArithRow::alike("sub"),
            BinOp::Mul => ArithRow::alike("mul"),
            BinOp::Div => ArithRow::alike("div"),
            BinOp::Rem => ArithRow::alike("rem"),
            BinOp::And => ArithRow::alike("and"),
            BinOp::Or => ArithRow::alike("or"),
            BinOp::Xor => ArithRow::alike("xor"),
            BinOp::Shl => ArithRow::alike("shl"),
            BinOp::Shr => ArithRow::alike("shr"),
            BinOp::Min => ArithRow::alike("min"),
            BinOp::Max => ArithRow::alike("max"),
            BinOp::F32x2ToE4m3x2 => pair("f32x2_to_e4m3x2"),
            BinOp::F32x2ToE5m2x2 => pair("f32x2_to_e5m2x2"),
        }
    }

    /// Its name in KIR text (and in PTX, for the arithmetic and bitwise ones).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The operation named `name` in KIR text, if one is.
    pub fn named(name: &str) -> Option<BinOp> {
        BinOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether it encodes two f32 values as an FP8 pair (a `b16`).
    pub fn is_fp8_pair(self) -> bool {
        matches!(self, BinOp::F32x2ToE4m3x2 | BinOp::F32x2ToE5m2x2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_reads_back_as_its_operation() {
        for op in UnOp::ALL {
            assert_eq!(UnOp::named(op.name()), Some(op), "{op:?}");
        }
        for op in BinOp::ALL {
            assert_eq!(BinOp::named(op.name()), Some(op), "{op:?}");
        }
        assert_eq!(UnOp::named("add"), None);
        assert_eq!(BinOp::named("neg"), None);
    }

    #[test]
    fn fp8_pairs_have_fixed_types_and_math_functions_floats() {
        for op in UnOp::ALL {
            let fixed = matches!(op.row().types, TypeRule::Fixed { .. });
            assert_eq!(fixed, op.is_fp8_pair(), "{op:?}");
        }
        for op in BinOp::ALL {
            let fixed = matches!(op.row().types, TypeRule::Fixed { .. });
            assert_eq!(fixed, op.is_fp8_pair(), "{op:?}");
        }
        assert_eq!(UnOp::Sqrt.row().types, TypeRule::AlikeFloat);
        assert_eq!(UnOp::Neg.row().types, TypeRule::Alike);
    }
}
