//! An intrinsic held to its row: [`Intrinsic::check`], which the verifier runs on every
//! [`crate::Op::Intrinsic`], so that a verified kernel's intrinsics can be emitted, and
//! the typed [`RowMismatch`] it reports.

use std::fmt;

use super::{Intrinsic, RoleKind};
use crate::ir::Ty;

/// How an intrinsic instruction disagrees with its row ([`Intrinsic::check`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowMismatch {
    /// Its numbers are no form the hardware has.
    NoForm(Vec<u32>),
    /// It has `found` operands, not the row's `expected`.
    OperandCount {
        /// The row's count.
        expected: usize,
        /// The instruction's.
        found: usize,
    },
    /// The operand of role `role` is `found`, not the role's `expected` type.
    OperandType {
        /// The role's name.
        role: &'static str,
        /// The role's type.
        expected: Ty,
        /// The operand's.
        found: Ty,
    },
    /// The operand of this role, a value, has an offset.
    Offset(&'static str),
    /// It defines values of the types `found`, not the row's.
    Results(Vec<Ty>),
}

impl fmt::Display for RowMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowMismatch::NoForm(numbers) => write!(f, "has no form with numbers {numbers:?}"),
            RowMismatch::OperandCount { expected, found } => {
                write!(f, "takes {expected} operands, not {found}")
            }
            RowMismatch::OperandType {
                role,
                expected,
                found,
            } => write!(
                f,
                "operand `{role}` is {}, not {}",
                expected.name(),
                found.name()
            ),
            RowMismatch::Offset(role) => {
                write!(f, "operand `{role}` is a value, which takes no offset")
            }
            RowMismatch::Results(found) => {
                let names: Vec<&str> = found.iter().map(|ty| ty.name()).collect();
                write!(f, "defines the values [{}]", names.join(", "))
            }
        }
    }
}

impl Intrinsic {
    /// Checks it against its row, given its operands' types and offsets and its
    /// results' types: parameters of a form the hardware has, one operand per role (the
    /// list role repeated as it says) of the role's type (an address of its space's address type, with an offset only
    /// there), results of the row's types (then its words, 32 bits each). What passes can be emitted.
    pub fn check(&self, operands: &[(Ty, i64)], results: &[Ty]) -> Result<(), RowMismatch> {
        let row = self.row();
        if !self.is_valid() {
            return Err(RowMismatch::NoForm(self.numbers()));
        }
        if operands.len() != self.operand_count() {
            return Err(RowMismatch::OperandCount {
                expected: self.operand_count(),
                found: operands.len(),
            });
        }
        let roles = (0..operands.len()).filter_map(|index| self.role(index));
        for (role, (ty, offset)) in roles.zip(operands) {
            let (fits, want, takes_offset) = match role.kind {
                RoleKind::Address(space) => (*ty == space.address_ty(), space.address_ty(), true),
                RoleKind::Value(want) => (*ty == want, want, false),
                RoleKind::Word => (is_word(*ty), Ty::B32, false),
            };
            if !fits {
                return Err(RowMismatch::OperandType {
                    role: role.name,
                    expected: want,
                    found: *ty,
                });
            }
            if *offset != 0 && !takes_offset {
                return Err(RowMismatch::Offset(role.name));
            }
        }
        let words = if row.result_words { self.list_len() } else { 0 };
        let fixed = results
            .len()
            .checked_sub(words)
            .map(|at| results.split_at(at));
        let agrees = fixed.is_some_and(|(fixed, words)| {
            fixed == row.results && words.iter().all(|ty| is_word(*ty))
        });
        if !agrees {
            return Err(RowMismatch::Results(results.to_vec()));
        }
        Ok(())
    }
}

/// Whether a value of type `ty` is a 32-bit word ([`RoleKind::Word`]).
fn is_word(ty: Ty) -> bool {
    ty != Ty::Pred && ty.bits() == 32
}
