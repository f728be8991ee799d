//! From a kernel call in host code to what the driver launches, without touching the
//! GPU: the instantiation chosen by its const arguments, every argument checked against
//! the [`Signature`] (integer ranges, float ranges, tensor dtypes and shapes, the
//! kernel's assumptions) and converted to its ABI value, and the launch configuration
//! evaluated. Every error names the kernel.
//!
//! A float argument is rounded once to its parameter's type, as a tensor element is
//! (`element::encode`); a bool is passed as a 32-bit 0 or 1. A kernel's TMA tensor-map
//! parameters come after the ones it declares and are not passed by the caller: each is
//! derived from the tensor argument it describes (`tensor_map.rs`).
//!
//! A call of up to [`INLINE_ARGS`] parameters, with tensors of up to as many modes, is
//! checked and planned without allocating; strings are made only for errors.

use kir::{ConstValue, Element, HostExpr, IntParam, Param, ParamKind, ScalarParam, Signature};
use smallvec::SmallVec;

use crate::CompiledKernel;
use crate::element::{decode, encode};
use crate::tensor::shape_text;
use crate::tensor_map::{TensorMapArgs, tensor_map_args};

/// One argument of a kernel call, as the host holds it.
#[derive(Clone, Copy, Debug)]
pub enum CallArg<'a> {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A bool.
    Bool(bool),
    /// A tensor: its dtype, row-major shape, and device address.
    Tensor {
        /// The element type.
        dtype: Element,
        /// The extents.
        shape: &'a [usize],
        /// The address of its first element on the device.
        address: u64,
    },
}

/// A kernel argument as passed to the driver: the value with the parameter's width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgValue {
    /// `i32`.
    I32(i32),
    /// `i64`.
    I64(i64),
    /// `u32`.
    U32(u32),
    /// `u64`.
    U64(u64),
    /// `f16`, as its bits.
    F16(u16),
    /// `bf16`, as its bits.
    BF16(u16),
    /// `f32`.
    F32(f32),
    /// `f64`.
    F64(f64),
    /// A tensor's global address.
    Address(u64),
    /// A TMA tensor map, to encode (`cuTensorMapEncodeTiled`) and pass by value.
    TensorMap(TensorMapArgs),
}

impl ArgValue {
    /// The little-endian bytes the kernel reads.
    pub fn bytes(self) -> Vec<u8> {
        match self {
            ArgValue::I32(value) => value.to_le_bytes().to_vec(),
            ArgValue::I64(value) => value.to_le_bytes().to_vec(),
            ArgValue::U32(value) => value.to_le_bytes().to_vec(),
            ArgValue::U64(value) | ArgValue::Address(value) => value.to_le_bytes().to_vec(),
            // Without a driver to encode it, the tensor's address stands for the map
            // (what the emulator is given).
            ArgValue::TensorMap(map) => map.address.to_le_bytes().to_vec(),
            ArgValue::F16(bits) | ArgValue::BF16(bits) => bits.to_le_bytes().to_vec(),
            ArgValue::F32(value) => value.to_le_bytes().to_vec(),
            ArgValue::F64(value) => value.to_le_bytes().to_vec(),
        }
    }
}

/// The kernel's parameter space as the driver fills it: each argument at the next
/// offset aligned to its own size (every parameter type here is naturally aligned).
pub fn param_buffer(args: &[ArgValue]) -> Vec<u8> {
    let mut buffer = Vec::new();
    for arg in args {
        let bytes = arg.bytes();
        while buffer.len() % bytes.len() != 0 {
            buffer.push(0);
        }
        buffer.extend_from_slice(&bytes);
    }
    buffer
}

/// Parameters (and modes of a tensor) a call holds on the stack.
pub const INLINE_ARGS: usize = 8;

/// A launch's arguments in ABI order.
pub type LaunchArgs = SmallVec<[ArgValue; INLINE_ARGS]>;

/// Integers by parameter (or mode) index, as the signature's expressions read them.
pub type Ints = SmallVec<[i64; INLINE_ARGS]>;

/// Everything a launch needs.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchPlan {
    /// The arguments in ABI order.
    pub args: LaunchArgs,
    /// Blocks per grid, x y z.
    pub grid: [u32; 3],
    /// Threads per block, x y z.
    pub block: [u32; 3],
    /// Blocks per cluster, x y z; the grid is a multiple of it.
    pub cluster: [u32; 3],
    /// Bytes of dynamic shared memory.
    pub shared_bytes: u32,
}

/// Shared memory a block may use without opting in to more.
pub const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

/// Picks the compiled instantiation of kernel `name` whose const arguments agree with
/// `consts` (the call's named const arguments with the other const parameters at their
/// defaults; a parameter missing there is not compared). Returns its index in `kernels`.
pub fn select(
    kernels: &[CompiledKernel],
    name: &str,
    consts: &[(String, ConstValue)],
) -> Result<usize, String> {
    let candidates: Vec<usize> = (0..kernels.len())
        .filter(|index| kernels[*index].signature.name == name)
        .collect();
    if candidates.is_empty() {
        return Err(format!("kernel `{name}` was not compiled"));
    }
    let agrees = |kernel: &CompiledKernel| {
        kernel.signature.const_args.iter().all(|(param, value)| {
            consts
                .iter()
                .find(|(wanted, _)| wanted == param)
                .is_none_or(|(_, wanted)| wanted == value)
        })
    };
    if let Some(index) = candidates
        .iter()
        .copied()
        .find(|index| agrees(&kernels[*index]))
    {
        return Ok(index);
    }
    let compiled: Vec<String> = candidates
        .iter()
        .map(|index| const_text(&kernels[*index].signature.const_args))
        .collect();
    Err(format!(
        "kernel `{name}` was not compiled with {}; compiled: {}",
        const_text(consts),
        compiled.join("; ")
    ))
}

fn const_text(consts: &[(String, ConstValue)]) -> String {
    if consts.is_empty() {
        return "no const arguments".to_owned();
    }
    let parts: Vec<String> = consts
        .iter()
        .map(|(name, value)| format!("{name} = {value}"))
        .collect();
    parts.join(", ")
}

/// Why a call cannot be launched: the message, and the index in the signature's
/// parameters of the parameter it is about, when there is one (a host that knows where
/// each parameter is declared adds the line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError {
    /// The parameter the message is about.
    pub param: Option<usize>,
    /// What is wrong, naming the kernel.
    pub message: String,
}

/// Checks a call's arguments against `signature` and works out the launch.
pub fn plan(signature: &Signature, args: &[CallArg<'_>]) -> Result<LaunchPlan, String> {
    plan_checked(signature, args).map_err(|error| error.message)
}

/// [`plan`], saying which parameter a failed check is about.
pub fn plan_checked(signature: &Signature, args: &[CallArg<'_>]) -> Result<LaunchPlan, PlanError> {
    let kernel = &signature.name;
    let about = |param: usize| {
        move |message: String| PlanError {
            param: Some(param),
            message,
        }
    };
    let declared = declared_params(signature);
    if args.len() != declared {
        return Err(PlanError {
            param: None,
            message: format!(
                "`{kernel}` takes {declared} arguments, but {} were given",
                args.len()
            ),
        });
    }
    // The integer arguments by parameter index, for the signature's expressions.
    let ints: Ints = args
        .iter()
        .map(|arg| match arg {
            CallArg::Int(value) => *value,
            CallArg::Float(_) | CallArg::Bool(_) | CallArg::Tensor { .. } => 0,
        })
        .collect();
    let mut values = LaunchArgs::with_capacity(signature.params.len());
    for (index, (param, arg)) in signature.params.iter().zip(args).enumerate() {
        values.push(argument_value(kernel, param, arg, &ints).map_err(about(index))?);
    }
    for (index, param) in signature.params.iter().enumerate().skip(declared) {
        let map = hidden_map(signature, param, args, &ints).map_err(|problem| {
            about(index)(format!(
                "`{kernel}`: the tensor map `{}`: {problem}",
                param.name
            ))
        })?;
        values.push(ArgValue::TensorMap(map));
    }
    for assumption in &signature.assumptions {
        let param = signature.params.get(assumption.param);
        let value = ints.get(assumption.param).copied();
        let (Some(param), Some(value)) = (param, value) else {
            return Err(PlanError {
                param: None,
                message: format!(
                    "`{kernel}`: an assumption names parameter {}, which does not exist",
                    assumption.param
                ),
            });
        };
        if assumption.multiple != 0 && value % assumption.multiple != 0 {
            return Err(about(assumption.param)(format!(
                "`{kernel}`: `{}` = {value} must be a multiple of {}: {}",
                param.name, assumption.multiple, assumption.reason
            )));
        }
    }
    for alignment in &signature.alignments {
        let param = signature.params.get(alignment.param);
        let address = args.get(alignment.param).and_then(|arg| match arg {
            CallArg::Tensor { address, .. } => Some(*address),
            _ => None,
        });
        let (Some(param), Some(address)) = (param, address) else {
            return Err(PlanError {
                param: None,
                message: format!(
                    "`{kernel}`: an alignment names parameter {}, which is not a tensor",
                    alignment.param
                ),
            });
        };
        if alignment.bytes != 0 && address % u64::from(alignment.bytes) != 0 {
            return Err(about(alignment.param)(format!(
                "`{kernel}`: `{}` starts at address {address:#x}, which is not a multiple of {} bytes: {}",
                param.name, alignment.bytes, alignment.reason
            )));
        }
    }
    let evaluate = |expr: &HostExpr, what: &str| {
        expr.evaluate(&ints).ok_or_else(|| {
            format!("`{kernel}`: {what} `{expr}` cannot be evaluated with these arguments (division by zero or overflow)")
        })
    };
    let dimensions = |exprs: &[HostExpr; 3], what: &str| -> Result<[u32; 3], PlanError> {
        let unplaced = |message| PlanError {
            param: None,
            message,
        };
        let mut out = [1u32; 3];
        for (slot, expr) in out.iter_mut().zip(exprs) {
            let value = evaluate(expr, what).map_err(unplaced)?;
            *slot = u32::try_from(value).ok().filter(|value| *value > 0).ok_or_else(|| {
                let all: Vec<String> = exprs
                    .iter()
                    .map(|expr| expr.evaluate(&ints).map_or("?".to_owned(), |value| value.to_string()))
                    .collect();
                format!(
                    "`{kernel}`: the {what} would be ({}) with these arguments; each extent must be at least 1",
                    all.join(", ")
                )
            }).map_err(unplaced)?;
        }
        Ok(out)
    };
    let grid = dimensions(&signature.launch.grid, "grid")?;
    let cluster = signature.launch.cluster;
    if (grid.iter().zip(cluster)).any(|(grid, cluster)| cluster == 0 || grid % cluster != 0) {
        let [x, y, z] = grid;
        let [cx, cy, cz] = cluster;
        return Err(PlanError {
            param: None,
            message: format!(
                "`{kernel}`: the grid would be ({x}, {y}, {z}) with these arguments, not a whole number of clusters of ({cx}, {cy}, {cz}) blocks"
            ),
        });
    }
    Ok(LaunchPlan {
        args: values,
        grid,
        block: dimensions(&signature.launch.block, "block")?,
        cluster,
        shared_bytes: signature.launch.shared_bytes,
    })
}

/// How many parameters the caller passes: those before the hidden tensor maps.
pub fn declared_params(signature: &Signature) -> usize {
    (signature.params.iter())
        .take_while(|param| !matches!(param.kind, ParamKind::TensorMap(_)))
        .count()
}

/// The encoding arguments of the hidden tensor-map parameter `param` from the call's
/// tensor argument it describes.
fn hidden_map(
    signature: &Signature,
    param: &Param,
    args: &[CallArg<'_>],
    ints: &[i64],
) -> Result<TensorMapArgs, String> {
    let ParamKind::TensorMap(map) = &param.kind else {
        return Err("a declared parameter after the tensor maps".to_owned());
    };
    let tensor = signature.params.get(map.tensor);
    let (
        Some(ParamKind::Tensor {
            dtype,
            shape,
            strides,
        }),
        Some(CallArg::Tensor { address, .. }),
    ) = (tensor.map(|tensor| &tensor.kind), args.get(map.tensor))
    else {
        return Err(format!("parameter {} is not a tensor argument", map.tensor));
    };
    let evaluate = |exprs: &[HostExpr]| -> Result<Ints, String> {
        (exprs.iter())
            .map(|expr| {
                expr.evaluate(ints)
                    .ok_or_else(|| format!("`{expr}` cannot be evaluated"))
            })
            .collect()
    };
    tensor_map_args(
        map,
        *dtype,
        *address,
        (&evaluate(shape)?[..], &evaluate(strides)?[..]),
    )
}

/// One argument checked against its parameter and converted to its ABI value;
/// `ints` holds the call's integer arguments by parameter index.
fn argument_value(
    kernel: &str,
    param: &Param,
    arg: &CallArg<'_>,
    ints: &[i64],
) -> Result<ArgValue, String> {
    // `what` names the expression for the error, formatted only when there is one.
    let evaluate = |expr: &HostExpr, what: &dyn Fn() -> String| {
        expr.evaluate(ints).ok_or_else(|| {
            format!("`{kernel}`: {} `{expr}` cannot be evaluated with these arguments (division by zero or overflow)", what())
        })
    };
    let name = &param.name;
    match (&param.kind, arg) {
        (ParamKind::Int(width), CallArg::Int(value)) => {
            let out_of_range = || {
                format!(
                    "`{kernel}`: {value} does not fit `{name}: {}`",
                    width.name()
                )
            };
            Ok(match width {
                IntParam::I32 => ArgValue::I32(i32::try_from(*value).map_err(|_| out_of_range())?),
                IntParam::I64 => ArgValue::I64(*value),
                IntParam::U32 => ArgValue::U32(u32::try_from(*value).map_err(|_| out_of_range())?),
                IntParam::U64 => ArgValue::U64(u64::try_from(*value).map_err(|_| out_of_range())?),
            })
        }
        (
            ParamKind::Tensor {
                dtype,
                shape,
                strides,
            },
            CallArg::Tensor {
                dtype: given,
                shape: given_shape,
                address,
            },
        ) => {
            if dtype != given {
                return Err(format!(
                    "`{kernel}`: `{name}` holds {}, but this tensor holds {}",
                    dtype.name(),
                    given.name()
                ));
            }
            let extents = shape
                .iter()
                .map(|extent| evaluate(extent, &|| format!("the extent of `{name}`")))
                .collect::<Result<Ints, String>>()?;
            if !shape_fits(&extents, given_shape) {
                return Err(format!(
                    "`{kernel}`: `{name}` needs a tensor of shape {} with these arguments, but this one has shape {}",
                    i64_shape_text(&extents),
                    shape_text(given_shape)
                ));
            }
            let strides = strides
                .iter()
                .map(|stride| evaluate(stride, &|| format!("a stride of `{name}`")))
                .collect::<Result<Ints, String>>()?;
            let reach = extents
                .iter()
                .zip(&strides)
                .try_fold(1i64, |reach, (extent, stride)| {
                    reach.checked_add((extent - 1).checked_mul((*stride).max(0))?)
                });
            let count: usize = given_shape.iter().product();
            if reach.is_none_or(|reach| reach > count as i64) {
                return Err(format!(
                    "`{kernel}`: `{name}`'s layout reaches past the {count} elements of its tensor"
                ));
            }
            Ok(ArgValue::Address(*address))
        }
        (ParamKind::Scalar(ScalarParam::Bool), CallArg::Bool(value)) => {
            Ok(ArgValue::U32(u32::from(*value)))
        }
        (ParamKind::Scalar(scalar), CallArg::Float(value))
            if let Some(element) = float_element(*scalar) =>
        {
            float_arg(element, *value).ok_or_else(|| {
                format!(
                    "`{kernel}`: {value:?} does not fit `{name}: {}`",
                    scalar.name()
                )
            })
        }
        (kind, arg) => Err(format!(
            "`{kernel}`: `{name}` is {}, but {} was given",
            param_text(kind),
            arg_text(arg)
        )),
    }
}

/// The float type of a scalar parameter, as a tensor element type; `None` for a bool.
fn float_element(scalar: ScalarParam) -> Option<Element> {
    match scalar {
        ScalarParam::F16 => Some(Element::F16),
        ScalarParam::BF16 => Some(Element::BF16),
        ScalarParam::F32 => Some(Element::F32),
        ScalarParam::F64 => Some(Element::F64),
        ScalarParam::Bool => None,
    }
}

/// `value` rounded once to the float type `element`, as a tensor element of that type
/// is; `None` when a finite value overflows it.
fn float_arg(element: Element, value: f64) -> Option<ArgValue> {
    let mut buffer = [0u8; 8];
    let bytes = &mut buffer[..element.bytes()];
    encode(element, value, bytes);
    if value.is_finite() && !decode(element, bytes).is_finite() {
        return None;
    }
    let [b0, b1, b2, b3, ..] = buffer;
    Some(match element {
        Element::F16 => ArgValue::F16(u16::from_le_bytes([b0, b1])),
        Element::BF16 => ArgValue::BF16(u16::from_le_bytes([b0, b1])),
        Element::F32 => ArgValue::F32(f32::from_le_bytes([b0, b1, b2, b3])),
        _ => ArgValue::F64(value),
    })
}

/// What a parameter takes, for messages: "an integer", "an f32", "a tensor".
fn param_text(kind: &ParamKind) -> String {
    match kind {
        ParamKind::Int(_) => "an integer".to_owned(),
        ParamKind::Scalar(scalar) => {
            let name = scalar.name();
            let article = if name.starts_with('f') { "an" } else { "a" };
            format!("{article} {name}")
        }
        ParamKind::Tensor { .. } => "a tensor".to_owned(),
        ParamKind::TensorMap(_) => "a TMA tensor map (derived, not passed)".to_owned(),
    }
}

/// What an argument is, for messages.
fn arg_text(arg: &CallArg<'_>) -> &'static str {
    match arg {
        CallArg::Int(_) => "an integer",
        CallArg::Float(_) => "a float",
        CallArg::Bool(_) => "a bool",
        CallArg::Tensor { .. } => "a tensor",
    }
}

/// Whether a row-major host shape fits the kernel's flattened extents: equal, or each
/// host extent the product of a run of consecutive kernel extents.
fn shape_fits(extents: &[i64], shape: &[usize]) -> bool {
    let mut kernel = extents.iter();
    for extent in shape {
        let mut product: i64 = 1;
        while product < *extent as i64 {
            let Some(next) = kernel.next() else {
                return false;
            };
            let Some(grown) = product.checked_mul(*next) else {
                return false;
            };
            product = grown;
        }
        if product != *extent as i64 {
            return false;
        }
    }
    // Extents of 1 may remain; anything else is a mode the tensor does not have.
    kernel.all(|extent| *extent == 1)
}

fn i64_shape_text(shape: &[i64]) -> String {
    let extents: Vec<String> = shape.iter().map(ToString::to_string).collect();
    format!("({})", extents.join(", "))
}
