//! The showcase kernels in `cuk-examples/` are the corpus every compiler stage grows
//! on: each must pass `cukc check` without a single diagnostic, and the folder's
//! README must describe exactly the files that are there.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The `cuk-examples/` folder at the repository root.
fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cuk-examples")
}

/// The names of the `.cuk` files in `cuk-examples/`, sorted.
fn example_names() -> BTreeSet<String> {
    let entries = std::fs::read_dir(examples_dir()).expect("cuk-examples/ is readable");
    entries
        .map(|entry| entry.expect("cuk-examples/ lists").file_name())
        .filter_map(|name| name.into_string().ok())
        .filter(|name| name.ends_with(".cuk"))
        .collect()
}

/// Runs `cukc check FILE` and describes any way it fell short of a clean pass.
fn check_problem(name: &str) -> Option<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_cukc"))
        .arg("check")
        .arg(examples_dir().join(name))
        .output()
        .expect("cukc runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let clean = output.status.success() && stderr.trim().is_empty();
    (!clean).then(|| {
        format!(
            "{name}: exit {:?}\n--- stdout\n{stdout}--- stderr\n{stderr}",
            output.status.code()
        )
    })
}

#[test]
fn every_example_checks_without_diagnostics() {
    let names = example_names();
    assert!(!names.is_empty(), "cuk-examples/ holds no .cuk file");
    let problems: Vec<String> = names
        .iter()
        .filter_map(|name| check_problem(name))
        .collect();
    assert!(
        problems.is_empty(),
        "{} of {} examples do not check cleanly:\n{}",
        problems.len(),
        names.len(),
        problems.join("\n")
    );
}

#[test]
fn readme_lists_exactly_the_examples() {
    let readme = std::fs::read_to_string(examples_dir().join("README.md"))
        .expect("cuk-examples/README.md is readable");
    // Table rows name their file first, in backquotes: | `copy_basic.cuk` | ... |
    let listed: BTreeSet<String> = readme
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once('`'))
        .map(|(name, _)| name.to_owned())
        .filter(|name| name.ends_with(".cuk"))
        .collect();
    assert_eq!(
        listed,
        example_names(),
        "README.md's table and the .cuk files differ"
    );
}
