//! Small branches that only compute become selects.
//!
//! `if key >= s { scores[i] = -inf; }` is a branch whose sides compute nothing with
//! effects and hand on values: both sides can run and a `selp` pick the result. Kept as
//! a branch, each such `if` splits the warp's path, and inside a loop of wgmmas ptxas
//! must assume the accumulators it writes are still in flight there: it serializes the
//! wgmmas (its advice C7518), which cost the attention example a tenth of its speed. A
//! side with memory accesses, barriers, atoms or regions stays a branch, as does one
//! that hands on predicates (PTX has no select of predicates) or holds more than a few
//! instructions.

use crate::ir::{Inst, Kernel, Op, Region, Ty, ValueId};

/// The most instructions both sides together may hold to become selects.
const MOST_INSTRUCTIONS: usize = 8;

/// Turns every small pure branch of `kernel` into the instructions of both sides and
/// one select per result, innermost branches first.
pub fn branches_to_selects(kernel: &mut Kernel) {
    let values = kernel.values.clone();
    convert(&mut kernel.body, &values);
}

fn convert(body: &mut Vec<Inst>, values: &[Ty]) {
    let mut converted = Vec::with_capacity(body.len());
    for mut inst in body.drain(..) {
        for region in inst.op.regions_mut() {
            convert(&mut region.body, values);
        }
        match inst.op {
            Op::If {
                condition,
                then,
                otherwise,
                ..
            } if selectable((&then, &otherwise), &inst.results, values) => {
                converted.extend(then.body);
                converted.extend(otherwise.body);
                let pairs = then.yields.into_iter().zip(otherwise.yields);
                for (result, (a, b)) in inst.results.iter().zip(pairs) {
                    converted.push(Inst {
                        op: Op::Select(condition, a, b),
                        results: vec![*result],
                        span: inst.span,
                    });
                }
            }
            op => converted.push(Inst { op, ..inst }),
        }
    }
    *body = converted;
}

/// Whether a branch with these sides and results only computes, briefly, values that
/// are not predicates.
fn selectable((then, otherwise): (&Region, &Region), results: &[ValueId], values: &[Ty]) -> bool {
    let computes_only = |region: &Region| region.body.iter().all(|inst| inst.op.is_pure());
    let no_predicates = results
        .iter()
        .all(|result| values.get(result.0 as usize) != Some(&Ty::Pred));
    computes_only(then)
        && computes_only(otherwise)
        && then.body.len() + otherwise.body.len() <= MOST_INSTRUCTIONS
        && no_predicates
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_text, to_text};

    /// A kernel whose thread picks -inf or its value by a branch, and stores through a
    /// branch with a load in it; `converted`: after the pass, in text.
    fn converted(text: &str) -> String {
        let mut kernel = from_text(text).unwrap();
        branches_to_selects(&mut kernel);
        to_text(&kernel, &|line| line)
    }

    const MASK: &str = "kernel mask {
  param 0 n: i32
  param 1 x: tensor f32 shape(128) strides(1)
  launch grid(1, 1, 1) block(128, 1, 1) smem(0 bytes)
  %0:i32 = param 0
  %1:i64 = param 1
  %2:i32 = thread_idx.x
  %3:i64 = convert %2
  %4:i64 = const 2
  %5:i64 = shl %3, %4
  %6:i64 = add %1, %5
  %7:f32 = load.global [%6+0]
  %8:pred = cmp.ge %2, %0
  %9:f32 = if %8 {
    %10:f32 = const -inf
    yield %10
  } else {
    yield %7
  }
  %11:f32 = if %8 {
    %12:f32 = load.global [%6+0]
    yield %12
  } else {
    yield %9
  }
  store.global [%6+0], %11
}
";

    #[test]
    fn a_branch_that_only_computes_becomes_a_select() {
        let text = converted(MASK);
        assert!(text.contains("%9:f32 = select %8, %10, %7"), "{text}");
        // The side with a load stays a branch.
        assert_eq!(text.matches(" = if %8").count(), 1, "{text}");
        assert!(crate::verify(from_text(&text).unwrap()).is_ok(), "{text}");
    }

    #[test]
    fn a_branch_that_hands_on_a_predicate_stays() {
        let text = MASK.replace(
            "  store.global [%6+0], %11\n",
            "  %13:pred = if %8 {\n    %14:pred = cmp.lt %2, %0\n    yield %14\n  } else {\n    yield %8\n  }\n  store.global [%6+0], %11\n",
        );
        let text = converted(&text);
        assert_eq!(text.matches(" = if %8").count(), 2, "{text}");
    }
}
