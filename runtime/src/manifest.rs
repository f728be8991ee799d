//! The launch manifest: a JSON description of a compiled file's kernels, enough for any
//! host (C++, Rust, Python, CuPy) to launch them correctly.
//!
//! `cukc build --emit manifest` writes one beside the cubin. It lists every kernel
//! instantiation the cubin holds: its entry name, const arguments, parameters in ABI
//! order (an integer or a float by value with its own width, a bool as a 32-bit 0 or 1,
//! a tensor as the 64-bit address of its first element, with its dtype and its shape
//! and strides as expressions over the integer parameters), the launch clause as
//! expressions, the dynamic shared memory,
//! and what the host must check before launching: integer parameters that must be a
//! multiple of something, and tensor addresses that must be aligned. The image is named
//! with its SHA-256, so a host can tell a stale manifest from a current one.
//!
//! [`Manifest::new`] makes one from the compiler's [`Signature`]s; [`Manifest::signatures`]
//! reads them back, checking every name, so a host in Rust (or the Python package's
//! disk cache) launches through the same [`crate::marshal`] checks `cukc test` makes.
//! `docs/manifest.md` documents the format and `docs/manifest.schema.json` is its JSON
//! schema; expressions are encoded as [`expr`] describes.

mod convert;
mod error;
mod expr;

use kir::Signature;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use error::{EntryProblem, ManifestError};
pub use expr::{Application, Expr, Operation};

/// The `format` field of every manifest.
pub const FORMAT: &str = "cuk-manifest";
/// The version of the format this crate writes and reads.
pub const VERSION: u32 = 1;

/// A compiled file's kernels, as a host needs them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`] for manifests this crate reads.
    pub version: u32,
    /// The compiler that wrote it: `cukc 0.1.0`.
    pub compiler: String,
    /// The `.cuk` file, as given to the compiler.
    pub source: String,
    /// The architecture the image is for: `sm_90a`.
    pub target: String,
    /// The compiled code.
    pub image: ImageRef,
    /// Every kernel instantiation in the image.
    pub kernels: Vec<KernelEntry>,
}

/// The file holding the compiled code, and its hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageRef {
    /// Its file name, relative to the manifest's folder.
    pub file: String,
    /// `cubin` or `ptx`.
    pub kind: String,
    /// The SHA-256 of its bytes, in lowercase hex.
    pub sha256: String,
}

/// One kernel instantiation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelEntry {
    /// The kernel's name in the source.
    pub name: String,
    /// The entry point's name in the image.
    pub entry: String,
    /// The const parameters it was compiled with, in declaration order.
    pub const_args: Vec<ConstArg>,
    /// The run-time parameters, in ABI order.
    pub params: Vec<ParamEntry>,
    /// How to launch it.
    pub launch: LaunchEntry,
    /// What the host checks before launching.
    pub assumptions: Vec<AssumptionEntry>,
}

/// A const parameter and its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstArg {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: ConstArgValue,
}

/// A const parameter's value: a JSON integer, or a dtype's name as a string.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ConstArgValue {
    /// An integer.
    Int(i64),
    /// A dtype (`"bf16"`).
    Dtype(String),
}

/// A run-time parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ParamEntry {
    /// An integer passed by value; the host checks that it fits `dtype`.
    Int {
        /// Its name.
        name: String,
        /// `i32`, `i64`, `u32` or `u64`.
        dtype: String,
    },
    /// A float passed by value with its own width, or a bool passed as a 32-bit 0 or 1.
    Scalar {
        /// Its name.
        name: String,
        /// `f16`, `bf16`, `f32`, `f64` or `bool`.
        dtype: String,
    },
    /// A tensor in global memory, passed as the 64-bit address of its first element.
    Tensor {
        /// Its name.
        name: String,
        /// The element type: `bf16`, `f32`, ...
        dtype: String,
        /// The extent of each mode, flattened.
        shape: Vec<Expr>,
        /// The stride of each mode in elements, flattened.
        strides: Vec<Expr>,
    },
    /// A TMA tensor map (`CUtensorMap`, 128 bytes by value) the host encodes with
    /// `cuTensorMapEncodeTiled` over the tensor parameter `tensor`: dimension `i`
    /// (innermost first) is the tensor's flattened mode `modes[i]`, boxes are
    /// `box_shape` elements, shared memory is swizzled over `swizzle` bytes (0: none);
    /// element strides 1, no interleave, L2 promotion 128 B, out-of-bounds zeros.
    TensorMap {
        /// Its name.
        name: String,
        /// The tensor parameter it describes.
        tensor: String,
        /// The tensor's modes, innermost dimension first.
        modes: Vec<usize>,
        /// The box, in elements per dimension.
        box_shape: Vec<u32>,
        /// The swizzle span in bytes: 0, 32, 64 or 128.
        swizzle: u32,
    },
}

/// The launch clause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchEntry {
    /// Blocks per grid, x y z.
    pub grid: [Expr; 3],
    /// Threads per block, x y z.
    pub block: [Expr; 3],
    /// Blocks per cluster, x y z, when the kernel has a cluster (its entry declares it,
    /// so a plain launch forms the clusters; the grid must be a multiple of it).
    #[serde(default = "no_cluster", skip_serializing_if = "is_no_cluster")]
    pub cluster: [u32; 3],
    /// Bytes of dynamic shared memory to launch with.
    pub shared_bytes: u32,
}

/// The cluster of a kernel without one.
fn no_cluster() -> [u32; 3] {
    [1, 1, 1]
}

fn is_no_cluster(cluster: &[u32; 3]) -> bool {
    *cluster == no_cluster()
}

/// Something the host checks before launching.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AssumptionEntry {
    /// The integer parameter `param` is a multiple of `value`.
    MultipleOf {
        /// The integer parameter's name.
        param: String,
        /// What it must be a multiple of.
        value: i64,
        /// Why, for error messages.
        reason: String,
    },
    /// The tensor parameter `param`'s address is a multiple of `bytes`.
    Aligned {
        /// The tensor parameter's name.
        param: String,
        /// What its address must be a multiple of.
        bytes: u32,
        /// Why, for error messages.
        reason: String,
    },
    /// Every element of the integer tensor parameter `param` lies in `low..high`
    /// (`require_range`).
    ElementsIn {
        /// The tensor parameter's name.
        param: String,
        /// The least value allowed.
        low: Expr,
        /// One past the largest.
        high: Expr,
        /// The source bytes `[start, end)` of the `require_range` call, for messages.
        span: [u32; 2],
    },
    /// The 1-D integer tensor parameter `param` is an offsets array
    /// (`require_offsets`): its first element is 0, it never decreases, its last element
    /// is `total`, and no step from one element to the next exceeds `max_step` when
    /// there is one.
    Offsets {
        /// The tensor parameter's name.
        param: String,
        /// What the last element equals.
        total: Expr,
        /// The largest step allowed, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_step: Option<Expr>,
        /// The source bytes `[start, end)` of the `require_offsets` call, for messages.
        span: [u32; 2],
    },
}

impl Manifest {
    /// The manifest of `signatures`, compiled from `source` for `target` into the image
    /// `image_file` of kind `image_kind` (`cubin` or `ptx`) whose bytes are `image`.
    pub fn new(
        source: &str,
        target: &str,
        (image_file, image_kind, image): (&str, &str, &[u8]),
        signatures: &[Signature],
    ) -> Manifest {
        Manifest {
            format: FORMAT.to_owned(),
            version: VERSION,
            compiler: format!("cukc {}", env!("CARGO_PKG_VERSION")),
            source: source.to_owned(),
            target: target.to_owned(),
            image: ImageRef {
                file: image_file.to_owned(),
                kind: image_kind.to_owned(),
                sha256: sha256_hex(image),
            },
            kernels: signatures.iter().map(KernelEntry::new).collect(),
        }
    }

    /// Pretty JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a manifest, refusing other formats and versions.
    pub fn from_json(text: &str) -> Result<Manifest, ManifestError> {
        let manifest: Manifest =
            serde_json::from_str(text).map_err(|error| ManifestError::Json(error.to_string()))?;
        if manifest.format != FORMAT || manifest.version != VERSION {
            return Err(ManifestError::Version {
                format: manifest.format,
                version: manifest.version,
            });
        }
        Ok(manifest)
    }

    /// Whether `image` is the image this manifest describes.
    pub fn matches_image(&self, image: &[u8]) -> bool {
        self.image.sha256 == sha256_hex(image)
    }

    /// The kernels as the runtime's signatures; an error names the kernel and what
    /// is wrong (an unknown dtype, an expression naming no integer parameter, ...).
    pub fn signatures(&self) -> Result<Vec<Signature>, ManifestError> {
        self.kernels.iter().map(KernelEntry::signature).collect()
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
