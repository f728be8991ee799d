//! Where a block's kernels run: the GPU through the driver, or the emulator (the
//! `emulator` crate) over an emulated global memory of its own. Both take the same
//! [`LaunchPlan`] that `marshal::plan` checked, so marshalling and argument checks are
//! one code path; tensors hold a [`DeviceBuffer`] on whichever device the block has.
//!
//! The emulator runs a kernel whose image is [`Image::Kir`]; the GPU one whose image is
//! a cubin or PTX. A rank of a multi-rank block has its own GPU (or the emulated hub):
//! its uploads, downloads and addresses are its GPU's, and its launches go through the
//! ranks' exchange (`gpu_ranks.rs`) or hub (`ranks.rs`). An emulated launch that faults is an error whose diagnostic (code,
//! the kernel's line, the other thread's line of a race) comes back with it.

use std::fmt;
use std::time::{Duration, Instant};

use emulator::{GlobalMemory, Launch, Options};
use lang::{Diagnostic, Span};

use crate::driver::{Buffer, Gpu, GpuError};
use crate::gpu_ranks::Exchange;
use crate::marshal::{ArgValue, LaunchPlan};
use crate::ranks::Hub;
use crate::{CompiledKernel, Image};

/// A tensor's copy on the device.
#[derive(Debug)]
pub enum DeviceBuffer {
    /// On the GPU.
    Gpu(Buffer),
    /// In the emulator's global memory, at this address.
    Emulated(u64),
}

/// The emulator of one block: its global memory and what its launches did.
#[derive(Default)]
pub struct Emulator {
    memory: GlobalMemory,
    /// What was emulated so far.
    pub work: Emulated,
    /// What the launches printed so far, launch by launch.
    pub printed: String,
    /// What each source span did over the launches so far, when profiling (`Some`).
    pub profile: Option<emulator::Profile>,
}

/// What a block's emulated launches did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Emulated {
    /// Kernel launches.
    pub launches: u32,
    /// Thread-instructions executed.
    pub instructions: u64,
    /// Wall-clock time spent emulating.
    pub elapsed: Duration,
}

/// Where a block's kernels run.
pub enum Device<'g> {
    /// The GPU.
    Gpu(&'g mut Gpu),
    /// The emulator.
    Emulator(Box<Emulator>),
    /// One rank of a multi-rank test on the emulator: the memory and launches of every
    /// rank go through the hub (`ranks.rs`).
    Rank(&'g Hub, u32),
    /// One rank of a multi-rank block on GPUs: its own GPU, and the exchange where the
    /// ranks' symmetric launches meet (`gpu_ranks.rs`).
    GpuRank(&'g mut Gpu, &'g Exchange, u32),
}

/// Why a launch failed: the message, and for an emulator fault its diagnostic.
pub type LaunchError = (String, Option<Box<Diagnostic>>);

impl Device<'_> {
    /// Copies bytes to a new buffer on the device.
    pub fn upload(&mut self, bytes: &[u8]) -> Result<DeviceBuffer, TransferError> {
        match self {
            Device::Gpu(gpu) | Device::GpuRank(gpu, ..) => (gpu.upload(bytes))
                .map(DeviceBuffer::Gpu)
                .map_err(TransferError::Gpu),
            Device::Emulator(emulator) => {
                Ok(DeviceBuffer::Emulated(emulator.memory.allocate(bytes)))
            }
            Device::Rank(hub, _) => Ok(DeviceBuffer::Emulated(hub.upload(bytes))),
        }
    }

    /// Copies a buffer back.
    pub fn download(&self, buffer: &DeviceBuffer) -> Result<Vec<u8>, TransferError> {
        match (self, buffer) {
            (Device::Gpu(gpu) | Device::GpuRank(gpu, ..), DeviceBuffer::Gpu(buffer)) => {
                gpu.download(buffer).map_err(TransferError::Gpu)
            }
            (Device::Emulator(emulator), DeviceBuffer::Emulated(address)) => {
                let extent = emulator.memory.extent(*address);
                let bytes = extent.map_or(0, |extent| extent.bytes as usize);
                emulator
                    .memory
                    .read(*address, bytes)
                    .map_err(|_| TransferError::NotEmulated)
            }
            (Device::Rank(hub, _), DeviceBuffer::Emulated(address)) => {
                (hub.download(*address)).ok_or(TransferError::NotEmulated)
            }
            _ => Err(TransferError::OtherDevice),
        }
    }

    /// The address a kernel is given for a buffer.
    pub fn address(&self, buffer: &DeviceBuffer) -> Result<u64, TransferError> {
        match (self, buffer) {
            (Device::Gpu(gpu) | Device::GpuRank(gpu, ..), DeviceBuffer::Gpu(buffer)) => {
                Ok(gpu.address(buffer))
            }
            (Device::Emulator(_) | Device::Rank(..), DeviceBuffer::Emulated(address)) => {
                Ok(*address)
            }
            _ => Err(TransferError::OtherDevice),
        }
    }

    /// Launches kernel `index` of the harness's list as `plan` says, and waits for it;
    /// `call` is the host code's call, which an emulator fault's diagnostic also names.
    pub fn launch(
        &mut self,
        index: usize,
        kernel: &CompiledKernel,
        plan: &LaunchPlan,
        call: Span,
    ) -> Result<(), LaunchError> {
        let name = &kernel.signature.name;
        match (self, &kernel.image) {
            (Device::Gpu(gpu), Image::Cubin(_) | Image::Ptx(_)) => {
                let plain = |error: GpuError| (error.to_string(), None);
                let function = gpu.load(index, kernel, plan.shared_bytes).map_err(plain)?;
                gpu.run(name, &function, plan).map_err(plain)
            }
            (Device::Emulator(emulator), Image::Kir(code)) => emulator
                .launch(code, plan, call)
                .map_err(|(message, diagnostic)| {
                    (format!("`{name}` on the emulator: {message}"), diagnostic)
                }),
            (Device::Gpu(_), Image::Kir(_)) => Err((
                format!("`{name}` was compiled for the emulator, not for the GPU"),
                None,
            )),
            (Device::Rank(..) | Device::GpuRank(..), _) => Err((
                format!("`{name}` runs on several ranks through the ranks' hub or exchange"),
                None,
            )),
            (Device::Emulator(_), _) => Err((
                format!("`{name}` was compiled for the GPU, not for the emulator"),
                None,
            )),
        }
    }

    /// What the emulated launches printed since the last call (the GPU's `printf` text
    /// goes to standard output from the driver).
    pub fn take_printed(&mut self) -> String {
        match self {
            Device::Gpu(_) | Device::GpuRank(..) => String::new(),
            Device::Emulator(emulator) => std::mem::take(&mut emulator.printed),
            Device::Rank(hub, _) => hub.take_printed(),
        }
    }

    /// The emulator's work, when the block runs on it.
    pub fn emulated(&self) -> Option<Emulated> {
        match self {
            Device::Gpu(_) | Device::GpuRank(..) => None,
            Device::Emulator(emulator) => Some(emulator.work),
            Device::Rank(hub, _) => Some(hub.work()),
        }
    }
}

impl<'g> Device<'g> {
    /// The GPU kernels run on, for a block on one GPU or a rank of a block on several.
    pub fn gpu(&mut self) -> Option<&mut Gpu> {
        match self {
            Device::Gpu(gpu) | Device::GpuRank(gpu, ..) => Some(gpu),
            Device::Emulator(_) | Device::Rank(..) => None,
        }
    }

    /// This rank and the number of ranks, in a multi-rank block.
    pub fn rank(&self) -> Option<(u32, u32)> {
        match self {
            Device::Rank(hub, rank) => Some((*rank, hub.world())),
            Device::GpuRank(_, exchange, rank) => Some((*rank, exchange.world())),
            Device::Gpu(_) | Device::Emulator(_) => None,
        }
    }
}

/// Why a tensor's data cannot be copied to or from a device, or its address had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransferError {
    /// The GPU's copy failed.
    Gpu(GpuError),
    /// An emulated buffer the emulator's memory does not hold.
    NotEmulated,
    /// A buffer of another device than the block's.
    OtherDevice,
}

impl fmt::Display for TransferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransferError::Gpu(error) => error.fmt(f),
            TransferError::NotEmulated => {
                f.write_str("this tensor is not in the emulator's memory")
            }
            TransferError::OtherDevice => {
                f.write_str("this tensor lives on another device than the kernel")
            }
        }
    }
}

impl std::error::Error for TransferError {}

impl Emulator {
    fn launch(
        &mut self,
        kernel: &kir::Verified,
        plan: &LaunchPlan,
        call: Span,
    ) -> Result<(), LaunchError> {
        let launch = plan.emulated();
        let started = Instant::now();
        let options = Options {
            profile: self.profile.is_some(),
            ..Options::default()
        };
        let result = emulator::run(kernel, &launch, &mut self.memory, &options);
        self.work.launches += 1;
        self.work.elapsed += started.elapsed();
        match result {
            Ok(stats) => {
                self.work.instructions += stats.instructions;
                self.printed.push_str(&stats.printed);
                if let (Some(total), Some(launched)) = (&mut self.profile, &stats.profile) {
                    total.merge(launched);
                }
                Ok(())
            }
            Err(fault) => {
                let diagnostic = fault.to_diagnostic().with_secondary(call, "launched here");
                Err((
                    format!("error[{}]: {fault}", fault.kind.code()),
                    Some(Box::new(diagnostic)),
                ))
            }
        }
    }
}

impl LaunchPlan {
    /// The launch as the emulator takes it: each argument as the bits its parameter
    /// holds (its little-endian bytes).
    pub fn emulated(&self) -> Launch {
        let bits = |arg: &ArgValue| {
            (arg.bytes().iter().rev()).fold(0, |bits, byte| (bits << 8) | u64::from(*byte))
        };
        Launch {
            grid: self.grid,
            block: self.block,
            cluster: self.cluster,
            shared_bytes: self.shared_bytes,
            args: self.args.iter().map(bits).collect(),
        }
    }
}
