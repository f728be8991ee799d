//! Bad offsets given to the packed attention kernels of `cuk-examples/attention_fwd_sm90.cuk`
//! and `attention_bwd_sm90.cuk`, each refused before the launch at the `require_offsets`
//! line that states the rule (the host's check of the data), where it would have read or
//! written the wrong rows: offsets that do not start at 0 (E0424), that decrease (E0425),
//! that end short of or past the packed tokens (E0426), or a sequence longer than the
//! max_seqlen the grid is sized by (E0427). Each case is a test block appended to the
//! example, run on the emulator (the check runs before any launch).

#[path = "support/appended.rs"]
mod appended;
#[path = "support/build.rs"]
mod build;

use appended::Run;
use build::root;

const FORWARD: &str = "cuk-examples/attention_fwd_sm90.cuk";
const BACKWARD: &str = "cuk-examples/attention_bwd_sm90.cuk";

/// A block calling `attention_fwd_varlen` on 2 sequences of 64 packed tokens in all, with
/// the query and key offsets and the longest query sequence given.
fn forward(name: &str, cu_q: &str, cu_k: &str, max_seqlen_q: i64) -> String {
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
    attention_fwd_varlen(2, 1, 1, 64, 64, {max_seqlen_q}, cu_q, cu_k, q, k, v, o, lse, 0.18033688011112042, D = 64);
}}
"
    )
}

/// A block calling `attention_bwd_convert_varlen` on 2 sequences of 64 packed queries in
/// all, with the query offsets and the longest query sequence given.
fn convert(name: &str, cu_q: &str, max_seqlen_q: i64) -> String {
    format!(
        "
test {name} {{
    let cu_q = tensor(i32, {cu_q});
    let dq_accum = zeros(f32, (1, 192, 64));
    let dq = empty(bf16, (64, 1, 64));
    attention_bwd_convert_varlen(2, 1, 64, {max_seqlen_q}, cu_q, dq_accum, dq, 0.125, D = 64);
}}
"
    )
}

/// The 1-based line of `example`'s kernel `kernel` that contains `text`.
fn line_of(example: &str, kernel: &str, text: &str) -> usize {
    let source = std::fs::read_to_string(root().join(example)).unwrap();
    let start = format!("kernel {kernel}<");
    let kernel = (source.lines())
        .position(|line| line.starts_with(&start))
        .unwrap();
    1 + kernel
        + (source.lines().skip(kernel))
            .position(|line| line.contains(text))
            .unwrap()
}

/// Asserts that the forward run failed its one block with `code` at the forward kernel's
/// line containing `text`, saying `says`.
fn assert_forward_refused(run: Run, code: &str, text: &str, says: &str) {
    let line = line_of(FORWARD, "attention_fwd_varlen", text);
    appended::assert_refused(run, FORWARD, code, line, says);
}

const QUERIES: &str = "require_offsets(cu_seqlens_q, total_q, max_seqlen_q)";
const KEYS: &str = "require_offsets(cu_seqlens_k, total_k)";

#[test]
fn query_offsets_not_starting_at_zero_are_refused_before_the_launch() {
    let bad = forward("bad_first_offset", "(3, 40, 64)", "(0, 30, 64)", 64);
    assert_forward_refused(
        appended::run(FORWARD, &bad),
        "E0424",
        QUERIES,
        "`cu_seqlens_q[0]` = 3, but offsets start at 0",
    );
}

#[test]
fn decreasing_key_offsets_are_refused_before_the_launch() {
    let bad = forward("bad_decreasing", "(0, 40, 64)", "(0, 50, 40)", 64);
    assert_forward_refused(
        appended::run(FORWARD, &bad),
        "E0425",
        KEYS,
        "`cu_seqlens_k[2]` = 40 is less than `cu_seqlens_k[1]` = 50",
    );
}

#[test]
fn a_negative_key_offset_is_refused_before_the_launch() {
    let bad = forward("bad_key_offset", "(0, 40, 64)", "(0, -3, 64)", 64);
    assert_forward_refused(
        appended::run(FORWARD, &bad),
        "E0425",
        KEYS,
        "`cu_seqlens_k[1]` = -3 is less than `cu_seqlens_k[0]` = 0",
    );
}

#[test]
fn query_offsets_past_or_short_of_the_packed_tokens_are_refused_before_the_launch() {
    let past = forward("bad_past_the_tokens", "(0, 40, 65)", "(0, 30, 64)", 64);
    assert_forward_refused(
        appended::run(FORWARD, &past),
        "E0426",
        QUERIES,
        "the last offset `cu_seqlens_q[2]` = 65, but the offsets end at 64 (`total_q`)",
    );
    let short = forward("bad_short_of_the_tokens", "(0, 40, 64)", "(0, 30, 60)", 64);
    assert_forward_refused(
        appended::run(FORWARD, &short),
        "E0426",
        KEYS,
        "the last offset `cu_seqlens_k[2]` = 60, but the offsets end at 64 (`total_k`)",
    );
}

#[test]
fn a_query_sequence_longer_than_max_seqlen_q_is_refused_before_the_launch() {
    let bad = forward("bad_longest", "(0, 40, 64)", "(0, 30, 64)", 39);
    assert_forward_refused(
        appended::run(FORWARD, &bad),
        "E0427",
        QUERIES,
        "`cu_seqlens_q[1]` - `cu_seqlens_q[0]` = 40 - 0 = 40 is more than 39 (`max_seqlen_q`)",
    );
}

#[test]
fn the_backward_kernels_check_their_offsets_too() {
    let bad = convert("bad_longest", "(0, 10, 64)", 32);
    let line = line_of(
        BACKWARD,
        "attention_bwd_convert_varlen",
        "require_offsets(cu_seqlens_q, total_q, max_seqlen_q)",
    );
    appended::assert_refused(
        appended::run(BACKWARD, &bad),
        BACKWARD,
        "E0427",
        line,
        "`cu_seqlens_q[2]` - `cu_seqlens_q[1]` = 64 - 10 = 54 is more than 32 (`max_seqlen_q`)",
    );
}

/// A block calling `attention_bwd_hd256_varlen` on 2 sequences of 64 packed tokens in
/// all (one head, the workspaces padded to 64 + 64 * 2 rows), with the key offsets
/// and the longest key sequence given.
fn gradients_hd256(name: &str, cu_k: &str, max_seqlen_k: i64) -> String {
    format!(
        "
test {name} {{
    let cu_q = tensor(i32, (0, 32, 64));
    let cu_k = tensor(i32, {cu_k});
    let x = randn(bf16, (64, 1, 256));
    let rows = zeros(f32, (1, 192));
    let dq_accum = zeros(f32, (1, 192, 256));
    let dq_turns = zeros(i32, (1, 3));
    let dk = empty(bf16, (64, 1, 256));
    let dv = empty(bf16, (64, 1, 256));
    attention_bwd_hd256_varlen(2, 1, 1, 64, 64, {max_seqlen_k}, cu_q, cu_k, x, x, x, x, rows, rows, dq_accum, dq_turns, dk, dv, 0.0625);
}}
"
    )
}

#[test]
fn the_hd256_backward_checks_its_longest_key_sequence() {
    let bad = gradients_hd256("bad_longest", "(0, 10, 64)", 32);
    let line = line_of(
        BACKWARD,
        "attention_bwd_hd256_varlen",
        "require_offsets(cu_seqlens_k, total_k, max_seqlen_k)",
    );
    appended::assert_refused(
        appended::run(BACKWARD, &bad),
        BACKWARD,
        "E0427",
        line,
        "`cu_seqlens_k[2]` - `cu_seqlens_k[1]` = 64 - 10 = 54 is more than 32 (`max_seqlen_k`)",
    );
}

#[test]
fn offsets_that_keep_the_rules_pass_the_check() {
    // The longest query sequence exactly max_seqlen_q long, and an empty key sequence.
    let good = forward("bad_but_only_by_name", "(0, 40, 64)", "(0, 0, 64)", 40);
    let (code, stdout, stderr) = appended::run(FORWARD, &good);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
}
