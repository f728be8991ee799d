//! A compiled `.cuk` file ([`Program`]): its kernels' declarations and instantiations,
//! from the compiler or the disk cache (`module.rs` is its Python face).
//!
//! A program for the GPU holds the cubin and one signature per kernel instantiation,
//! read back from the launch manifest whether it was just compiled or found in the
//! cache; a program for the emulator (`emulate=True`) holds verified KIR instead and is
//! never cached. The source is parsed on every load, cache hit or not, for the kernels'
//! declarations: their const parameters and the lines their parameters are declared
//! on, which error messages name.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cute::Target;
use lang::SourceFile;
use lang::ast::{ItemKind, TypeKind};
use pyo3::exceptions::{PyRuntimeError, PyRuntimeWarning};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use runtime::{CompiledKernel, HostImages, Image};
use typecheck::Instantiation;

use crate::{cache, compile, errors, tuned};

/// How a program was asked for: everything but the instantiations.
pub struct Origin {
    /// The source text.
    pub source: String,
    /// The path diagnostics and messages name.
    pub path: String,
    /// The architecture compiled for.
    pub target: Target,
    /// Whether kernels run on the CPU emulator.
    pub emulate: bool,
    /// The disk cache, when there is one.
    pub cache_dir: Option<PathBuf>,
    /// Programs compiled for `specialize`, by their instantiations' key.
    pub specialized: Mutex<HashMap<String, Arc<Program>>>,
    /// The stored winners the kernels use (`tuned.rs`), one a tuned kernel.
    pub tuned: Vec<tuned::Used>,
}

/// A kernel as the source declares it.
pub struct KernelDecl {
    /// Its name.
    pub name: String,
    /// The byte offset of its name.
    pub offset: u32,
    /// Its const parameters: name and kind (`int` or `dtype`).
    pub generics: Vec<(String, String)>,
    /// Its run-time parameters: name and the byte offset of the declaration.
    pub params: Vec<(String, u32)>,
}

/// A compiled file.
pub struct Program {
    /// How it was asked for.
    pub origin: Arc<Origin>,
    /// The source, for line numbers.
    pub file: SourceFile,
    /// The kernels the file declares.
    pub decls: Vec<KernelDecl>,
    /// Each kernel instantiation: a cubin for the GPU, or KIR for the emulator.
    pub kernels: Vec<CompiledKernel>,
    /// The launch manifest (GPU programs).
    pub manifest: Option<runtime::manifest::Manifest>,
    /// Whether the cubin came from the disk cache.
    pub from_cache: bool,
    /// The cubin loaded on each GPU that ran one of its kernels.
    pub loaded: HostImages,
}

/// Files compiled and cache hits in this process.
static COMPILED: AtomicU64 = AtomicU64::new(0);
static CACHE_HITS: AtomicU64 = AtomicU64::new(0);

impl Program {
    /// Compiles `origin` with the instantiations `requested`, or reads it from the cache.
    pub fn build(
        py: Python<'_>,
        origin: Arc<Origin>,
        requested: &[Instantiation],
    ) -> PyResult<Program> {
        let parsed = compile::parse(&origin.path, &origin.source)
            .map_err(|rejected| errors::compile_error(py, &rejected.0, &rejected.1))?;
        let decls = declarations(&parsed.module);
        // The tuned kernels' const parameters default to their winners' values.
        let parsed = compile::Parsed {
            module: tuned::apply(parsed.module, &origin.tuned),
            file: parsed.file,
        };
        let program = |kernels, manifest, from_cache| Program {
            origin: origin.clone(),
            file: parsed.file.clone(),
            decls,
            kernels,
            manifest,
            from_cache,
            loaded: HostImages::default(),
        };
        let target = origin.target;
        if origin.emulate {
            let kernels = py
                .detach(|| compile::front_end(&parsed, target, requested))
                .map_err(|diagnostics| errors::compile_error(py, &parsed.file, &diagnostics))?;
            COMPILED.fetch_add(1, Ordering::Relaxed);
            let kernels = kernels
                .into_iter()
                .map(|kernel| CompiledKernel {
                    signature: kernel.signature.clone(),
                    image: Image::Kir(Box::new(kernel)),
                })
                .collect();
            return Ok(program(kernels, None, false));
        }
        let key = cache::key(
            &compiler_identity(py),
            target.name(),
            requested,
            &tuned::describe(&origin.tuned),
            &origin.source,
        );
        // The front end runs on every load: an entry is used only when its manifest
        // is the one this source gives with its cubin, so an edited manifest (an
        // assumption removed, parameters swapped) or one that no longer fits is a
        // miss, compiled and written again. Only ptxas is saved.
        let kernels = py
            .detach(|| compile::front_end(&parsed, target, requested))
            .map_err(|diagnostics| errors::compile_error(py, &parsed.file, &diagnostics))?;
        let signatures: Vec<kir::Signature> = kernels
            .iter()
            .map(|kernel| kernel.signature.clone())
            .collect();
        let cached = (origin.cache_dir.as_deref())
            .and_then(|dir| cache::read(dir, &key))
            .filter(|(_, stored)| stored.signatures().is_ok_and(|found| found == signatures));
        let from_cache = cached.is_some();
        let cubin = match cached {
            Some((cubin, _)) => {
                CACHE_HITS.fetch_add(1, Ordering::Relaxed);
                cubin
            }
            None => {
                let cubin = py
                    .detach(|| compile::assemble(&parsed, &kernels, target))
                    .map_err(|error| PyRuntimeError::new_err(error.to_string()))?;
                COMPILED.fetch_add(1, Ordering::Relaxed);
                let manifest = cache::manifest(&origin.path, target.name(), &cubin, &signatures);
                if let Some(dir) = &origin.cache_dir
                    && let Err(problem) = cache::write(dir, &key, &cubin, &manifest)
                {
                    // The compile succeeded; a cache that cannot be written only costs
                    // the next load a compile.
                    let message = std::ffi::CString::new(problem.to_string()).unwrap_or_default();
                    let category = py.get_type::<PyRuntimeWarning>();
                    PyErr::warn(py, &category, &message, 1)?;
                }
                cubin
            }
        };
        let manifest = cache::manifest(&origin.path, target.name(), &cubin, &signatures);
        let kernels = signatures
            .into_iter()
            .map(|signature| CompiledKernel {
                signature,
                image: Image::Cubin(cubin.clone()),
            })
            .collect();
        Ok(program(kernels, Some(manifest), from_cache))
    }

    /// The declaration of kernel `name`.
    pub fn decl(&self, name: &str) -> Option<&KernelDecl> {
        self.decls.iter().find(|decl| decl.name == name)
    }
}

/// The kernels a parsed file declares.
fn declarations(module: &lang::ast::Module) -> Vec<KernelDecl> {
    module
        .items
        .iter()
        .filter_map(|item| match &item.kind {
            ItemKind::Kernel(kernel) => Some(KernelDecl {
                name: kernel.name.text.clone(),
                offset: kernel.name.span.start,
                generics: (kernel.generics.iter())
                    .map(|generic| {
                        let kind = match &generic.kind.kind {
                            TypeKind::Named(path) => path
                                .segments
                                .last()
                                .map_or_else(String::new, |segment| segment.text.clone()),
                            _ => String::new(),
                        };
                        (generic.name.text.clone(), kind)
                    })
                    .collect(),
                params: (kernel.params.iter())
                    .map(|param| (param.name.text.clone(), param.span.start))
                    .collect(),
            }),
            _ => None,
        })
        .collect()
}

/// `cuk <version>` and the extension module's size and modification time.
fn compiler_identity(py: Python<'_>) -> String {
    static IDENTITY: OnceLock<String> = OnceLock::new();
    IDENTITY
        .get_or_init(|| {
            let file: Option<String> = py
                .import("cuk._cuk")
                .and_then(|module| module.getattr("__file__"))
                .and_then(|file| file.extract())
                .ok();
            let stamp = file
                .and_then(|file| std::fs::metadata(file).ok())
                .map(|meta| {
                    let modified = meta
                        .modified()
                        .ok()
                        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                        .map_or(0, |elapsed| elapsed.as_nanos());
                    format!("{} bytes, modified {modified}", meta.len())
                })
                .unwrap_or_default();
            format!("cuk {} ({stamp})", env!("CARGO_PKG_VERSION"))
        })
        .clone()
}

/// How many files this process compiled, and how many it read from the disk cache.
#[pyfunction]
pub fn stats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("compiled", COMPILED.load(Ordering::Relaxed))?;
    dict.set_item("cache_hits", CACHE_HITS.load(Ordering::Relaxed))?;
    Ok(dict)
}
