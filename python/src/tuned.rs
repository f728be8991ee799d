//! The stored winners `cuk.load` and `cuk.compile` use: `cukc tune` and
//! `cuk.autotune` keep each bench's fastest point in cukc's cache directory, keyed by
//! the source, the compiler, the GPU and the bench (the `autotune` crate's
//! `winners`), and a load for that GPU compiles each tuned kernel with the first of its
//! winners (in the order of the file's `tune` blocks and their benches) as its const
//! parameters' defaults, and says so on standard error, as `cukc bench` does.
//!
//! A load for the GPU uses the first GPU's winners (not when `target=` names another
//! architecture than that GPU's); `tuned_for=` names another GPU (an emulated load uses
//! winners only when it names one). Const arguments given to
//! `kernel.specialize(...)` override the winner's; `Kernel.tuned` says which values came
//! from where.

use std::path::PathBuf;

use lang::SourceFile;
use lang::ast::Module;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tune::ConstValue;
use tune::winners::{Key, Winner};

/// A stored winner a load uses for one kernel.
pub struct Used {
    /// The bench it was timed with (the shapes it is fastest at).
    pub bench: String,
    /// The winner.
    pub winner: Winner,
    /// The GPU it was timed on.
    pub gpu: String,
    /// The file it is kept in.
    pub file: PathBuf,
}

/// The winners stored for the file (`module` parsed from `file`) on GPU `gpu`, one a
/// kernel.
pub fn find(file: &SourceFile, module: &Module, gpu: &str) -> Vec<Used> {
    let Some(dir) = autotune::winners::cache_dir() else {
        return Vec::new();
    };
    let compiler = tune::winners::compiler();
    let stored = tune::winners::stored(&dir, file.text(), module, gpu);
    autotune::winners::per_kernel(&stored)
        .into_iter()
        .map(|(bench, winner)| {
            let key = Key {
                source: file.text(),
                compiler: &compiler,
                gpu,
                bench: &bench,
            };
            Used {
                file: tune::winners::path(&dir, &key),
                bench,
                winner,
                gpu: gpu.to_owned(),
            }
        })
        .collect()
}

/// `module` with each used winner's values as its kernel's const parameters' defaults.
pub fn apply(module: Module, used: &[Used]) -> Module {
    used.iter().fold(module, |module, used| {
        tune::specialise(&module, &used.winner.kernel, &used.winner.point, None)
    })
}

/// What the winners add to a compile's cache key: `gemm: BN=256 STAGES=4;` a kernel.
pub fn describe(used: &[Used]) -> String {
    (used.iter())
        .map(|used| format!("{}: {};", used.winner.kernel, used.winner.point))
        .collect()
}

/// Says on `sys.stderr` which winner each tuned kernel uses.
pub fn announce(py: Python<'_>, path: &str, used: &[Used]) -> PyResult<()> {
    let stderr = py.import("sys")?.getattr("stderr")?;
    for used in used {
        let line = format!(
            "cuk: {path}: using {} for `{}`, stored by `cukc tune` or `cuk.autotune` (block `{}`, bench `{}`, {:.4} ms then on {})\n",
            used.winner.point,
            used.winner.kernel,
            used.winner.tune,
            used.bench,
            used.winner.kernel_ms,
            used.gpu
        );
        stderr.call_method1("write", (line,))?;
    }
    Ok(())
}

/// `Kernel.tuned`: the winner `used` as a dict, with only the values not `overridden`
/// by the kernel's explicit const arguments; `None` when every one was.
pub fn as_dict<'py>(
    py: Python<'py>,
    used: &Used,
    overridden: &[String],
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let values = PyDict::new(py);
    for (name, value) in used.winner.point.values() {
        if !overridden.contains(name) {
            values.set_item(name, const_value(py, value)?)?;
        }
    }
    if values.is_empty() {
        return Ok(None);
    }
    let dict = PyDict::new(py);
    dict.set_item("values", values)?;
    dict.set_item("tune", &used.winner.tune)?;
    dict.set_item("bench", &used.bench)?;
    dict.set_item("kernel_ms", used.winner.kernel_ms)?;
    dict.set_item("gpu", &used.gpu)?;
    dict.set_item("file", used.file.display().to_string())?;
    Ok(Some(dict))
}

/// A const value as Python has it: an `int`, a `bool`, or a dtype's name.
pub fn const_value<'py>(py: Python<'py>, value: &ConstValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        ConstValue::Int(value) => value.into_pyobject(py)?.into_any(),
        ConstValue::Bool(value) => value.into_pyobject(py)?.to_owned().into_any(),
        ConstValue::Dtype(name) => name.into_pyobject(py)?.into_any(),
    })
}
