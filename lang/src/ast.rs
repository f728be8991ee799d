//! The `.cuk` abstract syntax tree, as the parser builds it.
//!
//! The tree mirrors the concrete syntax of `docs/language.md` closely: nothing
//! is resolved, typed or folded yet. A [`Module`] is a list of [`Item`]s (`use`,
//! `const`, `fn`, `kernel`, `atom`, `test`, `bench`, `tune`); bodies are [`Block`]s of
//! [`Stmt`]s; every value is an [`Expr`].
//!
//! Conventions:
//! - Every node carries the [`Span`] (byte offsets) of the text it came from;
//!   a node's span covers its children's spans.
//! - Names are [`Name`]s: the text as written plus its span. Dtypes (`bf16`),
//!   kinds (`int`, `dtype`) and built-ins (`thread_idx`) are plain names; the
//!   type checker gives them meaning.
//! - Where the parser recovered from a syntax error it leaves an `Error` node
//!   ([`ItemKind::Error`], [`StmtKind::Error`]). Such a
//!   node only exists alongside an error diagnostic, so later stages may skip it
//!   silently.
//! - Grouping parentheses leave no node: `(a + b)` is the `+` node itself.
//!
//! The tree is built with `Box` and `Vec`; its depth is bounded by the parser
//! (deeply nested input is refused with a diagnostic), so recursive passes over
//! it cannot overflow the stack. [`print`] renders a tree as compact
//! S-expressions for snapshots and debugging.

mod expr;
pub mod print;
mod stmt;

pub use expr::{Argument, BinaryOp, Expr, ExprKind, MemorySpace, UnaryOp};
pub use stmt::{AssignOp, Block, IfBranch, Pattern, PatternKind, ReportPart, Stmt, StmtKind};

use crate::Span;

/// An identifier as written in the source, with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    /// The identifier's text.
    pub text: String,
    /// Where it was written.
    pub span: Span,
}

/// A `::`-separated path such as `sm80::cp_async`; a single name is a path of
/// one segment.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// The segments, first to last; never empty.
    pub segments: Vec<Name>,
    /// The span of the whole path.
    pub span: Span,
}

/// One parsed `.cuk` file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    /// The items in source order.
    pub items: Vec<Item>,
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// What kind of item this is.
    pub kind: ItemKind,
    /// The span from the item's keyword to its end.
    pub span: Span,
}

/// The kinds of top-level declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum ItemKind {
    /// `use sm80::{cp_async, ldmatrix};`
    Use(UseItem),
    /// `const TILE: int = 128;`
    Const(ConstItem),
    /// `fn name(params) -> type { body }`: a device function.
    Function(Function),
    /// `kernel name<generics>(params) launch ... { body }`.
    Kernel(Kernel),
    /// `atom name: kind { key = value; ... }`: a hardware instruction as data.
    Atom(Atom),
    /// `test name { body }`: a host-side test.
    Test(TestBlock),
    /// `bench name { body }`: a host-side benchmark.
    Bench(TestBlock),
    /// `tune name: kernel for bench, .. { P in [..]; where cond; }`: a space of
    /// const parameters to time a kernel over.
    Tune(TuneBlock),
    /// An item the parser could not read; a diagnostic says why.
    Error,
}

/// A `use` item.
#[derive(Clone, Debug, PartialEq)]
pub struct UseItem {
    /// The path before any `::{..}` or `::*`.
    pub path: Path,
    /// What the path imports.
    pub tree: UseTree,
}

/// What a `use` item imports from its path.
#[derive(Clone, Debug, PartialEq)]
pub enum UseTree {
    /// `use a::b;`: the path's last segment itself.
    Single,
    /// `use a::{b, c};`: the listed names inside the path.
    Group(Vec<Name>),
    /// `use a::*;`: every public name inside the path.
    Glob,
}

/// A `const` item: `const TILE: int = 128;` or `const (TILER, TV) = ...;`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstItem {
    /// The name, or the tuple pattern of names, bound to the value.
    pub pattern: Pattern,
    /// The declared type, if written.
    pub ty: Option<Type>,
    /// The value.
    pub value: Expr,
}

/// A const generic parameter: `const P: int = 128`.
#[derive(Clone, Debug, PartialEq)]
pub struct GenericParam {
    /// The parameter's name.
    pub name: Name,
    /// Its kind, such as `int` or `dtype`.
    pub kind: Type,
    /// The default value, if given.
    pub default: Option<Expr>,
    /// The span from `const` to the end of the parameter.
    pub span: Span,
}

/// A run-time parameter: `name: type`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The parameter's name.
    pub name: Name,
    /// Its type.
    pub ty: Type,
    /// The span of the whole parameter.
    pub span: Span,
}

/// A device function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The function's name.
    pub name: Name,
    /// Const generic parameters (empty without `<..>`).
    pub generics: Vec<GenericParam>,
    /// Run-time parameters.
    pub params: Vec<Param>,
    /// The result type after `->`, if any.
    pub return_type: Option<Type>,
    /// The body.
    pub body: Block,
}

/// A kernel: an entry point launched from the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The kernel's name.
    pub name: Name,
    /// Const generic parameters (empty without `<..>`).
    pub generics: Vec<GenericParam>,
    /// Run-time parameters.
    pub params: Vec<Param>,
    /// The parts of the `launch` clause in source order (empty when the clause
    /// is missing, which is diagnosed).
    pub launch: Vec<LaunchPart>,
    /// The body.
    pub body: Block,
}

/// One part of a kernel's `launch` clause, such as `grid(m / 8, n / 8)`.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchPart {
    /// Which part this is.
    pub kind: LaunchKind,
    /// The expressions between the parentheses.
    pub args: Vec<Expr>,
    /// The span from the part's name to its `)`.
    pub span: Span,
}

/// The parts a `launch` clause may have, in their required order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LaunchKind {
    /// `grid(x[, y[, z]])`: blocks per grid.
    Grid,
    /// `block(x[, y[, z]])`: threads per block.
    Block,
    /// `cluster(x[, y[, z]])`: blocks per cluster (sm90 and later).
    Cluster,
    /// `smem(bytes)` or `smem(auto)`: dynamic shared memory.
    Smem,
    /// `symmetric(a, b)`: the kernel runs on every rank of a multi-rank test, and these
    /// global tensor parameters exist on every rank with the same layout (`peer(a, r)`
    /// is rank r's).
    Symmetric,
}

impl LaunchKind {
    /// Every part, in the order a launch clause lists them.
    pub const ALL: [LaunchKind; 5] = [
        LaunchKind::Grid,
        LaunchKind::Block,
        LaunchKind::Cluster,
        LaunchKind::Smem,
        LaunchKind::Symmetric,
    ];

    /// The part's keyword as written in source.
    pub fn keyword(self) -> &'static str {
        match self {
            LaunchKind::Grid => "grid",
            LaunchKind::Block => "block",
            LaunchKind::Cluster => "cluster",
            LaunchKind::Smem => "smem",
            LaunchKind::Symmetric => "symmetric",
        }
    }
}

/// An `atom` declaration: one hardware instruction described as data.
#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    /// The atom's name.
    pub name: Name,
    /// Const generic parameters (empty without `<..>`).
    pub generics: Vec<GenericParam>,
    /// The atom's kind after `:`, such as `copy` or `mma`.
    pub kind: Name,
    /// The `key = value;` entries in source order.
    pub properties: Vec<AtomProperty>,
}

/// One `key = value;` entry of an atom.
#[derive(Clone, Debug, PartialEq)]
pub struct AtomProperty {
    /// The key, such as `ptx` or `layout_a`.
    pub key: Name,
    /// The value.
    pub value: Expr,
    /// The span from the key to the `;`.
    pub span: Span,
}

/// A `test` or `bench` block.
#[derive(Clone, Debug, PartialEq)]
pub struct TestBlock {
    /// The test's name.
    pub name: Name,
    /// `ranks(N)` after the name: the body runs once per rank of N (the checker
    /// requires the word `ranks` and a constant N).
    pub ranks: Option<Ranks>,
    /// The body, run on the host.
    pub body: Block,
}

/// The `ranks(N)` of a multi-rank `test` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranks {
    /// The word before the parenthesis (`ranks`).
    pub keyword: Name,
    /// The number of ranks.
    pub count: Expr,
    /// From the word to the `)`.
    pub span: Span,
}

/// A `tune` block: `tune name: kernel for bench_a, bench_b { BM in [64, 128]; where
/// BM <= BN; }`. Every point of the space (one value per parameter, the constraints
/// true) is the kernel with those const parameters as its defaults, timed by the named
/// `bench` blocks (their shapes, their reference).
#[derive(Clone, Debug, PartialEq)]
pub struct TuneBlock {
    /// The block's name.
    pub name: Name,
    /// The kernel whose const parameters are tuned.
    pub kernel: Name,
    /// The `bench` blocks that time each point.
    pub benches: Vec<Name>,
    /// The parameters and their values, in source order.
    pub params: Vec<TuneParam>,
    /// The `where` conditions, each a boolean over the parameters.
    pub constraints: Vec<Expr>,
}

/// `BM in [64, 128];`: a tuned const parameter and the values it takes.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneParam {
    /// The kernel's const parameter.
    pub name: Name,
    /// Its values, in order.
    pub values: Vec<Expr>,
    /// From the name to the `;`.
    pub span: Span,
}

/// A written type.
#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    /// What kind of type this is.
    pub kind: TypeKind,
    /// Where it was written.
    pub span: Span,
}

/// The kinds of written type.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// A named type such as `i32`, `int`, `dtype` or `sm80::Atom`.
    Named(Path),
    /// A tensor type: `gmem bf16[(m, k):(k, 1)]`.
    Tensor {
        /// The memory space holding the elements.
        space: MemorySpace,
        /// The element type (a dtype name or a `dtype` parameter).
        element: Name,
        /// The layout expression between the brackets (`_` for any layout).
        layout: Box<Expr>,
    },
}
