//! Bad group bounds given to `cuk-examples/gemm_grouped_sm90.cuk`: an offset past the
//! packed rows, or a count past the rows each expert has room for (or below 0), is
//! refused before the launch at the `require_range` line that says why (E0428 from the
//! host's check of the data), where the kernel would have read and written rows past A
//! and D. Each case is a test block appended to the example, run on the emulator (the
//! check runs before any launch).

#[path = "support/appended.rs"]
mod appended;
#[path = "support/build.rs"]
mod build;

use appended::Run;
use build::root;

const EXAMPLE: &str = "cuk-examples/gemm_grouped_sm90.cuk";

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

fn run(extra: &str) -> Run {
    appended::run(EXAMPLE, extra)
}

/// The 1-based line of the example that contains `text`.
fn line_of(text: &str) -> usize {
    let source = std::fs::read_to_string(root().join(EXAMPLE)).unwrap();
    1 + source.lines().position(|line| line.contains(text)).unwrap()
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
