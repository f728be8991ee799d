//! Cubins cached by content: a PTX text assembled once by one ptxas release, for one
//! target, with one set of options, is not assembled again. The key is the SHA-256 of
//! everything that decides the cubin (ptxas's path and release, the target, the
//! arguments, the PTX); the entry is two files in `<cache>/ptxas/`, `<key>.cubin` and
//! `<key>.log` (what ptxas printed, so warnings and `-v` resource lines come back with
//! a hit). Entries are written atomically (a temporary file renamed into place), so
//! processes sharing the folder never read half an entry; only successes are kept.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::assemble::{AssembleOptions, Assembled};
use super::discover::Ptxas;
use super::log::{Severity, parse_messages, parse_resources};

/// A folder of cubins keyed by the content that made them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssemblyCache {
    dir: PathBuf,
}

impl AssemblyCache {
    /// The cache in `<cache_dir>/ptxas` (cukc's cache directory, see
    /// [`super::cache_dir_from`]); the folder is made on the first store.
    pub fn in_cache_dir(cache_dir: &Path) -> AssemblyCache {
        AssemblyCache {
            dir: cache_dir.join("ptxas"),
        }
    }

    /// The folder the entries are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of `ptx` assembled by `ptxas` for `target` with `arguments` (the
    /// command line but for the file names), as 64 hex digits.
    pub(super) fn key(ptxas: &Ptxas, target: &str, arguments: &[String], ptx: &str) -> String {
        let mut hasher = Sha256::new();
        let mut field = |bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        field(ptxas.path.as_os_str().as_encoded_bytes());
        field(ptxas.version.to_string().as_bytes());
        field(target.as_bytes());
        for argument in arguments {
            field(argument.as_bytes());
        }
        field(ptx.as_bytes());
        hasher
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }

    /// The cubin stored under `key`, with what ptxas printed making it; `None` when
    /// there is none (or it cannot be read: the cache is only ever a shortcut).
    pub(super) fn load(&self, key: &str) -> Option<Assembled> {
        let cubin = std::fs::read(self.dir.join(format!("{key}.cubin"))).ok()?;
        let log = std::fs::read_to_string(self.dir.join(format!("{key}.log"))).ok()?;
        Some(Assembled {
            cubin,
            elapsed: std::time::Duration::ZERO,
            warnings: parse_messages(&log)
                .into_iter()
                .filter(|message| message.severity == Severity::Warning)
                .collect(),
            resources: parse_resources(&log),
            log,
            cached: true,
        })
    }

    /// Stores `assembled` under `key`. A store that fails (a full disk, a read-only
    /// folder) leaves the cache as it was; the cubin in hand is still good.
    pub(super) fn store(&self, key: &str, assembled: &Assembled) {
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        // The log first: an entry is whole once its cubin is in place.
        let written = self.write(&format!("{key}.log"), assembled.log.as_bytes());
        if written.is_ok() {
            let _ = self.write(&format!("{key}.cubin"), &assembled.cubin);
        }
    }

    fn write(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        let mut file = tempfile::NamedTempFile::new_in(&self.dir)?;
        std::io::Write::write_all(&mut file, bytes)?;
        file.persist(self.dir.join(name))
            .map(drop)
            .map_err(|error| error.error)
    }
}

impl AssembleOptions {
    /// The command-line arguments these options give ptxas (before `-o`).
    pub(super) fn arguments(&self) -> Vec<String> {
        let mut arguments = Vec::new();
        if self.line_info {
            arguments.push("-lineinfo".to_owned());
        }
        if self.verbose {
            arguments.push("-v".to_owned());
        }
        if let Some(level) = self.opt_level {
            arguments.push(format!("-O{level}"));
        }
        arguments.extend(self.extra_args.iter().cloned());
        arguments
    }
}

#[cfg(test)]
mod tests {
    use super::AssemblyCache;
    use crate::ptxas::{Ptxas, Source, Version};

    fn ptxas(version: Version) -> Ptxas {
        Ptxas {
            path: "/opt/cuda/bin/ptxas".into(),
            source: Source::Path,
            version,
        }
    }

    #[test]
    fn the_key_changes_with_everything_that_decides_the_cubin() {
        let ptxas_12_9 = ptxas(Version::new(12, 9, 86));
        let base = AssemblyCache::key(&ptxas_12_9, "sm_90a", &[], ".entry k {}");
        assert_eq!(base.len(), 64);
        assert_eq!(
            base,
            AssemblyCache::key(&ptxas_12_9, "sm_90a", &[], ".entry k {}")
        );
        let others = [
            AssemblyCache::key(&ptxas(Version::new(12, 8, 0)), "sm_90a", &[], ".entry k {}"),
            AssemblyCache::key(&ptxas_12_9, "sm_80", &[], ".entry k {}"),
            AssemblyCache::key(&ptxas_12_9, "sm_90a", &["-v".into()], ".entry k {}"),
            AssemblyCache::key(&ptxas_12_9, "sm_90a", &[], ".entry j {}"),
            // Fields are length-prefixed: moving a byte between them is another key.
            AssemblyCache::key(&ptxas_12_9, "sm_90", &[], "a.entry k {}"),
        ];
        for other in others {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn a_stored_entry_comes_back_with_its_log_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let cache = AssemblyCache::in_cache_dir(dir.path());
        let key = AssemblyCache::key(&ptxas(Version::new(12, 9, 86)), "sm_90a", &[], "x");
        assert!(cache.load(&key).is_none());
        let log = "ptxas warning : Unresolved extern function 'f'\n\
                   ptxas info    : Function properties for k\n\
                   ptxas info    : Used 40 registers, used 0 barriers, 1024 bytes smem, 360 bytes cmem[0]\n";
        let assembled = crate::ptxas::Assembled {
            cubin: b"\x7fELF-bytes".to_vec(),
            elapsed: std::time::Duration::from_millis(5),
            warnings: Vec::new(),
            resources: Vec::new(),
            log: log.to_owned(),
            cached: false,
        };
        cache.store(&key, &assembled);
        let hit = cache.load(&key).expect("a stored entry");
        assert!(hit.cached);
        assert_eq!(hit.cubin, assembled.cubin);
        assert_eq!(hit.log, log);
        assert_eq!(hit.warnings.len(), 1);
        assert_eq!(hit.resources, crate::ptxas::parse_resources(log));
    }
}
