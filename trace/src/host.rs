//! What host code (`test` and `bench` blocks) reads from the checker instead of
//! evaluating again: the values of the file's `const` items, and the const arguments
//! of each kernel instantiation with its parameters' defaults evaluated.

use cute::Dtype;

use crate::ConstArg;

/// What the checker hands the runtime for a file's host code.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostFacts {
    /// The names the file's `const` items bind, in source order, with their values.
    pub consts: Vec<ConstBinding>,
    /// Each kernel instantiation checked (the defaults, and each set of const
    /// arguments a test, a bench or a host asks for), with every const parameter's
    /// value.
    pub instantiated: Vec<Instantiated>,
}

/// The value of a `const` item as host code holds it.
#[derive(Clone, Debug, PartialEq)]
pub enum HostConst {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A bool.
    Bool(bool),
    /// A dtype.
    Dtype(Dtype),
    /// A tuple of host values (a shape).
    Tuple(Vec<HostConst>),
}

/// A `const` item's name bound as the checker evaluated it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstBinding {
    /// The name the item binds.
    pub name: String,
    /// Its value, or why host code cannot use it.
    pub value: Result<HostConst, Unheld>,
}

/// Why host code cannot use a `const` item's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unheld {
    /// The checker could not evaluate it (an error it reported).
    NotEvaluated,
    /// It is a value host code does not hold, of this type (`layout`, `copy atom`).
    OfType(String),
}

impl std::fmt::Display for Unheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unheld::NotEvaluated => f.write_str("the checker could not evaluate it"),
            Unheld::OfType(type_name) => write!(f, "it is a {type_name}"),
        }
    }
}

/// A kernel instantiation as a launch asks for it: the const arguments given by name
/// (in the order written) and what every const parameter is then, defaults included.
#[derive(Clone, Debug, PartialEq)]
pub struct Instantiated {
    /// The kernel's name.
    pub kernel: String,
    /// The const arguments the launch gives by name.
    pub given: Vec<(String, ConstArg)>,
    /// Every const parameter's value, in declaration order; `None` where the checker
    /// had none (a parameter without a default and not given).
    pub const_args: Vec<(String, Option<ConstArg>)>,
}
