//! `kernel.specialize(BM=128)`: the file compiled again with that instantiation
//! requested (`typecheck::trace_with`), once per process for each set of const
//! arguments, and through the disk cache like any compile.

use std::fmt;
use std::sync::Arc;

use kir::ConstValue;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use runtime::marshal;
use typecheck::{ConstArgument, Instantiation};

use crate::errors;
use crate::program::Program;

/// The program holding kernel `kernel` of `program` with the const arguments `consts`
/// (checked against its declaration), and the instantiation's index in it.
pub fn instantiate(
    py: Python<'_>,
    program: &Program,
    kernel: &str,
    consts: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Arc<Program>, usize)> {
    let decl = program
        .decl(kernel)
        .ok_or_else(|| PyTypeError::new_err(format!("no kernel `{kernel}`")))?;
    let mut const_args = Vec::new();
    for (name, value) in consts.into_iter().flat_map(|consts| consts.iter()) {
        let name: String = name.extract()?;
        let Some((_, kind)) = decl.generics.iter().find(|(generic, _)| *generic == name) else {
            let known: Vec<&str> = decl
                .generics
                .iter()
                .map(|(name, _)| name.as_str())
                .collect();
            let known = if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            };
            return Err(PyTypeError::new_err(errors::at(
                &program.file,
                decl.offset,
                &format!(
                    "`{kernel}` has no const parameter `{name}`; its const parameters: {known}"
                ),
            )));
        };
        let argument = const_argument(kernel, &name, kind, &value).map_err(|error| {
            PyValueError::new_err(errors::at(&program.file, decl.offset, &error.to_string()))
        })?;
        const_args.push((name, argument));
    }
    const_args.sort_by(|a, b| a.0.cmp(&b.0));
    let request = Instantiation {
        kernel: kernel.to_owned(),
        const_args: const_args.clone(),
    };
    let key = format!("{request:?}");
    let origin = &program.origin;
    let found = origin
        .specialized
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(&key)
        .cloned();
    let program = match found {
        Some(program) => program,
        None => {
            let program = Arc::new(Program::build(py, origin.clone(), &[request])?);
            origin
                .specialized
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .insert(key, program.clone());
            program
        }
    };
    let wanted: Vec<(String, ConstValue)> = const_args
        .iter()
        .map(|(name, argument)| {
            let value = match argument {
                ConstArgument::Int(value) => ConstValue::Int(*value),
                ConstArgument::Dtype(dtype) => ConstValue::Dtype(dtype.name().to_owned()),
            };
            (name.clone(), value)
        })
        .collect();
    let index = marshal::select(&program.kernels, kernel, &wanted)
        .map_err(|error| PyValueError::new_err(error.to_string()))?;
    Ok((program, index))
}

/// A const argument from Python: an int for an `int` parameter; a dtype's name
/// (`"bf16"`) or a `torch.dtype` for a `dtype` parameter.
fn const_argument(
    kernel: &str,
    name: &str,
    kind: &str,
    value: &Bound<'_, PyAny>,
) -> Result<ConstArgument, ConstArgumentError> {
    if kind == "dtype" {
        let text = value
            .str()
            .map_or_else(|_| "?".to_owned(), |text| text.to_string());
        let spelled = match text.strip_prefix("torch.").unwrap_or(&text) {
            "float16" | "half" => "f16",
            "bfloat16" => "bf16",
            "float32" | "float" => "f32",
            "float64" | "double" => "f64",
            "int8" => "i8",
            "int16" => "i16",
            "int32" => "i32",
            "int64" => "i64",
            "uint8" => "u8",
            "uint16" => "u16",
            other => other,
        }
        .to_owned();
        return cute::Dtype::from_name(&spelled)
            .map(ConstArgument::Dtype)
            .ok_or_else(|| ConstArgumentError::NotDtype {
                kernel: kernel.to_owned(),
                name: name.to_owned(),
                given: text,
            });
    }
    value
        .extract::<i64>()
        .map(ConstArgument::Int)
        .map_err(|_| ConstArgumentError::NotInt {
            kernel: kernel.to_owned(),
            name: name.to_owned(),
            given: value.to_string(),
        })
}

/// A Python value that a kernel's const parameter `name` cannot take, as Python
/// writes it (`given`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum ConstArgumentError {
    /// Not a dtype's name or a `torch.dtype`, for a `dtype` parameter.
    NotDtype {
        kernel: String,
        name: String,
        given: String,
    },
    /// Not an int, for an `int` parameter.
    NotInt {
        kernel: String,
        name: String,
        given: String,
    },
}

impl fmt::Display for ConstArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstArgumentError::NotDtype {
                kernel,
                name,
                given,
            } => write!(
                f,
                "`{kernel}`: `{name}` is a dtype, and `{given}` is not one"
            ),
            ConstArgumentError::NotInt {
                kernel,
                name,
                given,
            } => write!(
                f,
                "`{kernel}`: `{name}` is an int const parameter, and {given} is not an int"
            ),
        }
    }
}
