//! Autotuning's run-time half, shared by `cukc tune` and the Python package's
//! `cuk.autotune` so that both mean the same: the `tune` crate gives a block's points,
//! and this crate compiles, times and keeps them.
//!
//! - [`compile`] compiles every point on every core (the caller's front end, then
//!   ptxas through the cubin cache) and rejects those that fail a check or exceed a
//!   block's registers or shared memory.
//! - [`timing`] surveys the points that compiled on the GPU, times the fastest again
//!   carefully (warm-up, L2 flushed before every launch, the median), and picks each
//!   bench's winner.
//! - [`report`] makes the table (configuration, resources, time and TFLOP/s or GB/s).
//! - [`block`] runs one block through all three, saying how far it got.
//! - [`winners`] stores the winners in cukc's cache directory and finds them again for
//!   `cukc bench`, `cukc run` and `cuk.load`.

pub mod block;
pub mod compile;
pub mod report;
pub mod timing;
pub mod winners;

pub use block::{Progress, Tuned, no_valid_point, tune};
pub use compile::{Built, Compiler, FrontEnd, Lowered, Ready, Rejected, check_and_lower};
pub use timing::{GpuTimer, Measured, Timed, Timer};
