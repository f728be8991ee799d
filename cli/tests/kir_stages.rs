//! `cukc build --emit kir --after STAGE`: the KIR at each stage of lowering. The
//! inputs of the pass file tests (`tests/kir/passes/`) are what it prints for their
//! source files, so they follow lowering; a stage that is not one, or `--after`
//! without `--emit kir`, is refused.

#[path = "support/build.rs"]
mod build;

use build::cukc;

/// Lowering's stages, in order: translation, then each pass.
const STAGES: [&str; 8] = [
    "translate",
    "shared",
    "values",
    "packs",
    "wraps",
    "selects",
    "dead",
    "uniform",
];

/// The KIR of `file` after `stage`.
fn kir_after(file: &str, stage: &str) -> String {
    let output = cukc(&["build", file, "--emit", "kir", "--after", stage, "-o", "-"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{file} after {stage}: {stderr}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_pass_file_inputs_are_the_kir_after_the_stage_before_their_pass() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/kir/passes");
    let mut checked = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let input = entry.unwrap().path();
        let name = input.to_string_lossy().into_owned();
        if !name.ends_with(".kir") || name.ends_with(".after.kir") {
            continue;
        }
        let text = std::fs::read_to_string(&input).unwrap();
        // `// from: FILE --after STAGE`, the source and the stage before the pass.
        let from = (text.lines())
            .find_map(|line| line.strip_prefix("// from: "))
            .unwrap_or_else(|| panic!("{name}: no `// from: FILE --after STAGE` line"));
        let (file, stage) = from.split_once(" --after ").unwrap();
        let pass = (text.lines().next())
            .and_then(|line| line.strip_prefix("// pass: "))
            .unwrap();
        let stages = STAGES;
        let at = |stage: &str| stages.iter().position(|each| *each == stage).unwrap();
        assert_eq!(
            at(stage) + 1,
            at(pass),
            "{name}: `{stage}` is not the stage before `{pass}`"
        );
        let kernel: String = (text.lines())
            .filter(|line| !line.starts_with("//"))
            .map(|line| format!("{line}\n"))
            .collect();
        // The input is the whole output or one kernel of it.
        assert!(
            kir_after(file, stage).contains(&kernel),
            "{name}: regenerate it with `cukc build {file} --emit kir --after {stage}`"
        );
        checked += 1;
    }
    assert_eq!(checked, STAGES.len() - 1, "one input per pass");
}

#[test]
fn every_stage_prints_and_the_last_is_the_whole_lowering() {
    let file = "tests/control/loops.cuk";
    let stages: Vec<String> = STAGES.iter().map(|stage| kir_after(file, stage)).collect();
    let last = stages.len() - 1;
    assert_ne!(
        stages[0], stages[last],
        "the passes changed nothing in {file}"
    );
    let whole = cukc(&["build", file, "--emit", "kir", "-o", "-"]);
    assert_eq!(String::from_utf8(whole.stdout).unwrap(), stages[last]);
}

#[test]
fn a_stage_that_is_not_one_is_refused_with_the_stages() {
    let output = cukc(&[
        "build",
        "tests/control/loops.cuk",
        "--emit",
        "kir",
        "--after",
        "gvn",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains(
            "`gvn` is no stage of lowering; the stages, in order: translate, shared, values, packs, wraps, selects, dead, uniform"
        ),
        "{stderr}"
    );
    let output = cukc(&[
        "build",
        "tests/control/loops.cuk",
        "--emit",
        "ptx",
        "--after",
        "dead",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("`--after` shows KIR: use it with `--emit kir`"),
        "{stderr}"
    );
}
