//! `torch.Tensor` arguments, read without importing torch (a tensor exists only once
//! someone has).
//!
//! A tensor of exactly that type is read through DLPack's C exchange API when torch
//! offers it (`torch.Tensor.__dlpack_c_exchange_api__`, torch 2.10 and newer): one call
//! into torch's C++ gives its address, dtype, shape, strides and device, and the current
//! stream of its GPU, where reading the attributes costs six calls through Python. The
//! export is dropped as soon as it is read (the caller holds the tensor for the call).
//!
//! Anything else, and any tensor the export does not describe as the attributes would
//! (a subclass, which may override them; a dtype CuK does not take, for torch's message;
//! memory on neither the CPU nor a CUDA GPU, pinned host memory included), is read
//! through its attributes: `dtype` (compared by identity with torch's dtype objects),
//! `shape`, `stride()`, `data_ptr()`, `get_device()`, and `is_cuda` when it is on a
//! device, with the names interned once.

use dlpark::python::consumer::exchange::ExchangeApi;
use kir::Element;
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

use super::{Device, Found, address_of, found_in, int_sequence};

/// `object` read as a torch tensor, or `None` when it is not one.
pub(super) fn read(object: &Bound<'_, PyAny>) -> Option<PyResult<Found>> {
    let py = object.py();
    let tensor_type = tensor_type(py)?.bind(py);
    if !object.is_instance(tensor_type).unwrap_or(false) {
        return None;
    }
    if object.get_type().is(tensor_type)
        && let Some(found) = read_exchange(object)
    {
        return Some(Ok(found));
    }
    Some(read_attributes(object))
}

/// `torch.Tensor`, once torch has been imported by anyone.
fn tensor_type(py: Python<'_>) -> Option<&Py<PyType>> {
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

/// The tensor as torch exports it through DLPack's C exchange API, with the current
/// stream of its GPU; `None` when torch has no such API, the export fails, or it says
/// something the attributes would say differently.
fn read_exchange(tensor: &Bound<'_, PyAny>) -> Option<Found> {
    let api = ExchangeApi::from_object(tensor.as_borrowed()).ok()??;
    let exported = api.import_managed_no_sync(tensor.as_borrowed()).ok()?;
    let found = found_in(&exported.tensor().validate().ok()?).ok()?;
    let stream = match found.device {
        Device::Cuda(_) => Some(exported.current_work_stream() as usize as u64),
        Device::Cpu => None,
        Device::Other(_) => return None,
    };
    Some(Found { stream, ..found })
}

/// torch's dtypes that CuK takes, by identity.
fn dtypes(py: Python<'_>) -> PyResult<&Vec<(Py<PyAny>, Element)>> {
    static DTYPES: PyOnceLock<Vec<(Py<PyAny>, Element)>> = PyOnceLock::new();
    DTYPES.get_or_try_init(py, || {
        let torch = py.import("torch")?;
        [
            ("float16", Element::F16),
            ("bfloat16", Element::BF16),
            ("float32", Element::F32),
            ("float64", Element::F64),
            ("float8_e4m3fn", Element::E4M3),
            ("float8_e5m2", Element::E5M2),
            ("int8", Element::I8),
            ("uint8", Element::U8),
            ("int16", Element::I16),
            ("uint16", Element::U16),
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

/// The tensor through its attributes.
fn read_attributes(tensor: &Bound<'_, PyAny>) -> PyResult<Found> {
    let py = tensor.py();
    let dtype = tensor.getattr(intern!(py, "dtype"))?;
    let element = dtypes(py)?
        .iter()
        .find(|(known, _)| known.bind(py).is(&dtype))
        .map(|(_, element)| *element)
        .ok_or_else(|| {
            PyValueError::new_err(format!("it holds {dtype}, which CuK kernels do not take"))
        })?;
    // `torch.Size` is a tuple, and so is what `stride()` returns.
    let shape = int_sequence(&tensor.getattr(intern!(py, "shape"))?)?;
    let strides = int_sequence(&tensor.call_method0(intern!(py, "stride"))?)?;
    let address = address_of(&tensor.call_method0(intern!(py, "data_ptr"))?)?;
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
        stream: None,
    })
}
