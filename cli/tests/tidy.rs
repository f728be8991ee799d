//! Tidiness rules for the whole workspace, checked as a test: every Rust source file
//! of every crate (the workspace's members, `fuzz/` and the shared `tests/support/`)
//! opens with a `//!` module doc saying what it is for, and `cukc` prints only through
//! `cli/src/output.rs`, whose macros survive a closed or full stdout and stderr.

use std::fs;
use std::path::{Path, PathBuf};

/// Folders with Rust sources that are not workspace members.
const OTHER_SOURCE_ROOTS: &[&str] = &["fuzz", "tests"];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The folders holding the workspace's Rust sources: every member the root
/// `Cargo.toml` lists, and the others.
fn source_roots(root: &Path) -> Vec<String> {
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    let members = manifest
        .lines()
        .find_map(|line| line.trim().strip_prefix("members = ["))
        .unwrap_or_default();
    let mut roots: Vec<String> = members
        .split(',')
        .map(|member| member.trim().trim_end_matches(']').trim().trim_matches('"'))
        .filter(|member| !member.is_empty())
        .map(str::to_owned)
        .collect();
    assert!(
        roots.len() >= 10,
        "found only {roots:?} as workspace members; did the root Cargo.toml change form?"
    );
    roots.extend(OTHER_SOURCE_ROOTS.iter().map(|root| (*root).to_owned()));
    roots
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name == "target") {
                continue;
            }
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let root = workspace_root();
    let mut files = Vec::new();
    for source_root in source_roots(&root) {
        rust_files(&root.join(source_root), &mut files);
    }
    assert!(
        files.len() > 20,
        "found only {} Rust files; is the workspace root right?",
        files.len()
    );
    let undocumented: Vec<String> = files
        .iter()
        .filter(|path| {
            let text = fs::read_to_string(path).unwrap_or_default();
            !text.starts_with("//!")
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        undocumented.is_empty(),
        "these files do not open with a `//!` module doc:\n{}",
        undocumented.join("\n")
    );
}

#[test]
fn cukc_prints_only_through_its_output_macros() {
    let root = workspace_root().join("cli").join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let panicking = ["println!", "print!(", "eprintln!", "eprint!("];
    let offenders: Vec<String> = files
        .iter()
        .filter(|path| !path.ends_with("output.rs"))
        .flat_map(|path| {
            let text = fs::read_to_string(path).unwrap_or_default();
            text.lines()
                .enumerate()
                .filter(|(_, line)| {
                    panicking.iter().any(|name| {
                        line.match_indices(name).any(|(at, _)| {
                            !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                        })
                    })
                })
                .map(|(number, line)| format!("{}:{}: {}", path.display(), number + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "these lines print with a macro that panics on a closed pipe; use outln!/errln!:\n{}",
        offenders.join("\n")
    );
}
