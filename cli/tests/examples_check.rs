//! The showcase kernels in `cuk-examples/` are the corpus every compiler stage grows
//! on: each must pass `cukc check` without a single diagnostic, open with a comment
//! saying what it teaches, and run every kernel it defines from a `test` and a
//! `bench`; the folder's README must describe exactly the files that are there.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use lang::ast::{Block, ExprKind, ItemKind, StmtKind};

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
fn checking_the_folder_checks_each_example() {
    let output = Command::new(env!("CARGO_BIN_EXE_cukc"))
        .args(["check", "--dump-types"])
        .arg(examples_dir())
        .output()
        .expect("cukc runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    for name in example_names() {
        let path = examples_dir().join(&name);
        assert!(
            stdout.contains(&format!("{}\n", path.display())),
            "{name} was not checked"
        );
    }
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

/// The names called by the top-level expression statements of `block`, such as the
/// kernel launch `copy_basic(512, 256, a, out);` of a test.
fn called_names(block: &Block) -> impl Iterator<Item = &str> {
    block
        .statements
        .iter()
        .filter_map(|statement| match &statement.kind {
            StmtKind::Expr(expr) => match &expr.kind {
                ExprKind::Call { callee, .. } => match &callee.kind {
                    ExprKind::Path(path) => path.segments.last().map(|name| name.text.as_str()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
}

/// What keeps the example `name` from teaching and exercising its kernels, if anything.
fn structure_problems(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(examples_dir().join(name)).expect("the example is readable");
    let mut problems = Vec::new();
    if !text.starts_with("//") {
        problems.push(format!(
            "{name}: does not open with a comment saying what it teaches"
        ));
    }
    let (module, _) = grammar::parse(&text);
    let mut kernels = Vec::new();
    let mut tested = BTreeSet::new();
    let mut benched = BTreeSet::new();
    for item in &module.items {
        match &item.kind {
            ItemKind::Kernel(kernel) => kernels.push(kernel.name.text.as_str()),
            ItemKind::Test(test) => tested.extend(called_names(&test.body)),
            ItemKind::Bench(bench) => benched.extend(called_names(&bench.body)),
            _ => {}
        }
    }
    if kernels.is_empty() {
        problems.push(format!("{name}: defines no kernel"));
    }
    for kernel in kernels {
        if !tested.contains(kernel) {
            problems.push(format!("{name}: no test runs kernel `{kernel}`"));
        }
        if !benched.contains(kernel) {
            problems.push(format!("{name}: no bench runs kernel `{kernel}`"));
        }
    }
    problems
}

#[test]
fn every_example_teaches_and_exercises_its_kernels() {
    let problems: Vec<String> = example_names()
        .iter()
        .flat_map(|name| structure_problems(name))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
