//! `cuk._cuk`, the extension module of the `cuk` Python package: the CuK compiler
//! in-process, a disk cache of cubins, and kernels callable on PyTorch tensors, DLPack
//! producers and `__cuda_array_interface__` objects.
//!
//! The path of a call, `module.kernel(a, out)`:
//! - `module.rs` is `cuk.load` and `cuk.compile`: `compile.rs` turns a `.cuk` text into
//!   a [`program::Program`] (front end, PTX, ptxas), or `cache.rs` reads it back from an
//!   earlier compile (cubin and launch manifest, keyed by the source, the requested
//!   instantiations, the target and the compiler); `specialize.rs` compiles the
//!   instantiations `kernel.specialize(...)` asks for;
//! - `kernel.rs` is the callable: `bind.rs` matches the Python arguments to the
//!   kernel's parameters (integer extents left out are read from the tensors that
//!   declare them), `tensors/` reads each tensor's address, dtype, shape, strides and
//!   device, and the runtime's `marshal` checks everything `cukc test` checks (and the
//!   strides), each failure a `ValueError` naming the parameter and its `.cuk` line.
//!   Everything that depends on the kernel's signature alone is worked out when the
//!   callable is made (a `bind::Binder` and a `marshal::Planner`), so a call only reads
//!   its arguments and compares them;
//! - `gpu.rs` launches on the caller's stream (`stream.rs`) without allocating or
//!   synchronizing; `emulate.rs` runs the kernel on the CPU emulator instead, on CPU
//!   tensors.
//!
//! `tuning.rs` is `cuk.autotune` (the `autotune` crate, as `cukc tune`), and `tuned.rs`
//! the stored winners `cuk.load` compiles tuned kernels with.
//!
//! `import cuk` needs no CUDA: the driver is loaded on the first launch.

mod bind;
mod cache;
mod compile;
mod emulate;
mod errors;
mod gpu;
mod kernel;
mod module;
mod program;
mod specialize;
mod stream;
mod tensors;
mod tuned;
mod tuning;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _cuk(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("CompileError", py.get_type::<errors::CompileError>())?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<module::Module>()?;
    module.add_class::<kernel::Kernel>()?;
    module.add_function(wrap_pyfunction!(module::load, module)?)?;
    module.add_function(wrap_pyfunction!(module::compile_source, module)?)?;
    module.add_function(wrap_pyfunction!(program::stats, module)?)?;
    module.add_function(wrap_pyfunction!(gpu::gpu, module)?)?;
    module.add_function(wrap_pyfunction!(tuning::autotune_file, module)?)?;
    Ok(())
}
