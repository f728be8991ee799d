//! Host tensors: a dtype, a row-major contiguous shape, and the data on the host, on the
//! device, or both. Creation (`randn`, `rand`, `zeros`, `ones`, `arange`, `full`,
//! `empty`) fills host bytes; the harness uploads them when a kernel first needs them
//! and downloads device data again only when the host reads it after a kernel ran.

use std::fmt;

use kir::Element;

use crate::device::DeviceBuffer;
use crate::element::{POISON_BYTE, decode, encode};
use crate::host_memory::{self, Shortfall};
use crate::random::{Distribution, fill};

/// The largest tensor the harness creates, in bytes: a guard against a mistyped extent.
pub const MAX_TENSOR_BYTES: u64 = 16 << 30;

/// A tensor of a test or bench.
#[derive(Debug)]
pub struct Tensor {
    /// The element type.
    pub dtype: Element,
    /// The extent of each dimension, row-major, all positive.
    pub shape: Vec<usize>,
    /// The elements' bytes on the host, when they are current.
    pub host: Option<Vec<u8>>,
    /// The device copy, once uploaded or written by a kernel.
    pub device: Option<DeviceBuffer>,
}

/// The tensor-creating built-ins of host code.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Creation {
    /// `randn`: standard normal.
    Randn,
    /// `rand`: uniform in [0, 1).
    Rand,
    /// `zeros`.
    Zeros,
    /// `ones`.
    Ones,
    /// `arange`: 0, 1, 2, ... in row-major order.
    Arange,
    /// `full(dtype, shape, value)`.
    Full(f64),
    /// `empty`: every byte [`POISON_BYTE`].
    Empty,
}

/// A tensor's values as numbers, for reference math on the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    /// The element type results are rounded to.
    pub dtype: Element,
    /// Row-major extents.
    pub shape: Vec<usize>,
    /// The values, row-major.
    pub values: Vec<f64>,
}

/// Why a tensor of a shape cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeError {
    /// An extent of zero.
    ZeroExtent { shape: Vec<usize> },
    /// More than [`MAX_TENSOR_BYTES`].
    TooLarge { dtype: Element, shape: Vec<usize> },
    /// More than the host has available now.
    HostMemory(Shortfall),
    /// More elements than this machine can index.
    Unaddressable { shape: Vec<usize> },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::ZeroExtent { shape } => write!(
                f,
                "a tensor's extents are positive, not {}",
                shape_text(shape)
            ),
            ShapeError::TooLarge { dtype, shape } => write!(
                f,
                "a {} tensor of shape {} would exceed {} GiB",
                dtype.name(),
                shape_text(shape),
                MAX_TENSOR_BYTES >> 30
            ),
            ShapeError::HostMemory(shortfall) => shortfall.fmt(f),
            ShapeError::Unaddressable { shape } => {
                write!(f, "shape {} is too large", shape_text(shape))
            }
        }
    }
}

impl std::error::Error for ShapeError {}

/// The number of elements of `shape`, or why there cannot be a tensor of it: it has a
/// zero, or is too large: over [`MAX_TENSOR_BYTES`], or more than the host has
/// available now.
pub fn element_count(dtype: Element, shape: &[usize]) -> Result<usize, ShapeError> {
    let mut count: u64 = 1;
    for extent in shape {
        if *extent == 0 {
            return Err(ShapeError::ZeroExtent {
                shape: shape.to_vec(),
            });
        }
        count = count
            .checked_mul(*extent as u64)
            .filter(|count| count.saturating_mul(dtype.bytes() as u64) <= MAX_TENSOR_BYTES)
            .ok_or_else(|| ShapeError::TooLarge {
                dtype,
                shape: shape.to_vec(),
            })?;
    }
    let what = format!("a {} tensor of shape {}", dtype.name(), shape_text(shape));
    let needed = host_memory::tensor_bytes(count, dtype.bytes() as u64);
    host_memory::check(needed, host_memory::available(), &what).map_err(ShapeError::HostMemory)?;
    usize::try_from(count).map_err(|_| ShapeError::Unaddressable {
        shape: shape.to_vec(),
    })
}

impl Tensor {
    /// A new tensor on the host. `seed` fixes random data.
    pub fn create(
        creation: Creation,
        dtype: Element,
        shape: Vec<usize>,
        seed: u64,
    ) -> Result<Tensor, ShapeError> {
        let count = element_count(dtype, &shape)?;
        let width = dtype.bytes();
        let constant = |value: f64| {
            let mut one = vec![0u8; width];
            encode(dtype, value, &mut one);
            one.repeat(count)
        };
        let bytes = match creation {
            Creation::Randn => fill(dtype, count, Distribution::Normal, seed),
            Creation::Rand => fill(dtype, count, Distribution::Uniform, seed),
            Creation::Zeros => vec![0u8; count * width],
            Creation::Ones => constant(1.0),
            Creation::Full(value) => constant(value),
            Creation::Empty => vec![POISON_BYTE; count * width],
            Creation::Arange => {
                let mut bytes = vec![0u8; count * width];
                for (index, out) in bytes.chunks_exact_mut(width).enumerate() {
                    encode(dtype, index as f64, out);
                }
                bytes
            }
        };
        Ok(Tensor {
            dtype,
            shape,
            host: Some(bytes),
            device: None,
        })
    }

    /// A host tensor holding `dense`'s values rounded to its dtype.
    pub fn from_dense(dense: &Dense) -> Tensor {
        let width = dense.dtype.bytes();
        let mut bytes = vec![0u8; dense.values.len() * width];
        for (value, out) in dense.values.iter().zip(bytes.chunks_exact_mut(width)) {
            encode(dense.dtype, *value, out);
        }
        Tensor {
            dtype: dense.dtype,
            shape: dense.shape.clone(),
            host: Some(bytes),
            device: None,
        }
    }

    /// The values, when the host copy is current.
    pub fn dense(&self) -> Option<Dense> {
        let bytes = self.host.as_ref()?;
        Some(Dense {
            dtype: self.dtype,
            shape: self.shape.clone(),
            values: bytes
                .chunks_exact(self.dtype.bytes())
                .map(|element| decode(self.dtype, element))
                .collect(),
        })
    }
}

/// `(a, b, c)`.
pub fn shape_text(shape: &[usize]) -> String {
    let extents: Vec<String> = shape.iter().map(ToString::to_string).collect();
    format!("({})", extents.join(", "))
}

/// The row-major coordinate of element `index` of `shape`, as `(i, j, ...)`.
pub fn coordinate_text(shape: &[usize], mut index: usize) -> String {
    let mut coordinate = vec![0; shape.len()];
    for (slot, extent) in coordinate.iter_mut().zip(shape).rev() {
        if *extent > 0 {
            *slot = index % extent;
            index /= extent;
        }
    }
    shape_text(&coordinate)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(tensor: &Tensor) -> Vec<f64> {
        tensor.dense().map(|dense| dense.values).unwrap_or_default()
    }

    #[test]
    fn empty_is_poisoned_with_nan() {
        let tensor = Tensor::create(Creation::Empty, Element::BF16, vec![3, 5], 0).unwrap();
        assert_eq!(tensor.host.as_deref(), Some(&[0xFF; 30][..]));
        assert!(values(&tensor).iter().all(|value| value.is_nan()));
        let ints = Tensor::create(Creation::Empty, Element::I32, vec![2], 0).unwrap();
        assert_eq!(values(&ints), vec![-1.0, -1.0]);
    }

    #[test]
    fn constant_creations_hold_their_values() {
        let ones = Tensor::create(Creation::Ones, Element::F16, vec![2, 2], 0).unwrap();
        assert_eq!(values(&ones), vec![1.0; 4]);
        let full = Tensor::create(Creation::Full(2.5), Element::F32, vec![3], 0).unwrap();
        assert_eq!(values(&full), vec![2.5; 3]);
        let zeros = Tensor::create(Creation::Zeros, Element::F64, vec![2], 0).unwrap();
        assert_eq!(values(&zeros), vec![0.0; 2]);
        let arange = Tensor::create(Creation::Arange, Element::I32, vec![2, 3], 0).unwrap();
        assert_eq!(values(&arange), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn random_creation_depends_on_the_seed() {
        let a = Tensor::create(Creation::Randn, Element::F32, vec![64], 1).unwrap();
        let b = Tensor::create(Creation::Randn, Element::F32, vec![64], 1).unwrap();
        let c = Tensor::create(Creation::Randn, Element::F32, vec![64], 2).unwrap();
        assert_eq!(a.host, b.host);
        assert_ne!(a.host, c.host);
    }

    #[test]
    fn bad_shapes_are_errors() {
        let zero = Tensor::create(Creation::Zeros, Element::F32, vec![4, 0], 0).unwrap_err();
        assert!(zero.to_string().contains("positive"), "{zero}");
        let huge =
            Tensor::create(Creation::Zeros, Element::F32, vec![1 << 20, 1 << 20], 0).unwrap_err();
        assert!(huge.to_string().contains("exceed"), "{huge}");
    }

    #[test]
    fn coordinates_are_row_major() {
        assert_eq!(coordinate_text(&[4, 5], 13), "(2, 3)");
        assert_eq!(coordinate_text(&[2, 3, 4], 23), "(1, 2, 3)");
    }
}
