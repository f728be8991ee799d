//! The checker's state and the entry points that run it.
//!
//! [`Checker`] is an abstract interpreter: it evaluates every item, statement and
//! expression to a [`Value`], folding what is const and tracking what is dyn, and
//! reports each problem once. Device functions are inlined, so a function body is
//! checked with the values of each call; kernels are checked with their default const
//! parameters and again for each other set of const arguments a test passes. `static`
//! loops run once per iteration; run-time loops and branches run once with the
//! variables they assign made dyn.
//!
//! The walk is split by concern: `names` (modules, items, `use`), `scopes` (locals,
//! bindings, stages of values), `items` (consts, functions, tests), `instantiations`
//! (each kernel instantiation checked once, in an id space of its own), `parallel`
//! (the instantiations checked at once, for a build), `run` (the order a file's items
//! and requested instantiations are checked in), `kernels` (launches, parameters,
//! traces), `statements`, `types` (declared types) and `reporting` (diagnostics and
//! budgets).

mod cluster;
pub(crate) mod control;
mod findings;
mod instantiations;
mod items;
pub(crate) mod kernels;
mod names;
mod parallel;
pub(crate) mod reporting;
mod run;
mod scopes;
mod statements;
pub(crate) mod types;

pub(crate) use names::item_names;

use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

use cute::{Target, Tensor};
use lang::ast::Module;
use lang::{Diagnostic, Span};
use layout::SymInt;

use crate::callee::ItemId;
use crate::trace::{Effect, KernelTrace, LoadId, Term};
use crate::value::{Origin, Value};
use crate::{Binding, stdlib};

/// Most statements one check may evaluate; unrolled loops count each iteration.
pub(crate) const WORK_LIMIT: u64 = 2_000_000;

/// Most iterations of one `static` loop.
pub(crate) const UNROLL_LIMIT: i64 = 4096;

/// Deepest nesting of inlined calls.
pub(crate) const CALL_DEPTH_LIMIT: usize = 64;

/// Deepest nesting of evaluation: an expression inside an expression, a const's value
/// naming another const, an inlined body. The checker's stack (`stack.rs`) is sized
/// for it.
pub(crate) const EVAL_DEPTH_LIMIT: usize = 10_000;

/// Where code runs: this decides which names and operations exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Context {
    /// Const items, atom properties and const parameter defaults.
    Const,
    /// Kernel and device function bodies.
    Device,
    /// `test` and `bench` bodies.
    Host,
}

/// A local binding.
#[derive(Clone, Debug)]
pub(crate) struct Local {
    pub(crate) value: Value,
    pub(crate) mutable: bool,
    pub(crate) span: Span,
    /// The cell that holds it once run-time control flow assigns it.
    pub(crate) cell: Option<crate::trace::CellId>,
}

/// One module the checker resolves names in.
#[derive(Clone)]
pub(crate) struct ModuleEntry<'a> {
    /// Path prefix (`sm80`); empty for the user's file.
    name: &'static str,
    pub(crate) module: &'a Module,
    /// Item index by name.
    items: FxHashMap<String, usize>,
    /// Names brought in by `use`: name to (module, item).
    pub(crate) imports: FxHashMap<String, (usize, usize)>,
}

/// A shared-memory buffer of the kernel being checked.
#[derive(Clone, Debug)]
pub(crate) struct SharedBuffer {
    pub(crate) name: String,
    pub(crate) span: Span,
    pub(crate) bytes: i64,
    /// The alignment its start needs, in bytes: 128, or a TMA or wgmma swizzle's
    /// period (1024 for 128 bytes), set by the TMA and wgmma builtins that use it.
    pub(crate) align: i64,
}

/// The function, kernel or test being evaluated.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub(crate) context: Context,
    /// `kernel copy_tv`, `fn thread_run`, `test t`, `const`.
    pub(crate) title: String,
    pub(crate) loops: usize,
    /// Run-time branches and loops enclosing the current statement.
    pub(crate) dyn_control: usize,
    pub(crate) returns: Vec<Value>,
    pub(crate) is_function: bool,
    pub(crate) is_bench: bool,
    pub(crate) shared: Vec<SharedBuffer>,
    /// The threads of the kernel's `block(...)`, when static (inlined functions inherit it).
    pub(crate) block_threads: Option<i64>,
    /// The kernel's `cluster(...)`, x y z (`[1, 1, 1]` without one; inherited too).
    pub(crate) cluster: [u32; 3],
    /// A kernel's rank, world size and peer tables, when it has `symmetric(...)`
    /// (inherited too).
    pub(crate) ranks: Option<Arc<crate::builtins::ranks::RankVars>>,
    /// A test's `ranks(N)`.
    pub(crate) world: Option<i64>,
}

impl Frame {
    fn new(context: Context, title: String) -> Frame {
        Frame {
            context,
            title,
            loops: 0,
            dyn_control: 0,
            returns: Vec::new(),
            is_function: false,
            is_bench: false,
            shared: Vec::new(),
            block_threads: None,
            cluster: [1, 1, 1],
            ranks: None,
            world: None,
        }
    }
}

/// The state of a `const` item's evaluation.
#[derive(Clone, Debug)]
pub(crate) enum ConstState {
    InProgress,
    Done(Vec<(String, Value)>),
}

/// The typechecker: the state of one check, grouped by concern so that each part of
/// the walk touches one or two groups.
pub(crate) struct Checker<'a> {
    /// The architecture being checked for.
    pub(crate) target: Target,
    /// Modules, their items and imports, and which module is being evaluated.
    pub(crate) names: Names<'a>,
    /// What the check reports: diagnostics and bindings.
    pub(crate) reporting: Reporting,
    /// The limits that keep a check finite: work, nesting, inlined calls.
    pub(crate) budgets: Budgets,
    /// Items evaluated once and remembered: consts, atoms, instantiations.
    pub(crate) evaluated: Evaluated,
    /// What lowering and editors are given: kernel traces and expression types.
    pub(crate) tracing: Tracing<'a>,
    /// Local scopes, innermost last.
    pub(crate) scopes: Vec<FxHashMap<String, Local>>,
    /// Why each run-time variable is dyn.
    pub(crate) origins: FxHashMap<String, Origin>,
    /// The function, kernel or test being evaluated.
    pub(crate) frame: Frame,
    /// The last number given to a fresh run-time variable.
    pub(crate) fresh: u64,
}

/// Names: the user's module and the stdlib's, and the one being evaluated.
#[derive(Clone)]
pub(crate) struct Names<'a> {
    /// The user's file first, then each stdlib module.
    pub(crate) modules: Vec<ModuleEntry<'a>>,
    /// The index of the module whose code is being evaluated.
    pub(crate) current_module: usize,
}

/// Reporting: what the check found, each diagnostic once.
#[derive(Default)]
pub(crate) struct Reporting {
    /// Every diagnostic, in the order found.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The (code, span, message) of each diagnostic reported, to report it once.
    pub(crate) seen: FxHashSet<(&'static str, Span, String)>,
    /// While evaluating stdlib code: the user-file span responsible for it.
    pub(crate) anchor: Option<Span>,
    /// Every binding, for `--dump-types` and hovers.
    pub(crate) bindings: Vec<Binding>,
    /// The (span, name) of each binding recorded, to record it once.
    pub(crate) recorded: FxHashSet<(Span, String)>,
    /// What kernel instantiations found, by kernel, code and place (`findings.rs`).
    pub(crate) per_kernel: FxHashMap<findings::Place, findings::Finding>,
    /// While a kernel instantiation is checked: the (code, span) of each diagnostic it
    /// reported again, which `seen` kept out.
    pub(crate) repeated: Option<Vec<(&'static str, Span)>>,
    /// Each kernel instantiation checked: the const arguments given and all of them.
    pub(crate) instantiated: Vec<trace::Instantiated>,
}

/// Budgets: the work done and the nesting reached, against their limits.
#[derive(Clone, Default)]
pub(crate) struct Budgets {
    /// Statements evaluated, against [`WORK_LIMIT`].
    pub(crate) work: u64,
    /// Whether running out of work was reported.
    pub(crate) work_reported: bool,
    /// How deep evaluation is nested now, against [`EVAL_DEPTH_LIMIT`].
    pub(crate) depth: usize,
    /// Whether nesting too deep was reported.
    pub(crate) depth_reported: bool,
    /// The functions being inlined, outermost first, against [`CALL_DEPTH_LIMIT`].
    pub(crate) call_stack: Vec<ItemId>,
}

/// Items evaluated once and remembered.
#[derive(Clone, Default)]
pub(crate) struct Evaluated {
    /// Each `const` item's state, by (module, item).
    pub(crate) consts: FxHashMap<(usize, usize), ConstState>,
    /// Each atom instantiation, by name and const arguments.
    pub(crate) atoms: FxHashMap<String, Value>,
    /// The atom instantiations being evaluated, to catch one that needs itself.
    pub(crate) atoms_in_progress: FxHashSet<String>,
    /// The kernel instantiations checked, by name and const arguments.
    pub(crate) instantiated: FxHashSet<String>,
    /// The functions called at least once, by (module, item).
    pub(crate) called_functions: FxHashSet<(usize, usize)>,
    /// The cosize of each swizzled layout allocated or placed: each kernel
    /// instantiation allocates its buffers again, and a cosize walks every offset.
    pub(crate) cosizes: FxHashMap<layout::ComposedLayout, Option<i64>>,
    /// Each tiled copy's thread-value fragment of a layout, by layout and side of the
    /// copy (then by tiled copy): a partition and its vector-access check both need
    /// it, and a file's kernel instantiations partition many of the same tiles again.
    pub(crate) fragments: FxHashMap<FragmentKey, Vec<(Arc<cute::TiledCopy>, Fragment)>>,
}

/// The layout a tiled copy partitions and the side of the copy.
pub(crate) type FragmentKey = (layout::Layout<SymInt>, cute::Side);

/// A thread-value fragment of a layout, or why there is none.
pub(crate) type Fragment = Result<layout::Layout<SymInt>, layout::LayoutError>;

/// What checking a file gives: its analysis (diagnostics in source order, every
/// binding, the const items' values), and the traces of its kernel instantiations
/// when tracing.
pub(crate) type CheckedFile = (crate::Analysis, Vec<Arc<KernelTrace>>);

/// Where each finished trace goes as soon as it is finished (`trace_each`).
pub(crate) type Traced<'a> = &'a mut dyn FnMut(&Arc<KernelTrace>);

/// Tracing: what is recorded for lowering and editors.
#[derive(Default)]
pub(crate) struct Tracing<'a> {
    /// Whether kernels are traced for lowering.
    pub(crate) enabled: bool,
    /// The trace of the kernel instantiation being checked, when tracing.
    pub(crate) trace: Option<KernelTrace>,
    /// The finished traces.
    pub(crate) traces: Vec<Arc<KernelTrace>>,
    /// Given each finished trace as soon as it is finished (`trace_each`).
    pub(crate) traced: Option<Traced<'a>>,
    /// The last register-fragment number given out.
    pub(crate) fragments: u32,
    /// The tensor-memory columns the `tmem_alloc`s of the kernel being checked take.
    pub(crate) tmem_columns: i64,
    /// The kernel's tcgen05 `cta_group` (whether `cta_group::2`), fixed by its first
    /// tcgen05 instruction there.
    pub(crate) cta_group: Option<(bool, Span)>,
    /// Fragments whose element type an MMA atom chose: where, and which atom.
    pub(crate) fragment_origins: FxHashMap<u32, (Span, String)>,
    /// The number of loads given an identity.
    pub(crate) loads: u32,
    /// The number of cells given out.
    pub(crate) cells: u32,
    /// Whether the element being indexed is an assignment's target, not a load.
    pub(crate) target_only: bool,
    /// While the right operand of `&&` or `||` is evaluated: the bool under which C
    /// evaluates it (`short_circuit.rs`).
    pub(crate) guard: Option<Arc<Term>>,
    /// The kernel instantiations called so far, when they are checked in parallel
    /// once the file is (`parallel.rs`).
    pub(crate) deferred: Option<Vec<parallel::Deferred<'a>>>,
    /// Instantiations a host asks for besides the file's own (`trace_with`).
    pub(crate) requested: Vec<crate::Instantiation>,
    /// Where expression types go, for editors (`expr_types.rs`).
    pub(crate) expr_types: Option<std::rc::Rc<std::cell::RefCell<crate::expr_types::ExprTypes>>>,
    /// Where definitions and what each use of a name refers to go, for editors
    /// (`resolution.rs`).
    pub(crate) resolution: Option<crate::resolution::SharedRecorder>,
}

impl<'a> Checker<'a> {
    pub(crate) fn new(module: &'a Module, target: Target) -> Checker<'a> {
        let mut modules = vec![ModuleEntry {
            name: "",
            module,
            items: FxHashMap::default(),
            imports: FxHashMap::default(),
        }];
        for std_module in stdlib::modules() {
            modules.push(ModuleEntry {
                name: std_module.name,
                module: &std_module.module,
                items: FxHashMap::default(),
                imports: FxHashMap::default(),
            });
        }
        Checker {
            target,
            names: Names {
                modules,
                current_module: 0,
            },
            reporting: Reporting::default(),
            budgets: Budgets::default(),
            evaluated: Evaluated::default(),
            tracing: Tracing::default(),
            scopes: vec![FxHashMap::default()],
            origins: FxHashMap::default(),
            frame: Frame::new(Context::Const, "file".to_owned()),
            fresh: 0,
        }
    }

    /// Makes [`Checker::run`] also trace every kernel instantiation it checks.
    pub(crate) fn with_tracing(mut self) -> Checker<'a> {
        self.tracing.enabled = true;
        self
    }

    /// Makes [`Checker::run_traced`] hand each trace to `traced` as soon as it is finished.
    pub(crate) fn with_traced(mut self, traced: Traced<'a>) -> Checker<'a> {
        self.tracing.traced = Some(traced);
        self
    }

    /// Makes [`Checker::run_traced`] also check and trace these instantiations.
    pub(crate) fn with_requested(mut self, requested: &[crate::Instantiation]) -> Checker<'a> {
        self.tracing.requested = requested.to_vec();
        self
    }

    /// Whether a kernel is being traced, so run-time values should carry the terms
    /// that compute them (nothing else needs them).
    pub(crate) fn tracing_kernel(&self) -> bool {
        self.tracing.trace.is_some()
    }

    /// A number for a new register fragment, whose allocation is traced here.
    pub(crate) fn next_fragment(&mut self, span: Span) -> u32 {
        self.tracing.fragments += 1;
        let fragment = self.tracing.fragments;
        self.emit(Effect::Registers(fragment, span));
        fragment
    }

    /// Records what the kernel being traced does at run time, in the region being
    /// traced. Code of the stdlib is recorded at the user's line that called it.
    pub(crate) fn emit(&mut self, mut effect: Effect) {
        if self.frame.context != Context::Device {
            return;
        }
        if self.names.current_module != 0
            && let Some(anchor) = self.reporting.anchor
        {
            *crate::trace::effect_span_mut(&mut effect) = anchor;
        }
        let Some(effect) = self.guarded(effect) else {
            return;
        };
        if let Some(trace) = &mut self.tracing.trace {
            trace.effects.push(effect);
        }
    }

    /// Records a load of `tensor` (at layout value `index`, or all of it) in program
    /// order, returning the term that refers to what it read; `None` when nothing is
    /// traced here (the value then has no term, and lowering refuses its uses).
    pub(crate) fn record_load(
        &mut self,
        tensor: &Arc<Tensor>,
        index: Option<SymInt>,
        variable: Option<String>,
        span: Span,
    ) -> Option<Term> {
        if !self.tracing_kernel()
            || self.tracing.target_only
            || self.frame.context != Context::Device
        {
            return None;
        }
        self.tracing.loads += 1;
        let id = LoadId(self.tracing.loads);
        self.emit(Effect::Load {
            id,
            tensor: tensor.clone(),
            index,
            variable,
            guard: self.tracing.guard.clone(),
            span,
        });
        Some(Term::Loaded(id))
    }
}
