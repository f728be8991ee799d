//! The fastest point of a bench, kept in `<cache>/tune/<key>.json` for `cukc bench`,
//! `cukc run` and the Python package to use. The key is the SHA-256 of the source
//! text, the compiler's version, the GPU's name and the bench's name: a bench fixes
//! the shapes it times, so it is the shape bucket, and any edit to the file, another
//! compiler or another GPU finds no winner and uses the kernel's own defaults.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::space::{ConstValue, Point};

/// What a winner is kept for.
#[derive(Clone, Copy, Debug)]
pub struct Key<'a> {
    /// The `.cuk` file's text.
    pub source: &'a str,
    /// `cukc 0.1.0`.
    pub compiler: &'a str,
    /// The GPU's name, as the driver gives it.
    pub gpu: &'a str,
    /// The bench whose shapes the winner was timed at.
    pub bench: &'a str,
}

impl Key<'_> {
    /// 64 hex digits.
    pub fn digest(&self) -> String {
        let mut hasher = Sha256::new();
        for field in [self.source, self.compiler, self.gpu, self.bench] {
            hasher.update((field.len() as u64).to_le_bytes());
            hasher.update(field.as_bytes());
        }
        hasher
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

/// A stored winner.
#[derive(Clone, Debug, PartialEq)]
pub struct Winner {
    /// The `tune` block that found it.
    pub tune: String,
    /// The kernel it configures.
    pub kernel: String,
    /// Its values.
    pub point: Point,
    /// The bench's kernel time at this point, in milliseconds.
    pub kernel_ms: f64,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    tune: String,
    kernel: String,
    point: Vec<(String, String)>,
    kernel_ms: f64,
    gpu: String,
    compiler: String,
    bench: String,
}

/// The file a winner for `key` is kept in, under cukc's cache directory.
pub fn path(cache_dir: &Path, key: &Key<'_>) -> PathBuf {
    cache_dir
        .join("tune")
        .join(format!("{}.json", key.digest()))
}

/// Stores `winner` for `key` (atomically: a temporary file renamed into place).
pub fn store(cache_dir: &Path, key: &Key<'_>, winner: &Winner) -> std::io::Result<PathBuf> {
    let stored = Stored {
        tune: winner.tune.clone(),
        kernel: winner.kernel.clone(),
        point: (winner.point.values().iter())
            .map(|(name, value)| (name.clone(), value.to_string()))
            .collect(),
        kernel_ms: winner.kernel_ms,
        gpu: key.gpu.to_owned(),
        compiler: key.compiler.to_owned(),
        bench: key.bench.to_owned(),
    };
    let path = path(cache_dir, key);
    let dir = path.parent().unwrap_or(cache_dir);
    std::fs::create_dir_all(dir)?;
    let text = serde_json::to_string_pretty(&stored).map_err(std::io::Error::other)?;
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut file, text.as_bytes())?;
    file.persist(&path).map_err(|error| error.error)?;
    Ok(path)
}

/// The compiler in a winner's key: this workspace's version, the same for `cukc` and
/// the Python package.
pub fn compiler() -> String {
    format!("cukc {}", env!("CARGO_PKG_VERSION"))
}

/// The benches of `module` (whose text is `source`) that a `tune` block times and that
/// have a winner stored in `cache_dir` for GPU `gpu`, each with it.
pub fn stored(
    cache_dir: &Path,
    source: &str,
    module: &lang::ast::Module,
    gpu: &str,
) -> Vec<(String, Winner)> {
    let compiler = compiler();
    let mut found: Vec<(String, Winner)> = Vec::new();
    for item in &module.items {
        let lang::ast::ItemKind::Tune(block) = &item.kind else {
            continue;
        };
        for bench in &block.benches {
            let key = Key {
                source,
                compiler: &compiler,
                gpu,
                bench: &bench.text,
            };
            if found.iter().all(|(name, _)| *name != bench.text)
                && let Some(winner) = load(cache_dir, &key)
                && winner.kernel == block.kernel.text
            {
                found.push((bench.text.clone(), winner));
            }
        }
    }
    found
}

/// The winner stored for `key`, if there is one that reads back whole.
pub fn load(cache_dir: &Path, key: &Key<'_>) -> Option<Winner> {
    let text = std::fs::read_to_string(path(cache_dir, key)).ok()?;
    let stored: Stored = serde_json::from_str(&text).ok()?;
    let values = (stored.point.iter())
        .map(|(name, value)| Some((name.clone(), ConstValue::parse(value)?)))
        .collect::<Option<Vec<_>>>()?;
    Some(Winner {
        tune: stored.tune,
        kernel: stored.kernel,
        point: Point::new(values),
        kernel_ms: stored.kernel_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::{Key, Winner, load, store};
    use crate::space::{ConstValue, Point};

    #[test]
    fn a_winner_is_found_only_under_its_own_key() {
        let dir = tempfile::tempdir().unwrap();
        let key = Key {
            source: "kernel k() {}",
            compiler: "cukc 0.1.0",
            gpu: "NVIDIA H100 80GB HBM3",
            bench: "k_4096",
        };
        let winner = Winner {
            tune: "k_space".to_owned(),
            kernel: "k".to_owned(),
            point: Point::new(vec![
                ("BM".to_owned(), ConstValue::Int(-64)),
                ("T".to_owned(), ConstValue::Dtype("f16".to_owned())),
                ("FAST".to_owned(), ConstValue::Bool(true)),
            ]),
            kernel_ms: 0.25,
        };
        assert_eq!(load(dir.path(), &key), None);
        store(dir.path(), &key, &winner).unwrap();
        assert_eq!(load(dir.path(), &key), Some(winner));
        for other in [
            Key {
                source: "kernel k() { }",
                ..key
            },
            Key {
                compiler: "cukc 0.2.0",
                ..key
            },
            Key {
                gpu: "NVIDIA H200",
                ..key
            },
            Key {
                bench: "k_8192",
                ..key
            },
        ] {
            assert_eq!(load(dir.path(), &other), None);
        }
    }
}
