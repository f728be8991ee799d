//! The GPUs of a multi-rank block (`test NAME ranks(N)`, `bench NAME ranks(N)`) in one
//! process: GPU r runs rank r, with a [`Gpu`] of its own (its primary context and a
//! stream of its own), and every GPU may read and write every other's memory.
//!
//! Peer access takes two switches. `cuCtxEnablePeerAccess` maps memory from
//! `cuMemAlloc` of one context into another; memory from a pool (`cuMemAllocAsync`,
//! which cudarc uses wherever the device supports memory pools, as every GPU we run on
//! does) is not covered by it: a pool's memory is accessible from another device only
//! once `cuMemPoolSetAccess` grants it (CUDA C++ Programming Guide, "Stream Ordered
//! Memory Allocator", device accessibility for multi-GPU support). Both are set here,
//! for every ordered pair, once `cuDeviceCanAccessPeer` says the pair can; a pair that
//! cannot is an error naming it. Nothing here creates multicast objects
//! (`cuMulticastCreate`) or touches NVLink SHARP: peers are plain loads, stores and
//! atomics over NVLink.

use cudarc::driver::CudaContext;
use cudarc::driver::sys::{
    self, CUmemAccess_flags, CUmemAccessDesc, CUmemLocation, CUmemLocationType, CUresult,
};

use super::{Gpu, GpuError, driver_library_present};

/// Why a multi-rank block cannot have its GPUs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RanksUnavailable {
    /// Fewer GPUs than ranks (or none at all): the block is skipped.
    Skip(String),
    /// The GPUs are there but cannot work together: the block fails.
    Fail(GpuError),
}

/// Why a block on `world` ranks is skipped when the driver lists `found` GPUs.
pub fn too_few_gpus(world: u32, found: usize) -> String {
    let listed = match found {
        0 => "no GPU".to_owned(),
        1 => "only 1 GPU".to_owned(),
        found => format!("only {found} GPUs"),
    };
    format!(
        "a block on {world} ranks needs {world} GPUs, one per rank, and the driver lists {listed} (`cukc test --emulate` runs it on the emulator)"
    )
}

/// Opens GPUs `0..world`, one [`Gpu`] per rank each with a stream of its own, and lets
/// every one reach every other's memory.
pub fn open_ranks(world: u32) -> Result<Vec<Gpu>, RanksUnavailable> {
    let kernel_timeout =
        super::watchdog::kernel_timeout_from_environment().map_err(RanksUnavailable::Fail)?;
    if !driver_library_present() {
        return Err(RanksUnavailable::Skip(too_few_gpus(world, 0)));
    }
    let found = CudaContext::device_count().map_or(0, |count| usize::try_from(count).unwrap_or(0));
    if found < world as usize {
        return Err(RanksUnavailable::Skip(too_few_gpus(world, found)));
    }
    let mut gpus = Vec::with_capacity(world as usize);
    for ordinal in 0..world as usize {
        let context = CudaContext::new(ordinal).map_err(|error| {
            RanksUnavailable::Fail(GpuError::driver(
                format!("cannot open GPU {ordinal}"),
                error,
            ))
        })?;
        let stream = context.new_stream().map_err(|error| {
            RanksUnavailable::Fail(GpuError::driver(
                format!("cannot make a stream on GPU {ordinal}"),
                error,
            ))
        })?;
        gpus.push(Gpu::with_stream(context, stream, kernel_timeout));
    }
    connect(&gpus).map_err(RanksUnavailable::Fail)?;
    Ok(gpus)
}

/// Lets every GPU of `gpus` reach every other's memory, or says which pair cannot.
fn connect(gpus: &[Gpu]) -> Result<(), GpuError> {
    for (rank, gpu) in gpus.iter().enumerate() {
        for (other, peer) in gpus.iter().enumerate().filter(|(other, _)| *other != rank) {
            let pair = |what: &str| {
                format!(
                    "GPU {rank} (rank {rank}) cannot {what} GPU {other} (rank {other}): ranks reach each other's memory over NVLink or PCIe peer access"
                )
            };
            let can = can_access_peer(&gpu.context, &peer.context)
                .map_err(|error| GpuError::driver(pair("ask whether it reaches"), error))?;
            if !can {
                return Err(GpuError::Refused(format!(
                    "{} (the driver's cuDeviceCanAccessPeer says no)",
                    pair("reach the memory of")
                )));
            }
            enable_peer_access(&gpu.context, &peer.context)
                .map_err(|error| GpuError::driver(pair("enable access to"), error))?;
        }
    }
    for (rank, gpu) in gpus.iter().enumerate() {
        if !gpu.context.has_async_alloc() {
            continue;
        }
        let others: Vec<i32> = (0..gpus.len())
            .filter(|other| *other != rank)
            .map(|other| other as i32)
            .collect();
        grant_pool_access(&gpu.context, &others).map_err(|error| {
            GpuError::driver(
                format!("cannot let the other GPUs reach GPU {rank}'s memory pool"),
                error,
            )
        })?;
    }
    Ok(())
}

/// Whether `context`'s device can map `peer`'s memory.
#[allow(unsafe_code)]
fn can_access_peer(
    context: &CudaContext,
    peer: &CudaContext,
) -> Result<bool, cudarc::driver::DriverError> {
    let mut can = 0;
    // SAFETY: both devices come from live contexts; `can` is a valid, writable c_int for
    // the duration of the call.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, context.cu_device(), peer.cu_device()) }
        .result()?;
    Ok(can != 0)
}

/// Maps `peer`'s memory (from `cuMemAlloc`) into `context`; already mapped is fine.
#[allow(unsafe_code)]
fn enable_peer_access(
    context: &CudaContext,
    peer: &CudaContext,
) -> Result<(), cudarc::driver::DriverError> {
    context.bind_to_thread()?;
    // SAFETY: `context` is current on this thread (bound just above) and `peer` is a live
    // context of another device; flags must be 0.
    let result = unsafe { sys::cuCtxEnablePeerAccess(peer.cu_ctx(), 0) };
    match result {
        CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
        result => result.result(),
    }
}

/// Lets the devices `others` read and write the memory `context`'s device allocates
/// from its current pool (where `cuMemAllocAsync` allocates).
#[allow(unsafe_code)]
fn grant_pool_access(
    context: &CudaContext,
    others: &[i32],
) -> Result<(), cudarc::driver::DriverError> {
    context.bind_to_thread()?;
    // SAFETY: the device comes from a live context.
    let pool = unsafe { cudarc::driver::result::device::get_mem_pool(context.cu_device()) }?;
    let grants: Vec<CUmemAccessDesc> = others
        .iter()
        .map(|ordinal| CUmemAccessDesc {
            location: CUmemLocation {
                type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                id: *ordinal,
            },
            flags: CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        })
        .collect();
    // SAFETY: `pool` is the device's live current pool; `grants` holds `grants.len()`
    // initialised descriptors, each naming a device ordinal the driver lists, and
    // outlives the call.
    unsafe { sys::cuMemPoolSetAccess(pool, grants.as_ptr(), grants.len()) }.result()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skip_message_says_how_many_gpus_a_block_needs_and_how_many_there_are() {
        assert_eq!(
            too_few_gpus(4, 2),
            "a block on 4 ranks needs 4 GPUs, one per rank, and the driver lists only 2 GPUs (`cukc test --emulate` runs it on the emulator)"
        );
        assert!(
            too_few_gpus(2, 1)
                .contains("needs 2 GPUs, one per rank, and the driver lists only 1 GPU ")
        );
        assert!(too_few_gpus(2, 0).contains("the driver lists no GPU "));
    }

    #[test]
    fn without_enough_gpus_opening_the_ranks_skips_the_block() {
        // CI has no GPU, and no machine here lists 9 of them: a skip either way, never
        // a failure.
        match open_ranks(9) {
            Err(RanksUnavailable::Skip(reason)) => {
                assert!(
                    reason.starts_with("a block on 9 ranks needs 9 GPUs"),
                    "{reason}"
                );
            }
            Err(RanksUnavailable::Fail(reason)) => panic!("failed instead of skipping: {reason}"),
            Ok(gpus) => panic!("opened {} GPUs for 9 ranks", gpus.len()),
        }
    }
}
