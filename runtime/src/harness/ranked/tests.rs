//! How a multi-rank block's outcome comes from its ranks' outcomes.

use super::*;

fn measured(kernel_ms: f64) -> Outcome {
    Outcome::Measured(BenchResult {
        kernel_ms,
        metric: None,
        also: None,
        reference: None,
        note: None,
    })
}

fn failed(message: &str) -> Outcome {
    Outcome::Failed {
        message: message.to_owned(),
        span: Span::new(3, 9),
        diagnostic: None,
    }
}

#[test]
fn the_lowest_failing_rank_fails_the_block_named_by_its_rank() {
    let outcomes = vec![
        Outcome::Passed,
        failed("12 of 64 elements differ"),
        failed("other"),
    ];
    let Outcome::Failed { message, span, .. } = combine(outcomes, Span::new(0, 1)) else {
        panic!("the block passed");
    };
    assert_eq!(message, "rank 1 of 3: 12 of 64 elements differ");
    assert_eq!(span, Span::new(3, 9));
}

#[test]
fn a_bench_on_ranks_reports_its_slowest_rank() {
    let outcomes = vec![measured(0.010), measured(0.014), measured(0.012)];
    let Outcome::Measured(result) = combine(outcomes, Span::new(0, 1)) else {
        panic!("the bench measured nothing");
    };
    assert_eq!(result.kernel_ms, 0.014);
    assert_eq!(result.note.as_deref(), Some("rank 1, the slowest of 3"));
}

#[test]
fn a_skipped_rank_skips_the_block_and_passing_ranks_pass_it() {
    let skipped = vec![Outcome::Passed, Outcome::Skipped("no GPU".to_owned())];
    assert_eq!(
        combine(skipped, Span::new(0, 1)),
        Outcome::Skipped("no GPU".to_owned())
    );
    let passed = vec![Outcome::Passed, Outcome::Passed];
    assert_eq!(combine(passed, Span::new(0, 1)), Outcome::Passed);
    let mixed = vec![measured(0.01), Outcome::Passed];
    assert!(matches!(
        combine(mixed, Span::new(0, 1)),
        Outcome::Failed { .. }
    ));
}
