//! Run-time scalars: a [`Term`] evaluated for one element of the fragments it reads.
//!
//! Arithmetic on 16-bit floats happens in f32 and is rounded back to the term's type,
//! as the hardware's scalar units do. Comparisons give predicates. A float or bool
//! parameter is read once, at the kernel's entry; a bool arrives as a 32-bit integer.

use kir::{BinOp, CmpOp, Op, Ty, UnOp, ValueId};
use lang::ast::{BinaryOp, UnaryOp};
use trace::{MathFn, Term};

use crate::builder::{Builder, dtype_ty};
use crate::fp8::{encode, is_fp8};

impl Builder<'_> {
    /// The value of `term` at fragment element `element`, evaluated once while its
    /// value is in scope: the trace shares a term wherever a `let` names it, so a term
    /// may be reached many times (a running maximum's chain).
    pub(crate) fn term(&mut self, term: &Term, element: i64) -> Option<ValueId> {
        let key = (std::ptr::from_ref(term) as usize, element);
        if let Some(known) = self.evaluated.terms.get(&key) {
            return Some(*known);
        }
        let value = self.evaluate(term, element)?;
        self.evaluated.terms.insert(key, value);
        Some(value)
    }

    fn evaluate(&mut self, term: &Term, element: i64) -> Option<ValueId> {
        if let Some(value) = self.fp8_constant(term) {
            return Some(value);
        }
        match term {
            Term::Int(value, dtype) => {
                let wide = self.int(value)?;
                let ty = self.scalar_ty(*dtype)?;
                Some(self.convert(wide, ty))
            }
            Term::Float(value, dtype) => {
                let ty = self.scalar_ty(*dtype)?;
                let arithmetic = arithmetic_ty(ty);
                let constant = self.pure(Op::ConstFloat(*value), arithmetic);
                Some(self.convert(constant, ty))
            }
            Term::Bool(value) => Some(self.constant(i64::from(*value), Ty::Pred)),
            Term::Param(index, dtype) => self.scalar_param(*index, *dtype),
            Term::Variable(name, _) => match self.variables.values.get(name) {
                Some(value) => Some(*value),
                None => {
                    self.unsupported(format!("the run-time value `{name}` here"));
                    None
                }
            },
            Term::Loaded(id) => {
                let values = self.loads.get(id)?;
                match values.as_slice() {
                    [scalar] => Some(*scalar),
                    _ => usize::try_from(element)
                        .ok()
                        .and_then(|element| values.get(element).copied()),
                }
            }
            Term::Unary(op, operand) => {
                let value = self.term(operand, element)?;
                let ty = self.kernel.ty(value);
                let (op, work) = match op {
                    UnaryOp::Negate => (UnOp::Neg, arithmetic_ty(ty)),
                    UnaryOp::Not => (UnOp::Not, ty),
                };
                let operand = self.convert(value, work);
                let result = self.pure(Op::Unary(op, operand), work);
                Some(self.convert(result, ty))
            }
            Term::Convert(dtype, operand) if is_fp8(*dtype) => {
                self.convert_to_fp8(operand, element, *dtype)
            }
            Term::Convert(dtype, operand) => {
                let value = self.term(operand, element)?;
                let value = self.fp8_decoded(operand, value);
                let ty = self.scalar_ty(*dtype)?;
                let value = self.via_f32(value, ty);
                let from = self.kernel.ty(value);
                // An integer or an f64 becomes a 16-bit float through f32.
                if (from.is_integer() || from == Ty::F64) && matches!(ty, Ty::F16 | Ty::BF16) {
                    let single = self.convert(value, Ty::F32);
                    return Some(self.convert(single, ty));
                }
                let converted = self.convert(value, ty);
                Some(if from.is_integer() {
                    self.wrap(converted, *dtype)
                } else {
                    self.saturate(converted, *dtype)
                })
            }
            Term::Binary {
                op,
                dtype,
                left,
                right,
            } => {
                let ty = self.scalar_ty(*dtype)?;
                let work = arithmetic_ty(ty);
                let left = self.term(left, element)?;
                let right = self.term(right, element)?;
                let left = self.via_f32(left, work);
                let right = self.via_f32(right, work);
                let (left, right) = (self.convert(left, work), self.convert(right, work));
                if let Some(compare) = comparison(*op) {
                    return Some(self.pure(Op::Compare(compare, left, right), Ty::Pred));
                }
                let Some(op) = arithmetic(*op) else {
                    self.unsupported(format!("the operator `{}` on the GPU", op.symbol()));
                    return None;
                };
                let result = self.binary(op, left, right);
                Some(self.convert(result, ty))
            }
            Term::Math {
                function,
                dtype,
                operands,
            } => {
                let ty = self.scalar_ty(*dtype)?;
                // An i32 `min` or `max` of operands that provably fit is the same in 64
                // bits, where symbolic integers (and so its operands) are computed.
                let exact = ty == Ty::I32
                    && (operands.iter()).all(|operand| match operand.as_ref() {
                        Term::Int(value, _) => {
                            self.range(value).is_some_and(|range| range.fits_i32())
                        }
                        _ => true,
                    });
                let (ty, work) = if exact {
                    (Ty::I64, Ty::I64)
                } else {
                    (ty, arithmetic_ty(ty))
                };
                let mut values = Vec::with_capacity(operands.len());
                for operand in operands {
                    let value = self.term(operand, element)?;
                    let value = self.via_f32(value, work);
                    values.push(self.convert(value, work));
                }
                let result = self.math(*function, &values, work)?;
                Some(self.convert(result, ty))
            }
        }
    }

    /// A math function of `work` (f32 or f64) values, as the instructions that
    /// `docs/language.md` lists: `exp` is `ex2(x * log2 e)`, `log` is `lg2(x) * ln 2`.
    fn math(&mut self, function: MathFn, operands: &[ValueId], work: Ty) -> Option<ValueId> {
        let (&x, rest) = operands.split_first()?;
        let approximate = matches!(
            function,
            MathFn::Exp | MathFn::Exp2 | MathFn::Log | MathFn::Log2 | MathFn::Rsqrt
        );
        let integer_min_max = work.is_integer() && matches!(function, MathFn::Min | MathFn::Max);
        if !integer_min_max
            && (!matches!(work, Ty::F32 | Ty::F64) || (approximate && work != Ty::F32))
        {
            self.unsupported(format!("`{function:?}` of {}", work.name()).to_lowercase());
            return None;
        }
        let unary =
            |builder: &mut Self, op: UnOp, value: ValueId| builder.pure(Op::Unary(op, value), work);
        let scaled = |builder: &mut Self, value: ValueId, factor: f64| {
            let factor = builder.pure(Op::ConstFloat(factor), work);
            builder.binary(BinOp::Mul, value, factor)
        };
        Some(match function {
            MathFn::Abs => unary(self, UnOp::Abs, x),
            MathFn::Sqrt => unary(self, UnOp::Sqrt, x),
            MathFn::Rsqrt => unary(self, UnOp::Rsqrt, x),
            MathFn::Exp2 => unary(self, UnOp::Exp2, x),
            MathFn::Log2 => unary(self, UnOp::Log2, x),
            MathFn::Exp => {
                let power = scaled(self, x, std::f64::consts::LOG2_E);
                unary(self, UnOp::Exp2, power)
            }
            MathFn::Log => {
                let log2 = unary(self, UnOp::Log2, x);
                scaled(self, log2, std::f64::consts::LN_2)
            }
            MathFn::Fma => {
                let (&y, &z) = (rest.first()?, rest.get(1)?);
                self.pure(Op::Fma(x, y, z), work)
            }
            MathFn::Min | MathFn::Max => {
                let op = if function == MathFn::Min {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                self.binary(op, x, *rest.first()?)
            }
        })
    }

    /// The float or bool parameter at `index`: a bool is passed as a 32-bit 0 or 1,
    /// so its predicate is that integer compared with 0.
    fn scalar_param(&mut self, index: usize, dtype: cute::Dtype) -> Option<ValueId> {
        let ty = self.scalar_ty(dtype)?;
        if ty != Ty::Pred {
            return Some(self.pure(Op::Param(index), ty));
        }
        let passed = self.pure(Op::Param(index), Ty::I32);
        let zero = self.constant(0, Ty::I32);
        Some(self.pure(Op::Compare(CmpOp::Ne, passed, zero), Ty::Pred))
    }

    /// A term that is an FP8 constant: the word an FP8 register holds it as
    /// ([`Builder::fp8_word`]), or for its exact conversion to another type, that
    /// type's constant; `None` for any other term.
    fn fp8_constant(&mut self, term: &Term) -> Option<ValueId> {
        let constant = |term: &Term| match term {
            Term::Float(value, dtype) if is_fp8(*dtype) => Some((*value, *dtype)),
            Term::Convert(dtype, operand) if is_fp8(*dtype) => match operand.as_ref() {
                Term::Float(value, _) => Some((*value, *dtype)),
                _ => None,
            },
            _ => None,
        };
        if let Some((value, dtype)) = constant(term) {
            return Some(self.fp8_word(dtype, value));
        }
        let Term::Convert(dtype, operand) = term else {
            return None;
        };
        // A constant no FP8 value is exactly is rounded at run time, and read as any
        // computed FP8 value is.
        let (value, _) = constant(operand).filter(|(value, fp8)| encode(*fp8, *value).is_some())?;
        let ty = self.scalar_ty(*dtype)?;
        let single = match ty {
            Ty::F32 | Ty::F64 | Ty::F16 | Ty::BF16 => self.pure(Op::ConstFloat(value), Ty::F32),
            _ => self.constant(value.trunc() as i64, ty),
        };
        Some(self.convert(single, ty))
    }

    fn scalar_ty(&mut self, dtype: cute::Dtype) -> Option<Ty> {
        let ty = dtype_ty(dtype);
        if ty.is_none() {
            self.unsupported(format!("{dtype} arithmetic"));
        }
        ty
    }

    /// `value`, held in a 32-bit register, wrapped to the width of the narrower
    /// integer `dtype` (i8, u16): a mask for an unsigned one, a shift up and an
    /// arithmetic shift down for a signed one (the `wraps` pass drops a wrap of a value
    /// a narrow load or an earlier wrap made that already fits).
    pub(crate) fn wrap(&mut self, value: ValueId, dtype: cute::Dtype) -> ValueId {
        let ty = self.kernel.ty(value);
        let bits = dtype.bits();
        let signed = dtype.integer_range().is_some_and(|(low, _)| low < 0);
        if !ty.is_integer() || bits >= i64::from(ty.bits()) {
            return value;
        }
        if signed {
            let shift = self.constant(i64::from(ty.bits()) - bits, ty);
            let up = self.binary(BinOp::Shl, value, shift);
            self.binary(BinOp::Shr, up, shift)
        } else {
            let mask = self.constant((1 << bits) - 1, ty);
            self.binary(BinOp::And, value, mask)
        }
    }

    /// An integer converted from a float into a 32-bit register, clamped to the range
    /// of the narrower `dtype` (i8, u16), as `cvt.rzi` to that type saturates.
    fn saturate(&mut self, value: ValueId, dtype: cute::Dtype) -> ValueId {
        let ty = self.kernel.ty(value);
        let Some((low, high)) = dtype.integer_range() else {
            return value;
        };
        if !ty.is_integer() || dtype.bits() >= i64::from(ty.bits()) {
            return value;
        }
        let (low, high) = (
            self.constant(low as i64, ty),
            self.constant(high as i64, ty),
        );
        let above = self.binary(BinOp::Max, value, low);
        self.binary(BinOp::Min, above, high)
    }

    /// Converts a 16-bit float to f32 first when it is headed for another type, so
    /// every conversion the backend sees has f32 on one side.
    fn via_f32(&mut self, value: ValueId, ty: Ty) -> ValueId {
        let from = self.kernel.ty(value);
        if matches!(from, Ty::BF16 | Ty::F16) && ty != from && ty != Ty::F32 {
            self.convert(value, Ty::F32)
        } else {
            value
        }
    }
}

/// The type arithmetic on `ty` happens in.
fn arithmetic_ty(ty: Ty) -> Ty {
    match ty {
        Ty::BF16 | Ty::F16 => Ty::F32,
        other => other,
    }
}

fn comparison(op: BinaryOp) -> Option<CmpOp> {
    Some(match op {
        BinaryOp::Equal => CmpOp::Eq,
        BinaryOp::NotEqual => CmpOp::Ne,
        BinaryOp::Less => CmpOp::Lt,
        BinaryOp::LessEqual => CmpOp::Le,
        BinaryOp::Greater => CmpOp::Gt,
        BinaryOp::GreaterEqual => CmpOp::Ge,
        _ => return None,
    })
}

fn arithmetic(op: BinaryOp) -> Option<BinOp> {
    Some(match op {
        BinaryOp::Add => BinOp::Add,
        BinaryOp::Subtract => BinOp::Sub,
        BinaryOp::Multiply => BinOp::Mul,
        BinaryOp::Divide => BinOp::Div,
        BinaryOp::Remainder => BinOp::Rem,
        BinaryOp::And | BinaryOp::BitAnd => BinOp::And,
        BinaryOp::Or | BinaryOp::BitOr => BinOp::Or,
        BinaryOp::BitXor => BinOp::Xor,
        BinaryOp::ShiftLeft => BinOp::Shl,
        BinaryOp::ShiftRight => BinOp::Shr,
        _ => return None,
    })
}
