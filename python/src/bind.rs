//! Python call arguments matched to a kernel's parameters.
//!
//! A call passes every parameter in order (`copy(m, k, a, out)`), or leaves out the
//! integer parameters that name a tensor parameter's extent (`copy(a, out)`, `m` and `k`
//! read from `a`'s shape), passing the rest in order; any parameter may also be passed
//! by name, and the positional arguments then fill the others in order. An extent read from one tensor is checked against every other tensor by the
//! runtime's `marshal`, like any integer argument. After `marshal`, [`check_strides`]
//! compares each tensor's strides with the layout the kernel reads it through, which
//! `cukc test`'s row-major host tensors never needed.
//!
//! For a kernel of up to [`INLINE_ARGS`] parameters, binding and the stride check work
//! in stack arrays; messages are formatted only for the error raised.

use kir::{HostExpr, ParamKind, Signature};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyTuple};
use runtime::marshal::{CallArg, INLINE_ARGS, Ints};
use smallvec::SmallVec;

use crate::tensors::{self, TensorArg};

/// A call's arguments in the kernel's parameter order.
pub type Args = SmallVec<[Arg; INLINE_ARGS]>;

/// Parameter indices.
type Indices = SmallVec<[usize; INLINE_ARGS]>;

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

/// For each parameter, where its value can be read when it is left out: the tensor
/// parameter and mode whose extent is exactly that integer.
pub fn extent_sources(signature: &Signature) -> Vec<Option<(usize, usize)>> {
    (0..signature.params.len())
        .map(|index| {
            if !matches!(signature.params[index].kind, ParamKind::Int(_)) {
                return None;
            }
            signature
                .params
                .iter()
                .enumerate()
                .find_map(|(tensor, param)| match &param.kind {
                    ParamKind::Tensor { shape, .. } => shape
                        .iter()
                        .position(|extent| *extent == HostExpr::Param(index))
                        .map(|mode| (tensor, mode)),
                    _ => None,
                })
        })
        .collect()
}

/// The arguments of a call in the kernel's parameter order.
pub fn bind(
    signature: &Signature,
    sources: &[Option<(usize, usize)>],
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> Result<Args, CallError> {
    // The hidden TMA tensor maps at the end are derived from the tensors, not passed.
    let params = &signature.params[..runtime::marshal::declared_params(signature)];
    let kernel = &signature.name;
    let mut given: SmallVec<[Option<Bound<'_, PyAny>>; INLINE_ARGS]> =
        SmallVec::from_elem(None, params.len());
    if let Some(kwargs) = kwargs {
        for (name, value) in kwargs.iter() {
            let name: String = name.extract().unwrap_or_default();
            let Some(index) = params.iter().position(|param| param.name == name) else {
                return Err(CallError::typed(
                    None,
                    format!(
                        "`{kernel}` has no parameter `{name}`; its parameters: {}",
                        names(signature)
                    ),
                ));
            };
            given[index] = Some(value);
        }
    }
    // Positional arguments fill the parameters not given by name: all of them, or all
    // but the integers the tensors' shapes give.
    let unnamed: Indices = (0..params.len())
        .filter(|index| given[*index].is_none())
        .collect();
    let positional: Indices = if args.len() == unnamed.len() {
        unnamed
    } else {
        unnamed
            .into_iter()
            .filter(|index| sources[*index].is_none())
            .collect()
    };
    if args.len() > positional.len() {
        return Err(CallError::typed(
            None,
            arity(signature, sources, args.len()),
        ));
    }
    for (slot, arg) in positional.iter().zip(args.iter()) {
        given[*slot] = Some(arg);
    }
    // Every value given is read (and its errors raised) before a missing one is looked
    // for; a missing one holds 0 until then.
    let mut bound = Args::with_capacity(params.len());
    for (index, value) in given.iter().enumerate() {
        bound.push(match value {
            Some(value) => read_arg(signature, index, value)?,
            None => Arg::Int(0),
        });
    }
    for index in 0..params.len() {
        if given[index].is_some() {
            continue;
        }
        let Some((tensor, mode)) = sources[index] else {
            return Err(CallError::typed(
                Some(index),
                arity(signature, sources, args.len()),
            ));
        };
        let name = &params[index].name;
        let extent = match &bound[tensor] {
            Arg::Tensor(arg) if arg.shape.len() == modes(signature, tensor) => arg.shape[mode],
            _ => {
                return Err(CallError::typed(
                    Some(index),
                    format!(
                        "`{kernel}`: `{name}` was left out, and `{}` does not say it (its dimensions are not the layout's modes); pass {name}=",
                        params[tensor].name
                    ),
                ));
            }
        };
        bound[index] = Arg::Int(extent as i64);
    }
    Ok(bound)
}

/// How many flattened modes tensor parameter `index` has.
fn modes(signature: &Signature, index: usize) -> usize {
    match &signature.params[index].kind {
        ParamKind::Tensor { shape, .. } => shape.len(),
        _ => 0,
    }
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
            format!("`{kernel}`: `{name}` is {what}, but a {given} was given"),
        )
    };
    match &param.kind {
        ParamKind::TensorMap(_) => Err(CallError::value(
            index,
            format!(
                "`{kernel}`: `{name}` is a TMA tensor map, which this package cannot encode yet"
            ),
        )),
        ParamKind::Int(_) => {
            if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
                return Err(wrong("an integer"));
            }
            value.extract::<i64>().map(Arg::Int).map_err(|_| {
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
            if value.is_instance_of::<PyBool>()
                || !(value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyInt>())
            {
                return Err(wrong(&format!("a float ({})", scalar.name())));
            }
            value
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

/// "`copy` takes 4 arguments (m, k, a, out), or 2 (a, out) with m, k read from the
/// tensors; 3 were given".
fn arity(signature: &Signature, sources: &[Option<(usize, usize)>], given: usize) -> String {
    let kernel = &signature.name;
    let all = runtime::marshal::declared_params(signature);
    let mut text = format!("`{kernel}` takes {all} arguments ({})", names(signature));
    let required: Vec<&str> = (signature.params[..all].iter().zip(sources))
        .filter(|(_, source)| source.is_none())
        .map(|(param, _)| param.name.as_str())
        .collect();
    if required.len() < all {
        let read: Vec<&str> = (signature.params[..all].iter().zip(sources))
            .filter(|(_, source)| source.is_some())
            .map(|(param, _)| param.name.as_str())
            .collect();
        text.push_str(&format!(
            ", or {} ({}) with {} read from the tensors",
            required.len(),
            required.join(", "),
            read.join(", ")
        ));
    }
    let verb = if given == 1 { "was" } else { "were" };
    format!("{text}; {given} {verb} given")
}

/// Checks that each tensor's strides are those of the layout the kernel reads it
/// through, with the integer arguments `ints` (by parameter index): a tensor dimension
/// that covers several of the layout's modes must hold them first-mode-fastest, as CuTe
/// flattens a coordinate. Extents of 1 have no stride to check.
pub fn check_strides(signature: &Signature, args: &[Arg], ints: &[i64]) -> Result<(), CallError> {
    for (index, (param, arg)) in signature.params.iter().zip(args).enumerate() {
        let (ParamKind::Tensor { shape, strides, .. }, Arg::Tensor(tensor)) = (&param.kind, arg)
        else {
            continue;
        };
        let evaluate = |exprs: &[HostExpr]| -> Option<Ints> {
            exprs.iter().map(|expr| expr.evaluate(ints)).collect()
        };
        let (Some(extents), Some(layout_strides)) = (evaluate(shape), evaluate(strides)) else {
            continue;
        };
        let mut mode = 0;
        for (dim, (&extent, &stride)) in tensor.shape.iter().zip(&tensor.strides).enumerate() {
            let mut covered: i64 = 1;
            while covered < extent as i64 && mode < extents.len() {
                if extents[mode] > 1 && layout_strides[mode] != stride.saturating_mul(covered) {
                    return Err(CallError::value(
                        index,
                        format!(
                            "`{}`: `{}` has strides {:?}, but the kernel reads it with strides {:?} (dimension {dim} differs); pass a tensor laid out that way (for row-major, .contiguous())",
                            signature.name, param.name, tensor.strides, layout_strides
                        ),
                    ));
                }
                covered = covered.saturating_mul(extents[mode]);
                mode += 1;
            }
        }
    }
    Ok(())
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
                strides: None,
                address: tensor.address,
            },
        })
        .collect()
}

/// The integer arguments by parameter index (0 for the others), as the signature's
/// expressions read them.
pub fn ints(args: &[Arg]) -> Ints {
    args.iter()
        .map(|arg| match arg {
            Arg::Int(value) => *value,
            _ => 0,
        })
        .collect()
}
