//! Kernels launched for a host that owns the memory and the streams (the Python
//! package): a cubin loaded once per GPU into the device's primary context, the one
//! PyTorch and the CUDA runtime use, and launched on a stream the host names by its
//! handle, straight through `cuLaunchKernel` (`launch.rs`). A launch allocates nothing,
//! copies nothing and never synchronizes, so it can be captured in a CUDA graph.
//!
//! [`HostImages`] keeps a cubin's image on each GPU that launched one of its kernels, a
//! slot per GPU the driver lists ([`gpu_count`], asked once per process), so a launch
//! finds its image with neither a lock nor a driver call.

use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::{CUfunction_attribute, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use kir::Signature;

use super::{GpuError, driver_library_present, launch, no_driver};
use crate::marshal::{DEFAULT_SHARED_LIMIT, LaunchPlan};

/// How many GPUs the driver lists, asked once per process; 0 without a driver.
pub fn gpu_count() -> usize {
    static COUNT: OnceLock<usize> = OnceLock::new();
    *COUNT.get_or_init(|| {
        if !driver_library_present() {
            return 0;
        }
        CudaContext::device_count().map_or(0, |count| usize::try_from(count).unwrap_or(0))
    })
}

/// One cubin's [`HostImage`] on each GPU, loaded on first use.
#[derive(Default)]
pub struct HostImages {
    /// A slot per GPU the driver lists, made on the first launch.
    slots: OnceLock<Box<[OnceLock<HostImage>]>>,
}

impl HostImages {
    /// The image on GPU `ordinal`, made by `load` on first use (its error, when it
    /// fails, says why there is no GPU to load it on, in the caller's terms).
    pub fn get_or_load<E: From<GpuError>>(
        &self,
        ordinal: usize,
        load: impl FnOnce() -> Result<HostImage, E>,
    ) -> Result<&HostImage, E> {
        let slots =
            (self.slots).get_or_init(|| (0..gpu_count()).map(|_| OnceLock::new()).collect());
        if let Some(image) = slots.get(ordinal).and_then(OnceLock::get) {
            return Ok(image);
        }
        let image = load()?;
        let slot = slots.get(ordinal).ok_or_else(|| {
            GpuError::Refused(format!(
                "GPU {ordinal} is not one of the {} the driver lists",
                slots.len()
            ))
        })?;
        Ok(slot.get_or_init(|| image))
    }
}

/// A cubin loaded on one GPU, with a function for each of its kernel instantiations.
pub struct HostImage {
    context: Arc<CudaContext>,
    /// Kept loaded while the functions are used.
    _module: Arc<CudaModule>,
    functions: Vec<CudaFunction>,
}

impl HostImage {
    /// Loads `cubin` on GPU `ordinal` and finds the entry of each of `kernels` (the
    /// functions keep their order), with the dynamic shared memory each needs allowed.
    pub fn load(
        ordinal: usize,
        cubin: &[u8],
        kernels: &[Signature],
    ) -> Result<HostImage, GpuError> {
        if !driver_library_present() {
            return Err(no_driver());
        }
        if !cubin.starts_with(b"\x7fELF") {
            return Err(GpuError::Refused("the cubin is not an ELF file".to_owned()));
        }
        let context = CudaContext::new(ordinal)
            .map_err(|error| GpuError::driver(format!("cannot open GPU {ordinal}"), error))?;
        let module = context
            .load_module(Ptx::from_binary(cubin.to_vec()))
            .map_err(|error| {
                GpuError::driver(
                    format!("the driver could not load the cubin on GPU {ordinal}"),
                    error,
                )
            })?;
        let mut functions = Vec::with_capacity(kernels.len());
        for signature in kernels {
            let (name, entry) = (&signature.name, &signature.entry);
            let function = module.load_function(entry).map_err(|error| {
                GpuError::driver(format!("`{name}`: the cubin has no entry `{entry}`"), error)
            })?;
            let shared_bytes = signature.launch.shared_bytes;
            if shared_bytes > DEFAULT_SHARED_LIMIT {
                let bytes = i32::try_from(shared_bytes).unwrap_or(i32::MAX);
                function
                    .set_attribute(
                        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        bytes,
                    )
                    .map_err(|error| {
                        GpuError::driver(
                            format!(
                                "`{name}` needs {shared_bytes} bytes of shared memory, more than GPU {ordinal} allows a block"
                            ),
                            error,
                        )
                    })?;
            }
            functions.push(function);
        }
        Ok(HostImage {
            context,
            _module: module,
            functions,
        })
    }

    /// Launches kernel `kernel` (an index into the signatures given to
    /// [`HostImage::load`]) as `plan` says, on the stream whose handle is `stream` (0:
    /// the legacy default stream), and returns without waiting for it. `name` is for
    /// messages.
    ///
    /// # Safety
    ///
    /// `plan` must come from `marshal::plan` for this kernel's signature, with each
    /// tensor address that of device memory on this GPU holding at least the elements
    /// the call's shape says, which stays allocated until the stream has run the
    /// kernel; `stream` must be 0 or a live stream of this GPU's primary context.
    #[allow(unsafe_code)]
    pub unsafe fn launch(
        &self,
        kernel: usize,
        name: &str,
        plan: &LaunchPlan,
        stream: u64,
    ) -> Result<(), GpuError> {
        let function = (self.functions.get(kernel)).ok_or_else(|| {
            GpuError::Refused(format!("`{name}`: no kernel {kernel} in this image"))
        })?;
        // SAFETY: `function` is of the module loaded in `self.context`; the caller
        // promises the rest of `launch::launch`'s contract: `plan` from `marshal::plan`
        // for this kernel, its addresses device memory of this GPU that outlives the
        // kernel, and `stream` 0 or a live stream of this context.
        unsafe {
            launch::launch(
                &self.context,
                function.cu_function(),
                stream as usize as CUstream,
                plan,
                name,
            )
        }
    }
}
