//! From a kernel call in host code to what the driver launches, without touching the
//! GPU: the instantiation chosen by its const arguments, every argument checked against
//! the [`Signature`] (integer ranges, float ranges, tensor dtypes, shapes and strides,
//! the kernel's assumptions and alignments) and converted to its ABI value, and the
//! launch configuration evaluated. Every error names the kernel.
//!
//! A float argument is rounded once to its parameter's type, as a tensor element is
//! (`element::encode`); a bool is passed as a 32-bit 0 or 1. A kernel's TMA tensor-map
//! parameters come after the ones it declares and are not passed by the caller: each is
//! derived from the tensor argument it describes (`tensor_map.rs`).
//!
//! [`plan`] checks one call; a [`Planner`] keeps what depends on the signature alone
//! (`planner.rs`) for a host that calls a kernel many times. `values.rs` checks and
//! converts each argument, `requirements.rs` the assumptions and alignments, `elements.rs`
//! what the kernel requires of integer tensors' elements, ranges and offsets arrays
//! (`offsets.rs`; they need the data, so a host with it calls [`check_elements`]
//! itself), and
//! `expr.rs` prepares the signature's expressions for evaluation. A call of
//! up to [`INLINE_ARGS`] parameters, with tensors of up to as many modes, is checked and
//! planned without allocating; strings are made only for errors.

mod elements;
mod errors;
mod expr;
mod offsets;
mod planner;
mod requirements;
mod values;

use kir::{ConstValue, Element, ParamKind, Signature};
use smallvec::SmallVec;

use crate::CompiledKernel;
use crate::tensor_map::TensorMapArgs;

pub use elements::{ElementError, ElementProblem, OUT_OF_RANGE, check_elements};
pub use errors::{PlanError, SelectError};
pub use offsets::{OffsetFault, check_offsets};
pub use planner::Planner;

/// One argument of a kernel call, as the host holds it.
#[derive(Clone, Copy, Debug)]
pub enum CallArg<'a> {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A bool.
    Bool(bool),
    /// A tensor: its dtype, shape, strides when the host knows them, and device
    /// address.
    Tensor {
        /// The element type.
        dtype: Element,
        /// The extents.
        shape: &'a [usize],
        /// The strides in elements, checked against the layout's; `None` for a tensor
        /// the host made row-major.
        strides: Option<&'a [i64]>,
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
    /// A TMA tensor map, passed by value: the address of the tensor it describes
    /// here; the map to encode (`cuTensorMapEncodeTiled`) is the plan's next in
    /// [`LaunchPlan::maps`].
    TensorMap(u64),
}

impl ArgValue {
    /// The little-endian bytes the kernel reads.
    pub fn bytes(self) -> Vec<u8> {
        match self {
            ArgValue::I32(value) => value.to_le_bytes().to_vec(),
            ArgValue::I64(value) => value.to_le_bytes().to_vec(),
            ArgValue::U32(value) => value.to_le_bytes().to_vec(),
            // Without a driver to encode it, the tensor's address stands for a map (what
            // the emulator is given).
            ArgValue::U64(value) | ArgValue::Address(value) | ArgValue::TensorMap(value) => {
                value.to_le_bytes().to_vec()
            }
            ArgValue::F16(bits) | ArgValue::BF16(bits) => bits.to_le_bytes().to_vec(),
            ArgValue::F32(value) => value.to_le_bytes().to_vec(),
            ArgValue::F64(value) => value.to_le_bytes().to_vec(),
        }
    }

    /// An argument of the same type holding `bits` (its low bits, for a narrower one):
    /// what a multi-rank launch writes into its hidden parameters.
    pub fn with_bits(self, bits: u64) -> ArgValue {
        match self {
            ArgValue::I32(_) => ArgValue::I32(bits as u32 as i32),
            ArgValue::I64(_) => ArgValue::I64(bits as i64),
            ArgValue::U32(_) => ArgValue::U32(bits as u32),
            ArgValue::U64(_) => ArgValue::U64(bits),
            ArgValue::Address(_) => ArgValue::Address(bits),
            ArgValue::TensorMap(_) => ArgValue::TensorMap(bits),
            ArgValue::F16(_) => ArgValue::F16(bits as u16),
            ArgValue::BF16(_) => ArgValue::BF16(bits as u16),
            ArgValue::F32(_) => ArgValue::F32(f32::from_bits(bits as u32)),
            ArgValue::F64(_) => ArgValue::F64(f64::from_bits(bits)),
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

/// Tensor maps a launch holds on the stack.
pub const INLINE_MAPS: usize = 2;

/// A launch's tensor maps, in the order of their parameters.
pub type TensorMaps = SmallVec<[TensorMapArgs; INLINE_MAPS]>;

/// Integers by parameter (or mode) index, as the signature's expressions read them.
pub type Ints = SmallVec<[i64; INLINE_ARGS]>;

/// Everything a launch needs.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchPlan {
    /// The arguments in ABI order.
    pub args: LaunchArgs,
    /// What encodes each [`ArgValue::TensorMap`] of `args`, in order.
    pub maps: TensorMaps,
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
) -> Result<usize, SelectError> {
    let candidates: Vec<usize> = (0..kernels.len())
        .filter(|index| kernels[*index].signature.name == name)
        .collect();
    if candidates.is_empty() {
        return Err(SelectError::NotCompiled {
            name: name.to_owned(),
        });
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
    Err(SelectError::NoneAgrees {
        name: name.to_owned(),
        wanted: const_text(consts),
        compiled,
    })
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

/// Checks a call's arguments against `signature` and works out the launch; a failed
/// check says which parameter it is about.
pub fn plan(signature: &Signature, args: &[CallArg<'_>]) -> Result<LaunchPlan, PlanError> {
    Planner::new(signature).plan(args)
}

/// How many parameters the caller passes: those before the hidden tensor maps.
pub fn declared_params(signature: &Signature) -> usize {
    (signature.params.iter())
        .take_while(|param| !matches!(param.kind, ParamKind::TensorMap(_)))
        .count()
}
