//! The typechecker: names, types, compile-time versus run-time stages, and the checks
//! CuTe leaves to run time or to crashes in lowering, each reported at the source line.
//!
//! # Model
//!
//! [`check`] evaluates the program abstractly. Every expression becomes a value that
//! is *const* (known while compiling: literals, const items and parameters, layouts
//! of const integers, atoms, tiled copies) or *dyn* (known on the GPU: thread and block
//! indices, kernel arguments, loaded values, anything computed from them). Integers
//! are [`layout::SymInt`]s, so `local_tile(a, (8,128), (block_idx.x, block_idx.y))` of
//! `a: gmem bf16[(m,k):(k,1)]` is a tensor of layout `(8,128):(k,1)` whose offset is
//! the symbolic `8*block_idx.x*k+128*block_idx.y`, exactly what CuTe computes; the
//! layout algebra itself is the `layout` crate's. Each run-time variable remembers its
//! origin, so a stage error says *why* a value is dyn and where that started.
//!
//! Device functions are inlined and checked with their arguments' values; kernels
//! are checked with their default const parameters and with every other set a test
//! passes; `static` loops unroll, `if const` picks its branch. The stdlib (`stdlib/`
//! at the repository root) is `.cuk` text evaluated by the same code.
//!
//! The diagnostic codes are `E0201`-`E0236` and `N0201` (`const_print`); see
//! `lang::codes`.

mod atom_eval;
mod atom_facts;
mod builtins;
mod callee;
mod check;
pub mod cute_names;
mod eval;
pub mod expr_types;
mod host;
mod host_tensors;
mod jumps;
mod report;
pub mod resolution;
mod stack;
pub mod stdlib;
pub mod trace;
mod value;

pub use builtins::table::{Arity, BUILTINS, Builtin, Place, reference as builtins_reference};
use std::sync::Arc;

use cute::Target;
use lang::ast::Module;
use lang::{Diagnostic, Span};

/// The built-in names that are not functions: the hardware's indices and extents
/// (`thread_idx`, `lane_idx`, ...).
pub fn builtin_indices() -> impl Iterator<Item = &'static str> {
    eval::INDEX3.into_iter().chain(eval::INDEX1)
}

/// What a binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingKind {
    /// A `const` item.
    Const,
    /// A const generic parameter.
    ConstParameter,
    /// A run-time parameter of a kernel or function.
    Parameter,
    /// A `let` or a loop variable.
    Local,
}

impl BindingKind {
    /// The word used in `--dump-types`.
    pub fn word(self) -> &'static str {
        match self {
            BindingKind::Const => "const",
            BindingKind::ConstParameter => "const param",
            BindingKind::Parameter => "param",
            BindingKind::Local => "let",
        }
    }
}

/// A name bound somewhere in the file, with what the checker knows about it: what
/// `cukc check --dump-types` prints and an editor hover shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The name.
    pub name: String,
    /// Where it is bound.
    pub span: Span,
    /// What binds it.
    pub kind: BindingKind,
    /// The item it is in: `kernel copy_tv`, `fn thread_run`, `test t`, `const`.
    pub scope: String,
    /// Its type: `int`, `i32`, `layout`, `gmem bf16 tensor`, `tiled copy`.
    pub type_name: String,
    /// Its evaluated contents, when there are any to show (for a dyn tensor, its
    /// layout and symbolic offset).
    pub contents: Option<String>,
    /// Why it is only known at run time; `None` when it is const.
    pub dyn_reason: Option<String>,
}

impl Binding {
    /// `kind name: type`, and ` = contents` when they say more than the type or the
    /// name: the line `--dump-types` prints and a hover opens with.
    pub fn summary(&self) -> String {
        let mut line = format!("{} {}: {}", self.kind.word(), self.name, self.type_name);
        if let Some(contents) = &self.contents
            && *contents != self.type_name
            && *contents != self.name
        {
            line.push_str(" = ");
            line.push_str(contents);
        }
        line
    }
}

/// The result of checking one file.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    /// Every problem found, in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// Every binding, in the order the checker first evaluated it.
    pub bindings: Vec<Binding>,
    /// What host code reads instead of evaluating again: the `const` items' values as
    /// host code holds them, and each kernel instantiation's const arguments.
    pub host: trace::HostFacts,
}

/// Typechecks a parsed module for `target`. Never panics; every problem is a
/// diagnostic. Runs on a thread of its own, with a stack sized for the checker's
/// depth limits.
pub fn check(module: &Module, target: Target) -> Analysis {
    let module = jumps::rewrite(module);
    stack::on_checker_stack(|| check::Checker::new(&module, target).run())
}

/// [`check`], also tracing every kernel instantiation the file uses (the defaults,
/// and each set of const arguments a test passes) for lowering; `then` gets the
/// analysis and the traces. `then` runs on the checker's thread, with its deep stack
/// (lowering recurses as deep as the checker did).
pub fn trace<R: Send>(
    module: &Module,
    target: Target,
    then: impl FnOnce(Analysis, Vec<trace::KernelTrace>) -> R + Send,
) -> R {
    trace_with(module, target, &[], then)
}

/// A kernel instantiation a host asks for besides those the file uses (the Python
/// package's `specialize`): the kernel's name and const arguments by name, the other
/// const parameters at their defaults. Names the kernel does not declare are ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instantiation {
    /// The kernel's name in the file.
    pub kernel: String,
    /// Const arguments by parameter name.
    pub const_args: Vec<(String, ConstArgument)>,
}

/// A const argument a host gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstArgument {
    /// For an `int` const parameter.
    Int(i64),
    /// For a `dtype` const parameter.
    Dtype(cute::Dtype),
}

/// [`trace`], also checking and tracing the kernel instantiations in `requested`
/// (after the file's own; one the file already uses is traced once). The
/// instantiations are checked in parallel where that gives what a serial check gives.
pub fn trace_with<R: Send>(
    module: &Module,
    target: Target,
    requested: &[Instantiation],
    then: impl FnOnce(Analysis, Vec<trace::KernelTrace>) -> R + Send,
) -> R {
    let module = jumps::rewrite(module);
    stack::on_checker_stack(|| {
        let checker = || {
            check::Checker::new(&module, target)
                .with_tracing()
                .with_requested(requested)
        };
        let (analysis, traces) =
            (checker().run_in_parallel()).unwrap_or_else(|| checker().run_traced());
        then(
            analysis,
            traces.into_iter().map(Arc::unwrap_or_clone).collect(),
        )
    })
}

/// [`trace`] for a caller that lowers each kernel instantiation as soon as it can:
/// `traced` gets each trace, on the checker's thread (a trace whose `has_errors` is set
/// included), and the analysis comes back with every trace, in the order `traced` got
/// them. The instantiations are checked in parallel and their traces given once all
/// are checked; when only a serial check gives the result exactly (an instantiation
/// reports a diagnostic), each trace is given as soon as its instantiation is checked.
pub fn trace_each(
    module: &Module,
    target: Target,
    mut traced: impl FnMut(&Arc<trace::KernelTrace>) + Send,
) -> (Analysis, Vec<Arc<trace::KernelTrace>>) {
    let module = jumps::rewrite(module);
    stack::on_checker_stack(move || {
        let checker = || check::Checker::new(&module, target).with_tracing();
        match checker().run_in_parallel() {
            Some(checked) => {
                checked.1.iter().for_each(&mut traced);
                checked
            }
            None => checker().with_traced(&mut traced).run_traced(),
        }
    })
}

/// `--dump-types`: one line per binding, `line:col  kind name: type = contents`,
/// with `[dyn: reason]` for run-time values. `line_column` turns a byte offset
/// into a 1-based line and column.
pub fn dump_bindings(bindings: &[Binding], line_column: &dyn Fn(u32) -> (u32, u32)) -> String {
    let mut out = String::new();
    let mut scope = None;
    for binding in bindings {
        if scope != Some(&binding.scope) {
            out.push_str(&binding.scope);
            out.push('\n');
            scope = Some(&binding.scope);
        }
        let (line, column) = line_column(binding.span.start);
        out.push_str(&format!("  {line}:{column}  {}", binding.summary()));
        if let Some(reason) = &binding.dyn_reason {
            out.push_str(&format!("  [dyn: {reason}]"));
        }
        out.push('\n');
    }
    out
}
