//! Tensor arguments from Python objects: address, dtype, shape, strides (in elements)
//! and device, read from a `torch.Tensor` (`torch.rs`, the fast path), an object with
//! `__cuda_array_interface__` (CuPy, Numba), or any DLPack producer (through `dlpark`;
//! both in `foreign.rs`).
//!
//! Nothing is copied. A DLPack import keeps the producer's tensor alive in the
//! [`TensorArg`] until the launch is enqueued; DLPack producers are asked for their data
//! as of the legacy default stream (no stream argument), as the protocol defines.
//!
//! A tensor's shape and strides land in stack arrays: no heap allocation here for
//! tensors of up to [`INLINE_DIMS`] dimensions.

mod foreign;
mod read_error;
mod torch;

use dlpark::TensorRef;
use dlpark::ffi::{DLDataTypeCode, DLDeviceType};
use dlpark::python::ImportedDlpack;
use kir::Element;
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use smallvec::SmallVec;

pub use read_error::ReadError;
pub use torch::torch_if_loaded;

/// Dimensions of a tensor held on the stack; a tensor with more spills to the heap.
const INLINE_DIMS: usize = 4;

/// A tensor's extents.
pub type Extents = SmallVec<[usize; INLINE_DIMS]>;

/// A tensor's strides, in elements.
pub type Strides = SmallVec<[i64; INLINE_DIMS]>;

/// Where a tensor's memory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// Host memory.
    Cpu,
    /// A GPU, by ordinal.
    Cuda(usize),
    /// Anything else, by its DLPack device type.
    Other(u32),
}

impl Device {
    /// As messages say it: `cpu`, `cuda:0`.
    pub fn text(self) -> String {
        match self {
            Device::Cpu => "cpu".to_owned(),
            Device::Cuda(ordinal) => format!("cuda:{ordinal}"),
            Device::Other(kind) => format!("a device of DLPack type {kind}"),
        }
    }
}

/// A tensor argument.
pub struct TensorArg {
    /// The element type.
    pub dtype: Element,
    /// The extents.
    pub shape: Extents,
    /// The strides, in elements.
    pub strides: Strides,
    /// The address of the first element.
    pub address: u64,
    /// Where the memory is.
    pub device: Device,
    /// The producer's current stream on the tensor's GPU, when the reader was told it
    /// (torch's, through DLPack's C exchange API).
    pub stream: Option<u64>,
    /// The object it was read from (the emulator copies results back into it).
    pub object: Py<PyAny>,
    /// The DLPack import this was read from, kept until the launch is enqueued.
    pub _imported: Option<ImportedDlpack>,
}

/// What a reader finds out about a tensor, whatever kind of object it came from.
struct Found {
    dtype: Element,
    shape: Extents,
    strides: Strides,
    address: u64,
    device: Device,
    stream: Option<u64>,
}

impl TensorArg {
    fn new(object: &Bound<'_, PyAny>, found: Found, imported: Option<ImportedDlpack>) -> Self {
        let Found {
            dtype,
            shape,
            strides,
            address,
            device,
            stream,
        } = found;
        TensorArg {
            dtype,
            shape,
            strides,
            address,
            device,
            stream,
            object: object.clone().unbind(),
            _imported: imported,
        }
    }
}

/// The tensor `object`, or why it is not one CuK can take.
pub fn read(object: &Bound<'_, PyAny>) -> Result<TensorArg, ReadError> {
    let py = object.py();
    if let Some(found) = torch::read(object) {
        let found = found.map_err(ReadError::Torch)?;
        Ok(TensorArg::new(object, found, None))
    } else if let Ok(interface) = object.getattr(intern!(py, "__cuda_array_interface__")) {
        let found = foreign::read_array_interface(&interface)?;
        Ok(TensorArg::new(object, found, None))
    } else if object.hasattr(intern!(py, "__dlpack__")).unwrap_or(false) {
        let (found, imported) = foreign::read_dlpack(object)?;
        Ok(TensorArg::new(object, found, Some(imported)))
    } else {
        Err(not_a_tensor(object))
    }
}

/// What a DLPack tensor says of itself (no stream), or why CuK cannot take it.
fn found_in(tensor: &TensorRef<'_>) -> Result<Found, ReadError> {
    let dtype = tensor.dtype();
    let element =
        dlpack_element(dtype.code, dtype.bits, dtype.lanes).ok_or(ReadError::DlpackElement {
            code: dtype.code.0,
            bits: dtype.bits,
            lanes: dtype.lanes,
        })?;
    let device = tensor.device();
    let ordinal = usize::try_from(device.device_id).unwrap_or(0);
    let device = match device.device_type {
        DLDeviceType::CUDA => Device::Cuda(ordinal),
        DLDeviceType::CPU => Device::Cpu,
        other => Device::Other(other.0),
    };
    let shape = (tensor.shape().iter())
        .map(|extent| usize::try_from(*extent).unwrap_or(0))
        .collect();
    let strides = (tensor.strides_or_compact())
        .map_err(|error| ReadError::DlpackStrides(error.to_string()))?
        .iter()
        .copied()
        .collect();
    Ok(Found {
        dtype: element,
        shape,
        strides,
        address: (tensor.data_ptr() as u64).wrapping_add(tensor.byte_offset()),
        device,
        stream: None,
    })
}

fn dlpack_element(code: DLDataTypeCode, bits: u8, lanes: u16) -> Option<Element> {
    if lanes != 1 {
        return None;
    }
    Some(match (code, bits) {
        (DLDataTypeCode::FLOAT, 16) => Element::F16,
        (DLDataTypeCode::BFLOAT, 16) => Element::BF16,
        (DLDataTypeCode::FLOAT, 32) => Element::F32,
        (DLDataTypeCode::FLOAT, 64) => Element::F64,
        (DLDataTypeCode::INT, 8) => Element::I8,
        (DLDataTypeCode::UINT, 8) => Element::U8,
        (DLDataTypeCode::INT, 16) => Element::I16,
        (DLDataTypeCode::UINT, 16) => Element::U16,
        (DLDataTypeCode::INT, 32) => Element::I32,
        (DLDataTypeCode::UINT, 32) => Element::U32,
        (DLDataTypeCode::INT, 64) => Element::I64,
        (DLDataTypeCode::UINT, 64) => Element::U64,
        _ => return None,
    })
}

fn not_a_tensor(object: &Bound<'_, PyAny>) -> ReadError {
    let kind = (object.get_type().name()).map_or_else(|_| "?".to_owned(), |name| name.to_string());
    ReadError::NotATensor(kind)
}

/// An address (or a stream handle) as Python holds it: read as a signed word first,
/// which CPython converts without its arbitrary-size path (user-space and GPU addresses
/// fit), else unsigned.
pub fn address_of(address: &Bound<'_, PyAny>) -> PyResult<u64> {
    match address.extract::<i64>() {
        Ok(address) if address >= 0 => Ok(address as u64),
        _ => address.extract(),
    }
}

/// The items of a sequence of integers (a `torch.Size`, a tuple of strides): read in
/// place when it is a tuple, as it almost always is, each as a signed word (CPython's
/// fast conversion) that must fit `T`.
fn int_sequence<T: TryFrom<i64>>(
    sequence: &Bound<'_, PyAny>,
) -> PyResult<SmallVec<[T; INLINE_DIMS]>> {
    let item = |value: i64| {
        T::try_from(value).map_err(|_| PyValueError::new_err(format!("{value} is not a size")))
    };
    let Ok(tuple) = sequence.cast::<PyTuple>() else {
        let values: Vec<i64> = sequence.extract()?;
        return values.into_iter().map(item).collect();
    };
    let mut items = SmallVec::with_capacity(tuple.len());
    for value in tuple.iter_borrowed() {
        items.push(item(value.extract()?)?);
    }
    Ok(items)
}

/// The strides of a row-major tensor of `shape`, in elements.
pub fn row_major(shape: &[usize]) -> Strides {
    let mut strides: Strides = SmallVec::from_elem(1, shape.len());
    for dim in (0..shape.len().saturating_sub(1)).rev() {
        strides[dim] = strides[dim + 1].saturating_mul(shape[dim + 1] as i64);
    }
    strides
}
