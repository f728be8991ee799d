//! Why a Python object is not a tensor CuK can take ([`ReadError`]), each case with
//! what its sentence about the object ("it ...") names.

use std::fmt;

use pyo3::PyErr;

/// Why an object is not a tensor CuK can take.
#[derive(Debug)]
pub enum ReadError {
    /// A `torch.Tensor` whose attributes could not be read or are refused.
    Torch(PyErr),
    /// Its `__cuda_array_interface__` is not a dict.
    InterfaceNotDict,
    /// Its `__cuda_array_interface__` lacks this entry.
    InterfaceMissing(String),
    /// Its `__cuda_array_interface__` has this entry, unusable.
    InterfaceUnusable(&'static str),
    /// Its `__cuda_array_interface__` type string names no element CuK kernels take.
    Typestr(String),
    /// Its byte strides are not whole elements.
    PartialElements(Vec<i64>),
    /// Its DLPack export failed (the error).
    DlpackExport(String),
    /// Its DLPack tensor is malformed (the error).
    DlpackMalformed(String),
    /// Its DLPack elements (type code, bits and lanes) are none CuK kernels take.
    DlpackElement { code: u8, bits: u8, lanes: u16 },
    /// Its DLPack strides are unusable (the error).
    DlpackStrides(String),
    /// It is no tensor at all: its type's name.
    NotATensor(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Torch(error) => error.fmt(f),
            ReadError::InterfaceNotDict => {
                f.write_str("its __cuda_array_interface__ is not a dict")
            }
            ReadError::InterfaceMissing(key) => {
                write!(f, "its __cuda_array_interface__ has no `{key}`")
            }
            ReadError::InterfaceUnusable(key) => {
                write!(f, "its __cuda_array_interface__ has an unusable `{key}`")
            }
            ReadError::Typestr(typestr) => write!(
                f,
                "it holds elements of type `{typestr}`, which CuK kernels do not take"
            ),
            ReadError::PartialElements(strides) => {
                write!(f, "its strides {strides:?} (bytes) are not whole elements")
            }
            ReadError::DlpackExport(error) => write!(f, "its DLPack export failed: {error}"),
            ReadError::DlpackMalformed(error) => {
                write!(f, "its DLPack tensor is malformed: {error}")
            }
            ReadError::DlpackElement { code, bits, lanes } => write!(
                f,
                "it holds DLPack elements of type code {code}, {bits} bits, {lanes} lanes, which CuK kernels do not take"
            ),
            ReadError::DlpackStrides(error) => {
                write!(f, "its DLPack strides are unusable: {error}")
            }
            ReadError::NotATensor(kind) => write!(
                f,
                "it is a {kind}, not a tensor (a torch.Tensor, a DLPack producer or an object with __cuda_array_interface__)"
            ),
        }
    }
}

impl std::error::Error for ReadError {}
