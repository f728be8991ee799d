//! A kernel whose only errors are ones lowering finds is reported by `cukc check`,
//! at the user's lines, as `cukc build` reports it (and as the language server
//! publishes it: `lsp/tests/lowering_diagnostics.rs`).

#[path = "support/build.rs"]
mod build;

use build::cukc;

/// The exit code of `cukc check FILE --message-format short` and the (code, line) of
/// each diagnostic it prints.
fn check(file: &str) -> (Option<i32>, Vec<(String, u32)>) {
    let output = cukc(&["check", file, "--message-format", "short"]);
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    let diagnostics = text
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix(file)?.strip_prefix(':')?;
            let (line_number, rest) = rest.split_once(':')?;
            let code = rest.split_once('[')?.1.split_once(']')?.0;
            Some((code.to_owned(), line_number.parse().ok()?))
        })
        .collect();
    (output.status.code(), diagnostics)
}

#[test]
fn a_shuffle_under_a_divergent_branch_is_an_error_check_reports_at_the_shuffle() {
    let (code, diagnostics) = check("tests/control/divergent_shuffle.cuk");
    assert_eq!(code, Some(1));
    assert_eq!(
        diagnostics,
        [("E0302".to_owned(), 9), ("E0302".to_owned(), 28)],
        "the uniform branches (lines 18 and 31) build"
    );
}

#[test]
fn a_tensor_memory_read_before_its_wait_is_an_error_check_reports_at_the_read() {
    // The file declares `// target: sm_100a`, which `check` picks without `--target`.
    let (code, diagnostics) = check("tests/blackwell/tmem_read_before_wait.cuk");
    assert_eq!(code, Some(1));
    assert_eq!(diagnostics, [("E0227".to_owned(), 24)]);
}

#[test]
fn what_fp8_registers_do_not_do_is_refused_at_each_line() {
    let (code, diagnostics) = check("tests/lowering/fp8_not_lowered.cuk");
    assert_eq!(code, Some(1));
    let lines: Vec<u32> = (diagnostics.iter())
        .filter(|(error, _)| error == "E0301")
        .map(|(_, line)| *line)
        .collect();
    assert_eq!(
        lines,
        [12, 13],
        "the copy and read of lines 10 and 11 and the conversions of lines 14 and 15 build"
    );
}
