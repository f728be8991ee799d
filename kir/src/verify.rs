//! The verifier: every value defined once before its uses and used only where it is
//! visible (inside the region that defines it and the regions nested there),
//! operands of the types their instructions need, vector widths the hardware has,
//! regions whose parameters, yields and results agree. Its success is a
//! [`Verified`] kernel, the only kind the PTX emitter takes.

use std::ops::Deref;

mod types;
mod warp;

use crate::ir::{Inst, Kernel, Op, Region, Ty, ValueId};
use types::check_types;
use warp::check_warp;

/// A kernel that passed [`verify`].
#[derive(Clone, Debug, PartialEq)]
pub struct Verified(Kernel);

impl Verified {
    /// The kernel.
    pub fn into_inner(self) -> Kernel {
        self.0
    }
}

impl Deref for Verified {
    type Target = Kernel;

    fn deref(&self) -> &Kernel {
        &self.0
    }
}

/// The most blocks a cluster may have: the portable limit (sm_90 allows 16 only with a
/// driver attribute the runtime does not set).
pub const MAX_CLUSTER_BLOCKS: u32 = 8;

/// The first problem the verifier found: what is wrong, and at which instruction when
/// it is one's (`instruction 3.then.0 (add)`: the indices of the instructions and
/// regions that lead to it, and its operation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The instruction, when the problem is one's.
    pub instruction: Option<String>,
    /// What is wrong.
    pub problem: String,
}

impl From<String> for VerifyError {
    fn from(problem: String) -> VerifyError {
        VerifyError {
            instruction: None,
            problem,
        }
    }
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.instruction {
            Some(instruction) => write!(f, "{instruction}: {}", self.problem),
            None => f.write_str(&self.problem),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Checks `kernel`; the first problem found, naming the instruction.
pub fn verify(kernel: Kernel) -> Result<Verified, VerifyError> {
    let mut scope = Scope {
        kernel: &kernel,
        defined: vec![false; kernel.values.len()],
        ever: vec![false; kernel.values.len()],
        valid_warps: Vec::new(),
    };
    let cluster = kernel.signature.launch.cluster;
    if cluster.contains(&0) || cluster.iter().product::<u32>() > MAX_CLUSTER_BLOCKS {
        return Err(format!(
            "a cluster of {cluster:?} blocks (each extent at least 1, at most {MAX_CLUSTER_BLOCKS} blocks)"
        ).into());
    }
    scope.instructions(&kernel.body, "")?;
    Ok(Verified(kernel))
}

/// Which values are visible at the current point, and which were ever defined.
struct Scope<'k> {
    kernel: &'k Kernel,
    defined: Vec<bool>,
    ever: Vec<bool>,
    /// Warp layouts already found valid (a GEMM repeats one for every instruction).
    valid_warps: Vec<crate::warp::WarpAtom>,
}

impl Scope<'_> {
    fn define(&mut self, value: ValueId) -> Result<(), VerifyError> {
        let index = value.0 as usize;
        match self.ever.get(index) {
            None => Err(format!("defines %{} which has no type", value.0).into()),
            Some(true) => Err(format!("defines %{} a second time", value.0).into()),
            Some(false) => {
                self.ever[index] = true;
                self.defined[index] = true;
                Ok(())
            }
        }
    }

    fn visible(&self, value: ValueId) -> Result<(), VerifyError> {
        if self.defined.get(value.0 as usize).copied().unwrap_or(false) {
            Ok(())
        } else if self.ever.get(value.0 as usize).copied().unwrap_or(false) {
            Err(format!("uses %{} outside the region that defines it", value.0).into())
        } else {
            Err(format!("uses %{} before it is defined", value.0).into())
        }
    }

    /// Checks a list of instructions; what they define stays visible after.
    fn instructions(&mut self, body: &[Inst], path: &str) -> Result<(), VerifyError> {
        for (index, inst) in body.iter().enumerate() {
            let at = format!("{path}{index}");
            // A problem of the instruction's own, not of one inside its regions.
            let fail = |error: VerifyError| match error.instruction {
                Some(_) => error,
                None => VerifyError {
                    instruction: Some(format!("instruction {at} ({})", inst.op.summary())),
                    problem: error.problem,
                },
            };
            for operand in operands(inst) {
                self.visible(operand).map_err(fail)?;
            }
            check_types(self.kernel, inst).map_err(fail)?;
            check_warp(inst, &mut self.valid_warps).map_err(fail)?;
            self.regions(inst, &at).map_err(fail)?;
            for result in &inst.results {
                self.define(*result).map_err(fail)?;
            }
        }
        Ok(())
    }

    /// Checks a region: its parameters, its body and its yields, whose values are then
    /// out of scope again. `condition` must be defined inside (a loop's).
    fn region(
        &mut self,
        region: &Region,
        path: &str,
        condition: Option<ValueId>,
    ) -> Result<(), VerifyError> {
        let before = self.defined.clone();
        for param in &region.params {
            self.define(*param)?;
        }
        self.instructions(&region.body, &format!("{path}."))?;
        for value in region.yields.iter().chain(&condition) {
            self.visible(*value)?;
        }
        if let Some(condition) = condition
            && (before[condition.0 as usize] || self.kernel.ty(condition) != Ty::Pred)
        {
            return Err("a loop's condition is a pred its body defines"
                .to_owned()
                .into());
        }
        self.defined = before;
        Ok(())
    }

    fn regions(&mut self, inst: &Inst, path: &str) -> Result<(), VerifyError> {
        match &inst.op {
            Op::For { body, .. } => self.region(body, path, None),
            Op::Loop {
                body, condition, ..
            } => self.region(body, path, Some(*condition)),
            Op::If {
                then, otherwise, ..
            } => {
                self.region(then, &format!("{path}.then"), None)?;
                self.region(otherwise, &format!("{path}.else"), None)
            }
            _ => Ok(()),
        }
    }
}

/// The values an instruction reads (not those its regions read inside).
pub fn operands(inst: &Inst) -> Vec<ValueId> {
    inst.op.operands()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HostExpr;
    use crate::ir::{BinOp, Space, UnOp};
    use crate::signature::{ParamKind, Signature};
    use lang::Span;

    /// Asserts that the verifier refuses `kernel` with a problem that says `why`.
    fn assert_refused(kernel: Kernel, why: &str) {
        let problem = verify(kernel).unwrap_err().problem;
        assert!(problem.contains(why), "{problem}");
    }

    fn kernel() -> Kernel {
        let one = || HostExpr::Const(1);
        Kernel::new(
            Signature {
                params: vec![crate::Param {
                    name: "x".to_owned(),
                    kind: ParamKind::Tensor {
                        dtype: crate::Element::F32,
                        shape: vec![one()],
                        strides: vec![one()],
                    },
                }],
                ..Signature::empty("k")
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
                narrow: None,
                values: vec![value],
                predicate: None,
            },
            span,
        );
        assert!(verify(k).is_ok());
    }

    #[test]
    fn mistakes_are_named() {
        let span = Span::empty(0);
        let mut mixed = kernel();
        let a = mixed.push(Op::ConstInt(1), Ty::I32, span);
        let b = mixed.push(Op::ConstInt(1), Ty::I64, span);
        mixed.push(Op::Binary(BinOp::Add, a, b), Ty::I32, span);
        assert_refused(mixed, "differ");

        let mut math = kernel();
        let a = math.push(Op::ConstInt(1), Ty::I32, span);
        math.push(Op::Unary(UnOp::Sqrt, a), Ty::I32, span);
        assert_refused(math, "a math function of i32");

        let mut encode = kernel();
        let a = encode.push(Op::ConstFloat(1.0), Ty::F16, span);
        encode.push(Op::Binary(BinOp::F32x2ToE4m3x2, a, a), Ty::B16, span);
        assert_refused(
            encode,
            "`f32x2_to_e4m3x2` takes f32 and f32 to b16, not f16 and f16 to b16",
        );

        let mut narrow = kernel();
        let address = narrow.push(Op::ConstInt(0), Ty::I32, span);
        let value = narrow.push(Op::ConstInt(0), Ty::I32, span);
        narrow.push_effect(
            Op::Store {
                space: Space::Global,
                address,
                offset: 0,
                narrow: None,
                values: vec![value; 3],
                predicate: None,
            },
            span,
        );
        assert_refused(narrow, "address is i64");

        let mut misread = kernel();
        misread.push(Op::Param(0), Ty::I32, span);
        assert_refused(misread, "is read as i64, not i32");
        let mut missing = kernel();
        missing.push(Op::Param(3), Ty::I64, span);
        assert_refused(missing, "no parameter 3");

        let mut early = kernel();
        early.push(Op::Convert(ValueId(5)), Ty::I64, span);
        assert_refused(early, "before it is defined");
    }

    /// `for i in 0..n { acc = acc + 1.0 }` with `acc` carried.
    fn counting_loop(k: &mut Kernel, leak: bool) -> ValueId {
        let span = Span::empty(0);
        let start = k.push(Op::ConstInt(0), Ty::I64, span);
        let end = k.push(Op::ConstInt(8), Ty::I64, span);
        let zero = k.push(Op::ConstFloat(0.0), Ty::F32, span);
        let counter = k.new_value(Ty::I64);
        let acc = k.new_value(Ty::F32);
        let one = k.new_value(Ty::F32);
        let sum = k.new_value(Ty::F32);
        let result = k.new_value(Ty::F32);
        let body = vec![
            Inst {
                op: Op::ConstFloat(1.0),
                results: vec![one],
                span,
            },
            Inst {
                op: Op::Binary(BinOp::Add, acc, one),
                results: vec![sum],
                span,
            },
        ];
        k.body.push(Inst {
            op: Op::For {
                start,
                end,
                inits: vec![zero],
                body: Region {
                    params: vec![counter, acc],
                    body,
                    yields: vec![sum],
                },
                uniform: true,
            },
            results: vec![result],
            span,
        });
        if leak { sum } else { result }
    }

    #[test]
    fn regions_scope_their_values() {
        let span = Span::empty(0);
        for leak in [false, true] {
            let mut k = kernel();
            let address = k.push(Op::Param(0), Ty::I64, span);
            let value = counting_loop(&mut k, leak);
            k.push_effect(
                Op::Store {
                    space: Space::Global,
                    address,
                    offset: 0,
                    narrow: None,
                    values: vec![value],
                    predicate: None,
                },
                span,
            );
            let verified = verify(k);
            if leak {
                assert!(verified.unwrap_err().problem.contains("outside the region"));
            } else {
                assert!(verified.is_ok());
            }
        }
    }

    #[test]
    fn carried_values_must_agree() {
        let mut k = kernel();
        counting_loop(&mut k, false);
        let Op::For { inits, .. } = &mut k.body[3].op else {
            panic!("the loop is the fourth instruction");
        };
        inits.clear();
        assert_refused(k, "carried values disagree");
    }
}
