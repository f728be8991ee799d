//! Where pure instructions go: out of the loops they do not depend on (computed once,
//! before the loop), but not out of a branch merely to run where the branch is not
//! taken. A 64-bit division is a long subroutine on the GPU; placed outside thread 0's
//! `if`, every thread of the block ran it in every iteration (the SM90 GEMM's producer,
//! 3x slower). A uniform branch keeps its work too, unless a loop around it takes it
//! on all but a few iterations.

#[path = "support/lower.rs"]
mod support;

use support::kir_text;

const SOURCE: &str = "kernel placement(
    n: i32,
    width: i32,
    x: gmem i32[n:1],
    y: gmem i32[n:1],
) launch grid(1) block(128) {
    for i in 0..n {
        if thread_idx.x == 0 {
            y[i] = i / width + n / width;
        }
        if n > 4 {
            y[i] = y[i] + i % width;
        }
        y[i] = y[i] + n % width;
    }
}
";

fn kir_lines() -> Vec<String> {
    kir_text(SOURCE).lines().map(str::to_owned).collect()
}

/// The index of the first line containing `pattern` (after line `from`).
fn find(lines: &[String], pattern: &str, from: usize) -> usize {
    from + lines[from..]
        .iter()
        .position(|line| line.contains(pattern))
        .unwrap_or_else(|| panic!("no `{pattern}` after line {from}:\n{}", lines.join("\n")))
}

#[test]
fn loop_invariant_work_goes_before_the_loop() {
    let lines = kir_lines();
    let the_loop = find(&lines, "for %", 0);
    // n / width and n % width depend on no iteration: each is computed once, before
    // the loop, even though n / width is needed only under the branch.
    let invariant_divisions = lines[..the_loop]
        .iter()
        .filter(|line| line.contains(" div ") || line.contains(" rem "))
        .count();
    assert_eq!(invariant_divisions, 2, "{}", lines.join("\n"));
}

#[test]
fn a_branch_keeps_the_work_only_it_needs() {
    let lines = kir_lines();
    let the_loop = find(&lines, "for %", 0);
    let branch = find(&lines, "if %", the_loop);
    // i / width changes every iteration and only thread 0 needs it: it stays inside
    // thread 0's branch rather than running on every thread.
    let division = find(&lines, " div ", the_loop);
    assert!(
        division > branch,
        "the division at line {division} is outside the branch at line {branch}:\n{}",
        lines.join("\n")
    );
}

#[test]
fn a_uniform_branch_keeps_its_work() {
    let lines = kir_lines();
    let the_loop = find(&lines, "for %", 0);
    let uniform_branch = lines
        .iter()
        .enumerate()
        .skip(the_loop)
        .find(|(_, line)| line.contains("if %") && line.contains(" uniform {"))
        .map(|(index, _)| index)
        .unwrap_or_else(|| panic!("no uniform branch:\n{}", lines.join("\n")));
    // i % width is needed only under `if n > 4`, and changes every iteration: it is
    // computed inside the branch, so iterations that skip it do not pay for it.
    let remainder = find(&lines, " rem ", the_loop);
    assert!(
        remainder > uniform_branch,
        "the remainder at line {remainder} is outside the branch at line {uniform_branch}:\n{}",
        lines.join("\n")
    );
}

/// A refill guard: `i + 2 < n` holds on all but the last two iterations of the loop.
const REFILL: &str =
    "kernel refill(n: i32, width: i32, y: gmem i32[n:1]) launch grid(1) block(128) {
    for i in 0..n {
        if i + 2 >= n {
            y[i] = i / width;
        } else {
            y[i] = i % width;
        }
    }
}
";

#[test]
fn a_branch_taken_on_nearly_every_iteration_lets_its_work_out() {
    let lines: Vec<String> = kir_text(REFILL).lines().map(str::to_owned).collect();
    let the_loop = find(&lines, "for %", 0);
    let branch = find(&lines, "if %", the_loop);
    let otherwise = find(&lines, "} else {", branch);
    // i % width is needed on the side taken on nearly every iteration: it is computed
    // before the branch, where ptxas may schedule it among the rest of the loop.
    let remainder = find(&lines, " rem ", the_loop);
    assert!(
        remainder < branch,
        "the remainder at line {remainder} is inside the branch at line {branch}:\n{}",
        lines.join("\n")
    );
    // i / width is needed only on the last two iterations: it stays on its side.
    let division = find(&lines, " div ", the_loop);
    assert!(
        branch < division && division < otherwise,
        "the division at line {division} is not on the branch's first side:\n{}",
        lines.join("\n")
    );
}
