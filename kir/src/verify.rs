//! The verifier: every value defined once before its uses, operands of the types
//! their instructions need, vector widths the hardware has.

use crate::ir::{Inst, Kernel, Op, Ty, ValueId};

/// Checks `kernel`; the first problem found, in words, naming the instruction.
pub fn verify(kernel: &Kernel) -> Result<(), String> {
    let mut defined = vec![false; kernel.values.len()];
    for (index, inst) in kernel.body.iter().enumerate() {
        let fail = |problem: String| Err(format!("instruction {index} ({:?}): {problem}", inst.op));
        for operand in operands(inst) {
            if !defined.get(operand.0 as usize).copied().unwrap_or(false) {
                return fail(format!("uses %{} before it is defined", operand.0));
            }
        }
        if let Err(problem) = check_types(kernel, inst) {
            return fail(problem);
        }
        for result in &inst.results {
            match defined.get_mut(result.0 as usize) {
                Some(slot) if !*slot => *slot = true,
                Some(_) => return fail(format!("defines %{} a second time", result.0)),
                None => return fail(format!("defines %{} which has no type", result.0)),
            }
        }
    }
    Ok(())
}

/// The values an instruction reads.
pub fn operands(inst: &Inst) -> Vec<ValueId> {
    match &inst.op {
        Op::ConstInt(_)
        | Op::ConstFloat(_)
        | Op::Param(_)
        | Op::Special(_)
        | Op::SharedBase
        | Op::Barrier
        | Op::WarpBarrier
        | Op::CpAsyncCommit
        | Op::CpAsyncWait(_) => Vec::new(),
        Op::Unary(_, a) | Op::Convert(a) | Op::Unpack(a) => vec![*a],
        Op::Binary(_, a, b) | Op::Compare(_, a, b) | Op::Pack(a, b) => vec![*a, *b],
        Op::Select(c, a, b) => vec![*c, *a, *b],
        Op::Load {
            address, predicate, ..
        } => std::iter::once(*address).chain(*predicate).collect(),
        Op::Store {
            address,
            values,
            predicate,
            ..
        } => std::iter::once(*address)
            .chain(values.iter().copied())
            .chain(*predicate)
            .collect(),
        Op::Atom {
            operands,
            predicate,
            ..
        } => operands
            .iter()
            .map(|(_, value, _)| *value)
            .chain(*predicate)
            .collect(),
    }
}

fn check_types(kernel: &Kernel, inst: &Inst) -> Result<(), String> {
    let ty = |value: ValueId| kernel.ty(value);
    let result = inst.results.first().map(|value| ty(*value));
    let want_results = |count: usize| {
        if inst.results.len() == count {
            Ok(())
        } else {
            Err(format!(
                "defines {} values, not {count}",
                inst.results.len()
            ))
        }
    };
    match &inst.op {
        Op::ConstInt(_) | Op::Param(_) | Op::Special(_) | Op::SharedBase | Op::ConstFloat(_) => {
            want_results(1)
        }
        Op::Unary(_, a) | Op::Convert(a) => {
            want_results(1)?;
            if matches!(inst.op, Op::Unary(..)) && result != Some(ty(*a)) {
                return Err("operand and result types differ".to_owned());
            }
            if matches!(inst.op, Op::Unary(op, _) if op.is_math())
                && !matches!(ty(*a), Ty::F32 | Ty::F64)
            {
                return Err(format!("a math function of {}", ty(*a).name()));
            }
            Ok(())
        }
        Op::Select(c, a, b) => {
            want_results(1)?;
            if ty(*c) != Ty::Pred || ty(*a) != ty(*b) || result != Some(ty(*a)) {
                return Err("a select needs a predicate and two values of its type".to_owned());
            }
            Ok(())
        }
        Op::Binary(_, a, b) => {
            want_results(1)?;
            if ty(*a) != ty(*b) || result != Some(ty(*a)) {
                return Err(format!(
                    "operands {} and {} and result {:?} differ",
                    ty(*a).name(),
                    ty(*b).name(),
                    result.map(Ty::name)
                ));
            }
            Ok(())
        }
        Op::Compare(_, a, b) => {
            want_results(1)?;
            if ty(*a) != ty(*b) || result != Some(Ty::Pred) {
                return Err("a comparison takes two operands of one type to a pred".to_owned());
            }
            Ok(())
        }
        Op::Pack(a, b) => {
            want_results(1)?;
            if ty(*a).bits() != 16 || ty(*b).bits() != 16 || result != Some(Ty::B32) {
                return Err("pack takes two 16-bit values to b32".to_owned());
            }
            Ok(())
        }
        Op::Unpack(a) => {
            want_results(2)?;
            if ty(*a) != Ty::B32 || inst.results.iter().any(|value| ty(*value).bits() != 16) {
                return Err("unpack takes b32 to two 16-bit values".to_owned());
            }
            Ok(())
        }
        Op::Load {
            space,
            address,
            predicate,
            ..
        } => {
            check_access(kernel, *space, *address, *predicate, &inst.results)?;
            Ok(())
        }
        Op::Store {
            space,
            address,
            values,
            predicate,
            ..
        } => {
            want_results(0)?;
            check_access(kernel, *space, *address, *predicate, values)
        }
        Op::Atom { predicate, .. } => {
            want_results(0)?;
            match predicate {
                Some(predicate) if ty(*predicate) != Ty::Pred => {
                    Err("the predicate is not a pred".to_owned())
                }
                _ => Ok(()),
            }
        }
        Op::Barrier | Op::WarpBarrier | Op::CpAsyncCommit | Op::CpAsyncWait(_) => want_results(0),
    }
}

fn check_access(
    kernel: &Kernel,
    space: crate::ir::Space,
    address: ValueId,
    predicate: Option<ValueId>,
    words: &[ValueId],
) -> Result<(), String> {
    if kernel.ty(address) != space.address_ty() {
        return Err(format!(
            "a {} address is {}, not {}",
            space.name(),
            space.address_ty().name(),
            kernel.ty(address).name()
        ));
    }
    if predicate.is_some_and(|predicate| kernel.ty(predicate) != Ty::Pred) {
        return Err("the predicate is not a pred".to_owned());
    }
    let Some(first) = words.first() else {
        return Err("moves no words".to_owned());
    };
    let word = kernel.ty(*first);
    if words.iter().any(|value| kernel.ty(*value) != word) {
        return Err("a vector's words differ in type".to_owned());
    }
    if word == Ty::Pred {
        return Err("predicates are not stored in memory".to_owned());
    }
    let bits = word.bits() * u32::try_from(words.len()).unwrap_or(u32::MAX);
    if !matches!(words.len(), 1 | 2 | 4) || bits > 128 {
        return Err(format!(
            "{} words of {} is not a vector width",
            words.len(),
            word.name()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HostExpr;
    use crate::ir::{BinOp, Space};
    use crate::signature::{Launch, Signature};
    use lang::Span;

    fn kernel() -> Kernel {
        let one = || HostExpr::Const(1);
        Kernel::new(
            Signature {
                name: "k".to_owned(),
                entry: "k".to_owned(),
                const_args: Vec::new(),
                params: Vec::new(),
                launch: Launch {
                    grid: [one(), one(), one()],
                    block: [one(), one(), one()],
                    shared_bytes: 0,
                },
                assumptions: Vec::new(),
                alignments: Vec::new(),
            },
            Span::empty(0),
        )
    }

    #[test]
    fn a_well_formed_kernel_verifies() {
        let mut k = kernel();
        let span = Span::empty(0);
        let base = k.push(Op::Param(0), Ty::I64, span);
        let value = k.push(Op::ConstFloat(1.0), Ty::F32, span);
        k.push_effect(
            Op::Store {
                space: Space::Global,
                address: base,
                offset: 16,
                values: vec![value],
                predicate: None,
            },
            span,
        );
        assert_eq!(verify(&k), Ok(()));
    }

    #[test]
    fn mistakes_are_named() {
        let span = Span::empty(0);
        let mut mixed = kernel();
        let a = mixed.push(Op::ConstInt(1), Ty::I32, span);
        let b = mixed.push(Op::ConstInt(1), Ty::I64, span);
        mixed.push(Op::Binary(BinOp::Add, a, b), Ty::I32, span);
        assert!(verify(&mixed).unwrap_err().contains("differ"));

        let mut narrow = kernel();
        let address = narrow.push(Op::ConstInt(0), Ty::I32, span);
        let value = narrow.push(Op::ConstInt(0), Ty::I32, span);
        narrow.push_effect(
            Op::Store {
                space: Space::Global,
                address,
                offset: 0,
                values: vec![value; 3],
                predicate: None,
            },
            span,
        );
        assert!(verify(&narrow).unwrap_err().contains("address is i64"));

        let mut early = kernel();
        early.push(Op::Convert(ValueId(5)), Ty::I64, span);
        assert!(verify(&early).unwrap_err().contains("before it is defined"));
    }
}
