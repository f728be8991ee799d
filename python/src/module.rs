//! `cuk.load` and `cuk.compile`, and the module they return ([`Module`]): its kernels as
//! attributes, its target, its launch manifest, and whether the cubin came from the
//! disk cache. The target defaults to the first GPU's (`sm_90a` without one, and for the
//! emulator); emulated modules are never cached. A kernel with a winner stored for the
//! GPU (`tuned.rs`) is compiled with it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use cute::Target;
use pyo3::exceptions::{PyAttributeError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::kernel::Kernel;
use crate::program::{Origin, Program};
use crate::{cache, compile, errors, tuned};

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
                "tuned",
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

    /// The stored winners the kernels use, by kernel (see `Kernel.tuned`).
    #[getter]
    fn tuned<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for used in &self.program.origin.tuned {
            dict.set_item(&used.winner.kernel, tuned::as_dict(py, used, &[])?)?;
        }
        Ok(dict)
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

/// The first GPU, asked once; `None` without one.
pub fn first_gpu() -> Option<&'static runtime::DeviceInfo> {
    static GPU: OnceLock<Option<runtime::DeviceInfo>> = OnceLock::new();
    GPU.get_or_init(|| runtime::gpu_status().ok()).as_ref()
}

/// The target of the first GPU, or `sm_90a` without one.
fn default_target() -> Target {
    first_gpu().map_or(Target::Sm90a, autotune::winners::target_of)
}

fn parse_target(target: Option<&str>, emulate: bool) -> PyResult<Target> {
    match target {
        Some(name) => name
            .parse()
            .map_err(|unknown: cute::UnknownTarget| PyValueError::new_err(unknown.to_string())),
        // The emulator needs no GPU; its kernels are checked for the default target.
        None if emulate => Ok(Target::Sm90a),
        None => Ok(default_target()),
    }
}

/// What a load asks for besides the source.
struct Request {
    target: Option<String>,
    cache_dir: Option<PathBuf>,
    emulate: bool,
    tuned_for: Option<String>,
}

/// The origin of a load of `source` (named `path`), with the winners stored for the
/// GPU it is for, announced.
fn origin_of(py: Python<'_>, source: String, path: String, request: Request) -> PyResult<Origin> {
    let target = parse_target(request.target.as_deref(), request.emulate)?;
    // The first GPU's winners, for a module built for it (they were timed there).
    let gpu = match request.tuned_for {
        Some(gpu) => Some(gpu),
        None if request.emulate => None,
        None => first_gpu()
            .filter(|info| autotune::winners::target_of(info) == target)
            .map(|info| info.name.clone()),
    };
    let mut used = Vec::new();
    if let Some(gpu) = gpu {
        let parsed = compile::parse(&path, &source)
            .map_err(|rejected| errors::compile_error(py, &rejected.0, &rejected.1))?;
        used = tuned::find(&parsed.file, &parsed.module, &gpu);
        tuned::announce(py, &path, &used)?;
    }
    Ok(Origin {
        source,
        path,
        target,
        emulate: request.emulate,
        cache_dir: cache_folder(request.cache_dir, request.emulate),
        specialized: Mutex::new(HashMap::new()),
        tuned: used,
    })
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

/// Compiles the `.cuk` file at `path` (or reads its cubin from the disk cache), each
/// kernel with a winner stored for the GPU (`tuned_for`, by default the first GPU's)
/// compiled with it.
#[pyfunction]
#[pyo3(signature = (path, *, target = None, cache_dir = None, emulate = false, tuned_for = None))]
pub fn load(
    py: Python<'_>,
    path: PathBuf,
    target: Option<String>,
    cache_dir: Option<PathBuf>,
    emulate: bool,
    tuned_for: Option<String>,
) -> PyResult<Module> {
    let source = read_source(&path)?;
    let request = Request {
        target,
        cache_dir,
        emulate,
        tuned_for,
    };
    let origin = origin_of(py, source, path.display().to_string(), request)?;
    module_of(py, origin)
}

/// The text of the `.cuk` file at `path`.
pub fn read_source(path: &std::path::Path) -> PyResult<String> {
    // Only a regular file of at most 16 MiB is read: a FIFO or `/dev/zero` is refused
    // at once, as `cukc check` refuses it.
    let bytes = lang::read::read(path)
        .map_err(|error| PyOSError::new_err(format!("cannot read {}: {error}", path.display())))?;
    String::from_utf8(bytes).map_err(|error| {
        PyOSError::new_err(format!(
            "cannot read {}: it is not UTF-8 text ({error})",
            path.display()
        ))
    })
}

/// Compiles `.cuk` source text; `name` is the path messages give it. Stored winners
/// are used as [`load`] uses them.
#[pyfunction(name = "compile")]
#[pyo3(signature = (source, *, name = "<string>", target = None, cache_dir = None, emulate = false, tuned_for = None))]
pub fn compile_source(
    py: Python<'_>,
    source: String,
    name: &str,
    target: Option<String>,
    cache_dir: Option<PathBuf>,
    emulate: bool,
    tuned_for: Option<String>,
) -> PyResult<Module> {
    let request = Request {
        target,
        cache_dir,
        emulate,
        tuned_for,
    };
    let origin = origin_of(py, source, name.to_owned(), request)?;
    module_of(py, origin)
}
