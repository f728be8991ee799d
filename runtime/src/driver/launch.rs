//! One kernel launch through the driver's `cuLaunchKernel`, on a stream named by its raw
//! handle, with no launch builder and no stream wrapper: the plan's arguments are handed
//! over as an array of pointers to their values, in ABI order, built on the stack. A
//! launch of up to [`INLINE_PARAMS`] parameters and [`INLINE_MAPS`] tensor maps
//! allocates nothing, and none synchronizes, so it can be captured in a CUDA graph.

use std::ffi::c_void;
use std::ptr;

use cudarc::driver::CudaContext;
use cudarc::driver::sys::{CUfunction, CUstream};
use smallvec::SmallVec;

use super::tensor_map::{self, EncodedMap};
use super::{GpuError, launch_failed};
use crate::marshal::{ArgValue, INLINE_MAPS, LaunchPlan};

/// Parameters whose pointers fit on the stack.
const INLINE_PARAMS: usize = 16;

/// The kernel's parameter array: a pointer to each argument's value, in ABI order, a
/// tensor map's pointing to its encoding (`maps`, in order of appearance). Only the
/// driver reads through them; its signature wants them mutable.
fn param_pointers(
    args: &[ArgValue],
    maps: &[EncodedMap],
) -> Result<SmallVec<[*mut c_void; INLINE_PARAMS]>, &'static str> {
    let mut maps = maps.iter();
    let mut params = SmallVec::with_capacity(args.len());
    for arg in args {
        let value: *const c_void = match arg {
            ArgValue::I32(value) => ptr::from_ref(value).cast(),
            ArgValue::I64(value) => ptr::from_ref(value).cast(),
            ArgValue::U32(value) => ptr::from_ref(value).cast(),
            ArgValue::U64(value) | ArgValue::Address(value) => ptr::from_ref(value).cast(),
            ArgValue::F16(bits) | ArgValue::BF16(bits) => ptr::from_ref(bits).cast(),
            ArgValue::F32(value) => ptr::from_ref(value).cast(),
            ArgValue::F64(value) => ptr::from_ref(value).cast(),
            ArgValue::TensorMap(_) => match maps.next() {
                Some(map) => ptr::from_ref(map).cast(),
                None => return Err("a tensor map went missing"),
            },
        };
        params.push(value.cast_mut());
    }
    Ok(params)
}

/// Launches `function` (of `context`) as `plan` says on `stream` (null: the legacy
/// default stream) and returns without waiting for it. `name` is for messages.
///
/// # Safety
///
/// `plan` must come from `marshal::plan` for `function`'s signature; `function` must be
/// a function of a module loaded in `context`, and `stream` null or a live stream of
/// `context`; each tensor address must be device memory of `context` holding at least
/// the elements the call's shape says, allocated until the stream has run the kernel.
#[allow(unsafe_code)]
pub(super) unsafe fn launch(
    context: &CudaContext,
    function: CUfunction,
    stream: CUstream,
    plan: &LaunchPlan,
    name: &str,
) -> Result<(), GpuError> {
    // Encoded before any pointer is taken: the pointers must not move with the maps.
    let mut encoded: SmallVec<[EncodedMap; INLINE_MAPS]> = SmallVec::new();
    for map in &plan.maps {
        let map = tensor_map::encode(map).map_err(|result| {
            GpuError::Refused(format!(
                "launching `{name}`: cuTensorMapEncodeTiled failed: {result:?}"
            ))
        })?;
        encoded.push(map);
    }
    let mut params = param_pointers(&plan.args, &encoded)
        .map_err(|problem| GpuError::Refused(format!("launching `{name}`: {problem}")))?;
    // cudarc's launches do the same: the function's context current on this thread
    // (a no-op when it already is, as with the caller's own CUDA work).
    context
        .bind_to_thread()
        .map_err(|error| launch_failed(name, plan, error))?;
    let [grid_x, grid_y, grid_z] = plan.grid;
    let [block_x, block_y, block_z] = plan.block;
    // SAFETY: `marshal::plan` built `plan.args` from the kernel's signature: one value
    // per parameter, in ABI order, each with its parameter's width (a tensor map the
    // 128 bytes `cuTensorMapEncodeTiled` wrote), so the driver reads exactly the bytes
    // the kernel declares, from `plan` and `encoded`, which outlive the call (the driver
    // copies the values before returning). The caller promises the function, stream
    // and addresses are valid in `context`, which is now current.
    let launched = unsafe {
        cudarc::driver::result::launch_kernel(
            function,
            (grid_x, grid_y, grid_z),
            (block_x, block_y, block_z),
            plan.shared_bytes,
            stream,
            &mut params,
        )
    };
    launched.map_err(|error| launch_failed(name, plan, error))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pointer_to<T>(value: &T) -> *mut c_void {
        ptr::from_ref(value).cast_mut().cast()
    }

    #[test]
    fn each_parameter_points_at_its_value_in_abi_order() {
        let args = [
            ArgValue::I32(-3),
            ArgValue::Address(0x7000_0000_1000),
            ArgValue::BF16(0x3f80),
            ArgValue::F64(2.5),
        ];
        let params = param_pointers(&args, &[]).unwrap();
        let expected: Vec<*mut c_void> = args
            .iter()
            .map(|arg| match arg {
                ArgValue::I32(value) => pointer_to(value),
                ArgValue::Address(value) => pointer_to(value),
                ArgValue::BF16(bits) => pointer_to(bits),
                ArgValue::F64(value) => pointer_to(value),
                _ => unreachable!("not among the arguments"),
            })
            .collect();
        assert_eq!(params.as_slice(), expected.as_slice());
        assert!(!params.spilled(), "a short list stays on the stack");
    }

    #[test]
    fn a_tensor_map_without_its_encoding_is_an_error() {
        let args = [ArgValue::I32(1), ArgValue::TensorMap(0x1000)];
        assert_eq!(
            param_pointers(&args, &[]).err(),
            Some("a tensor map went missing")
        );
    }
}
