//! Encoding a TMA tensor map with the driver (`cuTensorMapEncodeTiled`) from the
//! arguments `tensor_map.rs` worked out and checked, into the 128-byte object the kernel
//! takes by value.

use cudarc::driver::sys::{
    CUresult, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle, cuTensorMapEncodeTiled,
};

use crate::tensor_map::TensorMapArgs;

/// An encoded tensor map, passed to the kernel by value (64-byte aligned, as the driver
/// requires of the host object): plain bytes that the kernel reads as its
/// `.param .b8 [128]` parameter, copied by the launch from its address.
#[repr(transparent)]
pub(super) struct EncodedMap(CUtensorMap);

/// The tensor map `args` describes, or the driver's error code.
#[allow(unsafe_code)]
pub(super) fn encode(args: &TensorMapArgs) -> Result<EncodedMap, CUresult> {
    let data_type = match args.data_type() {
        0 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        2 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        3 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_INT32,
        4 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT64,
        5 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_INT64,
        6 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        7 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        8 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        _ => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
    };
    let swizzle = match args.swizzle_mode() {
        1 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        2 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        3 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        _ => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
    };
    let element_strides = [1u32; crate::tensor_map::MAX_RANK];
    let mut map = CUtensorMap { opaque: [0; 16] };
    // SAFETY: every array holds at least `rank` entries (`strides` rank - 1), `map` is a
    // writable 64-byte-aligned CUtensorMap; the address is only recorded, not read.
    let result = unsafe {
        cuTensorMapEncodeTiled(
            &mut map,
            data_type,
            args.rank as u32,
            args.address as *mut std::ffi::c_void,
            args.extents.as_ptr(),
            args.strides.as_ptr(),
            args.box_shape.as_ptr(),
            element_strides.as_ptr(),
            CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    if result == CUresult::CUDA_SUCCESS {
        Ok(EncodedMap(map))
    } else {
        Err(result)
    }
}
