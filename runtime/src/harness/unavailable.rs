//! Why a block has no device for its kernels ([`NoDevice`]), why the GPU could not be
//! had ([`GpuUnavailable`]), and a panic caught at a block's boundary ([`Panic`]). Their
//! text is the reason a skipped block gives, or a failed one's message.

use std::fmt;

use crate::driver::{GpuError, still_running};
use crate::interp::EMULATED_BENCH;

/// A panic from below (a bug, or a driver library missing a symbol), caught instead of
/// unwinding into the harness's caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panic {
    /// The panic's message, or `unknown panic` when it had none.
    pub text: String,
}

impl fmt::Display for Panic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "internal error in the runtime: {}", self.text)
    }
}

impl std::error::Error for Panic {}

/// Why the GPU of single-GPU blocks cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuUnavailable {
    /// Opening it failed.
    Open(GpuError),
    /// Opening it panicked.
    Panicked(Panic),
    /// A kernel (named) passed its time limit and may still be running on it.
    Hung(String),
}

impl fmt::Display for GpuUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuUnavailable::Open(error) => error.fmt(f),
            GpuUnavailable::Panicked(panic) => panic.fmt(f),
            GpuUnavailable::Hung(kernel) => f.write_str(&still_running(kernel)),
        }
    }
}

impl std::error::Error for GpuUnavailable {}

/// Why a block's interpreter has no device: a kernel call then skips the block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoDevice {
    /// The block calls no kernel.
    NoKernel,
    /// A bench whose kernels were compiled for the emulator.
    EmulatedBench,
    /// A multi-rank block on GPUs, whose ranks each have a GPU of their own.
    PerRank,
    /// The GPU cannot be used.
    NoGpu(GpuUnavailable),
}

impl fmt::Display for NoDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoDevice::NoKernel => f.write_str("this block calls no kernel"),
            NoDevice::EmulatedBench => f.write_str(EMULATED_BENCH),
            NoDevice::PerRank => f.write_str("runs on one GPU per rank"),
            NoDevice::NoGpu(reason) => write!(f, "no GPU: {reason}"),
        }
    }
}

impl std::error::Error for NoDevice {}
