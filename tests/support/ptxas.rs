//! The real ptxas for tests, shared by `backend-ptx`'s and `cli`'s: found as `cukc`
//! finds it (`CUKC_PTXAS`, `PATH`, a CUDA install, python3's site-packages), else
//! installed with pip into `target/cukc-cache`, once per test binary; and PTX assembled
//! with it, which must use no local memory.

// Each test binary that includes this module uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use backend_ptx::ptxas::{AssembleOptions, Environment, Ptxas, find};

/// The cache the tests find or install ptxas in: `target/cukc-cache` of the
/// workspace (whose crates are the root's direct subfolders).
pub fn cache_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("cukc-cache")
}

/// The ptxas the tests assemble with.
pub fn ptxas() -> &'static Ptxas {
    static PTXAS: OnceLock<Ptxas> = OnceLock::new();
    PTXAS.get_or_init(|| {
        let mut env = Environment::from_process(None, false);
        env.cache_dir = Some(cache_dir());
        find(&env, &mut |progress| eprintln!("{progress}"))
            .unwrap_or_else(|error| panic!("no ptxas for the tests: {error}"))
    })
}

/// Assembles `ptx` for `target` with `-v`, asserting that ptxas accepts it and that no
/// entry uses local memory; `what` names the PTX in failures.
pub fn assemble_without_local_memory(ptx: &str, target: &str, what: &str) {
    assemble(ptx, target, what, true);
}

/// Assembles `ptx` for `target`, asserting that ptxas accepts it, and that no entry
/// uses local memory when `no_local_memory`; returns ptxas's log.
pub fn assemble(ptx: &str, target: &str, what: &str, no_local_memory: bool) -> String {
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
    for entry in entries.into_iter().filter(|_| no_local_memory) {
        assert!(
            entry.uses_no_local_memory(),
            "{what} for {target}: {} uses local memory: {entry:?}",
            entry.name
        );
    }
    assembled.log
}
