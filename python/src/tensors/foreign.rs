//! Tensors from producers other than torch: objects with `__cuda_array_interface__`
//! (versions 2 and 3: memory on the current GPU, taken to be GPU 0; its `stream` entry
//! is not waited on) and any DLPack producer, through `dlpark`.

use dlpark::python::{ImportedDlpack, from_dlpack};
use kir::Element;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};

use super::{
    Device, Extents, Found, ReadError, Strides, address_of, found_in, int_sequence, row_major,
};

/// `__cuda_array_interface__` (version 2 and 3): memory on the current GPU.
pub(super) fn read_array_interface<'py>(interface: &Bound<'py, PyAny>) -> Result<Found, ReadError> {
    let interface = interface
        .cast::<PyDict>()
        .map_err(|_| ReadError::InterfaceNotDict)?;
    let py = interface.py();
    let item = |key: &Bound<'py, PyString>| -> Result<Bound<'py, PyAny>, ReadError> {
        interface
            .get_item(key)
            .ok()
            .flatten()
            .ok_or_else(|| ReadError::InterfaceMissing(key.to_string()))
    };
    let bad = ReadError::InterfaceUnusable;
    let shape: Extents = int_sequence(&item(intern!(py, "shape"))?).map_err(|_| bad("shape"))?;
    let typestr = item(intern!(py, "typestr"))?;
    let typestr = typestr.cast::<PyString>().map_err(|_| bad("typestr"))?;
    let dtype = typestr_element(typestr)
        .map_err(|_| bad("typestr"))?
        .ok_or_else(|| ReadError::Typestr(typestr.to_string()))?;
    let data = item(intern!(py, "data"))?;
    let data = data.cast::<PyTuple>().map_err(|_| bad("data"))?;
    let address = (data.get_item(0))
        .and_then(|pointer| address_of(&pointer))
        .map_err(|_| bad("data"))?;
    let bytes = dtype.bytes() as i64;
    let strides = match interface.get_item(intern!(py, "strides")).ok().flatten() {
        Some(strides) if !strides.is_none() => {
            let byte_strides: Strides = int_sequence(&strides).map_err(|_| bad("strides"))?;
            if byte_strides.iter().any(|stride| stride % bytes != 0) {
                return Err(ReadError::PartialElements(byte_strides.to_vec()));
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
        stream: None,
    })
}

/// The element of a NumPy type string (`<f4`, `<f2`, `|i1`); bfloat16 has none. The
/// usual strings are recognised by their hash (which a string keeps once computed) and
/// one comparison, without copying the text out of Python.
fn typestr_element(typestr: &Bound<'_, PyString>) -> PyResult<Option<Element>> {
    static KNOWN: PyOnceLock<Vec<(isize, Py<PyString>, Element)>> = PyOnceLock::new();
    let py = typestr.py();
    let known = KNOWN.get_or_try_init(py, || {
        let mut known = Vec::new();
        for order in ['<', '|', '='] {
            for (kind, element) in TYPESTR_KINDS {
                let text = PyString::new(py, &format!("{order}{kind}"));
                known.push((text.hash()?, text.unbind(), element));
            }
        }
        Ok::<_, PyErr>(known)
    })?;
    let hash = typestr.hash()?;
    for (known_hash, text, element) in known {
        if *known_hash == hash && typestr.as_any().eq(text.bind(py))? {
            return Ok(Some(*element));
        }
    }
    let typestr = typestr.to_cow()?;
    let kind = typestr.get(1..).filter(|_| !typestr.starts_with('>'));
    Ok(TYPESTR_KINDS
        .into_iter()
        .find(|(known, _)| Some(*known) == kind)
        .map(|(_, element)| element))
}

/// The type strings' kinds (after the byte-order character) CuK kernels take.
const TYPESTR_KINDS: [(&str, Element); 11] = [
    ("f2", Element::F16),
    ("f4", Element::F32),
    ("f8", Element::F64),
    ("i1", Element::I8),
    ("u1", Element::U8),
    ("i2", Element::I16),
    ("u2", Element::U16),
    ("i4", Element::I32),
    ("u4", Element::U32),
    ("i8", Element::I64),
    ("u8", Element::U64),
];

/// Any DLPack producer, through `dlpark`, which keeps the import alive.
pub(super) fn read_dlpack(object: &Bound<'_, PyAny>) -> Result<(Found, ImportedDlpack), ReadError> {
    let imported = from_dlpack(object.as_borrowed(), None, Some(false))
        .map_err(|error| ReadError::DlpackExport(error.to_string()))?;
    let tensor = imported
        .validate()
        .map_err(|error| ReadError::DlpackMalformed(error.to_string()))?;
    let found = found_in(&tensor)?;
    Ok((found, imported))
}
