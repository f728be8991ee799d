//! Finding NVIDIA's `ptxas` and running it: PTX text in, a cubin (or messages
//! that point at PTX lines) out.
//!
//! This is the one module of `backend-ptx` that touches the file system and runs
//! processes; it prints nothing (progress goes through a callback) and never exits.
//!
//! - [`find`] looks for `ptxas` in a fixed order (see [`Source`]) over an injected
//!   [`Environment`], and when none is found installs the Python package
//!   `nvidia-cuda-nvcc-cu12` into cukc's cache directory with pip, unless offline.
//! - [`Ptxas::assemble`] writes the PTX to a temporary directory, runs
//!   `ptxas -arch=<target> [-lineinfo] [-v] -o kernel.cubin kernel.ptx` and returns
//!   the cubin, or a [`PtxasFailure`] whose [`Message`]s carry PTX line numbers so
//!   that a caller can map them back through `.loc` to `.cuk` lines.
//!   [`Ptxas::assemble_cached`] reuses a cubin made before from the same PTX,
//!   target, options and ptxas ([`AssemblyCache`]), and [`Ptxas::assemble_each`]
//!   assembles many texts at once, one ptxas process per text, across cores. ptxas runs in
//!   a private (0700) temporary directory, under a time limit, its output capped;
//!   [`cancel_running`] (for a Ctrl-C handler) kills it and removes the directory.
//! - [`parse_messages`] and [`parse_resources`] read ptxas's log: messages, and the
//!   `-v` resource lines (registers, spills, stack, shared memory per function).

mod assemble;
mod cache;
mod discover;
mod install;
mod log;
mod process;

use std::fmt;

pub use assemble::{AssembleOptions, Assembled, DEFAULT_TIMEOUT, PtxasFailure};
pub use cache::AssemblyCache;
pub use discover::{
    Environment, FindError, Ptxas, Source, cache_dir_from, find, locate, resolve_program,
};
pub use install::{PIP_PACKAGE, PIP_REQUIREMENT, Progress};
pub use log::{FunctionResources, Message, Severity, parse_messages, parse_resources};
pub use process::{MAX_OUTPUT_BYTES, cancel_running};

/// The targets cukc emits, with the oldest ptxas release that assembles each.
pub const TARGETS: [(&str, Version); 3] = [
    ("sm_80", Version::new(11, 0, 0)),
    ("sm_90a", Version::new(12, 0, 0)),
    ("sm_100a", Version::new(12, 8, 0)),
];

/// The oldest ptxas release that knows `target` (`sm_100a` needs 12.8), or `None`
/// for a target outside [`TARGETS`].
pub fn minimum_version(target: &str) -> Option<Version> {
    TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|(_, version)| *version)
}

/// A ptxas release, as `ptxas --version` prints it (`V12.9.86`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// The CUDA major release: 12.
    pub major: u32,
    /// The CUDA minor release: 9.
    pub minor: u32,
    /// The build's patch number: 86 (0 when only `release 12.9` was printed).
    pub patch: u32,
}

impl Version {
    /// `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Version {
        Version {
            major,
            minor,
            patch,
        }
    }

    /// The version in the output of `ptxas --version`: the `V12.9.86` of
    /// `Cuda compilation tools, release 12.9, V12.9.86`, else the `12.9` after
    /// `release`.
    pub fn parse_banner(banner: &str) -> Option<Version> {
        let full = banner
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter_map(|word| word.strip_prefix('V'))
            .find_map(|word| Version::parse_dotted(word, 3));
        full.or_else(|| {
            let after = banner.split("release ").nth(1)?;
            let word = after.split([',', ' ', '\n']).next()?;
            Version::parse_dotted(word, 2)
        })
    }

    /// `12.9.86` (exactly `parts` numbers).
    fn parse_dotted(text: &str, parts: usize) -> Option<Version> {
        let numbers: Vec<u32> = text
            .split('.')
            .map(|part| part.parse().ok())
            .collect::<Option<_>>()?;
        match (numbers.len() == parts, numbers.as_slice()) {
            (true, [major, minor]) => Some(Version::new(*major, *minor, 0)),
            (true, [major, minor, patch]) => Some(Version::new(*major, *minor, *patch)),
            _ => None,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::{Version, minimum_version};

    #[test]
    fn the_version_banner_is_parsed() {
        let banner = "ptxas: NVIDIA (R) Ptx optimizing assembler\n\
                      Copyright (c) 2005-2025 NVIDIA Corporation\n\
                      Built on Tue_May_27_02:18:05_PDT_2025\n\
                      Cuda compilation tools, release 12.9, V12.9.86\n\
                      Build cuda_12.9.r12.9/compiler.36037853_0\n";
        assert_eq!(Version::parse_banner(banner), Some(Version::new(12, 9, 86)));
        assert_eq!(
            Version::parse_banner("Cuda compilation tools, release 11.8\n"),
            Some(Version::new(11, 8, 0))
        );
        assert_eq!(Version::parse_banner("ptxas: something else"), None);
        assert_eq!(Version::new(12, 9, 86).to_string(), "12.9.86");
    }

    #[test]
    fn sm_100a_needs_ptxas_12_8() {
        assert_eq!(minimum_version("sm_100a"), Some(Version::new(12, 8, 0)));
        assert!(minimum_version("sm_100a") > Some(Version::new(12, 4, 131)));
        assert_eq!(minimum_version("sm_75"), None);
    }
}
