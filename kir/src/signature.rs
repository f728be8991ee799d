//! What the host needs to call a compiled kernel: its parameters in ABI order and its
//! launch configuration as expressions over the run-time integer parameters.
//!
//! The ABI is plain: an integer parameter is passed by value with its own width, a
//! float scalar by value with its own width, a bool as a 32-bit 0 or 1, and a tensor
//! parameter as one 64-bit global address of its first element. A tensor's extents are
//! the integer parameters its layout names, so the host passes them separately, as the
//! kernel's signature lists them.

use std::fmt;

/// A kernel as the host sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The kernel's name in the source.
    pub name: String,
    /// The PTX entry name: the source name, plus the const arguments when the
    /// instantiation is not the default one (`copy_swizzled_smem__SWIZZLE_BITS_0`).
    pub entry: String,
    /// The const parameters this instantiation was compiled with, in declaration
    /// order, defaults included.
    pub const_args: Vec<(String, ConstValue)>,
    /// The run-time parameters, in declaration (and ABI) order.
    pub params: Vec<Param>,
    /// How to launch it.
    pub launch: Launch,
    /// What the compiled code assumes of the integer arguments (a vectorized access
    /// needs a run-time extent to be a multiple of its width); the host checks each
    /// before launching.
    pub assumptions: Vec<Assumption>,
    /// What the compiled code assumes of the tensor arguments' addresses (a 128-bit
    /// access needs its tensor's first element 16-byte aligned); the host checks each.
    pub alignments: Vec<Alignment>,
    /// What the compiled code assumes of the values in integer tensor arguments (a
    /// page index below the number of pages, packed sequences' offsets): the host
    /// checks every element before launching (`require_range`, `require_offsets`).
    pub element_requirements: Vec<ElementRequirement>,
}

impl Signature {
    /// The signature of a kernel `name` (its entry too) with no const or run-time
    /// parameters, launched as one block of one thread ([`Launch::single_thread`]) and
    /// assuming nothing: where the KIR reader starts, and the base tests build their
    /// signatures on (`Signature { params, ..Signature::empty("k") }`).
    pub fn empty(name: &str) -> Signature {
        Signature {
            name: name.to_owned(),
            entry: name.to_owned(),
            const_args: Vec::new(),
            params: Vec::new(),
            launch: Launch::single_thread(),
            assumptions: Vec::new(),
            alignments: Vec::new(),
            element_requirements: Vec::new(),
        }
    }
}

/// What the elements of an integer tensor argument must satisfy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElementRequirement {
    /// The index in [`Signature::params`] of the tensor parameter.
    pub param: usize,
    /// What its elements must satisfy.
    pub rule: ElementRule,
    /// Where the kernel states it (`require_range`, `require_offsets`), for messages.
    pub span: lang::Span,
}

/// A rule over an integer tensor argument's elements, its numbers expressions over the
/// integer parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ElementRule {
    /// Every element lies in `low..high` (`require_range`).
    Range {
        /// The least value allowed.
        low: HostExpr,
        /// One past the largest value allowed.
        high: HostExpr,
    },
    /// The 1-D argument is an offsets array (`require_offsets`): its first element is 0,
    /// it never decreases, its last element is `total`, and each step from one element
    /// to the next is at most `max_step` when there is one.
    Offsets {
        /// What the last element equals.
        total: HostExpr,
        /// The largest step allowed, if any.
        max_step: Option<HostExpr>,
    },
}

/// A tensor argument's address must be a multiple of `bytes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alignment {
    /// The index in [`Signature::params`] of the tensor parameter.
    pub param: usize,
    /// What its address must be a multiple of, in bytes (a power of two).
    pub bytes: u32,
    /// Why, for the error message: "a vector access moves 8 bf16 at a time".
    pub reason: String,
}

/// An integer argument must be a multiple of `multiple`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumption {
    /// The index in [`Signature::params`] of the integer parameter.
    pub param: usize,
    /// What it must be a multiple of.
    pub multiple: i64,
    /// Why, for the error message: "`copy` moves 8 bf16 at a time along `k`".
    pub reason: String,
}

/// A run-time parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name in the source.
    pub name: String,
    /// What is passed.
    pub kind: ParamKind,
}

/// What a run-time parameter passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An integer by value.
    Int(IntParam),
    /// A float or bool by value (a bool as a 32-bit 0 or 1).
    Scalar(ScalarParam),
    /// A tensor in global memory: its address is passed; `shape` is its shape as
    /// expressions over the integer parameters (the host checks the tensor it is
    /// given against it), `strides` likewise.
    Tensor {
        /// The element type.
        dtype: Element,
        /// The extent of each mode, flattened.
        shape: Vec<HostExpr>,
        /// The stride of each mode, in elements, flattened.
        strides: Vec<HostExpr>,
    },
    /// A TMA tensor map (`CUtensorMap`, 128 bytes passed by value) over a tensor
    /// parameter, which the host encodes before each launch
    /// (`cuTensorMapEncodeTiled`); the kernel reads its address.
    TensorMap(TensorMap),
}

/// What a TMA tensor map describes: a global tensor parameter seen as a
/// `modes.len()`-dimensional array, innermost dimension first, copied in boxes of
/// `box_shape` elements into shared memory swizzled by `swizzle`. Element
/// strides are 1, interleave none, L2 promotion 128 bytes, and out-of-bounds elements
/// read as zeros.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMap {
    /// The index in [`Signature::params`] of the tensor parameter.
    pub tensor: usize,
    /// The tensor's (flattened) modes in the map's dimension order, innermost first:
    /// the first has stride 1, the others' strides are the map's global strides.
    pub modes: Vec<usize>,
    /// The box's extent in each of the map's dimensions, in elements.
    pub box_shape: Vec<u32>,
    /// The shared-memory swizzle the copy writes: its span in bytes (0 for none, 32,
    /// 64 or 128).
    pub swizzle: u32,
}

impl TensorMap {
    /// The bytes one box moves, for `elem_bytes`-byte elements.
    pub fn box_bytes(&self, elem_bytes: u32) -> u64 {
        self.box_shape
            .iter()
            .fold(u64::from(elem_bytes), |bytes, extent| {
                bytes.saturating_mul(u64::from(*extent))
            })
    }
}

/// The text form: `i32`, `f32`, `bool`, `tensor bf16 shape(%0, %1) strides(%1, 1)`, or
/// `tensor_map %3 modes(1, 0) box(64, 128) swizzle(128)`.
impl fmt::Display for ParamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |exprs: &[HostExpr]| {
            exprs
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            ParamKind::Int(int) => f.write_str(int.name()),
            ParamKind::Scalar(scalar) => f.write_str(scalar.name()),
            ParamKind::Tensor {
                dtype,
                shape,
                strides,
            } => write!(
                f,
                "tensor {} shape({}) strides({})",
                dtype.name(),
                list(shape),
                list(strides)
            ),
            ParamKind::TensorMap(map) => {
                let numbers = |numbers: &mut dyn Iterator<Item = String>| {
                    numbers.collect::<Vec<_>>().join(", ")
                };
                write!(
                    f,
                    "tensor_map %{} modes({}) box({}) swizzle({})",
                    map.tensor,
                    numbers(&mut map.modes.iter().map(ToString::to_string)),
                    numbers(&mut map.box_shape.iter().map(ToString::to_string)),
                    map.swizzle
                )
            }
        }
    }
}

/// The value of a const parameter: an integer or a dtype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstValue {
    /// An integer.
    Int(i64),
    /// A dtype, by its name in `.cuk` (`bf16`).
    Dtype(String),
}

impl fmt::Display for ConstValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstValue::Int(value) => write!(f, "{value}"),
            ConstValue::Dtype(name) => f.write_str(name),
        }
    }
}

/// The width and signedness of an integer parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntParam {
    /// `i8`, passed as an `i32` holding its value (sign-extended).
    I8,
    /// `u8`, passed as a `u32` holding its value (zero-extended).
    U8,
    /// `i16`, passed as an `i32` holding its value.
    I16,
    /// `u16`, passed as a `u32` holding its value.
    U16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
}

impl IntParam {
    /// Every integer parameter type.
    pub const ALL: [IntParam; 8] = [
        IntParam::I8,
        IntParam::U8,
        IntParam::I16,
        IntParam::U16,
        IntParam::I32,
        IntParam::I64,
        IntParam::U32,
        IntParam::U64,
    ];

    /// The name in `.cuk` source.
    pub fn name(self) -> &'static str {
        match self {
            IntParam::I8 => "i8",
            IntParam::U8 => "u8",
            IntParam::I16 => "i16",
            IntParam::U16 => "u16",
            IntParam::I32 => "i32",
            IntParam::I64 => "i64",
            IntParam::U32 => "u32",
            IntParam::U64 => "u64",
        }
    }

    /// The type of this name in `.cuk` source.
    pub fn from_name(name: &str) -> Option<IntParam> {
        IntParam::ALL.into_iter().find(|width| width.name() == name)
    }

    /// The size in bytes of what is passed (4 for the 8- and 16-bit types, which C's
    /// integer promotions widen too).
    pub fn bytes(self) -> usize {
        match self {
            IntParam::I8 | IntParam::U8 | IntParam::I16 | IntParam::U16 => 4,
            IntParam::I32 | IntParam::U32 => 4,
            IntParam::I64 | IntParam::U64 => 8,
        }
    }
}

/// The type of a float or bool scalar parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarParam {
    /// IEEE half, 2 bytes.
    F16,
    /// bfloat16, 2 bytes.
    BF16,
    /// IEEE single, 4 bytes.
    F32,
    /// IEEE double, 8 bytes.
    F64,
    /// A bool, passed as a 32-bit integer holding 0 or 1: PTX has no predicate
    /// parameters, so the kernel reads the integer and compares it with 0.
    Bool,
}

impl ScalarParam {
    /// Every scalar parameter type.
    pub const ALL: [ScalarParam; 5] = [
        ScalarParam::F16,
        ScalarParam::BF16,
        ScalarParam::F32,
        ScalarParam::F64,
        ScalarParam::Bool,
    ];

    /// The name in `.cuk` source.
    pub fn name(self) -> &'static str {
        match self {
            ScalarParam::F16 => "f16",
            ScalarParam::BF16 => "bf16",
            ScalarParam::F32 => "f32",
            ScalarParam::F64 => "f64",
            ScalarParam::Bool => "bool",
        }
    }

    /// The type of this name in `.cuk` source.
    pub fn from_name(name: &str) -> Option<ScalarParam> {
        ScalarParam::ALL
            .into_iter()
            .find(|scalar| scalar.name() == name)
    }

    /// The size in bytes of what is passed (4 for a bool).
    pub fn bytes(self) -> usize {
        match self {
            ScalarParam::F16 | ScalarParam::BF16 => 2,
            ScalarParam::F32 | ScalarParam::Bool => 4,
            ScalarParam::F64 => 8,
        }
    }
}

/// The element types a kernel's global tensors can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
    /// 8-bit float, 4 exponent and 3 mantissa bits (no infinities; OCP FP8 E4M3).
    E4M3,
    /// 8-bit float, 5 exponent and 2 mantissa bits (OCP FP8 E5M2).
    E5M2,
    /// Signed 8-bit.
    I8,
    /// Unsigned 8-bit.
    U8,
    /// Signed 16-bit.
    I16,
    /// Unsigned 16-bit.
    U16,
    /// Signed 32-bit.
    I32,
    /// Unsigned 32-bit.
    U32,
    /// Signed 64-bit.
    I64,
    /// Unsigned 64-bit.
    U64,
}

impl Element {
    /// Every element type.
    pub const ALL: [Element; 14] = [
        Element::F16,
        Element::BF16,
        Element::F32,
        Element::F64,
        Element::E4M3,
        Element::E5M2,
        Element::I8,
        Element::U8,
        Element::I16,
        Element::U16,
        Element::I32,
        Element::U32,
        Element::I64,
        Element::U64,
    ];

    /// The type of this name in `.cuk` source.
    pub fn from_name(name: &str) -> Option<Element> {
        Element::ALL
            .into_iter()
            .find(|element| element.name() == name)
    }

    /// The size in bytes.
    pub fn bytes(self) -> usize {
        match self {
            Element::E4M3 | Element::E5M2 | Element::I8 | Element::U8 => 1,
            Element::F16 | Element::BF16 | Element::I16 | Element::U16 => 2,
            Element::F32 | Element::I32 | Element::U32 => 4,
            Element::F64 | Element::I64 | Element::U64 => 8,
        }
    }

    /// The name in `.cuk` source.
    pub fn name(self) -> &'static str {
        match self {
            Element::F16 => "f16",
            Element::BF16 => "bf16",
            Element::F32 => "f32",
            Element::F64 => "f64",
            Element::E4M3 => "e4m3",
            Element::E5M2 => "e5m2",
            Element::I8 => "i8",
            Element::U8 => "u8",
            Element::I16 => "i16",
            Element::U16 => "u16",
            Element::I32 => "i32",
            Element::U32 => "u32",
            Element::I64 => "i64",
            Element::U64 => "u64",
        }
    }
}

/// The launch configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Blocks per grid, x y z.
    pub grid: [HostExpr; 3],
    /// Threads per block, x y z.
    pub block: [HostExpr; 3],
    /// Blocks per cluster, x y z (`[1, 1, 1]`: no cluster). The entry declares it
    /// (`.reqnctapercluster`), so a plain launch forms the clusters; the grid must be a
    /// multiple of it.
    pub cluster: [u32; 3],
    /// Bytes of dynamic shared memory (the kernel's shared buffers, laid out).
    pub shared_bytes: u32,
}

impl Launch {
    /// One block of one thread, no cluster, no dynamic shared memory.
    pub fn single_thread() -> Launch {
        let one = || HostExpr::Const(1);
        Launch {
            grid: [one(), one(), one()],
            block: [one(), one(), one()],
            cluster: [1, 1, 1],
            shared_bytes: 0,
        }
    }
}

/// An integer expression the host evaluates with the call's integer arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostExpr {
    /// A constant.
    Const(i64),
    /// The integer parameter at this index of [`Signature::params`].
    Param(usize),
    /// `a + b`.
    Add(Box<HostExpr>, Box<HostExpr>),
    /// `a * b`.
    Mul(Box<HostExpr>, Box<HostExpr>),
    /// `a / b`, rounding toward zero.
    Div(Box<HostExpr>, Box<HostExpr>),
    /// `a % b`.
    Rem(Box<HostExpr>, Box<HostExpr>),
    /// `ceil(a / b)`.
    CeilDiv(Box<HostExpr>, Box<HostExpr>),
}

impl HostExpr {
    /// The value for these integer arguments (`args[i]` for parameter `i`; entries of
    /// tensor parameters are ignored). `None` on division by zero, overflow, or a
    /// parameter index out of range.
    pub fn evaluate(&self, args: &[i64]) -> Option<i64> {
        let pair = |a: &HostExpr, b: &HostExpr| Some((a.evaluate(args)?, b.evaluate(args)?));
        match self {
            HostExpr::Const(value) => Some(*value),
            HostExpr::Param(index) => args.get(*index).copied(),
            HostExpr::Add(a, b) => pair(a, b).and_then(|(a, b)| a.checked_add(b)),
            HostExpr::Mul(a, b) => pair(a, b).and_then(|(a, b)| a.checked_mul(b)),
            HostExpr::Div(a, b) => pair(a, b).and_then(|(a, b)| a.checked_div(b)),
            HostExpr::Rem(a, b) => pair(a, b).and_then(|(a, b)| a.checked_rem(b)),
            HostExpr::CeilDiv(a, b) => pair(a, b).and_then(|(a, b)| {
                let quotient = a.checked_div(b)?;
                Some(if a % b != 0 && (a < 0) == (b < 0) {
                    quotient + 1
                } else {
                    quotient
                })
            }),
        }
    }
}

impl fmt::Display for HostExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostExpr::Const(value) => write!(f, "{value}"),
            HostExpr::Param(index) => write!(f, "%{index}"),
            HostExpr::Add(a, b) => write!(f, "({a} + {b})"),
            HostExpr::Mul(a, b) => write!(f, "({a} * {b})"),
            HostExpr::Div(a, b) => write!(f, "({a} / {b})"),
            HostExpr::Rem(a, b) => write!(f, "({a} % {b})"),
            HostExpr::CeilDiv(a, b) => write!(f, "ceil_div({a}, {b})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxed(expr: HostExpr) -> Box<HostExpr> {
        Box::new(expr)
    }

    #[test]
    fn expressions_evaluate_with_the_call_arguments() {
        let grid = HostExpr::CeilDiv(boxed(HostExpr::Param(1)), boxed(HostExpr::Const(16)));
        assert_eq!(grid.evaluate(&[0, 1000]), Some(63));
        assert_eq!(grid.evaluate(&[0, 1008]), Some(63));
        assert_eq!(grid.evaluate(&[0, 1009]), Some(64));
        let scaled = HostExpr::Mul(boxed(HostExpr::Param(0)), boxed(HostExpr::Const(3)));
        assert_eq!(scaled.evaluate(&[7]), Some(21));
        assert_eq!(scaled.evaluate(&[]), None);
        let by_zero = HostExpr::Div(boxed(HostExpr::Const(1)), boxed(HostExpr::Param(0)));
        assert_eq!(by_zero.evaluate(&[0]), None);
    }

    #[test]
    fn scalar_parameters_have_names_sizes_and_a_text_form() {
        for scalar in ScalarParam::ALL {
            assert_eq!(ScalarParam::from_name(scalar.name()), Some(scalar));
            assert_eq!(ParamKind::Scalar(scalar).to_string(), scalar.name());
        }
        assert_eq!(ScalarParam::from_name("i32"), None);
        let sizes = ScalarParam::ALL.map(ScalarParam::bytes);
        assert_eq!(sizes, [2, 2, 4, 8, 4], "a bool is passed as 32 bits");
        let tensor = ParamKind::Tensor {
            dtype: Element::BF16,
            shape: vec![HostExpr::Param(0), HostExpr::Param(1)],
            strides: vec![HostExpr::Param(1), HostExpr::Const(1)],
        };
        assert_eq!(
            tensor.to_string(),
            "tensor bf16 shape(%0, %1) strides(%1, 1)"
        );
        assert_eq!(ParamKind::Int(IntParam::U64).to_string(), "u64");
    }
}
