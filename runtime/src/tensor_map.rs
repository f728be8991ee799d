//! TMA tensor maps from the host's side: what `cuTensorMapEncodeTiled` is given for a
//! kernel's hidden [`kir::ParamKind::TensorMap`] parameter, worked out from the tensor
//! argument it describes and checked against the hardware's rules before any driver
//! call, so that a mistake is an error naming the parameter rather than a driver code.
//!
//! Map dimension `i` (innermost first) is the tensor's flattened mode `modes[i]`: its
//! extent is the mode's extent, its stride the mode's stride in bytes (the first mode's
//! stride must be one element and is implicit). The rules (CUDA driver API,
//! `cuTensorMapEncodeTiled`; HOPPER-BLACKWELL.md A.5): rank 1 to 5, the address a
//! multiple of 16 bytes, extents 1 to 2^32, strides multiples of 16 bytes below 2^40,
//! box extents 1 to 256, the inner box a multiple of 16 bytes and, swizzled, at most
//! the swizzle's span.

use std::fmt;

use kir::{Element, TensorMap};

/// The most dimensions a tensor map has.
pub const MAX_RANK: usize = 5;

/// What `cuTensorMapEncodeTiled` is called with, all checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMapArgs {
    /// The element type.
    pub dtype: Element,
    /// The dimensions used of the arrays below.
    pub rank: usize,
    /// The tensor's global address.
    pub address: u64,
    /// The extent of each dimension, innermost first.
    pub extents: [u64; MAX_RANK],
    /// The byte stride of dimensions 1 to rank - 1.
    pub strides: [u64; MAX_RANK - 1],
    /// The box, in elements per dimension.
    pub box_shape: [u32; MAX_RANK],
    /// The swizzle span in bytes: 0, 32, 64 or 128.
    pub swizzle: u32,
}

impl TensorMapArgs {
    /// The driver's `CUtensorMapDataType` for the element type.
    pub fn data_type(&self) -> u32 {
        match self.dtype {
            // FP8 moves as bytes.
            Element::U8 | Element::I8 | Element::E4M3 | Element::E5M2 => 0,
            Element::U16 | Element::I16 => 1,
            Element::F16 => 6,
            Element::BF16 => 9,
            Element::F32 => 7,
            Element::F64 => 8,
            Element::I32 => 3,
            Element::U32 => 2,
            Element::I64 => 5,
            Element::U64 => 4,
        }
    }

    /// The driver's `CUtensorMapSwizzle`: none, 32, 64, 128 bytes.
    pub fn swizzle_mode(&self) -> u32 {
        match self.swizzle {
            32 => 1,
            64 => 2,
            128 => 3,
            _ => 0,
        }
    }
}

/// A hardware rule a tensor map would break.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensorMapError {
    /// Not 1 to [`MAX_RANK`] modes, or not one box extent each.
    Rank {
        /// The map's modes.
        modes: usize,
        /// Its box extents.
        boxes: usize,
    },
    /// A tensor that does not start at a multiple of 16 bytes.
    Misaligned {
        /// Where it starts.
        address: u64,
    },
    /// A mode the tensor does not have.
    NoMode {
        /// The mode.
        mode: usize,
    },
    /// An extent outside 1 to 2^32.
    Extent {
        /// The mode.
        mode: usize,
        /// Its extent.
        extent: i64,
    },
    /// An innermost dimension that is not contiguous.
    InnerStride {
        /// The mode.
        mode: usize,
        /// Its stride, in elements.
        stride: i64,
    },
    /// A stride that is not a multiple of 16 bytes below 2^40.
    Stride {
        /// The mode.
        mode: usize,
        /// Its stride, in elements.
        stride: i64,
        /// The bytes of an element.
        width: u64,
    },
    /// A box extent outside 1 to 256.
    BoxExtent {
        /// The extent.
        extent: u32,
    },
    /// A box's inner extent that is not a multiple of 16 bytes or exceeds the
    /// swizzle's span.
    InnerBox {
        /// The inner extent, in bytes.
        bytes: u64,
        /// The swizzle's span in bytes (0: none).
        swizzle: u32,
    },
}

impl fmt::Display for TensorMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorMapError::Rank { modes, boxes } => write!(
                f,
                "a tensor map has 1 to {MAX_RANK} dimensions, one box extent each; this one has {modes} modes and {boxes} box extents"
            ),
            TensorMapError::Misaligned { address } => write!(
                f,
                "TMA needs the tensor at a multiple of 16 bytes; it starts at {address:#x}"
            ),
            TensorMapError::NoMode { mode } => write!(f, "the tensor has no mode {mode}"),
            TensorMapError::Extent { mode, extent } => write!(
                f,
                "TMA extents are 1 to 2^32; mode {mode} has {extent} elements"
            ),
            TensorMapError::InnerStride { mode, stride } => write!(
                f,
                "a tensor map's innermost dimension is contiguous; mode {mode} has stride {stride}"
            ),
            TensorMapError::Stride {
                mode,
                stride,
                width,
            } => {
                let bytes = u64::try_from(*stride)
                    .unwrap_or(u64::MAX)
                    .saturating_mul(*width);
                write!(
                    f,
                    "TMA strides are multiples of 16 bytes below 2^40; mode {mode} has stride {stride} x {width} = {bytes} bytes"
                )
            }
            TensorMapError::BoxExtent { extent } => {
                write!(f, "TMA box extents are 1 to 256, not {extent}")
            }
            TensorMapError::InnerBox { bytes, swizzle } => write!(
                f,
                "the box's inner extent is {bytes} bytes: TMA needs a multiple of 16, at most the {swizzle}-byte swizzle"
            ),
        }
    }
}

impl std::error::Error for TensorMapError {}

/// The encoding arguments of `map` over a tensor of element type `dtype` at `address`
/// with flattened `extents` and `strides` (in elements), or what rule they break.
pub fn tensor_map_args(
    map: &TensorMap,
    dtype: Element,
    address: u64,
    (extents, strides): (&[i64], &[i64]),
) -> Result<TensorMapArgs, TensorMapError> {
    let rank = map.modes.len();
    if !(1..=MAX_RANK).contains(&rank) || map.box_shape.len() != rank {
        return Err(TensorMapError::Rank {
            modes: rank,
            boxes: map.box_shape.len(),
        });
    }
    if !address.is_multiple_of(16) {
        return Err(TensorMapError::Misaligned { address });
    }
    let bytes = dtype.bytes() as u64;
    let mut args = TensorMapArgs {
        dtype,
        rank,
        address,
        extents: [1; MAX_RANK],
        strides: [0; MAX_RANK - 1],
        box_shape: [1; MAX_RANK],
        swizzle: map.swizzle,
    };
    for (dimension, mode) in map.modes.iter().enumerate() {
        let (Some(extent), Some(stride)) = (extents.get(*mode), strides.get(*mode)) else {
            return Err(TensorMapError::NoMode { mode: *mode });
        };
        if !(1..=1 << 32).contains(extent) {
            return Err(TensorMapError::Extent {
                mode: *mode,
                extent: *extent,
            });
        }
        args.extents[dimension] = *extent as u64;
        if dimension == 0 {
            if *stride != 1 {
                return Err(TensorMapError::InnerStride {
                    mode: *mode,
                    stride: *stride,
                });
            }
        } else {
            let stride_bytes = u64::try_from(*stride)
                .unwrap_or(u64::MAX)
                .saturating_mul(bytes);
            if !stride_bytes.is_multiple_of(16) || stride_bytes >= 1 << 40 {
                return Err(TensorMapError::Stride {
                    mode: *mode,
                    stride: *stride,
                    width: bytes,
                });
            }
            args.strides[dimension - 1] = stride_bytes;
        }
        let extent = map.box_shape[dimension];
        if !(1..=256).contains(&extent) {
            return Err(TensorMapError::BoxExtent { extent });
        }
        args.box_shape[dimension] = extent;
    }
    let inner = u64::from(args.box_shape[0]) * bytes;
    if !inner.is_multiple_of(16) || (map.swizzle != 0 && inner > u64::from(map.swizzle)) {
        return Err(TensorMapError::InnerBox {
            bytes: inner,
            swizzle: map.swizzle,
        });
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(box_shape: Vec<u32>, swizzle: u32) -> TensorMap {
        TensorMap {
            tensor: 3,
            modes: vec![1, 0],
            box_shape,
            swizzle,
        }
    }

    #[test]
    fn a_row_major_matrix_is_k_inner_with_row_strides_in_bytes() {
        let args = tensor_map_args(
            &map(vec![64, 128], 128),
            Element::BF16,
            0x1000,
            (&[4096, 1000], &[1000, 1]),
        )
        .unwrap();
        assert_eq!(
            (args.rank, args.extents[..2].to_vec()),
            (2, vec![1000, 4096])
        );
        assert_eq!(
            (args.strides[0], args.box_shape[..2].to_vec()),
            (2000, vec![64, 128])
        );
        assert_eq!((args.data_type(), args.swizzle_mode()), (9, 3));
    }

    #[test]
    fn each_hardware_rule_is_an_error_that_says_it() {
        let bf16 = Element::BF16;
        let shape: (&[i64], &[i64]) = (&[64, 100], &[100, 1]);
        let stride = tensor_map_args(&map(vec![64, 64], 128), bf16, 0, shape).unwrap_err();
        assert!(
            stride.to_string().contains("multiples of 16 bytes"),
            "{stride}"
        );
        let square: (&[i64], &[i64]) = (&[64, 128], &[128, 1]);
        let aligned = tensor_map_args(&map(vec![64, 64], 128), bf16, 8, square).unwrap_err();
        assert!(
            aligned.to_string().contains("multiple of 16 bytes"),
            "{aligned}"
        );
        let wide = tensor_map_args(&map(vec![128, 64], 128), bf16, 0, square).unwrap_err();
        assert!(
            wide.to_string().contains("at most the 128-byte swizzle"),
            "{wide}"
        );
        let tall = tensor_map_args(&map(vec![64, 512], 128), bf16, 0, square).unwrap_err();
        assert!(tall.to_string().contains("1 to 256"), "{tall}");
        let column: (&[i64], &[i64]) = (&[64, 128], &[1, 64]);
        let strided = tensor_map_args(&map(vec![64, 64], 128), bf16, 0, column).unwrap_err();
        assert!(strided.to_string().contains("contiguous"), "{strided}");
    }
}
