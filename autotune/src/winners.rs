//! The winners `cukc tune` and `cuk.autotune` store, and their use by `cukc bench`,
//! `cukc run` and `cuk.load`: a bench (or a kernel loaded from Python) with a winner
//! for this source, this compiler and this GPU runs with the tuned kernel's const
//! parameters defaulting to the winner's values, and says so.
//!
//! Winners live in cukc's cache directory (`CUKC_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/cukc`, else `~/.cache/cukc`), under `tune/` (`tune::winners`
//! keeps the files), so what one of `cukc` and the Python package stores the other
//! finds.

use std::path::{Path, PathBuf};

use lang::SourceFile;
use lang::ast::{ItemKind, Module, TuneBlock};
use tune::Point;
use tune::winners::{Key, Winner};

/// The target a GPU runs: sm_80, sm_90a or sm_100a.
pub fn target_of(info: &runtime::DeviceInfo) -> cute::Target {
    match info.compute_capability.0 {
        8 => cute::Target::Sm80,
        10.. => cute::Target::Sm100a,
        _ => cute::Target::Sm90a,
    }
}

/// cukc's cache directory, when the environment names one.
pub fn cache_dir() -> Option<PathBuf> {
    backend_ptx::ptxas::Environment::from_process(None, true).cache_dir
}

/// Why a winner was not stored.
#[derive(Debug)]
pub enum NotStored {
    /// The environment names no cache directory.
    NoCacheDir,
    /// Writing the file failed.
    Io(std::io::Error),
}

impl std::fmt::Display for NotStored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotStored::NoCacheDir => f.write_str("no cache directory (set CUKC_CACHE_DIR)"),
            NotStored::Io(error) => error.fmt(f),
        }
    }
}

/// Stores the winner of `bench` (a bench `block` times) on GPU `gpu` in the cache
/// directory; the file it was written to.
pub fn store(
    file: &SourceFile,
    block: &TuneBlock,
    bench: &str,
    gpu: &str,
    point: &Point,
    kernel_ms: f64,
) -> Result<PathBuf, NotStored> {
    let dir = cache_dir().ok_or(NotStored::NoCacheDir)?;
    let compiler = tune::winners::compiler();
    let key = Key {
        source: file.text(),
        compiler: &compiler,
        gpu,
        bench,
    };
    let winner = Winner {
        tune: block.name.text.clone(),
        kernel: block.kernel.text.clone(),
        point: point.clone(),
        kernel_ms,
    };
    tune::winners::store(&dir, &key, &winner).map_err(NotStored::Io)
}

/// The benches of `module` that a `tune` block times and that have a stored winner
/// for this source on GPU `gpu`, with it.
pub fn stored(file: &SourceFile, module: &Module, gpu: &str) -> Vec<(String, Winner)> {
    match cache_dir() {
        Some(dir) => stored_in(&dir, file, module, gpu),
        None => Vec::new(),
    }
}

/// [`stored`] in the cache directory `dir`.
fn stored_in(dir: &Path, file: &SourceFile, module: &Module, gpu: &str) -> Vec<(String, Winner)> {
    tune::winners::stored(dir, file.text(), module, gpu)
}

/// One winner a kernel: of the stored winners `tuned` (in the order of the file's
/// `tune` blocks and their benches), the first for each kernel, with its bench.
pub fn per_kernel(tuned: &[(String, Winner)]) -> Vec<(String, Winner)> {
    let mut chosen: Vec<(String, Winner)> = Vec::new();
    for (bench, winner) in tuned {
        if chosen
            .iter()
            .all(|(_, first)| first.kernel != winner.kernel)
        {
            chosen.push((bench.clone(), winner.clone()));
        }
    }
    chosen
}

/// `module` without the benches in `tuned` (they run on their own, tuned).
pub fn without(module: &Module, tuned: &[(String, Winner)]) -> Module {
    let items = (module.items.iter())
        .filter(|item| match &item.kind {
            ItemKind::Bench(bench) => tuned.iter().all(|(name, _)| *name != bench.name.text),
            _ => true,
        })
        .cloned()
        .collect();
    Module { items }
}

#[cfg(test)]
mod tests {
    use super::{per_kernel, stored_in, without};
    use lang::ast::ItemKind;
    use tune::winners::compiler;
    use tune::winners::{Key, Winner};
    use tune::{ConstValue, Point};

    const SOURCE: &str = "kernel k<const B: int = 64>(n: i32) launch grid(1) block(B) {}\n\
        bench k_small { k(1); }\n\
        bench k_large { k(2); }\n\
        tune k_space: k for k_small, k_large { B in [64, 128]; }\n";

    fn winner(b: i64) -> Winner {
        Winner {
            tune: "k_space".to_owned(),
            kernel: "k".to_owned(),
            point: Point::new(vec![("B".to_owned(), ConstValue::Int(b))]),
            kernel_ms: 0.5,
        }
    }

    #[test]
    fn a_bench_finds_the_winner_stored_for_it_on_this_gpu() {
        let file = lang::SourceFile::new("k.cuk", SOURCE);
        let (module, diagnostics) = grammar::parse(SOURCE);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let dir = tempfile::tempdir().unwrap();
        let compiler = compiler();
        let key = Key {
            source: SOURCE,
            compiler: &compiler,
            gpu: "NVIDIA H100",
            bench: "k_large",
        };
        tune::winners::store(dir.path(), &key, &winner(128)).unwrap();
        let found = stored_in(dir.path(), &file, &module, "NVIDIA H100");
        assert_eq!(found, vec![("k_large".to_owned(), winner(128))]);
        assert!(stored_in(dir.path(), &file, &module, "NVIDIA H200").is_empty());
        let rest = without(&module, &found);
        let benches: Vec<&str> = (rest.items.iter())
            .filter_map(|item| match &item.kind {
                ItemKind::Bench(bench) => Some(bench.name.text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(benches, ["k_small"]);
    }

    #[test]
    fn a_kernel_takes_the_winner_of_its_first_bench_that_has_one() {
        let mut other = winner(32);
        other.kernel = "j".to_owned();
        let tuned = vec![
            ("k_small".to_owned(), winner(64)),
            ("k_large".to_owned(), winner(128)),
            ("j_only".to_owned(), other.clone()),
        ];
        assert_eq!(
            per_kernel(&tuned),
            vec![
                ("k_small".to_owned(), winner(64)),
                ("j_only".to_owned(), other)
            ]
        );
    }
}
