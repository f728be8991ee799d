//! The winners `cukc tune` stores, and their use by `cukc bench` and `cukc run`: a
//! bench with a winner for this source, this compiler and this GPU runs with the
//! tuned kernel's const parameters defaulting to the winner's values, and says so.

use std::path::{Path, PathBuf};

use lang::SourceFile;
use lang::ast::{ItemKind, Module, TuneBlock};
use tune::Point;
use tune::winners::{Key, Winner};

use crate::output::errln;

/// The target a GPU runs: sm_80, sm_90a or sm_100a.
pub fn target_of(info: &runtime::DeviceInfo) -> cute::Target {
    match info.compute_capability.0 {
        8 => cute::Target::Sm80,
        10.. => cute::Target::Sm100a,
        _ => cute::Target::Sm90a,
    }
}

fn cache_dir() -> Option<PathBuf> {
    backend_ptx::ptxas::Environment::from_process(None, true).cache_dir
}

/// Stores the winner of `bench`, saying where (or why it could not be stored).
pub fn store(
    file: &SourceFile,
    block: &TuneBlock,
    bench: &str,
    gpu: &str,
    point: &Point,
    kernel_ms: f64,
) {
    let Some(dir) = cache_dir() else {
        errln!("cukc: no cache directory (set CUKC_CACHE_DIR): the winner is not stored");
        return;
    };
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
    match tune::winners::store(&dir, &key, &winner) {
        Ok(path) => errln!("cukc: stored the winner in {}", path.display()),
        Err(error) => errln!("cukc: cannot store the winner of `{bench}`: {error}"),
    }
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
    use super::{stored_in, without};
    use lang::ast::ItemKind;
    use tune::winners::compiler;
    use tune::winners::{Key, Winner};
    use tune::{ConstValue, Point};

    const SOURCE: &str = "kernel k<const B: int = 64>(n: i32) launch grid(1) block(B) {}\n\
        bench k_small { k(1); }\n\
        bench k_large { k(2); }\n\
        tune k_space: k for k_small, k_large { B in [64, 128]; }\n";

    #[test]
    fn a_bench_finds_the_winner_stored_for_it_on_this_gpu() {
        let file = lang::SourceFile::new("k.cuk", SOURCE);
        let (module, diagnostics) = grammar::parse(SOURCE);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let dir = tempfile::tempdir().unwrap();
        let compiler = compiler();
        let winner = Winner {
            tune: "k_space".to_owned(),
            kernel: "k".to_owned(),
            point: Point::new(vec![("B".to_owned(), ConstValue::Int(128))]),
            kernel_ms: 0.5,
        };
        let key = Key {
            source: SOURCE,
            compiler: &compiler,
            gpu: "NVIDIA H100",
            bench: "k_large",
        };
        tune::winners::store(dir.path(), &key, &winner).unwrap();
        let found = stored_in(dir.path(), &file, &module, "NVIDIA H100");
        assert_eq!(found, vec![("k_large".to_owned(), winner)]);
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
}
