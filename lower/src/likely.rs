//! Which branches a loop takes on nearly every iteration, foreseen from their conditions.
//!
//! A condition that compares a loop's counter, offset by a constant, with that loop's
//! end, offset by a constant, is the same on all but a constant number of the loop's
//! iterations: `k + STAGES - 1 < k_tiles` in `for k in 0..k_tiles` is true on all
//! but the last `STAGES - 1`. Such a branch is taken nearly always (or nearly never)
//! when the loop runs long, which no other condition promises. `&&`, `||` and `!`
//! combine what their operands foresee. Only a loop whose trip count is a run-time
//! value counts (`0..k_tiles`, not `0..4` or `n - 2..n`): its iterations are taken to
//! outnumber the constant.
//!
//! Placement uses this: work that leaves a branch taken nearly always costs nothing
//! extra, and leaves a block that ptxas can turn into predicated instructions
//! scheduled among the loop's others (the SM80 GEMM's refill: with its arithmetic
//! inside, ptxas kept the branch, and the GEMM was 5% slower).

use lang::ast::{BinaryOp, UnaryOp};
use layout::SymInt;
use trace::Term;

/// A `for` loop around what is being lowered: its counter's name and its bounds.
pub(crate) struct OpenLoop {
    pub(crate) counter: String,
    pub(crate) start: SymInt,
    pub(crate) end: SymInt,
}

/// The value `condition` has on all but a constant number of the iterations of one of
/// `loops`, if it has one.
pub(crate) fn foreseen(condition: &Term, loops: &[OpenLoop]) -> Option<bool> {
    match condition {
        Term::Unary(UnaryOp::Not, operand) => foreseen(operand, loops).map(|value| !value),
        Term::Binary {
            op, left, right, ..
        } => {
            let both = (foreseen(left, loops), foreseen(right, loops));
            match op {
                BinaryOp::And => match both {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                },
                BinaryOp::Or => match both {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                },
                op => comparison(*op, left, right, loops),
            }
        }
        _ => None,
    }
}

/// What a comparison of a counter and its loop's end (each offset by a constant) is on
/// nearly every iteration: the counter is the lesser then.
fn comparison(op: BinaryOp, left: &Term, right: &Term, loops: &[OpenLoop]) -> Option<bool> {
    let (Term::Int(left, _), Term::Int(right, _)) = (left, right) else {
        return None;
    };
    let mut run_time_trips =
        (loops.iter()).filter(|open| open.end.constant_difference(&open.start).is_none());
    let counter_below_end = run_time_trips.find_map(|open| {
        let counter = SymInt::variable(&open.counter);
        let offset_from = |value: &SymInt, base: &SymInt| value.constant_difference(base);
        if offset_from(left, &counter).is_some() && offset_from(right, &open.end).is_some() {
            Some(true)
        } else if offset_from(left, &open.end).is_some() && offset_from(right, &counter).is_some() {
            Some(false)
        } else {
            None
        }
    })?;
    // Whether `left < right` nearly always, then what `op` says of that.
    let left_less = counter_below_end;
    match op {
        BinaryOp::Less | BinaryOp::LessEqual => Some(left_less),
        BinaryOp::Greater | BinaryOp::GreaterEqual => Some(!left_less),
        BinaryOp::NotEqual => Some(true),
        BinaryOp::Equal => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use cute::Dtype;

    use super::*;

    /// An i32 term from its text (`k+2`).
    fn int(text: &str) -> Arc<Term> {
        let value = text.parse().expect("a symbolic integer");
        Arc::new(Term::Int(value, Dtype::I32))
    }

    fn binary(op: BinaryOp, left: Arc<Term>, right: Arc<Term>) -> Arc<Term> {
        Arc::new(Term::Binary {
            op,
            dtype: Dtype::I32,
            left,
            right,
        })
    }

    /// `for k in 0..tiles` (a run-time end) around `for c in 0..4`.
    fn loops() -> Vec<OpenLoop> {
        let open = |counter: &str, start: &str, end: &str| OpenLoop {
            counter: counter.into(),
            start: start.parse().expect("a symbolic integer"),
            end: end.parse().expect("a symbolic integer"),
        };
        vec![
            open("k", "0", "tiles"),
            open("c", "0", "4"),
            open("j", "n-2", "n"),
        ]
    }

    fn foresee(condition: &Arc<Term>) -> Option<bool> {
        foreseen(condition, &loops())
    }

    #[test]
    fn a_counter_below_its_end_is_foreseen_either_way_round() {
        let below = binary(BinaryOp::Less, int("k+2"), int("tiles"));
        assert_eq!(foresee(&below), Some(true));
        let past = binary(BinaryOp::GreaterEqual, int("k+2"), int("tiles"));
        assert_eq!(foresee(&past), Some(false));
        let end_first = binary(BinaryOp::Greater, int("tiles-1"), int("k"));
        assert_eq!(foresee(&end_first), Some(true));
        let last = binary(BinaryOp::Equal, int("k+1"), int("tiles"));
        assert_eq!(foresee(&last), Some(false));
        let not_last = binary(BinaryOp::NotEqual, int("tiles"), int("k+1"));
        assert_eq!(foresee(&not_last), Some(true));
        let end_at_most = binary(BinaryOp::LessEqual, int("tiles"), int("k"));
        assert_eq!(foresee(&end_at_most), Some(false));
        let end_at_least = binary(BinaryOp::GreaterEqual, int("tiles+1"), int("k+3"));
        assert_eq!(foresee(&end_at_least), Some(true));
        assert_eq!(
            foresee(&Arc::new(Term::Unary(UnaryOp::Not, below))),
            Some(false)
        );
    }

    #[test]
    fn only_a_run_time_trip_count_and_a_constant_offset_count() {
        // `c + 1 < 4` holds on 3 of the 4 iterations, `j + 1 < n` on 1 of 2: too few
        // to say.
        assert_eq!(foresee(&binary(BinaryOp::Less, int("c+1"), int("4"))), None);
        assert_eq!(foresee(&binary(BinaryOp::Less, int("j+1"), int("n"))), None);
        // `2 * k < tiles` holds on half of them; `k < w` on any number.
        assert_eq!(
            foresee(&binary(BinaryOp::Less, int("2*k"), int("tiles"))),
            None
        );
        assert_eq!(foresee(&binary(BinaryOp::Less, int("k"), int("w"))), None);
    }

    #[test]
    fn logic_combines_what_its_operands_foresee() {
        let below = || binary(BinaryOp::Less, int("k+1"), int("tiles"));
        let unknown = || binary(BinaryOp::Less, int("w"), int("tiles"));
        assert_eq!(
            foresee(&binary(BinaryOp::Or, unknown(), below())),
            Some(true)
        );
        assert_eq!(foresee(&binary(BinaryOp::And, unknown(), below())), None);
        let past = Arc::new(Term::Unary(UnaryOp::Not, below()));
        assert_eq!(
            foresee(&binary(BinaryOp::And, unknown(), past)),
            Some(false)
        );
    }
}
