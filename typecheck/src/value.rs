//! What the typechecker knows about a value: its type, and its contents as far as
//! they are known while compiling.
//!
//! The checker evaluates every expression to a [`Value`]. A const value carries its
//! contents (an integer, an evaluated layout); a dyn one carries what is known (its
//! type, the static parts of a tensor's layout) and, through [`Origin`], why it is only
//! known at run time. Integers are [`SymInt`]s: a constant is const, and an expression
//! over run-time variables (`8*block_idx.x+k`) is dyn, each variable remembering its
//! origin in the checker. So a tensor's offset after `local_tile` is the symbolic sum
//! CuTe would compute, and its stage follows from the variables it mentions.

use std::fmt;
use std::sync::Arc;

use cute::{Atom, Dtype, Tensor, TiledCopy, TiledMma, TmaBox};
use lang::Span;
use layout::{ComposedLayout, IntTuple, Layout, Swizzle, SymInt};

use crate::callee::Callee;
use crate::trace::Term;

/// Why a value is only known at run time, and where that started.
/// A TMA copy over a kernel's global tensor parameter (`make_tma_load`,
/// `make_tma_store`).
#[derive(Clone, Debug, PartialEq)]
pub struct TmaCopy {
    /// Whether it stores shared tiles to the tensor (else it loads them).
    pub store: bool,
    /// What one copy moves and where it puts it.
    pub boxed: TmaBox,
    /// The tensor parameter's index.
    pub tensor: usize,
    /// The hidden tensor-map parameter's index, in a traced kernel.
    pub map: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Origin {
    /// A sentence fragment such as "`k` is a kernel argument".
    pub reason: String,
    /// Where the run-time value was declared or produced, when it is in the file.
    pub span: Option<Span>,
    /// How the GPU computes it, when lowering can (a float or bool scalar; integers
    /// are their [`SymInt`]).
    pub term: Option<Arc<Term>>,
}

impl Origin {
    /// The origin of a value the GPU computes at `span` from others whose origins say
    /// nothing more.
    pub fn computed(span: Span) -> Origin {
        Origin {
            reason: "it is computed on the GPU".to_owned(),
            span: Some(span),
            term: None,
        }
    }

    /// This origin for a value computed as `term`.
    pub fn computing(&self, term: Option<Term>) -> Origin {
        Origin {
            term: term.map(Arc::new),
            ..self.clone()
        }
    }
}

/// The type of an integer: the compile-time kind `int` or a dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntType {
    /// An integer of the kind `int`: literals and const parameters; it adapts to
    /// any integer dtype it meets.
    Int,
    /// A sized integer such as `i32`.
    Sized(Dtype),
}

/// A value as the checker knows it.
#[derive(Clone, Debug)]
pub enum Value {
    /// The result of a statement-like call.
    Unit,
    /// An integer.
    Int {
        /// Its type.
        ty: IntType,
        /// Its value: a constant, or an expression over run-time variables.
        value: SymInt,
    },
    /// A floating-point number.
    Float {
        /// Its dtype, `None` for a literal that adapts to the float type it meets.
        dtype: Option<Dtype>,
        /// The value when const, or why it is dyn.
        value: Known<f64>,
    },
    /// A truth value.
    Bool(Known<bool>),
    /// A string literal.
    Str(String),
    /// A dtype used as a value (`bf16`, a `dtype` parameter).
    Dtype(Dtype),
    /// An architecture name such as `sm80`.
    Arch(u32),
    /// `_`.
    Wildcard,
    /// A tuple: int-tuples, shapes, coordinates, tilers, pairs of results.
    Tuple(Vec<Value>),
    /// A layout; const when every leaf is.
    Layout(Layout<SymInt>),
    /// A swizzle function.
    Swizzle(Swizzle),
    /// A swizzle composed with a layout.
    Composed(ComposedLayout),
    /// A tensor.
    Tensor(Arc<Tensor>),
    /// A tensor without its layout (`t.iterator`).
    Pointer(Arc<Tensor>),
    /// Whole-fragment values (`t.load()` and arithmetic on it).
    Vector {
        /// The element type.
        dtype: Dtype,
        /// The fragment's shape.
        shape: IntTuple<SymInt>,
        /// How the GPU computes it, element by element, when lowering can.
        term: Option<Arc<Term>>,
    },
    /// An instantiated atom.
    Atom(Arc<Atom>),
    /// A tiled copy.
    TiledCopy(Arc<TiledCopy>),
    /// A tiled MMA.
    TiledMma(Arc<TiledMma>),
    /// `make_tma_load`'s or `make_tma_store`'s result: a TMA box over a global tensor
    /// parameter.
    Tma(Arc<TmaCopy>),
    /// A tiled copy sliced for one thread.
    ThreadCopy {
        /// The tiled copy.
        copy: Arc<TiledCopy>,
        /// The thread index.
        thread: SymInt,
    },
    /// A tiled MMA sliced for one thread.
    ThreadMma {
        /// The tiled MMA.
        mma: Arc<TiledMma>,
        /// The thread index.
        thread: SymInt,
    },
    /// `thread_idx`, `block_idx`, `block_dim`, `grid_dim`: fields `.x`, `.y`, `.z`.
    Index3(&'static str),
    /// A tensor on the host side of a test or bench.
    HostTensor {
        /// The element type.
        dtype: Dtype,
        /// The extents, each const or not.
        shape: Vec<Option<i64>>,
    },
    /// Something that can be called: a function, kernel, atom or built-in.
    Callable(Callee),
    /// The value of an expression that already has an error: it takes any type, so
    /// one mistake gives one diagnostic.
    Unknown,
}

/// A scalar's contents: known while compiling or not.
#[derive(Clone, Debug, PartialEq)]
pub enum Known<T> {
    /// Known value.
    Const(T),
    /// Known only at run time.
    Dyn(Origin),
}

impl<T: Copy> Known<T> {
    /// The value when const.
    pub fn as_const(&self) -> Option<T> {
        match self {
            Known::Const(value) => Some(*value),
            Known::Dyn(_) => None,
        }
    }
}

impl Value {
    /// A const integer of the kind `int`.
    pub fn int(value: i64) -> Value {
        Value::Int {
            ty: IntType::Int,
            value: SymInt::constant(value),
        }
    }

    /// The value as host code holds it, when it is a const one host code can hold:
    /// an integer, float, bool, dtype or a tuple of them.
    pub fn host_const(&self) -> Option<trace::HostConst> {
        use trace::HostConst;
        match self {
            Value::Int { value, .. } => value.as_constant().map(HostConst::Int),
            Value::Float {
                value: Known::Const(value),
                ..
            } => Some(HostConst::Float(*value)),
            Value::Bool(Known::Const(value)) => Some(HostConst::Bool(*value)),
            Value::Dtype(dtype) => Some(HostConst::Dtype(*dtype)),
            Value::Tuple(items) => items
                .iter()
                .map(Value::host_const)
                .collect::<Option<_>>()
                .map(HostConst::Tuple),
            _ => None,
        }
    }

    /// The type as users read it: `int`, `i32`, `layout`, `gmem bf16 tensor`.
    pub fn type_name(&self) -> String {
        match self {
            Value::Unit => "()".to_owned(),
            Value::Int { ty, .. } => match ty {
                IntType::Int => "int".to_owned(),
                IntType::Sized(dtype) => dtype.name().to_owned(),
            },
            Value::Float { dtype, .. } => dtype.map_or("float", Dtype::name).to_owned(),
            Value::Bool(_) => "bool".to_owned(),
            Value::Str(_) => "string".to_owned(),
            Value::Dtype(_) => "dtype".to_owned(),
            Value::Arch(_) => "architecture".to_owned(),
            Value::Wildcard => "`_`".to_owned(),
            Value::Tuple(items) => {
                let items: Vec<String> = items.iter().map(Value::type_name).collect();
                if items.iter().all(|item| item == "int") {
                    "int-tuple".to_owned()
                } else {
                    format!("({})", items.join(", "))
                }
            }
            Value::Layout(_) => "layout".to_owned(),
            Value::Swizzle(_) => "swizzle".to_owned(),
            Value::Composed(_) => "composed layout".to_owned(),
            Value::Tensor(tensor) => tensor.type_name(),
            Value::Pointer(tensor) => format!("{} pointer", tensor.element_name()),
            Value::Vector { dtype, .. } => format!("{dtype} fragment value"),
            Value::Atom(atom) => format!("{} atom", atom.kind.name()),
            Value::TiledCopy(_) => "tiled copy".to_owned(),
            Value::TiledMma(_) => "tiled MMA".to_owned(),
            Value::Tma(_) => "TMA copy".to_owned(),
            Value::ThreadCopy { .. } => "thread copy".to_owned(),
            Value::ThreadMma { .. } => "thread MMA".to_owned(),
            Value::Index3(_) => "dim3".to_owned(),
            Value::HostTensor { dtype, .. } => format!("host {dtype} tensor"),
            Value::Callable(callee) => callee.kind_name().to_owned(),
            Value::Unknown => "{unknown}".to_owned(),
        }
    }

    /// The contents as users read them, when there is something to show beyond the
    /// type: `128`, `(16,8):(8,1)`, a tensor's layout and offset.
    pub fn contents(&self) -> Option<String> {
        match self {
            Value::Int { value, .. } => Some(value.to_string()),
            Value::Float {
                value: Known::Const(value),
                ..
            } => Some(format_float(*value)),
            Value::Bool(Known::Const(value)) => Some(value.to_string()),
            Value::Str(text) => Some(format!("{text:?}")),
            Value::Dtype(dtype) => Some(dtype.to_string()),
            Value::Arch(arch) => Some(format!("sm{arch}")),
            Value::Tuple(_) => Some(self.to_string()),
            Value::Layout(layout) => Some(layout.to_string()),
            Value::Swizzle(swizzle) => Some(swizzle.to_string()),
            Value::Composed(composed) => Some(composed.to_string()),
            Value::Tensor(tensor) => Some(tensor.layout.to_string()),
            Value::Pointer(tensor) => Some(format!("offset {}", tensor.layout.offset)),
            Value::Vector { shape, .. } => Some(format!("shape {shape}")),
            Value::Atom(atom) => Some(atom.summary()),
            Value::TiledCopy(copy) => Some(copy.summary()),
            Value::TiledMma(mma) => Some(mma.summary()),
            Value::Tma(tma) => Some(format!(
                "box {:?} of {}, {}-byte swizzle, {} bytes",
                tma.boxed.box_shape(),
                tma.boxed.dtype,
                tma.boxed.swizzle,
                tma.boxed.bytes()
            )),
            Value::ThreadCopy { copy, thread } => {
                Some(format!("{} for thread {thread}", copy.summary()))
            }
            Value::ThreadMma { mma, thread } => {
                Some(format!("{} for thread {thread}", mma.summary()))
            }
            Value::HostTensor { shape, .. } => Some(format!(
                "shape ({})",
                shape
                    .iter()
                    .map(|extent| extent.map_or("?".to_owned(), |extent| extent.to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Value::Callable(callee) => Some(callee.name()),
            Value::Unit
            | Value::Float { .. }
            | Value::Bool(Known::Dyn(_))
            | Value::Wildcard
            | Value::Index3(_)
            | Value::Unknown => None,
        }
    }

    /// The tuple as an int-tuple, when every leaf is an integer.
    pub fn as_int_tuple(&self) -> Option<IntTuple<SymInt>> {
        match self {
            Value::Int { value, .. } => Some(IntTuple::Int(value.clone())),
            Value::Tuple(items) => items
                .iter()
                .map(Value::as_int_tuple)
                .collect::<Option<Vec<_>>>()
                .map(IntTuple::Tuple),
            _ => None,
        }
    }

    /// An int-tuple as a tuple value of `int`s.
    pub fn from_int_tuple(tuple: &IntTuple<SymInt>) -> Value {
        match tuple {
            IntTuple::Int(value) => Value::Int {
                ty: IntType::Int,
                value: value.clone(),
            },
            IntTuple::Tuple(items) => {
                Value::Tuple(items.iter().map(Value::from_int_tuple).collect())
            }
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Tuple(items) => {
                f.write_str("(")?;
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                if items.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            Value::Wildcard => f.write_str("_"),
            other => match other.contents() {
                Some(contents) => f.write_str(&contents),
                None => f.write_str(&other.type_name()),
            },
        }
    }
}

/// A float as written in source: always with a `.` or an exponent.
fn format_float(value: f64) -> String {
    let text = value.to_string();
    if text.contains(['.', 'e', 'E', 'i', 'N']) {
        text
    } else {
        format!("{text}.0")
    }
}
