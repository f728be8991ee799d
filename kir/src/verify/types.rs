//! The verifier's type rules: what each instruction requires of its operands'
//! and results' types (a unary or binary operation's from its row's [`TypeRule`]),
//! memory accesses' address and vector widths, an intrinsic's
//! parameters, operands and results against its row, and the agreement of a region's
//! initial values, parameters, yields and results.

use super::VerifyError;
use crate::format::Style;
use crate::ir::{ArithRow, Inst, Kernel, Narrow, Op, Ty, TypeRule, ValueId};
use crate::signature::{IntParam, ParamKind, ScalarParam};

pub(super) fn check_types(kernel: &Kernel, inst: &Inst) -> Result<(), VerifyError> {
    let ty = |value: ValueId| kernel.ty(value);
    let result = inst.results.first().map(|value| ty(*value));
    let want_results = |count: usize| {
        if inst.results.len() == count {
            Ok(())
        } else {
            Err(format!("defines {} values, not {count}", inst.results.len()).into())
        }
    };
    match &inst.op {
        Op::Param(index) => {
            want_results(1)?;
            let Some(param) = kernel.signature.params.get(*index) else {
                return Err(format!("the kernel has no parameter {index}").into());
            };
            let expected = param_ty(&param.kind);
            if result != Some(expected) {
                return Err(format!(
                    "parameter {index} (`{}`) is read as {}, not {}",
                    param.name,
                    expected.name(),
                    result.map_or("nothing", Ty::name)
                )
                .into());
            }
            Ok(())
        }
        Op::ConstInt(_) | Op::Special(_) | Op::SharedBase | Op::ConstFloat(_) | Op::Convert(_) => {
            want_results(1)
        }
        Op::Unary(op, a) => {
            want_results(1)?;
            operation_types(op.row(), &[ty(*a)], result)
        }
        Op::Select(c, a, b) => {
            want_results(1)?;
            if ty(*c) != Ty::Pred || ty(*a) != ty(*b) || result != Some(ty(*a)) {
                return Err("a select needs a predicate and two values of its type"
                    .to_owned()
                    .into());
            }
            Ok(())
        }
        Op::Binary(op, a, b) => {
            want_results(1)?;
            operation_types(op.row(), &[ty(*a), ty(*b)], result)
        }
        Op::Fma(a, b, c) => {
            want_results(1)?;
            if [a, b, c]
                .iter()
                .any(|operand| Some(ty(**operand)) != result)
                || !matches!(result, Some(Ty::F32 | Ty::F64))
            {
                return Err("an fma takes three f32 or f64 values of its type"
                    .to_owned()
                    .into());
            }
            Ok(())
        }
        Op::Compare(_, a, b) => {
            want_results(1)?;
            if ty(*a) != ty(*b) || result != Some(Ty::Pred) {
                return Err("a comparison takes two operands of one type to a pred"
                    .to_owned()
                    .into());
            }
            Ok(())
        }
        Op::Pack(a, b) => {
            want_results(1)?;
            if ty(*a).bits() != 16 || ty(*b).bits() != 16 || result != Some(Ty::B32) {
                return Err("pack takes two 16-bit values to b32".to_owned().into());
            }
            Ok(())
        }
        Op::Unpack(a) => {
            want_results(2)?;
            if ty(*a) != Ty::B32 || inst.results.iter().any(|value| ty(*value).bits() != 16) {
                return Err("unpack takes b32 to two 16-bit values".to_owned().into());
            }
            Ok(())
        }
        Op::Load {
            space,
            address,
            narrow,
            predicate,
            ..
        } => {
            check_access(kernel, *space, *address, *predicate, &inst.results)?;
            check_narrow(kernel, *narrow, &inst.results)
        }
        Op::Store {
            space,
            address,
            narrow,
            values,
            predicate,
            ..
        } => {
            want_results(0)?;
            check_access(kernel, *space, *address, *predicate, values)?;
            check_narrow(kernel, *narrow, values)
        }
        Op::Atom {
            registers,
            output,
            predicate,
            ..
        } => {
            if output.is_none() {
                want_results(0)?;
            } else if inst.results.is_empty() {
                return Err("an atom with an output defines values".to_owned().into());
            }
            let words = registers
                .iter()
                .flat_map(|(_, values)| values.iter())
                .chain(&inst.results);
            if let Some(word) = words.into_iter().find(|value| ty(**value).bits() != 32) {
                return Err(
                    format!("an atom's registers are 32-bit, not {}", ty(*word).name()).into(),
                );
            }
            match predicate {
                Some(predicate) if ty(*predicate) != Ty::Pred => {
                    Err("the predicate is not a pred".to_owned().into())
                }
                _ => Ok(()),
            }
        }
        Op::Intrinsic {
            intrinsic,
            operands,
        } => {
            let operands: Vec<(Ty, i64)> = (operands.iter())
                .map(|(value, offset)| (ty(*value), *offset))
                .collect();
            let results: Vec<Ty> = inst.results.iter().map(|value| ty(*value)).collect();
            (intrinsic.check(&operands, &results))
                .map_err(|error| format!("`{}` {error}", intrinsic.row().name).into())
        }
        Op::Print { format, args } => {
            want_results(0)?;
            let styles: Vec<Style> = format.styles().collect();
            if styles.len() != args.len() {
                return Err(format!(
                    "a print of {} values with {} placeholders",
                    args.len(),
                    styles.len()
                )
                .into());
            }
            match (styles.iter().zip(args)).find(|(style, arg)| !style.accepts(ty(**arg))) {
                Some((style, arg)) => Err(format!(
                    "a print's `{}` cannot write a {}",
                    style.source(),
                    ty(*arg).name()
                )
                .into()),
                None => Ok(()),
            }
        }
        Op::Barrier | Op::WarpBarrier | Op::CpAsyncCommit | Op::CpAsyncWait(_) => want_results(0),
        Op::Shuffle { value, lane, .. } => {
            want_results(1)?;
            if ty(*value).bits() != 32 || result != Some(ty(*value)) || ty(*lane) != Ty::I32 {
                return Err("a shuffle moves a 32-bit value by an i32 lane"
                    .to_owned()
                    .into());
            }
            Ok(())
        }
        Op::Atomic {
            space,
            address,
            value,
            ..
        } => {
            if inst.results.len() > 1 || result.is_some_and(|result| result != ty(*value)) {
                return Err("an atomic returns nothing or the old value"
                    .to_owned()
                    .into());
            }
            if !matches!(ty(*value), Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64 | Ty::F32) {
                return Err(format!("an atomic on {}", ty(*value).name()).into());
            }
            check_access(kernel, *space, *address, None, &[*value])
        }
        Op::For {
            start,
            end,
            inits,
            body,
            ..
        } => {
            if ty(*start) != ty(*end)
                || !ty(*start).is_integer()
                || body.params.first().map(|counter| ty(*counter)) != Some(ty(*start))
            {
                return Err("a loop's bounds and counter are integers of one type"
                    .to_owned()
                    .into());
            }
            carried(kernel, inst, inits, &body.params[1..], &body.yields)
        }
        Op::Loop { inits, body, .. } => carried(kernel, inst, inits, &body.params, &body.yields),
        Op::If {
            condition,
            then,
            otherwise,
            ..
        } => {
            if ty(*condition) != Ty::Pred {
                return Err("the condition is not a pred".to_owned().into());
            }
            if !then.params.is_empty() || !otherwise.params.is_empty() {
                return Err("a branch has no parameters".to_owned().into());
            }
            carried(kernel, inst, &[], &inst.results, &then.yields)?;
            carried(kernel, inst, &[], &inst.results, &otherwise.yields)
        }
    }
}

/// Whether a unary or binary operation's `operands` and `result` types keep its row's
/// rule.
fn operation_types(row: ArithRow, operands: &[Ty], result: Option<Ty>) -> Result<(), VerifyError> {
    let names = || {
        operands
            .iter()
            .map(|ty| ty.name())
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let alike = operands.iter().all(|ty| Some(*ty) == result);
    match row.types {
        TypeRule::Alike | TypeRule::AlikeFloat if !alike => Err(match operands {
            [_] => "operand and result types differ".to_owned(),
            _ => format!(
                "operands {} and result {:?} differ",
                names(),
                result.map(Ty::name)
            ),
        }
        .into()),
        TypeRule::AlikeFloat if !matches!(operands[0], Ty::F32 | Ty::F64) => {
            Err(format!("a math function of {}", operands[0].name()).into())
        }
        TypeRule::Fixed {
            operands: want,
            result: want_result,
        } if operands.iter().any(|ty| *ty != want) || result != Some(want_result) => Err(format!(
            "`{}` takes {} to {}, not {} to {}",
            row.name,
            vec![want.name(); operands.len()].join(" and "),
            want_result.name(),
            names(),
            result.map_or("nothing", Ty::name)
        )
        .into()),
        _ => Ok(()),
    }
}

/// The register type a parameter is read as: its integer width, a tensor's 64-bit
/// address, a float's own type, a bool's 32-bit integer.
fn param_ty(kind: &ParamKind) -> Ty {
    match kind {
        ParamKind::Int(IntParam::U32) => Ty::U32,
        ParamKind::Int(IntParam::U64) => Ty::U64,
        ParamKind::Int(int) if int.bytes() == 8 => Ty::I64,
        ParamKind::Int(_) | ParamKind::Scalar(ScalarParam::Bool) => Ty::I32,
        ParamKind::Tensor { .. } | ParamKind::TensorMap(_) => Ty::I64,
        ParamKind::Scalar(ScalarParam::F16) => Ty::F16,
        ParamKind::Scalar(ScalarParam::BF16) => Ty::BF16,
        ParamKind::Scalar(ScalarParam::F32) => Ty::F32,
        ParamKind::Scalar(ScalarParam::F64) => Ty::F64,
    }
}

/// Carried values agree in number and type: initial values (when given), region
/// parameters, yields and the instruction's results.
fn carried(
    kernel: &Kernel,
    inst: &Inst,
    inits: &[ValueId],
    params: &[ValueId],
    yields: &[ValueId],
) -> Result<(), VerifyError> {
    let types = |values: &[ValueId]| values.iter().map(|v| kernel.ty(*v)).collect::<Vec<_>>();
    let want = types(params);
    let agree = (matches!(inst.op, Op::If { .. }) || types(inits) == want)
        && types(yields) == want
        && types(&inst.results) == want;
    if agree {
        Ok(())
    } else {
        Err(format!(
            "carried values disagree: inits {:?}, parameters {:?}, yields {:?}, results {:?}",
            types(inits),
            want,
            types(yields),
            types(&inst.results)
        )
        .into())
    }
}

/// A narrow access moves 32-bit integers.
fn check_narrow(
    kernel: &Kernel,
    narrow: Option<Narrow>,
    words: &[ValueId],
) -> Result<(), VerifyError> {
    let (Some(narrow), Some(first)) = (narrow, words.first()) else {
        return Ok(());
    };
    let word = kernel.ty(*first);
    if matches!(word, Ty::I32 | Ty::U32) {
        Ok(())
    } else {
        Err(format!(
            "a {}-bit access moves i32 or u32 words, not {}",
            narrow.bits(),
            word.name()
        )
        .into())
    }
}

fn check_access(
    kernel: &Kernel,
    space: crate::ir::Space,
    address: ValueId,
    predicate: Option<ValueId>,
    words: &[ValueId],
) -> Result<(), VerifyError> {
    if kernel.ty(address) != space.address_ty() {
        return Err(format!(
            "a {} address is {}, not {}",
            space.name(),
            space.address_ty().name(),
            kernel.ty(address).name()
        )
        .into());
    }
    if predicate.is_some_and(|predicate| kernel.ty(predicate) != Ty::Pred) {
        return Err("the predicate is not a pred".to_owned().into());
    }
    let Some(first) = words.first() else {
        return Err("moves no words".to_owned().into());
    };
    let word = kernel.ty(*first);
    if words.iter().any(|value| kernel.ty(*value) != word) {
        return Err("a vector's words differ in type".to_owned().into());
    }
    if word == Ty::Pred {
        return Err("predicates are not stored in memory".to_owned().into());
    }
    let bits = word.bits() * u32::try_from(words.len()).unwrap_or(u32::MAX);
    if !matches!(words.len(), 1 | 2 | 4) || bits > 128 {
        return Err(format!(
            "{} words of {} is not a vector width",
            words.len(),
            word.name()
        )
        .into());
    }
    Ok(())
}
