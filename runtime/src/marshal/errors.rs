//! Why a kernel call cannot be launched: no compiled instantiation fits its const
//! arguments ([`SelectError`]), or its arguments fail a check ([`PlanError`], the
//! message and the parameter it is about; an argument's own check says what failed in
//! an `ArgumentError` first). Every message names the kernel.

use std::fmt;

use kir::Element;

use crate::tensor::shape_text;

/// Why no compiled instantiation of a kernel can be called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectError {
    /// The kernel has no compiled instantiation.
    NotCompiled {
        /// The kernel.
        name: String,
    },
    /// None agrees with the call's const arguments.
    NoneAgrees {
        /// The kernel.
        name: String,
        /// The call's const arguments, as `N = 64, M = 2`.
        wanted: String,
        /// Each instantiation's, in the same form.
        compiled: Vec<String>,
    },
}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::NotCompiled { name } => write!(f, "kernel `{name}` was not compiled"),
            SelectError::NoneAgrees {
                name,
                wanted,
                compiled,
            } => write!(
                f,
                "kernel `{name}` was not compiled with {wanted}; compiled: {}",
                compiled.join("; ")
            ),
        }
    }
}

impl std::error::Error for SelectError {}

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

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PlanError {}

/// Why one argument of a call to `kernel` does not fit its parameter `name`.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum ArgumentError {
    /// An integer outside its parameter's type (`ty`).
    IntRange {
        kernel: String,
        name: String,
        value: i64,
        ty: &'static str,
    },
    /// A float its parameter's type (`ty`) cannot hold.
    FloatRange {
        kernel: String,
        name: String,
        value: f64,
        ty: &'static str,
    },
    /// A tensor of another dtype.
    Dtype {
        kernel: String,
        name: String,
        expected: Element,
        given: Element,
    },
    /// An expression of the signature (`what` it is) the call's integers cannot
    /// evaluate.
    Unevaluable {
        kernel: String,
        what: String,
        expr: String,
    },
    /// A tensor whose shape does not fit the layout's extents.
    Shape {
        kernel: String,
        name: String,
        extents: Vec<i64>,
        shape: Vec<usize>,
    },
    /// A layout that reaches past the tensor's `count` elements.
    Reach {
        kernel: String,
        name: String,
        count: usize,
    },
    /// A tensor whose strides are not the layout's, first differing in `dimension`.
    Strides {
        kernel: String,
        name: String,
        given: Vec<i64>,
        expected: Vec<i64>,
        dimension: usize,
    },
    /// An argument of another kind than the parameter takes (`rule`), both in words.
    Kind {
        kernel: String,
        name: String,
        rule: String,
        given: &'static str,
    },
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentError::IntRange {
                kernel,
                name,
                value,
                ty,
            } => write!(f, "`{kernel}`: {value} does not fit `{name}: {ty}`"),
            ArgumentError::FloatRange {
                kernel,
                name,
                value,
                ty,
            } => write!(f, "`{kernel}`: {value:?} does not fit `{name}: {ty}`"),
            ArgumentError::Dtype {
                kernel,
                name,
                expected,
                given,
            } => write!(
                f,
                "`{kernel}`: `{name}` holds {}, but this tensor holds {}",
                expected.name(),
                given.name()
            ),
            ArgumentError::Unevaluable { kernel, what, expr } => write!(
                f,
                "`{kernel}`: {what} `{expr}` cannot be evaluated with these arguments (division by zero or overflow)"
            ),
            ArgumentError::Shape {
                kernel,
                name,
                extents,
                shape,
            } => {
                let extents: Vec<String> = extents.iter().map(ToString::to_string).collect();
                write!(
                    f,
                    "`{kernel}`: `{name}` needs a tensor of shape ({}) with these arguments, but this one has shape {}",
                    extents.join(", "),
                    shape_text(shape)
                )
            }
            ArgumentError::Reach {
                kernel,
                name,
                count,
            } => write!(
                f,
                "`{kernel}`: `{name}`'s layout reaches past the {count} elements of its tensor"
            ),
            ArgumentError::Strides {
                kernel,
                name,
                given,
                expected,
                dimension,
            } => write!(
                f,
                "`{kernel}`: `{name}` has strides {given:?}, but the kernel reads it with strides {expected:?} (dimension {dimension} differs); pass a tensor laid out that way (for row-major, .contiguous())"
            ),
            ArgumentError::Kind {
                kernel,
                name,
                rule,
                given,
            } => write!(f, "`{kernel}`: `{name}` is {rule}, but {given} was given"),
        }
    }
}
