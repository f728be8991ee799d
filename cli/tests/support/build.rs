//! Running `cukc build` from tests and assembling what it prints with the real ptxas
//! (found as `cukc` finds it, else installed with pip into `target/cukc-cache`).

// Each test binary that includes this module uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use backend_ptx::ptxas::{AssembleOptions, Environment, Ptxas, find};

/// The targets every golden PTX is assembled for.
pub const TARGETS: [&str; 3] = ["sm_80", "sm_90a", "sm_100a"];

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cache() -> PathBuf {
    root().join("target").join("cukc-cache")
}

/// The ptxas the tests assemble with.
pub fn ptxas() -> &'static Ptxas {
    static PTXAS: OnceLock<Ptxas> = OnceLock::new();
    PTXAS.get_or_init(|| {
        let mut env = Environment::from_process(None, false);
        env.cache_dir = Some(cache());
        find(&env, &mut |progress| eprintln!("{progress}"))
            .unwrap_or_else(|error| panic!("no ptxas for the tests: {error}"))
    })
}

/// `cukc args...`, run in the repository's root.
pub fn cukc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cukc"))
        .args(args)
        .current_dir(root())
        .env("CUKC_CACHE_DIR", cache())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// What `cukc build file --target target --emit emit -o -` prints, which must succeed.
pub fn emit(file: &str, target: &str, emit: &str) -> String {
    let output = cukc(&["build", file, "--target", target, "--emit", emit, "-o", "-"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{file} for {target}: {stderr}");
    String::from_utf8(output.stdout).unwrap()
}

/// Assembles `ptx` for `target` with `-v`, asserting that ptxas accepts it and that no
/// entry uses local memory.
pub fn assemble_without_local_memory(ptx: &str, target: &str, what: &str) {
    let options = AssembleOptions {
        verbose: true,
        ..AssembleOptions::default()
    };
    let assembled = ptxas()
        .assemble(ptx, target, &options)
        .unwrap_or_else(|failure| panic!("{what} for {target}: {failure}"));
    assert!(!assembled.cubin.is_empty());
    let entries: Vec<_> = assembled.resources.iter().filter(|r| r.is_entry).collect();
    assert!(!entries.is_empty(), "{}", assembled.log);
    for entry in entries {
        assert!(
            entry.uses_no_local_memory(),
            "{what} for {target}: {} uses local memory: {entry:?}",
            entry.name
        );
    }
}
