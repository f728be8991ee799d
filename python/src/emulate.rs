//! Kernels of an `emulate=True` module run on the CPU emulator (the `emulator` crate),
//! on CPU tensors: each tensor's bytes are copied into an emulated global memory, the
//! kernel runs there to completion (every thread of every block, with the emulator's
//! checks for out-of-bounds accesses, races and barriers), and the bytes come back
//! into the tensor. A fault raises `RuntimeError` with its diagnostic at the kernel's
//! line.
//!
//! Bytes move through a NumPy byte view of each tensor (`cuk/_bytes.py`: made with
//! `numpy.from_dlpack`, or `Tensor.numpy()` for torch); the tensor must be contiguous.

use emulator::{GlobalMemory, Launch, Options};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use runtime::Image;
use runtime::marshal::{CallArg, Planner};

use crate::bind::Arg;
use crate::program::Program;
use crate::tensors::row_major;

/// Runs instantiation `index` of `program` with the checked arguments `bound`, planned
/// again by its `planner` with the emulator's addresses; the tensors they were read
/// from get the results.
pub fn run(
    py: Python<'_>,
    program: &Program,
    index: usize,
    planner: &Planner,
    bound: &[Arg],
) -> PyResult<()> {
    let compiled = &program.kernels[index];
    let Image::Kir(kernel) = &compiled.image else {
        return Err(PyRuntimeError::new_err(
            "this module was not compiled for the emulator",
        ));
    };
    let signature = &compiled.signature;
    let mut memory = GlobalMemory::new();
    let bytes = py.import("cuk._bytes")?;
    let mut buffers: Vec<Option<(Bound<'_, PyAny>, u64)>> = Vec::with_capacity(bound.len());
    for (param, arg) in signature.params.iter().zip(bound) {
        let Arg::Tensor(tensor) = arg else {
            buffers.push(None);
            continue;
        };
        if tensor.strides != row_major(&tensor.shape)
            && tensor.shape.iter().all(|extent| *extent > 1)
        {
            return Err(PyValueError::new_err(format!(
                "`{}`: `{}` is not contiguous; the emulator takes contiguous CPU tensors",
                signature.name, param.name
            )));
        }
        let view = bytes.call_method1("byte_view", (tensor.object.bind(py),))?;
        let data = view.call_method0("tobytes")?;
        let address = memory.allocate(data.cast::<PyBytes>()?.as_bytes());
        buffers.push(Some((view, address)));
    }
    let call: Vec<CallArg<'_>> = bound
        .iter()
        .zip(&buffers)
        .map(|(arg, buffer)| match (arg, buffer) {
            (Arg::Int(value), _) => CallArg::Int(*value),
            (Arg::Float(value), _) => CallArg::Float(*value),
            (Arg::Bool(value), _) => CallArg::Bool(*value),
            (Arg::Tensor(tensor), buffer) => CallArg::Tensor {
                dtype: tensor.dtype,
                shape: &tensor.shape,
                strides: Some(&tensor.strides),
                address: buffer.as_ref().map_or(0, |(_, address)| *address),
            },
        })
        .collect();
    let plan = (planner.plan(&call)).map_err(|error| PyValueError::new_err(error.message))?;
    let launch = plan.emulated();
    let (result, memory) = emulate_interruptibly(py, kernel, launch, memory)?;
    if let Err(fault) = result {
        let diagnostic = fault.to_diagnostic();
        let text = lang::render::human(&[diagnostic], &program.file, lang::render::Style::Plain);
        return Err(PyRuntimeError::new_err(format!(
            "`{}` on the emulator: {}",
            signature.name,
            text.trim_end()
        )));
    }
    for (view, address) in buffers.iter().flatten() {
        let length: usize = view.len()?;
        let result = memory
            .read(*address, length)
            .map_err(|_| PyRuntimeError::new_err("a tensor vanished from the emulator's memory"))?;
        bytes.call_method1("write_back", (view, PyBytes::new(py, &result)))?;
    }
    Ok(())
}

/// How often a waiting call looks for Ctrl-C.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs the launch on a thread of its own while this one waits with the GIL released,
/// looking every [`SIGNAL_POLL`] for a signal Python must act on: Ctrl-C raises
/// `KeyboardInterrupt` at once (the abandoned emulation runs on, at the latest to its
/// instruction budget, and its memory is dropped with it).
fn emulate_interruptibly(
    py: Python<'_>,
    kernel: &kir::Verified,
    launch: Launch,
    memory: GlobalMemory,
) -> PyResult<(Result<emulator::Stats, emulator::Fault>, GlobalMemory)> {
    let (sender, receiver) = std::sync::mpsc::channel();
    let kernel = kernel.clone();
    std::thread::spawn(move || {
        let mut memory = memory;
        let result = emulator::run(&kernel, &launch, &mut memory, &Options::default());
        let _ = sender.send((result, memory));
    });
    let mut receiver = receiver;
    loop {
        // The receiver goes into the GIL-free wait and comes back (it is `Send`, not `Sync`).
        let (returned, received) = py.detach(move || {
            let received = receiver.recv_timeout(SIGNAL_POLL);
            (receiver, received)
        });
        receiver = returned;
        match received {
            Ok(done) => return Ok(done),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "the emulator stopped without a result",
                ));
            }
        }
    }
}
