//! The disk cache of compiled files: a folder per compile, named by the SHA-256 of
//! what decides the cubin (the compiler's identity, the target, the stored winners
//! used, the requested instantiations and the source text), holding the cubin and its launch manifest
//! (docs/manifest.md).
//!
//! The cache lives in cukc's cache directory, beside the ptxas it may have installed:
//! `$CUKC_CACHE_DIR/kernels`, else `$XDG_CACHE_HOME/cukc/kernels`, else
//! `~/.cache/cukc/kernels`, unless `cache_dir=` names another folder. An entry is
//! written into a private folder and renamed into place, so readers never see half of
//! one; an entry that cannot be read (not regular files, or too large), whose cubin does
//! not match its manifest's hash, or whose manifest is not the one the source gives
//! (the front end runs on every load) is a miss, and is compiled and written again. The compiler's identity is its version
//! with the size and modification time of the extension module, so a rebuilt package
//! never reads cubins an older build wrote.

use std::fmt;
use std::path::{Path, PathBuf};

use runtime::manifest::Manifest;
use sha2::{Digest, Sha256};
use typecheck::{ConstArgument, Instantiation};

/// The manifest's file name in an entry.
const MANIFEST: &str = "manifest.json";
/// The cubin's file name in an entry.
const CUBIN: &str = "kernels.cubin";

/// The default cache folder, when the environment names one.
pub fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    backend_ptx::ptxas::cache_dir_from(var("CUKC_CACHE_DIR"), var("XDG_CACHE_HOME"), var("HOME"))
        .map(|dir| dir.join("kernels"))
}

/// The key of a compile: lowercase hex SHA-256; `tuned` names the stored winners the
/// kernels' defaults were set to (empty when none).
pub fn key(
    compiler: &str,
    target: &str,
    requested: &[Instantiation],
    tuned: &str,
    source: &str,
) -> String {
    let mut hasher = Sha256::new();
    for part in [compiler, target, tuned] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    for request in requested {
        hasher.update(request.kernel.as_bytes());
        for (name, argument) in &request.const_args {
            let value = match argument {
                ConstArgument::Int(value) => value.to_string(),
                ConstArgument::Dtype(dtype) => dtype.name().to_owned(),
            };
            hasher.update(format!(" {name}={value}").as_bytes());
        }
        hasher.update([0]);
    }
    hasher.update(source.as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The largest cubin an entry is read with (256 MiB).
const MAX_CUBIN_BYTES: u64 = 256 << 20;

/// The cubin and manifest of entry `key` in `dir`, when there is a sound one: both
/// regular files (a FIFO planted there is refused, never waited on), of bounded size,
/// the cubin the one the manifest hashes. The caller also checks that the manifest
/// is the one the source gives.
pub fn read(dir: &Path, key: &str) -> Option<(Vec<u8>, Manifest)> {
    let entry = dir.join(key);
    let manifest_bytes = lang::read::read(&entry.join(MANIFEST)).ok()?;
    let manifest = Manifest::from_json(std::str::from_utf8(&manifest_bytes).ok()?).ok()?;
    let cubin = lang::read::read_at_most(&entry.join(CUBIN), MAX_CUBIN_BYTES).ok()?;
    manifest.matches_image(&cubin).then_some((cubin, manifest))
}

/// The manifest of a cubin as an entry stores it.
pub fn manifest(
    source: &str,
    target: &str,
    cubin: &[u8],
    signatures: &[kir::Signature],
) -> Manifest {
    Manifest::new(source, target, (CUBIN, "cubin", cubin), signatures)
}

/// A cache directory that could not be written, and the error.
#[derive(Debug)]
pub struct WriteError {
    /// The cache directory.
    pub dir: PathBuf,
    /// What failed.
    pub error: std::io::Error,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot write the kernel cache in {}: {}",
            self.dir.display(),
            self.error
        )
    }
}

impl std::error::Error for WriteError {}

/// Writes entry `key` into `dir` (replacing an unsound one), or says why it cannot
/// (the caller warns and goes on).
pub fn write(dir: &Path, key: &str, cubin: &[u8], manifest: &Manifest) -> Result<(), WriteError> {
    let failed = |error: std::io::Error| WriteError {
        dir: dir.to_owned(),
        error,
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    let scratch = tempfile::Builder::new()
        .prefix(".partial-")
        .tempdir_in(dir)
        .map_err(failed)?
        .keep();
    std::fs::write(scratch.join(CUBIN), cubin).map_err(failed)?;
    std::fs::write(scratch.join(MANIFEST), manifest.to_json()).map_err(failed)?;
    let entry = dir.join(key);
    if entry.exists() {
        let _ = std::fs::remove_dir_all(&entry);
    }
    let renamed = std::fs::rename(&scratch, &entry);
    if renamed.is_err() {
        // Another process wrote the same entry first; its copy is as good as ours.
        let _ = std::fs::remove_dir_all(&scratch);
    }
    Ok(())
}
