//! Python call arguments matched to a kernel's parameters.
//!
//! A call passes every parameter in order (`copy(m, k, a, out)`), or leaves out the
//! integer parameters that name a tensor parameter's extent (`copy(a, out)`, `m` and `k`
//! read from `a`'s shape), passing the rest in order; any parameter may also be passed
//! by name, and the positional arguments then fill the others in order. An extent read
//! from one tensor is checked against every other tensor by the runtime's `marshal`,
//! like any integer argument, and so are each tensor's strides against the layout the
//! kernel reads it through.
//!
//! A [`Binder`], made with the kernel callable, holds what depends on the signature
//! alone. For a kernel of up to [`INLINE_ARGS`] parameters a call binds in stack arrays,
//! reading each argument once; messages are formatted only for the error raised.

use kir::{HostExpr, ParamKind, Signature};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString, PyTuple};
use runtime::marshal::{CallArg, INLINE_ARGS};
use smallvec::SmallVec;

use crate::tensors::{self, TensorArg};

/// A call's arguments in the kernel's parameter order.
pub type Args = SmallVec<[Arg; INLINE_ARGS]>;

/// An argument read from Python.
pub enum Arg {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A bool.
    Bool(bool),
    /// A tensor.
    Tensor(TensorArg),
}

/// Why a call does not match the kernel: a `TypeError` (arity, names) or a
/// `ValueError` (a value), about a parameter when `param` says which.
pub struct CallError {
    /// Whether Python should see a `TypeError` rather than a `ValueError`.
    pub type_error: bool,
    /// The parameter's index, when the message is about one.
    pub param: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl CallError {
    fn value(param: usize, message: String) -> CallError {
        CallError {
            type_error: false,
            param: Some(param),
            message,
        }
    }

    fn typed(param: Option<usize>, message: String) -> CallError {
        CallError {
            type_error: true,
            param,
            message,
        }
    }
}

/// Where a left-out integer parameter is read from: the extent of mode `mode` of
/// tensor parameter `tensor`, whose layout has `modes` flattened modes.
#[derive(Clone, Copy)]
pub struct Source {
    tensor: usize,
    mode: usize,
    modes: usize,
}

/// A kernel's parameters prepared for binding its calls, once, when the callable is
/// made: their names interned (a keyword is matched by identity first, as Python's own
/// calls intern them), and where each integer a call may leave out is read from.
pub struct Binder {
    /// The declared parameters' names.
    names: Vec<Py<PyString>>,
    /// For each declared parameter, where its value is read when it is left out.
    sources: Vec<Option<Source>>,
}

impl Binder {
    /// The binder of `signature`'s calls.
    pub fn new(py: Python<'_>, signature: &Signature) -> Binder {
        let params = &signature.params[..runtime::marshal::declared_params(signature)];
        Binder {
            names: (params.iter())
                .map(|param| PyString::intern(py, &param.name).unbind())
                .collect(),
            sources: (0..params.len())
                .map(|index| extent_source(signature, index))
                .collect(),
        }
    }

    /// Whether parameter `index` may be left out (an integer read from a shape); never
    /// a hidden tensor map, which is not passed at all.
    pub fn reads_from_tensor(&self, index: usize) -> bool {
        self.sources.get(index).is_some_and(Option::is_some)
    }

    /// The index of the parameter a keyword names.
    fn position(&self, signature: &Signature, name: &Bound<'_, PyAny>) -> Option<usize> {
        if let Some(index) = self.names.iter().position(|known| known.is(name)) {
            return Some(index);
        }
        let name = name.cast::<PyString>().ok()?.to_cow().ok()?;
        (signature.params[..self.names.len()].iter()).position(|param| param.name == name)
    }

    /// Reads the arguments of a call into `bound` (empty), in the kernel's parameter
    /// order.
    pub fn bind<'py>(
        &self,
        signature: &Signature,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
        bound: &mut Args,
    ) -> Result<(), CallError> {
        let declared = self.names.len();
        let kernel = &signature.name;
        let mut given: SmallVec<[Option<Bound<'py, PyAny>>; INLINE_ARGS]> =
            SmallVec::from_elem(None, declared);
        let mut named = 0;
        if let Some(kwargs) = kwargs {
            for (name, value) in kwargs.iter() {
                let Some(index) = self.position(signature, &name) else {
                    let name: String = name.extract().unwrap_or_default();
                    return Err(CallError::typed(
                        None,
                        format!(
                            "`{kernel}` has no parameter `{name}`; its parameters: {}",
                            names(signature)
                        ),
                    ));
                };
                given[index] = Some(value);
                named += 1;
            }
        }
        // Positional arguments fill the parameters not given by name: all of them, or
        // all but the integers the tensors' shapes give.
        let skip_extents = args.len() != declared - named;
        let mut positional = args.iter();
        for (slot, source) in given.iter_mut().zip(&self.sources) {
            if slot.is_some() || (skip_extents && source.is_some()) {
                continue;
            }
            match positional.next() {
                Some(arg) => *slot = Some(arg),
                None => break,
            }
        }
        if positional.next().is_some() {
            return Err(CallError::typed(
                None,
                self.arity(signature, args.len() + named),
            ));
        }
        // Every value given is read (and its errors raised) before a missing one is
        // looked for; a missing one holds 0 until then.
        for (index, value) in given.iter().enumerate() {
            bound.push(match value {
                Some(value) => read_arg(signature, index, value)?,
                None => Arg::Int(0),
            });
        }
        for (index, source) in self.sources.iter().enumerate() {
            if given[index].is_some() {
                continue;
            }
            let Some(Source {
                tensor,
                mode,
                modes,
            }) = *source
            else {
                return Err(CallError::typed(
                    Some(index),
                    self.arity(signature, args.len() + named),
                ));
            };
            let extent = match &bound[tensor] {
                Arg::Tensor(arg) if arg.shape.len() == modes => arg.shape[mode] as i64,
                _ => {
                    let name = &signature.params[index].name;
                    return Err(CallError::typed(
                        Some(index),
                        format!(
                            "`{kernel}`: `{name}` was left out, and `{}` does not say it (its dimensions are not the layout's modes); pass {name}=",
                            signature.params[tensor].name
                        ),
                    ));
                }
            };
            // In place: the slot holds the integer placeholder.
            if let Arg::Int(value) = &mut bound[index] {
                *value = extent;
            }
        }
        Ok(())
    }

    /// "`copy` takes 4 arguments (m, k, a, out), or 2 (a, out) with m, k read from the
    /// tensors; 3 were given" (`given` counts positional and keyword arguments).
    fn arity(&self, signature: &Signature, given: usize) -> String {
        let kernel = &signature.name;
        let all = self.names.len();
        let params = &signature.params[..all];
        let mut text = format!("`{kernel}` takes {all} arguments ({})", names(signature));
        let pick = |read: bool| -> Vec<&str> {
            (params.iter().zip(&self.sources))
                .filter(|(_, source)| source.is_some() == read)
                .map(|(param, _)| param.name.as_str())
                .collect()
        };
        let required = pick(false);
        if required.len() < all {
            text.push_str(&format!(
                ", or {} ({}) with {} read from the tensors",
                required.len(),
                required.join(", "),
                pick(true).join(", ")
            ));
        }
        let verb = if given == 1 { "was" } else { "were" };
        format!("{text}; {given} {verb} given")
    }
}

/// `text`, cut to its first 40 characters and a count of the rest when longer.
fn shortened(text: &str) -> String {
    let count = text.chars().count();
    if count <= 40 {
        return text.to_owned();
    }
    let head: String = text.chars().take(40).collect();
    format!("{head}... ({count} characters)")
}

/// Where integer parameter `index` can be read when it is left out: the first tensor
/// parameter with a mode whose extent is exactly that integer.
fn extent_source(signature: &Signature, index: usize) -> Option<Source> {
    if !matches!(signature.params[index].kind, ParamKind::Int(_)) {
        return None;
    }
    (signature.params.iter().enumerate()).find_map(|(tensor, param)| match &param.kind {
        ParamKind::Tensor { shape, .. } => (shape.iter())
            .position(|extent| *extent == HostExpr::Param(index))
            .map(|mode| Source {
                tensor,
                mode,
                modes: shape.len(),
            }),
        _ => None,
    })
}

fn read_arg(
    signature: &Signature,
    index: usize,
    value: &Bound<'_, PyAny>,
) -> Result<Arg, CallError> {
    let param = &signature.params[index];
    let kernel = &signature.name;
    let name = &param.name;
    let wrong = |what: &str| {
        let given = value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |name| name.to_string());
        CallError::value(
            index,
            format!("`{kernel}`: `{name}` is {what}, but a value of type `{given}` was given"),
        )
    };
    // Python's numbers (and NumPy's scalars, which register with them): an
    // `Integral` reads as an integer through `__index__`, a `Real` as a float.
    let is_number = |kind: &str| {
        !value.is_instance_of::<PyBool>()
            && value
                .py()
                .import("numbers")
                .and_then(|numbers| numbers.getattr(kind))
                .and_then(|class| value.is_instance(&class))
                .unwrap_or(false)
    };
    match &param.kind {
        ParamKind::TensorMap(_) => Err(CallError::value(
            index,
            format!(
                "`{kernel}`: `{name}` is a TMA tensor map, which this package cannot encode yet"
            ),
        )),
        ParamKind::Int(_) => {
            let plain = value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>();
            let integer = if plain {
                value.clone()
            } else if is_number("Integral") {
                value
                    .call_method0("__index__")
                    .map_err(|_| wrong("an integer"))?
            } else {
                return Err(wrong("an integer"));
            };
            integer.extract::<i64>().map(Arg::Int).map_err(|_| {
                CallError::value(
                    index,
                    format!("`{kernel}`: `{name}` = {value} does not fit 64 bits"),
                )
            })
        }
        ParamKind::Scalar(kir::ScalarParam::Bool) => match value.cast::<PyBool>() {
            Ok(flag) => Ok(Arg::Bool(flag.is_true())),
            Err(_) => Err(wrong("a bool")),
        },
        ParamKind::Scalar(scalar) => {
            let plain = value.is_instance_of::<PyFloat>()
                || (value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>());
            if !plain && !is_number("Real") {
                return Err(wrong(&format!("a float ({})", scalar.name())));
            }
            // An integer past a double's range (10**400) has no float value.
            let float = value.call_method0("__float__").map_err(|_| {
                CallError::value(
                    index,
                    format!(
                        "`{kernel}`: `{name}` = {} is beyond a float's range ({})",
                        shortened(&value.to_string()),
                        scalar.name()
                    ),
                )
            })?;
            float
                .extract::<f64>()
                .map(Arg::Float)
                .map_err(|_| wrong("a float"))
        }
        ParamKind::Tensor { .. } => tensors::read(value).map(Arg::Tensor).map_err(|reason| {
            CallError::value(
                index,
                format!("`{kernel}`: `{name}` is a tensor, but {reason}"),
            )
        }),
    }
}

fn names(signature: &Signature) -> String {
    let declared = runtime::marshal::declared_params(signature);
    let names: Vec<&str> = signature.params[..declared]
        .iter()
        .map(|param| param.name.as_str())
        .collect();
    names.join(", ")
}

/// The arguments as the runtime's `marshal` checks them.
pub fn call_args(args: &[Arg]) -> SmallVec<[CallArg<'_>; INLINE_ARGS]> {
    args.iter()
        .map(|arg| match arg {
            Arg::Int(value) => CallArg::Int(*value),
            Arg::Float(value) => CallArg::Float(*value),
            Arg::Bool(value) => CallArg::Bool(*value),
            Arg::Tensor(tensor) => CallArg::Tensor {
                dtype: tensor.dtype,
                shape: &tensor.shape,
                strides: Some(&tensor.strides),
                address: tensor.address,
            },
        })
        .collect()
}
