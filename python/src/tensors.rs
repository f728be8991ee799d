//! Tensor arguments from Python objects: address, dtype, shape, strides (in elements)
//! and device, read from a `torch.Tensor` (its attributes, the fast path), an object with
//! `__cuda_array_interface__` (CuPy, Numba), or any DLPack producer (through `dlpark`).
//!
//! Nothing is copied. A DLPack import keeps the producer's tensor alive in the
//! [`TensorArg`] until the launch is enqueued; DLPack producers are asked for their data
//! as of the legacy default stream (no stream argument), as the protocol defines.
//!
//! A torch tensor costs five or six calls into torch (`dtype`, `shape`, `stride()`,
//! `data_ptr()`, `get_device()`, and `is_cuda` when it is on a device), with the names
//! interned once, and its shape and strides land in stack arrays: no heap allocation for
//! tensors of up to [`INLINE_DIMS`] dimensions.

use dlpark::ffi::{DLDataTypeCode, DLDeviceType};
use dlpark::python::{ImportedDlpack, from_dlpack};
use kir::Element;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};
use pyo3::{FromPyObject, intern};
use smallvec::SmallVec;

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
}

impl TensorArg {
    fn new(object: &Bound<'_, PyAny>, found: Found, imported: Option<ImportedDlpack>) -> Self {
        let Found {
            dtype,
            shape,
            strides,
            address,
            device,
        } = found;
        TensorArg {
            dtype,
            shape,
            strides,
            address,
            device,
            object: object.clone().unbind(),
            _imported: imported,
        }
    }
}

/// The tensor `object`, or why it is not one CuK can take (a sentence about "it").
pub fn read(object: &Bound<'_, PyAny>) -> Result<TensorArg, String> {
    let py = object.py();
    if let Some(tensor_type) = torch_tensor_type(py)
        && object.is_instance(tensor_type.bind(py)).unwrap_or(false)
    {
        let found = read_torch(object).map_err(|error| error.to_string())?;
        Ok(TensorArg::new(object, found, None))
    } else if let Ok(interface) = object.getattr(intern!(py, "__cuda_array_interface__")) {
        let found = read_array_interface(&interface)?;
        Ok(TensorArg::new(object, found, None))
    } else if object.hasattr(intern!(py, "__dlpack__")).unwrap_or(false) {
        let (found, imported) = read_dlpack(object)?;
        Ok(TensorArg::new(object, found, Some(imported)))
    } else {
        Err(not_a_tensor(object))
    }
}

fn not_a_tensor(object: &Bound<'_, PyAny>) -> String {
    format!(
        "it is a {}, not a tensor (a torch.Tensor, a DLPack producer or an object with __cuda_array_interface__)",
        object
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |name| name.to_string())
    )
}

/// `torch.Tensor`, once torch has been imported by anyone.
fn torch_tensor_type(py: Python<'_>) -> Option<&Py<PyType>> {
    static TENSOR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    if let Some(found) = TENSOR.get(py) {
        return Some(found);
    }
    let tensor = torch_if_loaded(py)?
        .getattr("Tensor")
        .ok()?
        .cast_into::<PyType>()
        .ok()?;
    Some(TENSOR.get_or_init(py, || tensor.unbind()))
}

/// The `torch` module when someone has imported it; never imports it. Cheap enough
/// for every call: a lookup in the cached `sys.modules`, raising nothing.
pub fn torch_if_loaded(py: Python<'_>) -> Option<Bound<'_, PyAny>> {
    static MODULES: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
    let modules = MODULES
        .get_or_try_init(py, || {
            let modules = py.import("sys")?.getattr("modules")?;
            Ok::<_, PyErr>(modules.cast_into::<PyDict>()?.unbind())
        })
        .ok()?;
    modules
        .bind(py)
        .get_item(intern!(py, "torch"))
        .ok()
        .flatten()
}

/// torch's dtypes that CuK takes, by identity.
fn torch_dtypes(py: Python<'_>) -> PyResult<&Vec<(Py<PyAny>, Element)>> {
    static DTYPES: PyOnceLock<Vec<(Py<PyAny>, Element)>> = PyOnceLock::new();
    DTYPES.get_or_try_init(py, || {
        let torch = py.import("torch")?;
        [
            ("float16", Element::F16),
            ("bfloat16", Element::BF16),
            ("float32", Element::F32),
            ("float64", Element::F64),
            ("int8", Element::I8),
            ("uint8", Element::U8),
            ("int32", Element::I32),
            ("uint32", Element::U32),
            ("int64", Element::I64),
            ("uint64", Element::U64),
        ]
        .into_iter()
        .filter_map(|(name, element)| Some(Ok((torch.getattr(name).ok()?.unbind(), element))))
        .collect()
    })
}

fn read_torch(tensor: &Bound<'_, PyAny>) -> PyResult<Found> {
    let py = tensor.py();
    let dtype = tensor.getattr(intern!(py, "dtype"))?;
    let element = torch_dtypes(py)?
        .iter()
        .find(|(known, _)| known.bind(py).is(&dtype))
        .map(|(_, element)| *element)
        .ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "it holds {dtype}, which CuK kernels do not take"
            ))
        })?;
    // `torch.Size` is a tuple, and so is what `stride()` returns.
    let shape = int_sequence(&tensor.getattr(intern!(py, "shape"))?)?;
    let strides = int_sequence(&tensor.call_method0(intern!(py, "stride"))?)?;
    let address: u64 = tensor.call_method0(intern!(py, "data_ptr"))?.extract()?;
    let ordinal: i64 = tensor.call_method0(intern!(py, "get_device"))?.extract()?;
    let device = match usize::try_from(ordinal) {
        Ok(ordinal) if tensor.getattr(intern!(py, "is_cuda"))?.is_truthy()? => {
            Device::Cuda(ordinal)
        }
        Ok(_) => Device::Other(0),
        Err(_) => Device::Cpu,
    };
    Ok(Found {
        dtype: element,
        shape,
        strides,
        address,
        device,
    })
}

/// The items of a sequence of integers (a `torch.Size`, a tuple of strides): read in
/// place when it is a tuple, as it almost always is.
fn int_sequence<'py, T>(sequence: &Bound<'py, PyAny>) -> PyResult<SmallVec<[T; INLINE_DIMS]>>
where
    T: for<'a> FromPyObject<'a, 'py, Error = PyErr>,
{
    let Ok(tuple) = sequence.cast::<PyTuple>() else {
        return Ok(SmallVec::from_vec(sequence.extract::<Vec<T>>()?));
    };
    let mut items = SmallVec::with_capacity(tuple.len());
    for item in tuple.iter_borrowed() {
        items.push(item.extract()?);
    }
    Ok(items)
}

/// `__cuda_array_interface__` (version 2 and 3): memory on the current GPU.
fn read_array_interface<'py>(interface: &Bound<'py, PyAny>) -> Result<Found, String> {
    let interface = interface
        .cast::<PyDict>()
        .map_err(|_| "its __cuda_array_interface__ is not a dict".to_owned())?;
    let py = interface.py();
    let item = |key: &Bound<'py, PyString>| -> Result<Bound<'py, PyAny>, String> {
        interface
            .get_item(key)
            .ok()
            .flatten()
            .ok_or_else(|| format!("its __cuda_array_interface__ has no `{key}`"))
    };
    let bad = |key: &str| format!("its __cuda_array_interface__ has an unusable `{key}`");
    let shape: Extents = int_sequence(&item(intern!(py, "shape"))?).map_err(|_| bad("shape"))?;
    let typestr: String = item(intern!(py, "typestr"))?
        .extract()
        .map_err(|_| bad("typestr"))?;
    let dtype = typestr_element(&typestr).ok_or_else(|| {
        format!("it holds elements of type `{typestr}`, which CuK kernels do not take")
    })?;
    let data = item(intern!(py, "data"))?;
    let data = data.cast::<PyTuple>().map_err(|_| bad("data"))?;
    let address: u64 = data
        .get_item(0)
        .and_then(|pointer| pointer.extract())
        .map_err(|_| bad("data"))?;
    let bytes = dtype.bytes() as i64;
    let strides = match interface.get_item(intern!(py, "strides")).ok().flatten() {
        Some(strides) if !strides.is_none() => {
            let byte_strides: Strides = int_sequence(&strides).map_err(|_| bad("strides"))?;
            if byte_strides.iter().any(|stride| stride % bytes != 0) {
                return Err(format!(
                    "its strides {byte_strides:?} (bytes) are not whole elements"
                ));
            }
            byte_strides.iter().map(|stride| stride / bytes).collect()
        }
        _ => row_major(&shape),
    };
    Ok(Found {
        dtype,
        shape,
        strides,
        address,
        device: Device::Cuda(0),
    })
}

/// The element of a NumPy type string (`<f4`, `<f2`, `|i1`); bfloat16 has none.
fn typestr_element(typestr: &str) -> Option<Element> {
    let kind = typestr.get(1..)?;
    Some(match kind {
        "f2" => Element::F16,
        "f4" => Element::F32,
        "f8" => Element::F64,
        "i1" => Element::I8,
        "u1" => Element::U8,
        "i4" => Element::I32,
        "u4" => Element::U32,
        "i8" => Element::I64,
        "u8" => Element::U64,
        _ => return None,
    })
    .filter(|_| !typestr.starts_with('>'))
}

fn read_dlpack(object: &Bound<'_, PyAny>) -> Result<(Found, ImportedDlpack), String> {
    let imported = from_dlpack(object.as_borrowed(), None, Some(false))
        .map_err(|error| format!("its DLPack export failed: {error}"))?;
    let tensor = imported
        .validate()
        .map_err(|error| format!("its DLPack tensor is malformed: {error}"))?;
    let dtype = tensor.dtype();
    let element = dlpack_element(dtype.code, dtype.bits, dtype.lanes).ok_or_else(|| {
        format!(
            "it holds DLPack elements of type code {}, {} bits, {} lanes, which CuK kernels do not take",
            dtype.code.0, dtype.bits, dtype.lanes
        )
    })?;
    let device = tensor.device();
    let ordinal = usize::try_from(device.device_id).unwrap_or(0);
    let device = match device.device_type {
        DLDeviceType::CUDA => Device::Cuda(ordinal),
        DLDeviceType::CPU => Device::Cpu,
        other => Device::Other(other.0),
    };
    let shape: Extents = tensor
        .shape()
        .iter()
        .map(|extent| usize::try_from(*extent).unwrap_or(0))
        .collect();
    let strides = tensor
        .strides_or_compact()
        .map_err(|error| format!("its DLPack strides are unusable: {error}"))?
        .iter()
        .copied()
        .collect();
    let address = (tensor.data_ptr() as u64).wrapping_add(tensor.byte_offset());
    let found = Found {
        dtype: element,
        shape,
        strides,
        address,
        device,
    };
    Ok((found, imported))
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
        (DLDataTypeCode::INT, 32) => Element::I32,
        (DLDataTypeCode::UINT, 32) => Element::U32,
        (DLDataTypeCode::INT, 64) => Element::I64,
        (DLDataTypeCode::UINT, 64) => Element::U64,
        _ => return None,
    })
}

/// The strides of a row-major tensor of `shape`, in elements.
pub fn row_major(shape: &[usize]) -> Strides {
    let mut strides: Strides = SmallVec::from_elem(1, shape.len());
    for dim in (0..shape.len().saturating_sub(1)).rev() {
        strides[dim] = strides[dim + 1].saturating_mul(shape[dim + 1] as i64);
    }
    strides
}
