//! A branch condition decided before anything runs: a trace [`Term`] evaluated where the
//! values of some of its run-time variables (a thread's indices, say) settle it. An
//! integer is known when its variables given values leave a constant; `&&` and `||` are
//! known when either side decides alone.

use lang::ast::{BinaryOp, UnaryOp};
use trace::Term;

/// What a term is, when the given values decide it.
enum Known {
    Int(i64),
    Bool(bool),
}

/// The value of the bool `term` where `value_of` (a variable's value, or `None` for one
/// left unknown) settles it.
pub(crate) fn truth(term: &Term, value_of: &dyn Fn(&str) -> Option<i64>) -> Option<bool> {
    match known(term, value_of)? {
        Known::Bool(value) => Some(value),
        Known::Int(_) => None,
    }
}

fn known(term: &Term, value_of: &dyn Fn(&str) -> Option<i64>) -> Option<Known> {
    match term {
        Term::Bool(value) => Some(Known::Bool(*value)),
        Term::Int(value, _) => Some(Known::Int(value.substitute(value_of).ok()?.as_constant()?)),
        Term::Unary(UnaryOp::Not, operand) => {
            truth(operand, value_of).map(|value| Known::Bool(!value))
        }
        Term::Binary {
            op, left, right, ..
        } => binary(*op, left, right, value_of),
        _ => None,
    }
}

fn binary(
    op: BinaryOp,
    left: &Term,
    right: &Term,
    value_of: &dyn Fn(&str) -> Option<i64>,
) -> Option<Known> {
    let truth = |term| truth(term, value_of);
    match op {
        // Either side may decide alone.
        BinaryOp::And => match (truth(left), truth(right)) {
            (Some(false), _) | (_, Some(false)) => Some(Known::Bool(false)),
            (Some(true), Some(true)) => Some(Known::Bool(true)),
            _ => None,
        },
        BinaryOp::Or => match (truth(left), truth(right)) {
            (Some(true), _) | (_, Some(true)) => Some(Known::Bool(true)),
            (Some(false), Some(false)) => Some(Known::Bool(false)),
            _ => None,
        },
        _ => {
            let (Some(Known::Int(a)), Some(Known::Int(b))) =
                (known(left, value_of), known(right, value_of))
            else {
                return None;
            };
            let compared = match op {
                BinaryOp::Equal => a == b,
                BinaryOp::NotEqual => a != b,
                BinaryOp::Less => a < b,
                BinaryOp::LessEqual => a <= b,
                BinaryOp::Greater => a > b,
                BinaryOp::GreaterEqual => a >= b,
                _ => return None,
            };
            Some(Known::Bool(compared))
        }
    }
}
