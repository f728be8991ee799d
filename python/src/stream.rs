//! The stream a launch goes on: the one the caller names with `stream=`, else
//! PyTorch's current stream for the tensors' GPU (what `torch.cuda.stream(...)` and
//! CUDA-graph capture set), else the legacy default stream.
//!
//! `stream=` takes a raw handle (an int, 0 for the legacy default stream), an object
//! with the CUDA stream protocol (`__cuda_stream__()` returning `(version, handle)`), or
//! one with a `cuda_stream` attribute (`torch.cuda.Stream`, CuPy's `Stream.ptr` aside).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;

use crate::bind::Arg;
use crate::tensors;

/// The handle of the stream `stream=` names.
pub fn explicit(stream: &Bound<'_, PyAny>) -> PyResult<u64> {
    let py = stream.py();
    if let Ok(handle) = stream.extract::<u64>() {
        return Ok(handle);
    }
    if let Ok(protocol) = stream.call_method0(pyo3::intern!(py, "__cuda_stream__")) {
        let (_version, handle): (i64, u64) = protocol.extract().map_err(|_| {
            PyTypeError::new_err("`stream`: __cuda_stream__() must return (version, handle)")
        })?;
        return Ok(handle);
    }
    if let Ok(handle) = stream.getattr(pyo3::intern!(py, "cuda_stream")) {
        return handle.extract();
    }
    Err(PyTypeError::new_err(format!(
        "`stream` must be a CUDA stream handle (an int), or an object with __cuda_stream__ or cuda_stream; got a {}",
        stream.get_type().name()?
    )))
}

/// PyTorch's current stream on GPU `ordinal`, the GPU of the tensors `args`: the one
/// their reader was told (a torch tensor read through DLPack's C exchange API), else
/// asked of torch when it is loaded, else 0 (the legacy default stream).
pub fn current(py: Python<'_>, ordinal: usize, args: &[Arg]) -> PyResult<u64> {
    let told = args.iter().find_map(|arg| match arg {
        Arg::Tensor(tensor) => tensor.stream,
        _ => None,
    });
    if let Some(handle) = told {
        return Ok(handle);
    }
    static CURRENT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let function = match CURRENT.get(py) {
        Some(function) => function,
        None => {
            let Some(torch) = tensors::torch_if_loaded(py) else {
                return Ok(0);
            };
            // What torch's own compiled kernels (Triton's launcher) ask: the raw handle,
            // without building a `torch.cuda.Stream`.
            let Ok(function) = (torch.getattr("_C"))
                .and_then(|module| module.getattr("_cuda_getCurrentRawStream"))
            else {
                return Ok(0);
            };
            CURRENT.get_or_init(py, || function.unbind())
        }
    };
    // The argument tuple `(ordinal,)` is made once per GPU, not on every call.
    static ARGUMENTS: PyOnceLock<Box<[Py<PyTuple>]>> = PyOnceLock::new();
    let arguments = ARGUMENTS.get_or_try_init(py, || {
        (0..runtime::gpu_count().max(ordinal + 1))
            .map(|ordinal| PyTuple::new(py, [ordinal]).map(Bound::unbind))
            .collect::<PyResult<_>>()
    })?;
    let handle = match arguments.get(ordinal) {
        Some(arguments) => function.bind(py).call1(arguments.bind(py))?,
        None => function.bind(py).call1((ordinal,))?,
    };
    tensors::address_of(&handle)
}
