//! `cukc tune --dry-run` as CI can run it (no GPU): every point compiled with the real
//! ptxas, the rejected ones said why, the table printed and saved, nothing timed and no
//! winner stored; a space with no valid point is E0236 at the block.

#[path = "support/build.rs"]
mod support;

use support::{cukc, root};

fn tune(file: &str, report: &std::path::Path) -> (Option<i32>, String, String) {
    support::ptxas();
    let report = report.display().to_string();
    let output = cukc(&["tune", file, "--dry-run", "--report", &report]);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_dry_run_compiles_every_point_and_says_which_are_valid() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("fill.txt");
    let (code, table, stderr) = tune("tests/tune/fill.cuk", &report);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("6 of 6 points kept by the conditions, 2 compiled within the limits"),
        "{stderr}"
    );
    let rows: Vec<&str> = table.lines().filter(|line| !line.is_empty()).collect();
    assert_eq!(rows.len(), 7, "{table}");
    assert!(rows[1].contains("THREADS=64 WORDS=64") && rows[1].contains("compiled, not timed"));
    assert!(rows[1].contains("256"), "static shared bytes: {table}");
    assert!(
        rows[2].contains("rejected:") && rows[2].contains("shared memory"),
        "{table}"
    );
    assert!(
        rows[3].contains("rejected: line 5: `static_assert` failed: THREADS is not 96"),
        "{table}"
    );
    assert!(rows[5].contains("THREADS=128 WORDS=64") && rows[5].contains("compiled, not timed"));
    assert_eq!(
        std::fs::read_to_string(&report).unwrap().trim(),
        table.trim()
    );
    assert!(!stderr.contains("stored the winner"), "{stderr}");
}

#[test]
fn a_space_with_no_point_that_compiles_is_an_error_at_the_block() {
    let dir = tempfile::tempdir().unwrap();
    let (code, table, stderr) = tune("tests/tune/nothing_valid.cuk", &dir.path().join("r.txt"));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("[E0236] Error"), "{stderr}");
    assert!(stderr.contains("has no valid point"), "{stderr}");
    assert_eq!(table.matches("rejected:").count(), 2, "{table}");
}

#[test]
fn naming_a_block_the_file_lacks_is_refused() {
    let output = cukc(&["tune", "tests/tune/fill.cuk", "--dry-run", "--tune", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("has no tune block `nope`"), "{stderr}");
    assert!(root().join("tests/tune/fill.cuk").is_file());
}
