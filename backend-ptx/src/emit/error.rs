//! What keeps a module from being emitted. The verifier rules out every problem of an
//! instruction's own (a float constant of an integer type, arithmetic on predicates,
//! an atom template naming an operand it lacks...), so users meet one only through
//! hand-written KIR, as they do an intrinsic newer than the target.

use std::fmt;

use kir::Inst;

/// The first problem the emitter found: what is wrong, and the instruction when the
/// problem is one's (its operation, [`kir::Op::summary`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitError {
    /// The instruction, when the problem is one's.
    pub instruction: Option<String>,
    /// What is wrong.
    pub problem: String,
}

impl EmitError {
    /// The error naming `inst` unless it names an instruction already (one inside
    /// `inst`'s regions).
    pub(super) fn at(self, inst: &Inst) -> EmitError {
        match self.instruction {
            Some(_) => self,
            None => EmitError {
                instruction: Some(inst.op.summary()),
                problem: self.problem,
            },
        }
    }
}

impl From<String> for EmitError {
    fn from(problem: String) -> EmitError {
        EmitError {
            instruction: None,
            problem,
        }
    }
}

impl From<&str> for EmitError {
    fn from(problem: &str) -> EmitError {
        EmitError::from(problem.to_owned())
    }
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.instruction {
            Some(instruction) => write!(f, "{}, in {instruction}", self.problem),
            None => f.write_str(&self.problem),
        }
    }
}

impl std::error::Error for EmitError {}

#[cfg(test)]
mod tests {
    use kir::{Op, Region, ValueId};

    use super::*;

    #[test]
    fn the_innermost_instruction_is_named_after_the_problem() {
        let inst = |op| Inst {
            op,
            results: Vec::new(),
            span: Default::default(),
        };
        let branch = inst(Op::If {
            condition: ValueId(0),
            then: Region::default(),
            otherwise: Region::default(),
            uniform: false,
        });
        let error = EmitError::from("arithmetic on pred").at(&inst(Op::Barrier));
        assert_eq!(error.to_string(), "arithmetic on pred, in Barrier");
        assert_eq!(error.clone().at(&branch), error);
        assert_eq!(
            EmitError::from("a loop without a counter")
                .at(&branch)
                .to_string(),
            "a loop without a counter, in if"
        );
    }
}
