//! Launching on the GPU: a program's cubin loaded once per GPU (the runtime's
//! `HostImages`, found again without a lock), then one driver launch per call on the
//! caller's stream, with the GIL held for the few microseconds it takes.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use runtime::marshal::LaunchPlan;
use runtime::{HostImage, Image};

use crate::program::Program;

/// The first GPU as `cukc doctor` describes it, or `None` without one.
#[pyfunction]
pub fn gpu() -> Option<String> {
    runtime::gpu_status().ok().map(|info| info.to_string())
}

/// Launches instantiation `index` of `program`, loaded as `image`, as `plan` says, on
/// the stream whose handle is `stream`.
pub fn launch(
    image: &HostImage,
    program: &Program,
    index: usize,
    plan: &LaunchPlan,
    stream: u64,
) -> PyResult<()> {
    let name = &program.kernels[index].signature.name;
    // SAFETY: `plan` comes from the `marshal::Planner` of this instantiation's
    // signature, with the addresses of tensors the caller holds for the duration of the
    // call, which `Kernel::device` checked are all on the GPU `image` was loaded on, and
    // whose shapes and strides the planner checked against the kernel's layouts. Their owners (PyTorch's caching allocator, a DLPack producer) keep
    // the memory until the work queued on the stream before its release has run, this
    // kernel included. `stream` is the caller's stream on that GPU or 0, the legacy
    // default stream.
    #[allow(unsafe_code)]
    let launched = unsafe { image.launch(index, name, plan, stream) };
    launched.map_err(|error| PyRuntimeError::new_err(error.to_string()))
}

/// The program's cubin loaded on GPU `ordinal`, loading it on first use (the error says
/// why there is no GPU to load it on).
pub fn loaded(program: &Program, ordinal: usize) -> PyResult<&HostImage> {
    let load = || {
        let Some(Image::Cubin(cubin)) = program.kernels.first().map(|kernel| &kernel.image) else {
            return Err("this module has no cubin to load".to_owned());
        };
        let signatures: Vec<kir::Signature> = (program.kernels.iter())
            .map(|kernel| kernel.signature.clone())
            .collect();
        HostImage::load(ordinal, cubin, &signatures)
            .map_err(|reason| format!("cannot run {} on the GPU: {reason}", program.file.path()))
    };
    (program.loaded.get_or_load(ordinal, load)).map_err(PyRuntimeError::new_err)
}
