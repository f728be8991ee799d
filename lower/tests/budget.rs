//! The code-size budget: a kernel that would expand past `MAX_EXPANDED_VALUES` is
//! refused with `E0222` at the line that crosses it, quickly, before any expansion.

use std::time::{Duration, Instant};

use cute::Target;

/// Lowers `text`, returning its diagnostics as `(code, line)` and how long it took.
fn lower_source(text: &str) -> (Vec<(&'static str, usize)>, usize, Duration) {
    let (module, errors) = grammar::parse(text);
    assert!(errors.is_empty(), "{errors:?}");
    let started = Instant::now();
    let lowered = typecheck::trace(&module, Target::Sm90a, |analysis, traces| {
        lower::lower_traces(analysis.diagnostics, &traces)
    });
    let elapsed = started.elapsed();
    let line_of = |offset: u32| 1 + text[..offset as usize].matches('\n').count();
    let diagnostics = lowered
        .diagnostics
        .iter()
        .map(|diagnostic| (diagnostic.code, line_of(diagnostic.span().start)))
        .collect();
    (diagnostics, lowered.kernels.len(), elapsed)
}

fn fragment_copy(elements: u64) -> String {
    format!(
        "kernel big(a: gmem f32[({elements}):(1)], out: gmem f32[({elements}):(1)]) \
         launch grid(1) block(1) {{\n    let r = make_fragment_like(a);\n    copy(a, r);\n    \
         copy(r, out);\n}}\n"
    )
}

#[test]
fn a_million_value_copy_is_refused_at_its_line_without_expanding() {
    let (diagnostics, kernels, elapsed) = lower_source(&fragment_copy(1 << 20));
    assert_eq!(diagnostics, [("E0222", 3)]);
    assert_eq!(kernels, 0);
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
}

#[test]
fn the_budget_counts_the_whole_kernel() {
    let half = lower::MAX_EXPANDED_VALUES / 2;
    // Each copy alone fits; the second takes the kernel past the budget.
    let (diagnostics, _, _) = lower_source(&fragment_copy(half + 1));
    assert_eq!(diagnostics, [("E0222", 4)]);
}

#[test]
fn an_unrolled_loop_of_copies_is_refused_at_the_copy() {
    let text = "kernel tiles(a: gmem f32[(4096, 128):(128, 1)], out: gmem f32[(4096, 128):(128, 1)]) \
                launch grid(1) block(1) {\n    for i in static 0..4096 {\n        \
                copy(a[i, _], out[i, _]);\n    }\n}\n";
    let (diagnostics, _, _) = lower_source(text);
    assert_eq!(diagnostics, [("E0222", 3)]);
}

#[test]
fn kernels_within_the_budget_still_build() {
    let (diagnostics, kernels, _) = lower_source(&fragment_copy(64));
    assert_eq!(diagnostics, []);
    assert_eq!(kernels, 1);
}
