//! Bad offsets given to `cuk-examples/attention_fwd_sm90.cuk`'s packed attention: an
//! offset past the packed tokens, or a negative one, is refused before the launch at the
//! `require_range` line that says why (E0428 from the host's check of the data), where
//! it would have read rows past q, k or v. Each case is a test block appended to the
//! example, run on the emulator (the check runs before any launch).

#[path = "support/appended.rs"]
mod appended;
#[path = "support/build.rs"]
mod build;

use appended::Run;
use build::root;

const EXAMPLE: &str = "cuk-examples/attention_fwd_sm90.cuk";

/// A block calling `attention_fwd_varlen` on 2 sequences of 64 packed tokens in all, with
/// the query and key offsets given.
fn block(name: &str, cu_q: &str, cu_k: &str) -> String {
    format!(
        "
test {name} {{
    let cu_q = tensor(i32, {cu_q});
    let cu_k = tensor(i32, {cu_k});
    let q = randn(bf16, (64, 1, 64));
    let k = randn(bf16, (64, 1, 64));
    let v = randn(bf16, (64, 1, 64));
    let o = empty(bf16, (64, 1, 64));
    let lse = empty(f32, (1, 64));
    attention_fwd_varlen(2, 1, 1, 64, 64, 64, cu_q, cu_k, q, k, v, o, lse, 0.18033688011112042, D = 64);
}}
"
    )
}

fn run(extra: &str) -> Run {
    appended::run(EXAMPLE, extra)
}

/// The 1-based line of the example's packed kernel that contains `text`.
fn line_of(text: &str) -> usize {
    let source = std::fs::read_to_string(root().join(EXAMPLE)).unwrap();
    let kernel = (source.lines())
        .position(|line| line.starts_with("kernel attention_fwd_varlen<"))
        .unwrap();
    1 + kernel
        + (source.lines().skip(kernel))
            .position(|line| line.contains(text))
            .unwrap()
}

/// Asserts that the run failed its one block with E0428 at line `line`, saying `says`.
fn assert_refused(run: Run, line: usize, says: &str) {
    appended::assert_refused(run, EXAMPLE, "E0428", line, says);
}

#[test]
fn a_query_offset_past_the_packed_tokens_is_refused_before_the_launch() {
    let bad = block("bad_query_offset", "(0, 40, 65)", "(0, 30, 64)");
    assert_refused(
        run(&bad),
        line_of("require_range(cu_seqlens_q, 0, total_q + 1)"),
        "`cu_seqlens_q[2]` = 65 is outside 0..65",
    );
}

#[test]
fn a_negative_key_offset_is_refused_before_the_launch() {
    let bad = block("bad_key_offset", "(0, 40, 64)", "(0, -3, 64)");
    assert_refused(
        run(&bad),
        line_of("require_range(cu_seqlens_k, 0, total_k + 1)"),
        "`cu_seqlens_k[1]` = -3 is outside 0..65",
    );
}

#[test]
fn offsets_within_the_tokens_pass_the_check() {
    let good = block("bad_but_only_by_name", "(0, 40, 64)", "(0, 30, 64)");
    let (code, stdout, stderr) = run(&good);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
}
