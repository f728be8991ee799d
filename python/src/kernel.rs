//! A kernel as a Python callable: `module.copy(a, out)` checks every argument and
//! launches on the caller's stream (or runs on the emulator); `check(...)` makes the
//! same checks and returns the launch configuration without launching;
//! `specialize(BM=128)` compiles the instantiation with those const arguments (the
//! others at their defaults, a stored winner's values where there is one); `tuned`
//! says which winner's values it uses.

use std::sync::Arc;

use kir::{ConstValue, ParamKind, ScalarParam, Signature};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use runtime::marshal::{LaunchPlan, Planner};

use crate::bind::{self, Arg, Args, Binder, CallError};
use crate::program::Program;
use crate::tensors::Device;
use crate::{emulate, errors, gpu, specialize, stream, tuned};

/// A compiled kernel instantiation of a module, with what its calls need of its
/// signature worked out once: how arguments bind to parameters and how a call is
/// checked and planned.
#[pyclass(frozen, module = "cuk")]
pub struct Kernel {
    program: Arc<Program>,
    name: String,
    /// The instantiation in `program.kernels`.
    index: usize,
    binder: Binder,
    planner: Planner,
    /// The const parameters `specialize` was given (they override a stored winner's).
    overridden: Vec<String>,
}

impl Kernel {
    /// Kernel `name` of `program` with its default const arguments; `None` when the
    /// program has no such instantiation (a compile traces the default instantiation of
    /// every kernel, so a program that compiled has one).
    pub fn default_of(py: Python<'_>, program: Arc<Program>, name: &str) -> Option<Kernel> {
        let index = (program.kernels.iter())
            .position(|kernel| kernel.signature.name == name && kernel.signature.entry == name)?;
        Some(Kernel::at(py, program, name, index, Vec::new()))
    }

    fn at(
        py: Python<'_>,
        program: Arc<Program>,
        name: &str,
        index: usize,
        overridden: Vec<String>,
    ) -> Kernel {
        let signature = &program.kernels[index].signature;
        let binder = Binder::new(py, signature);
        let planner = Planner::new(signature);
        Kernel {
            program,
            name: name.to_owned(),
            index,
            binder,
            planner,
            overridden,
        }
    }

    fn kir_signature(&self) -> &Signature {
        self.planner.signature()
    }

    /// The error for `error`, located at its parameter's declaration.
    fn call_error(&self, error: CallError) -> PyErr {
        let decl = self.program.decl(&self.name);
        let offset = match error.param {
            Some(param) => decl
                .and_then(|decl| decl.params.get(param))
                .map(|(_, offset)| *offset),
            None => decl.map(|decl| decl.offset),
        };
        let message = match offset {
            Some(offset) => errors::at(&self.program.file, offset, &error.message),
            None => format!("{}: {}", self.program.file.path(), error.message),
        };
        if error.type_error {
            PyTypeError::new_err(message)
        } else {
            PyValueError::new_err(message)
        }
    }

    /// Binds and checks a call, then hands the arguments, the plan and the device they
    /// are on to `then` (rather than returning them: they are kilobytes of stack arrays,
    /// not worth copying on every call).
    fn prepare<R>(
        &self,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
        then: impl FnOnce(&Args, &LaunchPlan, Device) -> PyResult<R>,
    ) -> PyResult<R> {
        let signature = self.kir_signature();
        let mut bound = Args::new();
        (self.binder.bind(signature, args, kwargs, &mut bound))
            .map_err(|error| self.call_error(error))?;
        let plan = self
            .planner
            .plan(&bind::call_args(&bound))
            .map_err(|error| {
                self.call_error(CallError {
                    type_error: false,
                    param: error.param,
                    message: error.message,
                })
            })?;
        let device = self.device(signature, &bound)?;
        then(&bound, &plan, device)
    }

    /// The device every tensor is on: the CPU for the emulator, one GPU otherwise.
    fn device(&self, signature: &Signature, args: &[Arg]) -> PyResult<Device> {
        let emulate = self.program.origin.emulate;
        let mut found: Option<(usize, Device)> = None;
        for (index, arg) in args.iter().enumerate() {
            let Arg::Tensor(tensor) = arg else {
                continue;
            };
            let name = &signature.params[index].name;
            let fail = |message: String| {
                self.call_error(CallError {
                    type_error: false,
                    param: Some(index),
                    message: format!("`{}`: {message}", self.name),
                })
            };
            match (emulate, tensor.device) {
                (false, Device::Cuda(_)) | (true, Device::Cpu) => {}
                (false, device) => {
                    return Err(fail(format!(
                        "`{name}` is on {}, but the kernel runs on a GPU: move it there (.cuda()), or load the module with emulate=True to run on the CPU emulator",
                        device.text()
                    )));
                }
                (true, device) => {
                    return Err(fail(format!(
                        "`{name}` is on {}, but this module runs on the CPU emulator (emulate=True), which takes CPU tensors",
                        device.text()
                    )));
                }
            }
            match found {
                Some((first, device)) if device != tensor.device => {
                    return Err(fail(format!(
                        "`{name}` is on {}, but `{}` is on {}",
                        tensor.device.text(),
                        signature.params[first].name,
                        device.text()
                    )));
                }
                Some(_) => {}
                None => found = Some((index, tensor.device)),
            }
        }
        Ok(found.map_or(
            if emulate {
                Device::Cpu
            } else {
                Device::Cuda(0)
            },
            |(_, device)| device,
        ))
    }
}

#[pymethods]
impl Kernel {
    /// Checks the arguments and launches: on the GPU, asynchronously on `stream` (by
    /// default PyTorch's current stream); on the emulator, to completion.
    #[pyo3(signature = (*args, stream = None, **kwargs))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        stream: Option<&Bound<'_, PyAny>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let index = self.index;
        self.prepare(args, kwargs, |bound, plan, device| match device {
            Device::Cuda(ordinal) => {
                // The GPU first: without one, that is what the caller needs to hear.
                let image = gpu::loaded(&self.program, ordinal)?;
                let handle = match stream {
                    Some(stream) => stream::explicit(stream)?,
                    None => stream::current(py, ordinal, bound)?,
                };
                gpu::launch(image, &self.program, index, plan, handle)
            }
            _ => emulate::run(py, &self.program, index, &self.planner, bound),
        })
    }

    /// Makes every check a call makes and returns the launch configuration
    /// (`grid`, `block`, `shared_bytes`), launching nothing.
    #[pyo3(signature = (*args, **kwargs))]
    fn check<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.prepare(args, kwargs, |_, plan, _| {
            let launch = PyDict::new(py);
            launch.set_item(intern!(py, "grid"), plan.grid)?;
            launch.set_item(intern!(py, "block"), plan.block)?;
            launch.set_item(intern!(py, "shared_bytes"), plan.shared_bytes)?;
            Ok(launch)
        })
    }

    /// This kernel compiled with the given const arguments (the others at their
    /// defaults): `module.kernel.specialize(BM=128, T="bf16")`.
    #[pyo3(signature = (**consts))]
    fn specialize(&self, py: Python<'_>, consts: Option<&Bound<'_, PyDict>>) -> PyResult<Kernel> {
        let (program, index) = specialize::instantiate(py, &self.program, &self.name, consts)?;
        let mut overridden = self.overridden.clone();
        for name in consts.into_iter().flat_map(|consts| consts.keys()) {
            overridden.push(name.extract()?);
        }
        Ok(Kernel::at(py, program, &self.name, index, overridden))
    }

    /// The kernel's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The entry point in the cubin.
    #[getter]
    fn entry(&self) -> &str {
        &self.kir_signature().entry
    }

    /// The run-time parameters' names, in order.
    #[getter]
    fn params(&self) -> Vec<String> {
        (self.kir_signature().params.iter())
            .map(|param| param.name.clone())
            .collect()
    }

    /// The run-time parameters in order, each a dict: `name`; `kind` (`int`, `float`,
    /// `bool` or `tensor`); `dtype` (`i32`, `f32`, `bf16`, ...); `from_tensor`, whether a
    /// call may leave it out (an integer read from a tensor's shape).
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let signature = self.kir_signature();
        let mut params = Vec::with_capacity(signature.params.len());
        for (index, param) in signature.params.iter().enumerate() {
            let (kind, dtype) = match &param.kind {
                ParamKind::Int(width) => ("int", width.name()),
                ParamKind::Scalar(ScalarParam::Bool) => ("bool", "bool"),
                ParamKind::Scalar(scalar) => ("float", scalar.name()),
                ParamKind::Tensor { dtype, .. } => ("tensor", dtype.name()),
                ParamKind::TensorMap(_) => ("tensor_map", "tensor_map"),
            };
            let dict = PyDict::new(py);
            dict.set_item("name", &param.name)?;
            dict.set_item("kind", kind)?;
            dict.set_item("dtype", dtype)?;
            dict.set_item("from_tensor", self.binder.reads_from_tensor(index))?;
            params.push(dict);
        }
        Ok(params)
    }

    /// The const arguments it was compiled with: `{"BM": 128}`.
    #[getter]
    fn const_args<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in &self.kir_signature().const_args {
            match value {
                ConstValue::Int(value) => dict.set_item(name, value)?,
                ConstValue::Dtype(dtype) => dict.set_item(name, dtype)?,
            }
        }
        Ok(dict)
    }

    /// The stored winner this kernel was compiled with (`cukc tune`, `cuk.autotune`), as
    /// a dict: `values` (those `specialize` did not override), `tune`, `bench`,
    /// `kernel_ms`, `gpu` and `file`; `None` when it uses none.
    #[getter]
    fn tuned<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let origin = &self.program.origin;
        match (origin.tuned.iter()).find(|used| used.winner.kernel == self.name) {
            Some(used) => tuned::as_dict(py, used, &self.overridden),
            None => Ok(None),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "<cuk.Kernel {}({})>",
            self.kir_signature().entry,
            self.params().join(", ")
        )
    }
}
