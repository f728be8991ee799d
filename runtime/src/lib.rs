//! The runtime: loads compiled kernels onto the GPU (or hands them to the CPU
//! emulator), launches them, and runs a module's `test` and `bench` blocks.
//!
//! The compiler hands over one [`CompiledKernel`] per kernel instantiation: its
//! [`kir::Signature`] (parameters in ABI order, launch expressions, assumptions) and
//! its [`Image`], a cubin or PTX for the driver to JIT-compile, or verified KIR for the
//! `emulator` crate. [`run_blocks`] then interprets each selected block of the AST on the
//! host, reading the file's `const` items and each launch's const arguments as the
//! checker evaluated them ([`trace::HostFacts`]):
//!
//! - tensors are created on the host (`randn`, `rand`, `zeros`, `ones`, `arange`,
//!   `full`, and `empty`, poisoned with all-ones bytes: NaN in every float type), with
//!   random data seeded by the block's name, so every run draws the same numbers;
//! - a kernel call picks the instantiation whose const arguments match, checks every
//!   argument (an integer, float, bool or tensor) against the signature (integer and
//!   float ranges, dtypes, shapes, the assumptions the code relies on) before anything
//!   reaches the GPU ([`marshal`]), uploads tensors on first use, launches and
//!   synchronizes; device data comes back only when the host reads it. On the emulator
//!   (KIR images) the same plan launches over an emulated memory of the block's own
//!   (`device.rs`), and a fault fails the block with its diagnostic;
//! - reference operations (elementwise arithmetic, `transpose`, `matmul`, `sum`,
//!   `softmax`) run on the CPU in `f64`, rounded once to the dtype, except `matmul` of
//!   floats in a block with a GPU, which runs through cuBLAS (`f32` accumulation for
//!   16-bit floats, `f64` otherwise); the CPU `matmul` uses every core;
//! - `assert_close` reports the number of bad elements and the worst one, with its
//!   coordinate and both values;
//! - in a bench, each kernel call is timed with CUDA events (warm-up, then the median
//!   of N runs) and `report bytes = .., against memcpy` measures a device-to-device
//!   copy of the same traffic in the same run, and `report flops = .., against
//!   cublas(a, b)` times cuBLAS on the bench's own operands; benches are never emulated.
//!
//! **Invariants.** The crate builds, and everything but the GPU itself works, on a
//! machine without CUDA: cudarc loads `libcuda.so` and `libcublas.so` at run time; a
//! missing cuBLAS is a note on a bench and a CPU `matmul`. Nothing panics on user input:
//! host-code mistakes, failed checks and CUDA errors are messages naming the kernel or
//! the span; a panic from below is caught at the block boundary and reported as an
//! internal error. `unsafe` lives only in `driver.rs` and the modules under it:
//! `driver/launch.rs` (`cuLaunchKernel`), `driver/tensor_map.rs`, `driver/blas.rs` and
//! `driver/host.rs` (a [`HostImage`] launching on a host's stream, for the Python
//! package), `driver/peers.rs` (peer access between the GPUs of a multi-rank block) and
//! `driver/watchdog.rs` (`_exit` past a hung kernel), in small functions with SAFETY comments.
//!
//! A `test` or `bench` with `ranks(N)` runs its body once per rank, each on a thread of
//! its own: on the emulator over one hub of emulated devices (`ranks.rs`), on GPUs with
//! rank r on GPU r and the ranks' symmetric launches meeting in an exchange
//! (`gpu_ranks.rs`).

mod compare;
mod deadline;
mod device;
mod driver;
mod element;
mod gpu_ranks;
mod harness;
mod host_memory;
mod interp;
pub mod manifest;
pub mod marshal;
mod ops;
mod random;
mod ranks;
mod tensor;
pub mod tensor_map;

pub use compare::Tolerance;
pub use device::{Device, DeviceBuffer, Emulated, Emulator, LaunchError};
pub use driver::{
    DEFAULT_KERNEL_TIMEOUT, DeviceInfo, Gpu, GpuError, HostImage, HostImages,
    KERNEL_TIMEOUT_VARIABLE, gpu_count, gpu_status, leave_process,
};
pub use emulator::{Counts, Profile};
pub use harness::{
    BenchConfig, BenchResult, BlockKind, Event, GpuSession, Metric, Outcome, Reference, Selection,
    Summary, run_blocks,
};

/// A compiled kernel instantiation, as the runtime loads it.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledKernel {
    /// How the host calls it.
    pub signature: kir::Signature,
    /// The code.
    pub image: Image,
}

/// Compiled code: for the driver, or for the emulator.
#[derive(Clone, Debug, PartialEq)]
pub enum Image {
    /// A cubin (ELF) from ptxas, for the GPU's architecture.
    Cubin(Vec<u8>),
    /// PTX text, JIT-compiled by the driver when loaded.
    Ptx(String),
    /// Verified KIR, which the emulator runs (`cukc test` without a GPU, or with
    /// `--emulate`).
    Kir(Box<kir::Verified>),
}
