//! The values registers hold and the arithmetic on them, as PTX defines it for the
//! instruction `backend-ptx` emits for each KIR operation.
//!
//! A register is 64 raw bits whose meaning its [`Ty`] gives: a pred is 0 or 1; an
//! `i32`, `f32` or `b32` sits in the low 32 bits and a 16-bit type in the low 16, the
//! rest zero. Integer arithmetic wraps; `i32` and `i64` are signed (`div.s32`, `shr.s64`
//! arithmetic, `min.s32`, `setp.lt.s64`), `u32` and `u64` unsigned (`div.u32`, `shr.u64`
//! logical, `setp.lt.u32`, `cvt.rn.f32.u32`); float arithmetic rounds to nearest even
//! with subnormals kept, as the `.rn` instructions without `.ftz` do. An operation the
//! PTX backend cannot emit either (a float `xor`, a conversion it has no instruction
//! for) is an error naming it.

use kir::{AtomicOp, BinOp, CmpOp, Ty, UnOp};

mod fp8;
mod no_instruction;

pub use no_instruction::NoInstruction;

/// `value` as the bits of a register of type `ty` (truncated to its width).
pub fn from_int(ty: Ty, value: i64) -> u64 {
    match ty {
        Ty::Pred => u64::from(value != 0),
        Ty::I64 | Ty::U64 | Ty::B64 | Ty::F64 => value as u64,
        Ty::I32 | Ty::U32 | Ty::B32 | Ty::F32 => u64::from(value as u32),
        Ty::F16 | Ty::BF16 | Ty::B16 => u64::from(value as u16),
    }
}

/// The bits of an `i32` register as a number.
pub fn as_i32(bits: u64) -> i32 {
    bits as u32 as i32
}

/// The bits of an `f32` register as a number.
pub fn as_f32(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

/// A float constant of type `ty` (`mov.f32` of the value rounded to f32).
pub fn float_constant(ty: Ty, value: f64) -> Result<u64, NoInstruction> {
    match ty {
        Ty::F32 => Ok(f32_bits(value as f32)),
        Ty::F64 => Ok(value.to_bits()),
        other => Err(NoInstruction::FloatConstant(other)),
    }
}

fn f32_bits(value: f32) -> u64 {
    u64::from(value.to_bits())
}

/// `op a` for a value of type `ty`.
pub fn unary(op: UnOp, ty: Ty, a: u64) -> Result<u64, NoInstruction> {
    Ok(match (op, ty) {
        (UnOp::Not, Ty::Pred) => u64::from(a == 0),
        (UnOp::Not, _) => from_int(ty, !(a as i64)),
        (UnOp::Neg, Ty::I32) => from_int(ty, i64::from(as_i32(a).wrapping_neg())),
        (UnOp::Neg, Ty::I64 | Ty::U64) => (a as i64).wrapping_neg() as u64,
        (UnOp::Neg, Ty::U32) => from_int(ty, (a as i64).wrapping_neg()),
        // `neg.f32` flips the sign bit, of a NaN too.
        (UnOp::Neg, Ty::F32) => a ^ (1 << 31),
        (UnOp::Neg, Ty::F64) => a ^ (1 << 63),
        (UnOp::Abs, Ty::F32) => a & !(1 << 31),
        (UnOp::Abs, Ty::F64) => a & !(1 << 63),
        (UnOp::Sqrt, Ty::F32) => f32_bits(as_f32(a).sqrt()),
        (UnOp::Sqrt, Ty::F64) => f64::from_bits(a).sqrt().to_bits(),
        // The approximate functions: the exact value rounded once to f32, which the
        // hardware's approximations are within a few ulp of (see the crate's docs).
        (UnOp::Rsqrt, Ty::F32) => f32_bits((1.0 / f64::from(as_f32(a)).sqrt()) as f32),
        (UnOp::Exp2, Ty::F32) => f32_bits(flush_subnormal(f64::from(as_f32(a)).exp2() as f32)),
        (UnOp::Log2, Ty::F32) => f32_bits(f64::from(as_f32(a)).log2() as f32),
        (UnOp::E4m3x2ToF16x2 { high } | UnOp::E5m2x2ToF16x2 { high }, Ty::B32) => {
            let pair = if high { a >> 16 } else { a };
            let half = |byte: u64| u64::from(fp8_to_f16(op, byte as u8));
            half(pair) | half(pair >> 8) << 16
        }
        (op, ty) => {
            return Err(NoInstruction::Unary(op, ty));
        }
    })
}

/// The f16 bits that the FP8 `byte` (e5m2 for [`UnOp::E5m2x2ToF16x2`], else e4m3)
/// equals: every FP8 value is an f16; e5m2's NaNs keep their bits (the high byte), e4m3's
/// NaN is the canonical f16 NaN.
fn fp8_to_f16(op: UnOp, byte: u8) -> u16 {
    if matches!(op, UnOp::E5m2x2ToF16x2 { .. }) {
        return u16::from(byte) << 8;
    }
    let value = float8::F8E4M3::from_bits(byte).to_f32();
    if value.is_nan() {
        0x7fff
    } else {
        f32_to_f16(value)
    }
}

/// `a op b`, both and the result of type `ty`; an FP8 pair's operands are f32 and its
/// result a `b16`.
pub fn binary(op: BinOp, ty: Ty, a: u64, b: u64) -> Result<u64, NoInstruction> {
    if op.is_fp8_pair() {
        return fp8::encode_pair(op, a, b)
            .filter(|_| ty == Ty::B16)
            .ok_or(NoInstruction::Binary(op, ty));
    }
    match ty {
        Ty::Pred => match op {
            BinOp::And => Ok(a & b),
            BinOp::Or => Ok(a | b),
            BinOp::Xor => Ok(a ^ b),
            other => Err(NoInstruction::Binary(other, ty)),
        },
        Ty::I32 => integer(op, i64::from(as_i32(a)), i64::from(as_i32(b)), 32)
            .map(|value| from_int(ty, value))
            .ok_or(NoInstruction::Binary(op, ty)),
        Ty::I64 => integer(op, a as i64, b as i64, 64)
            .map(|value| value as u64)
            .ok_or(NoInstruction::Binary(op, ty)),
        Ty::U32 => {
            unsigned(op, a & 0xFFFF_FFFF, b & 0xFFFF_FFFF, 32).ok_or(NoInstruction::Binary(op, ty))
        }
        Ty::U64 => unsigned(op, a, b, 64).ok_or(NoInstruction::Binary(op, ty)),
        Ty::F32 => {
            let (x, y) = (as_f32(a), as_f32(b));
            let value = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                BinOp::Min => minimum(x.into(), y.into()) as f32,
                BinOp::Max => -(minimum(-f64::from(x), -f64::from(y)) as f32),
                other => return Err(NoInstruction::Binary(other, ty)),
            };
            Ok(f32_bits(value))
        }
        Ty::F64 => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            let value = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                BinOp::Min => minimum(x, y),
                BinOp::Max => -minimum(-x, -y),
                other => return Err(NoInstruction::Binary(other, ty)),
            };
            Ok(value.to_bits())
        }
        other => Err(NoInstruction::Binary(op, other)),
    }
}

/// PTX's `min`: a NaN operand loses to a number (NaN only when both are), and -0.0 is
/// below +0.0.
fn minimum(x: f64, y: f64) -> f64 {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => f64::NAN,
        (true, false) => y,
        (false, true) => x,
        _ if x == y => {
            if x.is_sign_negative() {
                x
            } else {
                y
            }
        }
        _ => x.min(y),
    }
}

/// Signed integer arithmetic of `bits` bits, wrapping. Shifts take the amount's low
/// 32 bits as unsigned and clamp it at the width (`shl` gives 0, `shr` the sign);
/// division by zero, which PTX leaves unspecified, gives -1 and a remainder of `a`.
/// `None` for an operation no integer has (an FP8 pair's).
fn integer(op: BinOp, a: i64, b: i64, bits: u32) -> Option<i64> {
    let narrow = |value: i64| {
        if bits == 32 {
            i64::from(value as i32)
        } else {
            value
        }
    };
    let amount = (b as u32).min(bits - 1);
    let over = b as u32 >= bits;
    Some(narrow(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div if b == 0 => -1,
        BinOp::Rem if b == 0 => a,
        BinOp::Div => a.wrapping_div(b),
        BinOp::Rem => a.wrapping_rem(b),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl if over => 0,
        BinOp::Shl => a << amount,
        BinOp::Shr => a >> amount,
        BinOp::Min => a.min(b),
        BinOp::Max => a.max(b),
        BinOp::F32x2ToE4m3x2 | BinOp::F32x2ToE5m2x2 => return None,
    }))
}

/// Unsigned integer arithmetic of `bits` bits, wrapping; shifts as for signed ones,
/// `shr` logical. Division by zero gives all ones and a remainder of `a`. `None` for an
/// operation no integer has.
fn unsigned(op: BinOp, a: u64, b: u64, bits: u32) -> Option<u64> {
    let mask = if bits == 32 { 0xFFFF_FFFF } else { u64::MAX };
    let amount = (b as u32).min(bits - 1);
    let over = b as u32 >= bits;
    Some(
        mask & match op {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div if b == 0 => u64::MAX,
            BinOp::Rem if b == 0 => a,
            BinOp::Div => a / b,
            BinOp::Rem => a % b,
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Shl | BinOp::Shr if over => 0,
            BinOp::Shl => a << amount,
            BinOp::Shr => a >> amount,
            BinOp::Min => a.min(b),
            BinOp::Max => a.max(b),
            BinOp::F32x2ToE4m3x2 | BinOp::F32x2ToE5m2x2 => return None,
        },
    )
}

/// `a cmp b` for operands of type `ty`: signed or unsigned for integers, ordered for
/// floats (every comparison with a NaN is false) but `ne`, which is true with a NaN, as
/// C's `!=` and the backend's `setp.neu.f32` are.
pub fn compare(op: CmpOp, ty: Ty, a: u64, b: u64) -> Result<bool, NoInstruction> {
    let ordering = match ty {
        Ty::I32 => Some(as_i32(a).cmp(&as_i32(b))),
        Ty::I64 => Some((a as i64).cmp(&(b as i64))),
        Ty::U32 => Some((a as u32).cmp(&(b as u32))),
        Ty::U64 => Some(a.cmp(&b)),
        Ty::F32 => as_f32(a).partial_cmp(&as_f32(b)),
        Ty::F64 => f64::from_bits(a).partial_cmp(&f64::from_bits(b)),
        other => return Err(NoInstruction::Compare(other)),
    };
    let Some(ordering) = ordering else {
        return Ok(op == CmpOp::Ne);
    };
    Ok(match op {
        CmpOp::Eq => ordering.is_eq(),
        CmpOp::Ne => ordering.is_ne(),
        CmpOp::Lt => ordering.is_lt(),
        CmpOp::Le => ordering.is_le(),
        CmpOp::Gt => ordering.is_gt(),
        CmpOp::Ge => ordering.is_ge(),
    })
}

/// `a * b + c` rounded once (`fma.rn`).
pub fn fma(ty: Ty, a: u64, b: u64, c: u64) -> Result<u64, NoInstruction> {
    match ty {
        Ty::F32 => Ok(f32_bits(as_f32(a).mul_add(as_f32(b), as_f32(c)))),
        Ty::F64 => Ok(f64::from_bits(a)
            .mul_add(f64::from_bits(b), f64::from_bits(c))
            .to_bits()),
        other => Err(NoInstruction::Fma(other)),
    }
}

/// `a` of type `from` converted to type `to`, as the backend's `cvt` (or `mov` of raw
/// bits between types of one width) does.
pub fn convert(from: Ty, to: Ty, a: u64) -> Result<u64, NoInstruction> {
    let float = |value: f64| match to {
        Ty::F32 => f32_bits(value as f32),
        _ => value.to_bits(),
    };
    if from.is_integer() && to.is_integer() {
        // Widening extends by the source's signedness; narrowing keeps the low bits.
        let value = match from {
            Ty::I32 => i128::from(as_i32(a)),
            Ty::U32 => i128::from(a as u32),
            Ty::I64 => i128::from(a as i64),
            _ => i128::from(a),
        };
        return Ok(from_int(to, value as i64));
    }
    let float_of = |bits: u64| match from {
        Ty::F32 => Some(f64::from(as_f32(bits))),
        Ty::F64 => Some(f64::from_bits(bits)),
        _ => None,
    };
    Ok(match (from, to) {
        // `cvt.rn`: Rust's integer-to-float casts round to nearest even too.
        (Ty::I32, Ty::F32) => f32_bits(as_i32(a) as f32),
        (Ty::I64, Ty::F32) => f32_bits(a as i64 as f32),
        (Ty::U32, Ty::F32) => f32_bits(a as u32 as f32),
        (Ty::U64, Ty::F32) => f32_bits(a as f32),
        (Ty::I32, Ty::F64) => f64::from(as_i32(a)).to_bits(),
        (Ty::I64, Ty::F64) => (a as i64 as f64).to_bits(),
        (Ty::U32, Ty::F64) => f64::from(a as u32).to_bits(),
        (Ty::U64, Ty::F64) => (a as f64).to_bits(),
        // `cvt.rzi`: toward zero, saturating, NaN to 0, as Rust's casts (an f32 is
        // exact in f64, so going through it changes nothing).
        (Ty::F32 | Ty::F64, Ty::I32) => from_int(to, i64::from(float_of(a).unwrap_or(0.0) as i32)),
        (Ty::F32 | Ty::F64, Ty::U32) => u64::from(float_of(a).unwrap_or(0.0) as u32),
        (Ty::F32 | Ty::F64, Ty::I64) => float_of(a).unwrap_or(0.0) as i64 as u64,
        (Ty::F32 | Ty::F64, Ty::U64) => float_of(a).unwrap_or(0.0) as u64,
        (Ty::F32, Ty::F64) => float(f64::from(as_f32(a))),
        (Ty::F64, Ty::F32) => float(f64::from_bits(a)),
        (Ty::F32, Ty::BF16) => u64::from(f32_to_bf16(as_f32(a))),
        (Ty::F32, Ty::F16) => u64::from(f32_to_f16(as_f32(a))),
        (Ty::F16, Ty::F32) => f32_bits(half::f16::from_bits(a as u16).to_f32()),
        (Ty::BF16, Ty::F32) => (a & 0xFFFF) << 16,
        (Ty::Pred, Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64) => a,
        (Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64, Ty::Pred) => u64::from(a != 0),
        (from, to) if from.bits() == to.bits() => a,
        (from, to) => {
            return Err(NoInstruction::Convert { from, to });
        }
    })
}

/// `cvt.rn.bf16.f32`: round to nearest even; a NaN becomes the canonical 0x7FFF.
pub fn f32_to_bf16(value: f32) -> u16 {
    if value.is_nan() {
        return 0x7FFF;
    }
    let bits = value.to_bits();
    let rounded = bits.wrapping_add(0x7FFF + ((bits >> 16) & 1));
    (rounded >> 16) as u16
}

/// `cvt.rn.f16.f32`: round to nearest even; a NaN becomes the canonical 0x7FFF.
pub fn f32_to_f16(value: f32) -> u16 {
    if value.is_nan() {
        return 0x7FFF;
    }
    half::f16::from_f32(value).to_bits()
}

/// The value an atomic `op` leaves in memory holding `old`, given `value`.
///
/// An f32 add rounds to nearest even and flushes subnormal inputs and results to zero
/// (`atom.add.f32` does). An f32 max or min works on the float's bits, as the backend
/// emits it (PTX has no such instruction): the larger (smaller) of two floats, with
/// -0.0 below +0.0, for every float but NaN.
pub fn atomic(op: AtomicOp, ty: Ty, old: u64, value: u64) -> Result<u64, NoInstruction> {
    match (op, ty) {
        (AtomicOp::Add, Ty::F32) => {
            let flush = |x: f32| {
                if x.is_subnormal() {
                    0.0 * x.signum()
                } else {
                    x
                }
            };
            Ok(f32_bits(flush(flush(as_f32(old)) + flush(as_f32(value)))))
        }
        (AtomicOp::Max | AtomicOp::Min, Ty::F32) => {
            // Non-negative floats order as signed integers, negative ones backwards as
            // unsigned: the backend's `max.s32` / `min.u32` by the value's sign bit.
            let (old, value) = (old as u32, value as u32);
            let non_negative = (value as i32) >= 0;
            let chosen = match (op, non_negative) {
                (AtomicOp::Max, true) => (old as i32).max(value as i32) as u32,
                (AtomicOp::Max, false) => old.min(value),
                (_, true) => (old as i32).min(value as i32) as u32,
                (_, false) => old.max(value),
            };
            Ok(u64::from(chosen))
        }
        (AtomicOp::Add, _) if ty.is_integer() => binary(BinOp::Add, ty, old, value),
        (AtomicOp::Max, _) if ty.is_integer() => binary(BinOp::Max, ty, old, value),
        (AtomicOp::Min, _) if ty.is_integer() => binary(BinOp::Min, ty, old, value),
        (op, ty) => Err(NoInstruction::Atomic(op, ty)),
    }
}

/// `.ftz`'s result: a subnormal f32 becomes zero of its sign.
fn flush_subnormal(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

#[cfg(test)]
mod tests;
