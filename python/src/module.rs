//! `cuk.load` and `cuk.compile`, and the module they return ([`Module`]): its kernels as
//! attributes, its target, its launch manifest, and whether the cubin came from the
//! disk cache. The target defaults to the first GPU's (`sm_90a` without one, and for the
//! emulator); emulated modules are never cached.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use cute::Target;
use pyo3::exceptions::{PyAttributeError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::cache;
use crate::kernel::Kernel;
use crate::program::{Origin, Program};

/// A compiled `.cuk` file; each kernel is an attribute.
#[pyclass(frozen, module = "cuk")]
pub struct Module {
    program: Arc<Program>,
    /// Each kernel with its default const arguments, made once: `module.kernel(...)` in
    /// a loop pays an attribute lookup, not a new object.
    kernels: Vec<(String, Py<Kernel>)>,
}

#[pymethods]
impl Module {
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<Kernel>> {
        match self.kernels.iter().find(|(kernel, _)| kernel == name) {
            Some((_, kernel)) => Ok(kernel.clone_ref(py)),
            None => Err(PyAttributeError::new_err(format!(
                "{} has no kernel `{name}`; its kernels: {}",
                self.program.file.path(),
                self.kernel_names().join(", ")
            ))),
        }
    }

    fn __dir__(&self) -> Vec<String> {
        let mut names = self.kernel_names();
        names.extend(
            [
                "kernels",
                "target",
                "from_cache",
                "manifest",
                "path",
                "emulated",
            ]
            .map(str::to_owned),
        );
        names
    }

    fn __repr__(&self) -> String {
        format!(
            "<cuk.Module {} for {}: {}>",
            self.program.file.path(),
            self.program.origin.target.name(),
            self.kernel_names().join(", ")
        )
    }

    /// The names of the kernels the file declares.
    #[getter]
    fn kernels(&self) -> Vec<String> {
        self.kernel_names()
    }

    /// The architecture compiled for: `sm_90a`.
    #[getter]
    fn target(&self) -> &'static str {
        self.program.origin.target.name()
    }

    /// The path messages name.
    #[getter]
    fn path(&self) -> &str {
        &self.program.origin.path
    }

    /// Whether the cubin came from the disk cache instead of the compiler.
    #[getter(from_cache)]
    fn cached(&self) -> bool {
        self.program.from_cache
    }

    /// Whether kernels run on the CPU emulator.
    #[getter]
    fn emulated(&self) -> bool {
        self.program.origin.emulate
    }

    /// The launch manifest (docs/manifest.md) as a dict; `None` for an emulated module.
    #[getter]
    fn manifest<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(manifest) = &self.program.manifest else {
            return Ok(None);
        };
        let json = py.import("json")?;
        Ok(Some(json.call_method1("loads", (manifest.to_json(),))?))
    }
}

impl Module {
    fn kernel_names(&self) -> Vec<String> {
        self.program
            .decls
            .iter()
            .map(|decl| decl.name.clone())
            .collect()
    }
}

/// The target of the first GPU, or `sm_90a` without one.
fn default_target() -> Target {
    static TARGET: OnceLock<Target> = OnceLock::new();
    *TARGET.get_or_init(|| match runtime::gpu_status() {
        Ok(info) => match info.compute_capability.0 {
            8 => Target::Sm80,
            10.. => Target::Sm100a,
            _ => Target::Sm90a,
        },
        Err(_) => Target::Sm90a,
    })
}

fn parse_target(target: Option<&str>, emulate: bool) -> PyResult<Target> {
    match target {
        Some(name) => name.parse().map_err(PyValueError::new_err),
        // The emulator needs no GPU; its kernels are checked for the default target.
        None if emulate => Ok(Target::Sm90a),
        None => Ok(default_target()),
    }
}

fn module_of(py: Python<'_>, origin: Origin) -> PyResult<Module> {
    let program = Arc::new(Program::build(py, Arc::new(origin), &[])?);
    let kernels = (program.decls.iter())
        .map(|decl| {
            let kernel = Kernel::default_of(py, program.clone(), &decl.name).ok_or_else(|| {
                PyRuntimeError::new_err(format!(
                    "cuk: the compiler gave no default instantiation of `{}`; please report this with the file",
                    decl.name
                ))
            })?;
            Ok((decl.name.clone(), Py::new(py, kernel)?))
        })
        .collect::<PyResult<_>>()?;
    Ok(Module { program, kernels })
}

fn cache_folder(cache_dir: Option<PathBuf>, emulate: bool) -> Option<PathBuf> {
    if emulate {
        return None;
    }
    cache_dir.or_else(cache::default_dir)
}

/// Compiles the `.cuk` file at `path` (or reads its cubin from the disk cache).
#[pyfunction]
#[pyo3(signature = (path, *, target = None, cache_dir = None, emulate = false))]
pub fn load(
    py: Python<'_>,
    path: PathBuf,
    target: Option<&str>,
    cache_dir: Option<PathBuf>,
    emulate: bool,
) -> PyResult<Module> {
    // Only a regular file of at most 16 MiB is read: a FIFO or `/dev/zero` is refused
    // at once, as `cukc check` refuses it.
    let bytes = lang::read::read(&path)
        .map_err(|error| PyOSError::new_err(format!("cannot read {}: {error}", path.display())))?;
    let source = String::from_utf8(bytes).map_err(|error| {
        PyOSError::new_err(format!(
            "cannot read {}: it is not UTF-8 text ({error})",
            path.display()
        ))
    })?;
    module_of(
        py,
        Origin {
            source,
            path: path.display().to_string(),
            target: parse_target(target, emulate)?,
            emulate,
            cache_dir: cache_folder(cache_dir, emulate),
            specialized: Mutex::new(HashMap::new()),
        },
    )
}

/// Compiles `.cuk` source text; `name` is the path messages give it.
#[pyfunction(name = "compile")]
#[pyo3(signature = (source, *, name = "<string>", target = None, cache_dir = None, emulate = false))]
pub fn compile_source(
    py: Python<'_>,
    source: String,
    name: &str,
    target: Option<&str>,
    cache_dir: Option<PathBuf>,
    emulate: bool,
) -> PyResult<Module> {
    module_of(
        py,
        Origin {
            source,
            path: name.to_owned(),
            target: parse_target(target, emulate)?,
            emulate,
            cache_dir: cache_folder(cache_dir, emulate),
            specialized: Mutex::new(HashMap::new()),
        },
    )
}
