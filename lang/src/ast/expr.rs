//! Expressions: literals, paths, tuples, layout literals, operators, calls,
//! field access, indexing and memory allocations.

use super::{Name, Path};
use crate::Span;

/// An expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What kind of expression this is.
    pub kind: ExprKind,
    /// The text it covers (without grouping parentheses).
    pub span: Span,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal; the lexer guarantees it fits in `i64`.
    Int(i64),
    /// A finite float literal.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
    /// One or more adjacent string literals, escapes decoded and concatenated.
    String(String),
    /// A name or a path such as `sm80::cp_async`.
    Path(Path),
    /// `_`: the wildcard of slices and tilers.
    Wildcard,
    /// A tuple `(a, b)`, `(a,)` or `()`: an int-tuple, shape or coordinate.
    Tuple(Vec<Expr>),
    /// A layout literal `shape : stride`.
    Layout {
        /// The shape, left of `:`.
        shape: Box<Expr>,
        /// The stride, right of `:`.
        stride: Box<Expr>,
    },
    /// A binary operation.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// A prefix operation.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// A call `callee(args)`; the callee is any expression (layouts are callable).
    Call {
        /// What is called.
        callee: Box<Expr>,
        /// The arguments in source order.
        args: Vec<Argument>,
    },
    /// A method call `receiver.method(args)`.
    MethodCall {
        /// The value the method is called on.
        receiver: Box<Expr>,
        /// The method's name.
        method: Name,
        /// The arguments in source order.
        args: Vec<Argument>,
    },
    /// Field access `base.field`, such as `block_idx.x` or `t.layout`.
    Field {
        /// The value whose field is read.
        base: Box<Expr>,
        /// The field's name.
        field: Name,
    },
    /// Indexing or slicing `base[i, j]`; `_` indices make a slice.
    Index {
        /// The indexed tensor.
        base: Box<Expr>,
        /// The indices, one per mode.
        indices: Vec<Expr>,
    },
    /// A tensor allocation `smem bf16[layout]`.
    Alloc {
        /// The memory space.
        space: MemorySpace,
        /// The element type.
        element: Name,
        /// The layout between the brackets.
        layout: Box<Expr>,
    },
}

/// A call argument, positional or named (`rtol = 1e-6`).
#[derive(Clone, Debug, PartialEq)]
pub struct Argument {
    /// The name before `=`, for a named argument.
    pub name: Option<Name>,
    /// The value.
    pub value: Expr,
    /// The span of the whole argument.
    pub span: Span,
}

/// The memory spaces a tensor can live in: the atom layer's, which the keywords
/// `gmem`, `smem`, `rmem` and `tmem` name.
pub use cute::MemorySpace;

/// Binary operators (the layout `:` is [`ExprKind::Layout`] instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
    /// `<`
    Less,
    /// `<=`
    LessEqual,
    /// `>`
    Greater,
    /// `>=`
    GreaterEqual,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
    /// `<<`
    ShiftLeft,
    /// `>>`
    ShiftRight,
    /// `+`
    Add,
    /// `-`
    Subtract,
    /// `*`
    Multiply,
    /// `/`
    Divide,
    /// `%`
    Remainder,
}

impl BinaryOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "||",
            BinaryOp::And => "&&",
            BinaryOp::Equal => "==",
            BinaryOp::NotEqual => "!=",
            BinaryOp::Less => "<",
            BinaryOp::LessEqual => "<=",
            BinaryOp::Greater => ">",
            BinaryOp::GreaterEqual => ">=",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::BitAnd => "&",
            BinaryOp::ShiftLeft => "<<",
            BinaryOp::ShiftRight => ">>",
            BinaryOp::Add => "+",
            BinaryOp::Subtract => "-",
            BinaryOp::Multiply => "*",
            BinaryOp::Divide => "/",
            BinaryOp::Remainder => "%",
        }
    }

    /// Whether two operands in `ordering` satisfy this comparison (`Less` satisfies
    /// `<`, `<=` and `!=`); `false` for an operator that compares nothing.
    pub fn holds_for(self, ordering: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match self {
            BinaryOp::Equal => ordering == Equal,
            BinaryOp::NotEqual => ordering != Equal,
            BinaryOp::Less => ordering == Less,
            BinaryOp::LessEqual => ordering != Greater,
            BinaryOp::Greater => ordering == Greater,
            BinaryOp::GreaterEqual => ordering != Less,
            _ => false,
        }
    }
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`
    Negate,
    /// `!x`: logical not on `bool`, bitwise not on integers.
    Not,
}

impl UnaryOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Negate => "-",
            UnaryOp::Not => "!",
        }
    }
}
