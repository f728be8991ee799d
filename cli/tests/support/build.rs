//! Running `cukc build` from tests and assembling what it prints with the real ptxas
//! (`tests/support/ptxas.rs`: found as `cukc` finds it, else installed with pip into
//! `target/cukc-cache`).

// Each test binary that includes this module uses part of it.
#![allow(dead_code, unused_imports)]

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../tests/support/ptxas.rs"]
mod shared_ptxas;

pub use shared_ptxas::{assemble, assemble_without_local_memory, cache_dir, ptxas};

/// The targets every golden PTX is assembled for.
pub const TARGETS: [&str; 3] = ["sm_80", "sm_90a", "sm_100a"];

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `cukc args...`, run in the repository's root.
pub fn cukc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cukc"))
        .args(args)
        .current_dir(root())
        .env("CUKC_CACHE_DIR", cache_dir())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// What `cukc args...` prints to stderr, which must fail with exit code 1 (errors in
/// the input).
pub fn failing(args: &[&str]) -> String {
    let output = cukc(args);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    stderr
}

/// The diagnostics of `cukc build file --target target --emit kir -o -`, which must
/// fail with exit code 1 (errors in the file).
pub fn build_errors(file: &str, target: &str) -> String {
    let output = cukc(&[
        "build", file, "--target", target, "--emit", "kir", "-o", "-",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{file} for {target}: {stderr}"
    );
    stderr
}

/// What `cukc build file --target target --emit emit -o -` prints, which must succeed.
pub fn emit(file: &str, target: &str, emit: &str) -> String {
    let output = cukc(&["build", file, "--target", target, "--emit", emit, "-o", "-"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{file} for {target}: {stderr}");
    String::from_utf8(output.stdout).unwrap()
}

/// The KIR of `file` for `target` ([`emit`]), which must hold each of `needles`.
pub fn kir_holding(file: &str, target: &str, needles: &[&str]) -> String {
    let kir = emit(file, target, "kir");
    for needle in needles {
        assert!(kir.contains(needle), "{file}: no `{needle}` in\n{kir}");
    }
    kir
}
