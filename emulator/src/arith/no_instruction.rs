//! What the arithmetic refuses: an operation on a type that no PTX instruction computes,
//! so the backend cannot emit it either. Each case says which operation and type; the
//! emulator reports it as an unsupported fault in these words.

use std::fmt;

use kir::{AtomicOp, BinOp, Ty, UnOp};

/// An operation on a type that has no PTX instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoInstruction {
    /// A float constant of a type that is no float.
    FloatConstant(Ty),
    /// A unary operation.
    Unary(UnOp, Ty),
    /// A binary operation.
    Binary(BinOp, Ty),
    /// A comparison of two values of the type.
    Compare(Ty),
    /// A fused multiply-add.
    Fma(Ty),
    /// A conversion between the two types.
    Convert {
        /// The operand's type.
        from: Ty,
        /// The result's.
        to: Ty,
    },
    /// An atomic read-modify-write.
    Atomic(AtomicOp, Ty),
}

impl fmt::Display for NoInstruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NoInstruction::FloatConstant(ty) => {
                write!(f, "a float constant of type {}", ty.name())
            }
            NoInstruction::Unary(op, ty) => write!(f, "{} of {}", op.name(), ty.name()),
            NoInstruction::Binary(op, ty) => {
                let operands = match ty {
                    Ty::Pred => "predicates",
                    Ty::F32 | Ty::F64 => "floats",
                    other => other.name(),
                };
                write!(f, "{} on {operands}", op.name())
            }
            NoInstruction::Compare(ty) => write!(f, "a comparison of {}", ty.name()),
            NoInstruction::Fma(ty) => write!(f, "an fma of {}", ty.name()),
            NoInstruction::Convert { from, to } => {
                write!(f, "a conversion from {} to {}", from.name(), to.name())
            }
            NoInstruction::Atomic(op, ty) => write!(f, "an atomic {} of {}", op.name(), ty.name()),
        }
    }
}

impl std::error::Error for NoInstruction {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_names_its_operation_and_operands() {
        assert_eq!(
            NoInstruction::Binary(BinOp::Xor, Ty::F32).to_string(),
            "xor on floats"
        );
        assert_eq!(
            NoInstruction::Binary(BinOp::Div, Ty::Pred).to_string(),
            "div on predicates"
        );
        assert_eq!(
            NoInstruction::Convert {
                from: Ty::Pred,
                to: Ty::F32
            }
            .to_string(),
            "a conversion from pred to f32"
        );
    }
}
