//! Blocks, statements and `let` patterns.

use super::{BinaryOp, Expr, Name, Type};
use crate::Span;

/// A braced block: statements, then an optional result expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The statements in source order.
    pub statements: Vec<Stmt>,
    /// A final expression without `;`: the block's value.
    pub tail: Option<Box<Expr>>,
    /// The span from `{` to `}`.
    pub span: Span,
}

/// A statement with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What kind of statement this is.
    pub kind: StmtKind,
    /// The text it covers, including its `;`.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `let [mut] pattern [: type] = value;`
    Let {
        /// Whether `mut` was written.
        mutable: bool,
        /// What the value is bound to.
        pattern: Pattern,
        /// The declared type, if written.
        ty: Option<Type>,
        /// The bound value.
        value: Expr,
    },
    /// `target = value;` or a compound assignment such as `target += value;`.
    Assign {
        /// The assignment operator.
        op: AssignOp,
        /// The place written: a variable, a tensor element or slice.
        target: Expr,
        /// The value.
        value: Expr,
    },
    /// An expression evaluated for its effect: `copy(cp, a, b);`.
    Expr(Expr),
    /// `return [value];`
    Return(Option<Expr>),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// A lone `;`.
    Empty,
    /// `report bytes = ..., against memcpy;` in a `bench` block.
    Report(Vec<ReportPart>),
    /// `for i in [static] start..end { body }`.
    For {
        /// The loop variable.
        variable: Name,
        /// Whether `static` was written: the loop is unrolled at compile time.
        unrolled: bool,
        /// The first value.
        start: Expr,
        /// The bound, excluded.
        end: Expr,
        /// The body.
        body: Block,
    },
    /// A nested block `{ ... }`: a scope for its `let`s.
    Block(Block),
    /// `while condition { body }`.
    While {
        /// The loop condition.
        condition: Expr,
        /// The body.
        body: Block,
    },
    /// `if [const] c { } else if [const] d { } else { }`, flattened.
    If {
        /// The `if` and `else if` branches in source order; never empty.
        branches: Vec<IfBranch>,
        /// The final `else` block, if any.
        otherwise: Option<Block>,
    },
    /// A statement the parser could not read; a diagnostic says why.
    Error,
}

/// One `if` or `else if` branch.
#[derive(Clone, Debug, PartialEq)]
pub struct IfBranch {
    /// Whether `const` was written: the branch is chosen at compile time.
    pub is_const: bool,
    /// The condition.
    pub condition: Expr,
    /// The block run when the condition holds.
    pub body: Block,
    /// The span from `if` to the block's `}`.
    pub span: Span,
}

/// Assignment operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`
    Assign,
    /// `+=`
    Add,
    /// `-=`
    Subtract,
    /// `*=`
    Multiply,
    /// `/=`
    Divide,
    /// `%=`
    Remainder,
}

impl AssignOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            AssignOp::Assign => "=",
            AssignOp::Add => "+=",
            AssignOp::Subtract => "-=",
            AssignOp::Multiply => "*=",
            AssignOp::Divide => "/=",
            AssignOp::Remainder => "%=",
        }
    }

    /// The arithmetic a compound assignment does (`+=` adds); `None` for `=`.
    pub fn binary(self) -> Option<BinaryOp> {
        match self {
            AssignOp::Assign => None,
            AssignOp::Add => Some(BinaryOp::Add),
            AssignOp::Subtract => Some(BinaryOp::Subtract),
            AssignOp::Multiply => Some(BinaryOp::Multiply),
            AssignOp::Divide => Some(BinaryOp::Divide),
            AssignOp::Remainder => Some(BinaryOp::Remainder),
        }
    }
}

/// One part of a `report` statement.
#[derive(Clone, Debug, PartialEq)]
pub enum ReportPart {
    /// `bytes = 3 * M * N * 4` or `flops = ...`: a measured quantity.
    Metric {
        /// The quantity's name.
        name: Name,
        /// Its value per run.
        value: Expr,
    },
    /// `against memcpy`: the reference measured in the same run.
    Against(Expr),
}

/// The left side of a `let`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    /// What kind of pattern this is.
    pub kind: PatternKind,
    /// Where it was written.
    pub span: Span,
}

/// The kinds of `let` pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum PatternKind {
    /// Binds the value to a name.
    Name(Name),
    /// `_`: ignores the value.
    Wildcard,
    /// `(a, b)`: destructures a tuple.
    Tuple(Vec<Pattern>),
}
