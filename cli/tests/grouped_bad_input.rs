//! Bad group bounds given to `cuk-examples/gemm_grouped_sm90.cuk` and
//! `gemm_grouped_fp8_sm90.cuk`: an offset past the packed rows, or a count past the rows
//! each expert has room for (or below 0), is refused before the launch at the
//! `require_range` line that says why (E0428 from the host's check of the data), where
//! the kernel would have read and written rows past A and D; and an FP8 scale tensor
//! whose shape is not its blocks' (one per row and 128 columns of A, one per expert and
//! 128 x 128 block of B) at its parameter's layout (E0216). Each case is a test block
//! appended to the example, run on the emulator (the check runs before any launch).

#[path = "support/appended.rs"]
mod appended;
#[path = "support/build.rs"]
mod build;

use appended::Run;
use build::root;

const EXAMPLE: &str = "cuk-examples/gemm_grouped_sm90.cuk";
const FP8: &str = "cuk-examples/gemm_grouped_fp8_sm90.cuk";

/// A block calling the contiguous kernel on 2 experts over 64 packed rows.
fn contiguous(name: &str, offsets: &str) -> String {
    format!(
        "
test {name} {{
    let a = randn(bf16, (64, 64));
    let b = randn(bf16, (2, 64, 64));
    let d = empty(bf16, (64, 64));
    gemm_grouped_contiguous(2, 64, 64, 64, tensor(i32, {offsets}), a, b, d, 1, BN = 64, EPI = 1, CM = 1);
}}
"
    )
}

/// A block calling the masked kernel on 2 experts of up to 64 rows.
fn masked(name: &str, counts: &str) -> String {
    format!(
        "
test {name} {{
    let a = randn(bf16, (2, 64, 64));
    let b = randn(bf16, (2, 64, 64));
    let d = empty(bf16, (2, 64, 64));
    gemm_grouped_masked(2, 64, 64, 64, tensor(i32, {counts}), a, b, d, 1, BN = 64, EPI = 1, CM = 1);
}}
"
    )
}

/// A block calling the FP8 contiguous kernel on 2 experts over 64 packed rows, K = 256,
/// with A's scales of `scale_a_shape`.
fn fp8_contiguous(name: &str, offsets: &str, scale_a_shape: &str) -> String {
    format!(
        "
test {name} {{
    let a = randn(e4m3, (64, 256));
    let b = randn(e4m3, (2, 64, 256));
    let d = empty(bf16, (64, 64));
    let sa = ones(f32, {scale_a_shape});
    gemm_grouped_fp8_contiguous(2, 64, 64, 256, tensor(i32, {offsets}), a, b, d, sa, ones(f32, (2, 1, 2)), 1, BN = 64, EPI = 1, CM = 1);
}}
"
    )
}

/// A block calling the FP8 masked kernel on 2 experts of up to 64 rows, K = 256, with
/// B's scales of `scale_b_shape`.
fn fp8_masked(name: &str, counts: &str, scale_b_shape: &str) -> String {
    format!(
        "
test {name} {{
    let a = randn(e4m3, (2, 64, 256));
    let b = randn(e4m3, (2, 64, 256));
    let d = empty(bf16, (2, 64, 64));
    let sb = ones(f32, {scale_b_shape});
    gemm_grouped_fp8_masked(2, 64, 64, 256, tensor(i32, {counts}), a, b, d, ones(f32, (2, 64, 2)), sb, 1, BN = 64, EPI = 1, CM = 1);
}}
"
    )
}

fn run(extra: &str) -> Run {
    appended::run(EXAMPLE, extra)
}

/// The 1-based line of `example` that contains `text`.
fn line_in(example: &str, text: &str) -> usize {
    line_after(example, "", text)
}

/// The 1-based line of `example` that contains `text`, the first after the line that
/// contains `after`.
fn line_after(example: &str, after: &str, text: &str) -> usize {
    let source = std::fs::read_to_string(root().join(example)).unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let start = lines.iter().position(|line| line.contains(after)).unwrap();
    1 + start
        + lines[start..]
            .iter()
            .position(|line| line.contains(text))
            .unwrap()
}

/// The 1-based line of the bf16 example that contains `text`.
fn line_of(text: &str) -> usize {
    line_in(EXAMPLE, text)
}

fn assert_refused(run: Run, line: usize, says: &str) {
    appended::assert_refused(run, EXAMPLE, "E0428", line, says);
}

#[test]
fn an_offset_past_the_packed_rows_is_refused_before_the_launch() {
    assert_refused(
        run(&contiguous("bad_offset", "(0, 40, 65)")),
        line_of("require_range(offsets, 0, total_m + 1)"),
        "`offsets[2]` = 65 is outside 0..65",
    );
}

#[test]
fn a_count_past_the_room_or_below_zero_is_refused_before_the_launch() {
    let line = line_of("require_range(counts, 0, max_m + 1)");
    assert_refused(
        run(&masked("bad_count", "(64, 65)")),
        line,
        "`counts[1]` = 65 is outside 0..65",
    );
    assert_refused(
        run(&masked("bad_negative_count", "(-1, 3)")),
        line,
        "`counts[0]` = -1 is outside 0..65",
    );
}

#[test]
fn bounds_within_the_rows_pass_the_check() {
    for good in [
        contiguous("bad_but_only_by_name", "(0, 40, 64)"),
        masked("bad_but_only_by_name", "(64, 0)"),
    ] {
        let (code, stdout, stderr) = run(&good);
        assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    }
}

#[test]
fn fp8_group_bounds_are_refused_before_the_launch() {
    assert_refused_fp8(
        appended::run(FP8, &fp8_contiguous("bad_offset", "(0, 40, 65)", "(64, 2)")),
        "E0428",
        line_in(FP8, "require_range(offsets, 0, total_m + 1)"),
        "`offsets[2]` = 65 is outside 0..65",
    );
    assert_refused_fp8(
        appended::run(FP8, &fp8_masked("bad_count", "(64, 65)", "(2, 1, 2)")),
        "E0428",
        line_in(FP8, "require_range(counts, 0, max_m + 1)"),
        "`counts[1]` = 65 is outside 0..65",
    );
}

#[test]
fn fp8_scales_not_shaped_as_their_blocks_are_refused_at_the_parameter() {
    // One scale a row for K = 256 (two blocks of 128 columns).
    assert_refused_fp8(
        appended::run(
            FP8,
            &fp8_contiguous("bad_scale_a", "(0, 40, 64)", "(64, 1)"),
        ),
        "E0216",
        line_in(FP8, "scale_a: gmem f32[(total_m, ceil_div(k, 128))"),
        "`scale_a` needs a tensor of shape (64, 2) with these arguments, but this one has shape (64, 1)",
    );
    // One scale per expert and 128 columns, without the expert's block of rows.
    assert_refused_fp8(
        appended::run(FP8, &fp8_masked("bad_scale_b", "(64, 0)", "(2, 2)")),
        "E0216",
        line_after(FP8, "kernel gemm_grouped_fp8_masked", "scale_b: gmem f32["),
        "`scale_b` needs a tensor of shape (2, 1, 2)",
    );
}

#[test]
fn fp8_bounds_and_scales_as_their_blocks_pass_the_check() {
    for good in [
        fp8_contiguous("bad_but_only_by_name", "(0, 40, 64)", "(64, 2)"),
        fp8_masked("bad_but_only_by_name", "(64, 0)", "(2, 1, 2)"),
    ] {
        let (code, stdout, stderr) = appended::run(FP8, &good);
        assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    }
}

fn assert_refused_fp8(run: Run, error: &str, line: usize, says: &str) {
    appended::assert_refused(run, FP8, error, line, says);
}
