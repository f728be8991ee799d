//! The GPU through cudarc's driver API, loaded at run time (`libcuda.so`), so this crate
//! builds and its GPU-free tests run on machines without CUDA. Everything here turns
//! driver failures into a [`GpuError`], whose text is a sentence; a missing driver is
//! an `Err` from [`Gpu::open`] and [`gpu_status`], never a panic.
//!
//! The only `unsafe` code of the workspace lives here, in small functions, each with its
//! SAFETY comment: asking whether the driver library exists, reading the driver version,
//! reading the JIT's error log for PTX that failed to load, and handing the harness's
//! launches to `launch.rs`, which calls `cuLaunchKernel` (the driver cannot check a
//! kernel's arguments); in `tensor_map.rs`, encoding a TMA tensor map; in `blas.rs`,
//! cuBLAS, in two more; in `host.rs`, a launch on a stream a host names by its
//! handle; and in `peers.rs`, peer access between the GPUs of a multi-rank block.

mod blas;
mod created;
mod error;
mod host;
mod launch;
mod peers;
mod tensor_map;
mod watchdog;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags, CUfunction_attribute};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DriverError,
};
use cudarc::nvrtc::Ptx;

use crate::deadline;
use crate::marshal::{DEFAULT_SHARED_LIMIT, LaunchPlan};
use crate::{CompiledKernel, Image};

pub use blas::Gemm;
pub use error::GpuError;
pub use host::{HostImage, HostImages, gpu_count};
pub use peers::{RanksUnavailable, open_ranks};
pub use watchdog::{DEFAULT_KERNEL_TIMEOUT, KERNEL_TIMEOUT_VARIABLE, leave_process, still_running};

/// What `cukc doctor` says about the GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The driver's CUDA version, (major, minor).
    pub driver_version: (i32, i32),
    /// The GPU's name.
    pub name: String,
    /// Its memory in bytes.
    pub total_memory: usize,
    /// Its compute capability, (major, minor).
    pub compute_capability: (i32, i32),
    /// Its streaming multiprocessors.
    pub multiprocessors: i32,
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (sm_{}{}, {} SMs, {:.1} GiB), CUDA driver {}.{}",
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.multiprocessors,
            self.total_memory as f64 / f64::from(1u32 << 30),
            self.driver_version.0,
            self.driver_version.1
        )
    }
}

/// The first GPU and its driver, or why there is none.
pub fn gpu_status() -> Result<DeviceInfo, GpuError> {
    Gpu::open().and_then(|gpu| gpu.info())
}

/// A device buffer of a tensor.
#[derive(Debug)]
pub struct Buffer(CudaSlice<u8>);

/// The first GPU, its stream, and the kernels loaded so far.
pub struct Gpu {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// Loaded kernels by their index in the harness's kernel list.
    functions: HashMap<usize, CudaFunction>,
    /// Loaded images: kernels compiled together share one module, loaded (or
    /// JIT-compiled) once.
    modules: Vec<(Image, Arc<CudaModule>)>,
    /// cuBLAS, once a GEMM asked for it, or why it cannot be had.
    blas: Option<Result<blas::Blas, GpuError>>,
    /// How long one kernel launch may take (`watchdog.rs`).
    kernel_timeout: Duration,
    /// The kernel that passed its time limit, once one has.
    hung: OnceLock<String>,
    /// A buffer larger than any GPU's L2 cache, cleared before each timed launch of a
    /// bench that flushes L2 (`cukc tune`), once one has.
    l2_scratch: Option<CudaSlice<u8>>,
    /// Created tensors' data, once [`Gpu::keep_created`] asked for it (`created.rs`).
    created: Option<created::Created>,
}

/// The bytes cleared to flush L2 before a timed launch: more than the 50 MiB of an
/// H100's or the 126 MiB of a B200's L2.
const L2_FLUSH_BYTES: usize = 256 << 20;

impl Gpu {
    /// Opens device 0, or says why not, with the kernel time limit
    /// `CUKC_KERNEL_TIMEOUT` sets.
    pub fn open() -> Result<Gpu, GpuError> {
        let kernel_timeout = watchdog::kernel_timeout_from_environment()?;
        if !driver_library_present() {
            return Err(no_driver());
        }
        let count = CudaContext::device_count()
            .map_err(|error| GpuError::driver("the CUDA driver found no usable GPU", error))?;
        if count < 1 {
            return Err(GpuError::Refused(
                "the CUDA driver is installed, but there is no GPU".to_owned(),
            ));
        }
        let context =
            CudaContext::new(0).map_err(|error| GpuError::driver("cannot open GPU 0", error))?;
        let stream = context.default_stream();
        Ok(Gpu::with_stream(context, stream, kernel_timeout))
    }

    /// The GPU of `context`, working on `stream`, with no kernel loaded yet.
    fn with_stream(
        context: Arc<CudaContext>,
        stream: Arc<CudaStream>,
        kernel_timeout: Duration,
    ) -> Gpu {
        Gpu {
            context,
            stream,
            functions: HashMap::new(),
            modules: Vec::new(),
            blas: None,
            kernel_timeout,
            hung: OnceLock::new(),
            l2_scratch: None,
            created: None,
        }
    }

    /// The device's description.
    pub fn info(&self) -> Result<DeviceInfo, GpuError> {
        let failed = |what: &str, error: DriverError| {
            GpuError::driver(format!("cannot read the GPU's {what}"), error)
        };
        let version = driver_version().map_err(|error| failed("driver version", error))?;
        Ok(DeviceInfo {
            driver_version: (version / 1000, version % 1000 / 10),
            name: self.context.name().map_err(|error| failed("name", error))?,
            total_memory: self
                .context
                .total_mem()
                .map_err(|error| failed("memory size", error))?,
            compute_capability: self
                .context
                .compute_capability()
                .map_err(|error| failed("compute capability", error))?,
            multiprocessors: self
                .context
                .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .map_err(|error| failed("multiprocessor count", error))?,
        })
    }

    /// Copies bytes to a new device buffer.
    pub fn upload(&self, bytes: &[u8]) -> Result<Buffer, GpuError> {
        self.stream.clone_htod(bytes).map(Buffer).map_err(|error| {
            GpuError::driver(
                format!("cannot copy {} bytes to the GPU", bytes.len()),
                error,
            )
        })
    }

    /// Copies a device buffer back.
    pub fn download(&self, buffer: &Buffer) -> Result<Vec<u8>, GpuError> {
        self.stream.clone_dtoh(&buffer.0).map_err(|error| {
            GpuError::driver(
                format!("cannot copy {} bytes from the GPU", buffer.0.len()),
                error,
            )
        })
    }

    /// The device address of a buffer.
    pub fn address(&self, buffer: &Buffer) -> u64 {
        buffer.0.device_ptr(&self.stream).0
    }

    /// Forgets the kernels loaded so far (their modules are unloaded), so that the next
    /// harness run's kernel indices name its own kernels: `cukc tune` runs each point's
    /// benches in one context.
    pub fn forget_kernels(&mut self) {
        self.functions.clear();
        self.modules.clear();
    }

    /// Loads kernel `index` of `kernels` (once) and prepares its shared memory.
    pub fn load(
        &mut self,
        index: usize,
        kernel: &CompiledKernel,
        shared_bytes: u32,
    ) -> Result<CudaFunction, GpuError> {
        let name = &kernel.signature.name;
        if let Some(function) = self.functions.get(&index) {
            return Ok(function.clone());
        }
        let module = match self
            .modules
            .iter()
            .find(|(image, _)| *image == kernel.image)
        {
            Some((_, module)) => module.clone(),
            None => {
                let module = self.load_module(name, &kernel.image)?;
                self.modules.push((kernel.image.clone(), module.clone()));
                module
            }
        };
        let entry = &kernel.signature.entry;
        if entry.contains('\0') {
            return Err(GpuError::Refused(format!(
                "the entry name of `{name}` contains a NUL byte"
            )));
        }
        let function = module.load_function(entry).map_err(|error| {
            GpuError::driver(
                format!("`{name}`: the module has no entry `{entry}`"),
                error,
            )
        })?;
        if shared_bytes > DEFAULT_SHARED_LIMIT {
            let bytes = i32::try_from(shared_bytes).unwrap_or(i32::MAX);
            function
                .set_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)
                .map_err(|error| {
                    GpuError::driver(
                        format!(
                            "`{name}` needs {shared_bytes} bytes of shared memory, more than this GPU allows a block"
                        ),
                        error,
                    )
                })?;
        }
        self.functions.insert(index, function.clone());
        Ok(function)
    }

    fn load_module(&self, name: &str, image: &Image) -> Result<Arc<CudaModule>, GpuError> {
        let refused = |reason: String| Err(GpuError::Refused(reason));
        let (code, how) = match image {
            Image::Ptx(text) if text.contains('\0') => {
                return refused(format!("the PTX of `{name}` contains a NUL byte"));
            }
            Image::Ptx(text) => (Ptx::from_src(text.clone()), "JIT-compile the PTX of"),
            Image::Cubin(bytes) if !bytes.starts_with(b"\x7fELF") => {
                return refused(format!("the cubin of `{name}` is not an ELF file"));
            }
            Image::Cubin(bytes) => (Ptx::from_binary(bytes.clone()), "load the cubin of"),
            Image::Kir(_) => {
                return refused(format!(
                    "`{name}` was compiled for the emulator, not for the GPU"
                ));
            }
        };
        let limit = deadline::jit_timeout()?;
        let context = self.context.clone();
        let Some(loaded) = deadline::within(limit, move || context.load_module(code)) else {
            return refused(format!(
                "the driver took more than {} s to {how} `{name}` and was left running \
                 (raise the limit with {})",
                limit.as_secs_f64(),
                deadline::JIT_TIMEOUT_VARIABLE
            ));
        };
        loaded.map_err(|error| {
            let log = match image {
                Image::Ptx(text) => jit_error_log(text),
                _ => None,
            };
            GpuError::Driver {
                doing: format!("the driver could not {how} `{name}`"),
                error,
                after: log.map_or_else(String::new, |log| format!(":\n{log}")),
            }
        })
    }

    /// Launches and waits for the kernel.
    pub fn run(
        &self,
        name: &str,
        function: &CudaFunction,
        plan: &LaunchPlan,
    ) -> Result<(), GpuError> {
        self.launch(name, function, plan)?;
        self.synchronize(name)
    }

    /// Launches the kernel on the stream without waiting for it.
    #[allow(unsafe_code)]
    fn launch(
        &self,
        name: &str,
        function: &CudaFunction,
        plan: &LaunchPlan,
    ) -> Result<(), GpuError> {
        // SAFETY: the harness launches functions of modules it loaded in this context, on
        // this context's stream, with plans from `marshal::plan` whose addresses are live
        // device buffers of this context, sized as `marshal::plan` checked; it
        // synchronizes before dropping them.
        unsafe {
            launch::launch(
                &self.context,
                function.cu_function(),
                self.stream.cu_stream(),
                plan,
                name,
            )
        }
    }

    /// Waits for the stream, at most the kernel time limit; an error is the kernel's.
    pub fn synchronize(&self, name: &str) -> Result<(), GpuError> {
        self.wait(&format!("kernel `{name}`"), &[])
    }

    /// Waits until the stream's copies (and allocations, which cudarc orders on the
    /// stream) before a launch of `name` are done: other GPUs may write this one's
    /// memory once it is launched, and must not race a copy still in flight.
    pub fn settle(&self, name: &str) -> Result<(), GpuError> {
        self.wait(&format!("the work queued on GPU before `{name}`"), &[])
    }

    /// The median time in milliseconds of `runs` launches after `warmup` untimed ones;
    /// with `flush_l2`, L2 is flushed before each launch (outside the timed span), so
    /// every launch reads its operands from memory as a first one does.
    pub fn time_kernel(
        &mut self,
        name: &str,
        function: &CudaFunction,
        plan: &LaunchPlan,
        warmup: u32,
        runs: u32,
        flush_l2: bool,
    ) -> Result<f64, GpuError> {
        if flush_l2 && self.l2_scratch.is_none() {
            let buffer = self
                .stream
                .alloc_zeros::<u8>(L2_FLUSH_BYTES)
                .map_err(|error| GpuError::driver("cannot allocate the L2 flush buffer", error))?;
            self.l2_scratch = Some(buffer);
        }
        let mut scratch = if flush_l2 {
            self.l2_scratch.take()
        } else {
            None
        };
        let what = format!("kernel `{name}`");
        let result = self.time(&what, warmup, runs, scratch.as_mut(), || {
            self.launch(name, function, plan)
        });
        if scratch.is_some() {
            self.l2_scratch = scratch;
        }
        result
    }

    /// The median time in milliseconds of a device-to-device copy of `bytes` bytes,
    /// measured like [`Gpu::time_kernel`].
    pub fn time_memcpy(
        &self,
        bytes: usize,
        source: &[u8],
        warmup: u32,
        runs: u32,
    ) -> Result<f64, GpuError> {
        let bytes = bytes.max(1);
        let failed = |error: DriverError| {
            GpuError::driver(
                format!("the reference memcpy of {bytes} bytes failed"),
                error,
            )
        };
        let from = self
            .stream
            .clone_htod(&source[..bytes.min(source.len())])
            .map_err(failed)?;
        let mut to = self.stream.alloc_zeros::<u8>(from.len()).map_err(failed)?;
        self.time("the reference memcpy", warmup, runs, None, || {
            self.stream.memcpy_dtod(&from, &mut to).map_err(failed)
        })
    }

    /// The median time of `runs` calls of `body` after `warmup` untimed ones, which
    /// launch `what`; the wait for them is under the kernel time limit.
    /// With `flush`, that buffer is cleared before each launch, outside the timed span.
    fn time(
        &self,
        what: &str,
        warmup: u32,
        runs: u32,
        mut flush: Option<&mut CudaSlice<u8>>,
        mut body: impl FnMut() -> Result<(), GpuError>,
    ) -> Result<f64, GpuError> {
        let flush_failed = |error: DriverError| GpuError::driver("flushing L2 failed", error);
        let failed = |error: DriverError| GpuError::driver("timing with CUDA events failed", error);
        // An event after each warmup run (the timed ones have theirs): each run must
        // complete within the kernel time limit of the one before.
        let mut warmups = Vec::with_capacity(warmup as usize);
        for _ in 0..warmup {
            if let Some(buffer) = flush.as_deref_mut() {
                self.stream.memset_zeros(buffer).map_err(flush_failed)?;
            }
            body()?;
            let after = self
                .context
                .new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                .map_err(failed)?;
            after.record(&self.stream).map_err(failed)?;
            warmups.push(after);
        }
        let mut events = Vec::with_capacity(runs as usize);
        for _ in 0..runs.max(1) {
            let start = self
                .context
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(failed)?;
            let end = self
                .context
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(failed)?;
            if let Some(buffer) = flush.as_deref_mut() {
                self.stream.memset_zeros(buffer).map_err(flush_failed)?;
            }
            start.record(&self.stream).map_err(failed)?;
            body()?;
            end.record(&self.stream).map_err(failed)?;
            events.push((start, end));
        }
        let steps: Vec<&cudarc::driver::CudaEvent> = (warmups.iter())
            .chain(events.iter().map(|(_, end)| end))
            .collect();
        self.wait(what, &steps)?;
        let mut times = Vec::with_capacity(events.len());
        for (start, end) in &events {
            times.push(f64::from(start.elapsed_ms(end).map_err(failed)?));
        }
        times.sort_by(f64::total_cmp);
        Ok(times[times.len() / 2])
    }
}

fn launch_failed(name: &str, plan: &LaunchPlan, error: DriverError) -> GpuError {
    GpuError::driver(
        format!(
            "launching `{name}` with grid {:?}, block {:?} and {} bytes of shared memory failed",
            plan.grid, plan.block, plan.shared_bytes,
        ),
        error,
    )
}

/// Why there is no GPU on a machine without the driver library.
fn no_driver() -> GpuError {
    GpuError::Refused(
        "no CUDA driver: libcuda.so was not found (is this a machine with an NVIDIA GPU and its driver?)"
            .to_owned(),
    )
}

#[allow(unsafe_code)]
fn driver_library_present() -> bool {
    // SAFETY: loading libcuda runs its initialisers, which is what every CUDA program does;
    // the function has no other precondition.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

#[allow(unsafe_code)]
fn driver_version() -> Result<i32, DriverError> {
    let mut version = 0;
    // SAFETY: `version` is a valid, writable `c_int` for the duration of the call.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }.result()?;
    Ok(version)
}

/// The JIT's error log for PTX that failed to load (compiled again with a log buffer),
/// or `None` when there is none.
#[allow(unsafe_code)]
fn jit_error_log(ptx: &str) -> Option<String> {
    use cudarc::driver::sys::{
        CUjit_option, CUmodule, CUresult, cuModuleLoadDataEx, cuModuleUnload,
    };
    let source = std::ffi::CString::new(ptx).ok()?;
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [
        CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // The driver reads the buffer's address and, by value, its size.
    let mut values = [
        log.as_mut_ptr().cast::<std::ffi::c_void>(),
        std::ptr::without_provenance_mut(log.len()),
    ];
    let mut module: CUmodule = std::ptr::null_mut();
    // SAFETY: `source` is a NUL-terminated PTX string; `options` and `values` are two
    // valid entries each, the log buffer is writable for the size given and outlives the
    // call; `module` is a valid place for the result. The caller's context is current
    // (cudarc bound it for the load that failed just before).
    let result = unsafe {
        cuModuleLoadDataEx(
            &mut module,
            source.as_ptr().cast(),
            2,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if result == CUresult::CUDA_SUCCESS {
        // SAFETY: `module` was just loaded by the call above and is used nowhere else.
        let _ = unsafe { cuModuleUnload(module) };
        return None;
    }
    let end = log.iter().position(|byte| *byte == 0).unwrap_or(log.len());
    let text = String::from_utf8_lossy(&log[..end]).trim().to_owned();
    (!text.is_empty()).then_some(text)
}
