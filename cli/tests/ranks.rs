//! Multi-rank tests through `cukc test` (`tests/ranks/harness.cuk`): the body runs once
//! per rank, a symmetric kernel's launches meet and run together on the emulator (its
//! `print` lines rank by rank), a failure names its rank, a rank that never launches the
//! kernel the others wait in fails them rather than hanging, and ranks that pass
//! different shapes for a symmetric tensor fail before the launch, naming it.

#[path = "support/build.rs"]
mod build;

use build::cukc;

#[test]
fn every_rank_runs_the_body_and_failures_name_their_rank() {
    let output = cukc(&["test", "--emulate", "tests/ranks/harness.cuk"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    let at = |name: &str| {
        (lines.iter())
            .position(|line| line.starts_with(&format!("test {name} ...")))
            .unwrap_or_else(|| panic!("no `{name}` in\n{stdout}"))
    };
    let prints = at("prints");
    assert!(lines[prints].contains("... ok"), "{stdout}");
    assert_eq!(
        lines[prints - 2..prints],
        ["rank 0 of 2", "rank 1 of 2"],
        "{stdout}"
    );
    let fails = lines[at("fails_on_rank_one")];
    assert!(
        fails.contains("FAILED") && fails.contains(": rank 1 of 2: assert_close"),
        "{fails}"
    );
    let alone = lines[at("rank_one_never_launches")];
    assert!(
        alone.contains(
            "rank 0 of 2: `hello` waits for rank 1, whose test body ended without launching it"
        ),
        "{alone}"
    );
    let shapes = lines[at("shapes_disagree")];
    assert!(
        shapes.contains(
            "rank 0 of 2: the symmetric tensor `a` of `fill_first` is i32[32] on rank 0 but i32[64] on rank 1"
        ),
        "{shapes}"
    );
    assert!(
        stdout.contains("1 passed, 3 failed (4 blocks emulated)"),
        "{stdout}"
    );
}
