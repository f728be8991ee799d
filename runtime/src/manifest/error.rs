//! Why a manifest cannot be read ([`ManifestError`]): it is not a manifest's JSON, it
//! is another format or version, or a kernel entry does not describe a signature
//! ([`EntryProblem`]: a dtype or name the entry's parameters do not have).

use std::fmt;

use super::{FORMAT, VERSION};

/// Why a manifest cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ManifestError {
    /// Not a manifest's JSON: the parser's message.
    Json(String),
    /// A manifest of another format or version.
    Version {
        /// Its format.
        format: String,
        /// Its version.
        version: u32,
    },
    /// A kernel entry that does not describe a signature.
    Kernel {
        /// The kernel.
        kernel: String,
        /// What is wrong with its entry.
        problem: EntryProblem,
    },
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Json(error) => write!(f, "not a CuK manifest: {error}"),
            ManifestError::Version { format, version } => write!(
                f,
                "a manifest of format `{format}` version {version}; this runtime reads `{FORMAT}` version {VERSION}"
            ),
            ManifestError::Kernel { kernel, problem } => {
                write!(f, "kernel `{kernel}` in the manifest: {problem}")
            }
        }
    }
}

impl std::error::Error for ManifestError {}

/// What is wrong with a kernel's entry, each case with the name or dtype it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryProblem {
    /// A name where an integer parameter's is needed.
    NotInt(String),
    /// A name where a tensor parameter's is needed.
    NotTensor(String),
    /// An integer parameter's dtype that is not one.
    IntDtype(String),
    /// A scalar parameter's dtype that is neither a float's nor `bool`.
    ScalarDtype(String),
    /// A tensor parameter's dtype that is not an element type.
    TensorDtype(String),
    /// A tensor parameter whose extents and strides differ in number.
    Modes {
        /// The parameter.
        param: String,
        /// Its extents.
        extents: usize,
        /// Its strides.
        strides: usize,
    },
}

impl fmt::Display for EntryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryProblem::NotInt(name) => write!(f, "`{name}` is not an integer parameter"),
            EntryProblem::NotTensor(name) => write!(f, "`{name}` is not a tensor parameter"),
            EntryProblem::IntDtype(dtype) => write!(f, "`{dtype}` is not an integer dtype"),
            EntryProblem::ScalarDtype(dtype) => {
                write!(f, "`{dtype}` is not a float dtype or `bool`")
            }
            EntryProblem::TensorDtype(dtype) => write!(f, "`{dtype}` is not a tensor dtype"),
            EntryProblem::Modes {
                param,
                extents,
                strides,
            } => write!(f, "`{param}` has {extents} extents but {strides} strides"),
        }
    }
}

impl std::error::Error for EntryProblem {}
