//! Arithmetic, comparisons, conversions and math functions in PTX: the instruction
//! and type suffix for each operation and register type.

use kir::{BinOp, CmpOp, Ty, UnOp, ValueId};

use super::division::Divisor;
use super::{EmitError, Emitter, class, fp8};

impl Emitter<'_, '_> {
    pub(super) fn unary(&mut self, op: UnOp, a: ValueId, result: ValueId) -> Result<(), EmitError> {
        let ty = self.kernel.ty(result);
        let (d, a) = (self.name(result), self.name(a));
        let text = match (op, ty) {
            (UnOp::Not, Ty::Pred) => format!("not.pred {d}, {a};"),
            (UnOp::Not, _) => format!("not{} {d}, {a};", class(ty).1),
            (UnOp::Neg, _) => format!("neg{} {d}, {a};", arithmetic_suffix(ty)?),
            // |x| clears the sign bit. Not `abs.f32`: the GPU's code generator folds
            // `abs.f32` then `setp.ge.f32 ..., 0` to true, also for a NaN (which C's
            // `fabsf(x) >= 0` is not); it does not fold the bit operation.
            (UnOp::Abs, Ty::F32) => format!("and.b32 {d}, {a}, 0x7FFFFFFF;"),
            (UnOp::Abs, Ty::F64) => format!("and.b64 {d}, {a}, 0x7FFFFFFFFFFFFFFF;"),
            (UnOp::E4m3x2ToF16x2 { high }, _) => fp8::e4m3_pair(d, a, high, self.target),
            (UnOp::E5m2x2ToF16x2 { high }, _) => fp8::e5m2_pair(d, a, high),
            (math, _) => format!("{} {d}, {a};", math_instruction(math, ty)?),
        };
        self.emit(&text);
        Ok(())
    }

    pub(super) fn compare(
        &mut self,
        op: CmpOp,
        a: ValueId,
        b: ValueId,
        result: ValueId,
    ) -> Result<(), EmitError> {
        let operand_ty = self.kernel.ty(a);
        let suffix = arithmetic_suffix(operand_ty)
            .map_err(|_| format!("a comparison of {}", operand_ty.name()))?;
        // C's `!=` is true when either operand is a NaN: PTX's unordered `neu`.
        let name = match op {
            CmpOp::Ne if matches!(operand_ty, Ty::F32 | Ty::F64) => "neu",
            op => kir::compare_name(op),
        };
        let text = format!(
            "setp.{name}{suffix} {}, {}, {};",
            self.name(result),
            self.name(a),
            self.operand(b)
        );
        self.emit(&text);
        Ok(())
    }

    /// `a * b + c`, rounded once.
    pub(super) fn fma(&mut self, [a, b, c]: [ValueId; 3], result: ValueId) {
        let text = format!(
            "fma.rn{} {}, {}, {}, {};",
            class(self.kernel.ty(result)).1,
            self.name(result),
            self.name(a),
            self.name(b),
            self.name(c)
        );
        self.emit(&text);
    }

    pub(super) fn binary(
        &mut self,
        op: BinOp,
        a: ValueId,
        b: ValueId,
        result: ValueId,
    ) -> Result<(), EmitError> {
        let ty = self.kernel.ty(result);
        let d = self.name(result).to_owned();
        let a_name = self.name(a).to_owned();
        if op.is_fp8_pair() {
            let text = fp8::pair_encode(op, &d, &a_name, self.name(b), self.target);
            self.emit(&text);
            return Ok(());
        }
        if ty == Ty::Pred {
            let name = match op {
                BinOp::And => "and",
                BinOp::Or => "or",
                BinOp::Xor => "xor",
                other => return Err(format!("{} on predicates", other.name()).into()),
            };
            let text = format!("{name}.pred {d}, {a_name}, {};", self.name(b));
            self.emit(&text);
            return Ok(());
        }
        if ty.is_integer() {
            if ty == Ty::I64
                && matches!(op, BinOp::Div | BinOp::Rem)
                && let Some(&divisor) = self.constants.get(&b)
                && self.divide_by_constant(&d, &a_name, divisor, op == BinOp::Rem)
            {
                return Ok(());
            }
            if ty == Ty::I64 && matches!(op, BinOp::Div | BinOp::Rem) {
                let b_name = self.name(b).to_owned();
                let divisor = match self.constants.get(&b) {
                    Some(&value) => Divisor::Constant(value),
                    None => Divisor::Register(&b_name),
                };
                self.divide_wide(&d, (&a_name, divisor), op == BinOp::Rem);
                return Ok(());
            }
            let signed = arithmetic_suffix(ty)?;
            let bits = class(ty).1;
            let b_text = if matches!(op, BinOp::Shl | BinOp::Shr)
                && !self.constants.contains_key(&b)
                && ty.bits() == 64
            {
                let scratch = self.scratch(Ty::I32);
                let text = format!("cvt.u32.u64 {scratch}, {};", self.name(b));
                self.emit(&text);
                scratch
            } else {
                self.operand(b)
            };
            let instruction = match op {
                BinOp::Add => format!("add{signed}"),
                BinOp::Sub => format!("sub{signed}"),
                BinOp::Mul => format!("mul.lo{signed}"),
                BinOp::Div => format!("div{signed}"),
                BinOp::Rem => format!("rem{signed}"),
                BinOp::And => format!("and{bits}"),
                BinOp::Or => format!("or{bits}"),
                BinOp::Xor => format!("xor{bits}"),
                BinOp::Shl => format!("shl{bits}"),
                BinOp::Shr => format!("shr{signed}"),
                BinOp::Min => format!("min{signed}"),
                BinOp::Max => format!("max{signed}"),
                BinOp::F32x2ToE4m3x2 | BinOp::F32x2ToE5m2x2 => {
                    return Err(format!("{} of integers", op.name()).into());
                }
            };
            let text = format!("{instruction} {d}, {a_name}, {b_text};");
            self.emit(&text);
            return Ok(());
        }
        let suffix = match ty {
            Ty::F32 => ".f32",
            Ty::F64 => ".f64",
            other => return Err(format!("arithmetic on {}", other.name()).into()),
        };
        let instruction = match op {
            BinOp::Add => format!("add.rn{suffix}"),
            BinOp::Sub => format!("sub.rn{suffix}"),
            BinOp::Mul => format!("mul.rn{suffix}"),
            BinOp::Div => format!("div.rn{suffix}"),
            BinOp::Min => format!("min{suffix}"),
            BinOp::Max => format!("max{suffix}"),
            other => return Err(format!("{} on floats", other.name()).into()),
        };
        let text = format!("{instruction} {d}, {a_name}, {};", self.name(b));
        self.emit(&text);
        Ok(())
    }

    pub(super) fn convert(&mut self, a: ValueId, result: ValueId) -> Result<(), EmitError> {
        let (from, to) = (self.kernel.ty(a), self.kernel.ty(result));
        let (d, s) = (self.name(result).to_owned(), self.name(a).to_owned());
        if let Some(text) = integer_conversion(from, to, &d, &s) {
            self.emit(&text);
            if matches!(from, Ty::F32 | Ty::F64) && to.is_integer() {
                // `cvt.rzi` of a NaN gives the most negative integer on the hardware
                // (seen on an H200: 0x80000000 from f64 to s32); docs/language.md
                // promises 0, as the emulator gives.
                let nan = self.scratch(Ty::Pred);
                let suffix = arithmetic_suffix(from)?;
                self.emit(&format!("setp.nan{suffix} {nan}, {s}, {s};"));
                self.emit(&format!("selp{} {d}, 0, {d}, {nan};", class(to).1));
            }
            return Ok(());
        }
        let text = match (from, to) {
            (Ty::F32, Ty::F64) => format!("cvt.f64.f32 {d}, {s};"),
            (Ty::F64, Ty::F32) => format!("cvt.rn.f32.f64 {d}, {s};"),
            (Ty::F32, Ty::BF16) => format!("cvt.rn.bf16.f32 {d}, {s};"),
            (Ty::F32, Ty::F16) => format!("cvt.rn.f16.f32 {d}, {s};"),
            (Ty::F16, Ty::F32) => format!("cvt.f32.f16 {d}, {s};"),
            (Ty::BF16, Ty::F32) => {
                // bfloat16 is the upper half of an f32: exact on every target.
                let wide = self.scratch(Ty::I32);
                format!(
                    "cvt.u32.u16 {wide}, {s};\n    shl.b32 {wide}, {wide}, 16;\n    mov.b32 {d}, {wide};"
                )
            }
            (Ty::Pred, Ty::I32 | Ty::U32) => format!("selp.u32 {d}, 1, 0, {s};"),
            (Ty::Pred, Ty::I64 | Ty::U64) => format!("selp.u64 {d}, 1, 0, {s};"),
            (Ty::I32 | Ty::U32, Ty::Pred) => format!("setp.ne.s32 {d}, {s}, 0;"),
            (Ty::I64 | Ty::U64, Ty::Pred) => format!("setp.ne.s64 {d}, {s}, 0;"),
            (from, to) if from.bits() == to.bits() => {
                format!("mov{} {d}, {s};", raw_suffix(to.bits()))
            }
            (from, to) => {
                return Err(format!("a conversion from {} to {}", from.name(), to.name()).into());
            }
        };
        self.emit(&text);
        Ok(())
    }
}

/// A conversion between integers or between an integer and a float, as C converts:
/// widening extends by the source's signedness, narrowing keeps the low bits, a float
/// rounds to nearest even and an integer from a float truncates toward zero
/// (`cvt.rzi` saturates out-of-range values and gives 0 for NaN).
fn integer_conversion(from: Ty, to: Ty, d: &str, s: &str) -> Option<String> {
    let integer_or_float = |ty: Ty| ty.is_integer() || matches!(ty, Ty::F32 | Ty::F64);
    if !integer_or_float(from) || !integer_or_float(to) || !(from.is_integer() || to.is_integer()) {
        return None;
    }
    let name = |ty: Ty| arithmetic_suffix(ty).ok();
    let (to_name, from_name) = (name(to)?, name(from)?);
    Some(match (from.is_integer(), to.is_integer()) {
        (true, true) if from.bits() == to.bits() => {
            format!("mov{} {d}, {s};", raw_suffix(to.bits()))
        }
        (true, true) if from.bits() > to.bits() => format!("cvt.u32.u64 {d}, {s};"),
        // Widening extends by the source's signedness, written with the source's
        // signedness on both sides (`cvt.u64.u32`, `cvt.s64.s32`), as nvcc writes it.
        (true, true) => {
            let wide = if from.is_unsigned() { ".u64" } else { ".s64" };
            format!("cvt{wide}{from_name} {d}, {s};")
        }
        (true, false) => format!("cvt.rn{to_name}{from_name} {d}, {s};"),
        _ => format!("cvt.rzi{to_name}{from_name} {d}, {s};"),
    })
}

fn raw_suffix(bits: u32) -> &'static str {
    match bits {
        16 => ".b16",
        32 => ".b32",
        _ => ".b64",
    }
}

/// The PTX instruction of a float math function (`docs/language.md` lists their
/// accuracy).
fn math_instruction(op: UnOp, ty: Ty) -> Result<&'static str, EmitError> {
    Ok(match (op, ty) {
        (UnOp::Sqrt, Ty::F32) => "sqrt.rn.f32",
        (UnOp::Sqrt, Ty::F64) => "sqrt.rn.f64",
        (UnOp::Rsqrt, Ty::F32) => "rsqrt.approx.f32",
        (UnOp::Exp2, Ty::F32) => "ex2.approx.ftz.f32",
        (UnOp::Log2, Ty::F32) => "lg2.approx.f32",
        (op, ty) => return Err(format!("{} of {}", op.name(), ty.name()).into()),
    })
}

fn arithmetic_suffix(ty: Ty) -> Result<&'static str, EmitError> {
    Ok(match ty {
        Ty::I32 => ".s32",
        Ty::I64 => ".s64",
        Ty::U32 => ".u32",
        Ty::U64 => ".u64",
        Ty::F32 => ".f32",
        Ty::F64 => ".f64",
        other => return Err(format!("arithmetic on {}", other.name()).into()),
    })
}
