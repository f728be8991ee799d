//! The checker's state and its walk over items and statements.
//!
//! [`Checker`] is an abstract interpreter: it evaluates every item, statement and
//! expression to a [`Value`], folding what is const and tracking what is dyn, and
//! reports each problem once. Device functions are inlined, so a function body is
//! checked with the values of each call; kernels are checked with their default const
//! parameters and again for each other set of const arguments a test passes. `static`
//! loops run once per iteration; run-time loops and branches run once with the
//! variables they assign made dyn.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use lang::ast::{
    Block, GenericParam, Item, ItemKind, Kernel, LaunchKind, Module, Name, Param, Pattern,
    PatternKind, Stmt, StmtKind, TestBlock, Type, TypeKind, UseTree,
};
use lang::{Diagnostic, Span};
use layout::SymInt;

use crate::atom::{Callee, ItemId};
use crate::dtype::Dtype;
use crate::stdlib;
use crate::target::Target;
use crate::trace::{Base, Effect, KernelTrace, TraceParam, TraceParamKind, effect_span};
use crate::value::{Codomain, IntType, Known, Origin, Tensor, TensorLayout, Value};
use crate::{Binding, BindingKind};

/// Most statements one check may evaluate; unrolled loops count each iteration.
const WORK_LIMIT: u64 = 2_000_000;
/// Most iterations of one `static` loop.
pub(crate) const UNROLL_LIMIT: i64 = 4096;
/// Deepest nesting of inlined calls.
const CALL_DEPTH_LIMIT: usize = 64;
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
}

/// One module the checker resolves names in.
struct ModuleEntry<'a> {
    /// Path prefix (`sm80`); empty for the user's file.
    name: &'static str,
    module: &'a Module,
    /// Item index by name.
    items: HashMap<String, usize>,
    /// Names brought in by `use`: name to (module, item).
    imports: HashMap<String, (usize, usize)>,
}

/// A shared-memory buffer of the kernel being checked.
#[derive(Clone, Debug)]
pub(crate) struct SharedBuffer {
    pub(crate) name: String,
    pub(crate) span: Span,
    pub(crate) bytes: i64,
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
        }
    }
}

/// The state of a `const` item's evaluation.
#[derive(Clone, Debug)]
enum ConstState {
    InProgress,
    Done(Vec<(String, Value)>),
}

/// The typechecker.
pub(crate) struct Checker<'a> {
    pub(crate) target: Target,
    modules: Vec<ModuleEntry<'a>>,
    pub(crate) current_module: usize,
    diagnostics: Vec<Diagnostic>,
    seen: HashSet<(&'static str, Span, String)>,
    pub(crate) bindings: Vec<Binding>,
    recorded: HashSet<(Span, String)>,
    pub(crate) scopes: Vec<HashMap<String, Local>>,
    pub(crate) origins: HashMap<String, Origin>,
    pub(crate) frame: Frame,
    consts: HashMap<(usize, usize), ConstState>,
    pub(crate) atoms: HashMap<String, Value>,
    /// The atom instantiations being evaluated, to catch one that needs itself.
    pub(crate) atoms_in_progress: HashSet<String>,
    instantiated: HashSet<String>,
    called_functions: HashSet<(usize, usize)>,
    pub(crate) call_stack: Vec<ItemId>,
    /// While evaluating stdlib code: the user-file span responsible for it.
    pub(crate) anchor: Option<Span>,
    fresh: u64,
    work: u64,
    work_reported: bool,
    /// How deep evaluation is nested now, against [`EVAL_DEPTH_LIMIT`].
    depth: usize,
    depth_reported: bool,
    fragments: u32,
    /// Whether kernels are traced for lowering.
    tracing: bool,
    /// The trace of the kernel instantiation being checked, when tracing.
    trace: Option<KernelTrace>,
    /// The finished traces.
    pub(crate) traces: Vec<KernelTrace>,
    /// Where expression types go, for editors (`expr_types.rs`).
    pub(crate) expr_types: Option<Rc<std::cell::RefCell<crate::expr_types::ExprTypes>>>,
}

impl<'a> Checker<'a> {
    pub(crate) fn new(module: &'a Module, target: Target) -> Checker<'a> {
        let mut modules = vec![ModuleEntry {
            name: "",
            module,
            items: HashMap::new(),
            imports: HashMap::new(),
        }];
        for std_module in stdlib::modules() {
            modules.push(ModuleEntry {
                name: std_module.name,
                module: &std_module.module,
                items: HashMap::new(),
                imports: HashMap::new(),
            });
        }
        Checker {
            target,
            modules,
            current_module: 0,
            diagnostics: Vec::new(),
            seen: HashSet::new(),
            bindings: Vec::new(),
            recorded: HashSet::new(),
            scopes: vec![HashMap::new()],
            origins: HashMap::new(),
            frame: Frame::new(Context::Const, "file".to_owned()),
            consts: HashMap::new(),
            atoms: HashMap::new(),
            atoms_in_progress: HashSet::new(),
            instantiated: HashSet::new(),
            called_functions: HashSet::new(),
            call_stack: Vec::new(),
            anchor: None,
            fresh: 0,
            work: 0,
            work_reported: false,
            depth: 0,
            depth_reported: false,
            fragments: 0,
            tracing: false,
            trace: None,
            traces: Vec::new(),
            expr_types: None,
        }
    }

    /// Makes [`Checker::run`] also trace every kernel instantiation it checks.
    pub(crate) fn with_tracing(mut self) -> Checker<'a> {
        self.tracing = true;
        self
    }

    /// Whether a kernel is being traced, so run-time values should carry the terms
    /// that compute them (nothing else needs them).
    pub(crate) fn tracing_kernel(&self) -> bool {
        self.trace.is_some()
    }

    /// A number for a new register fragment.
    pub(crate) fn next_fragment(&mut self) -> u32 {
        self.fragments += 1;
        self.fragments
    }

    /// Records what the kernel being traced does at run time. Inside run-time control
    /// flow the effect is recorded as not lowerable (lowering handles straight-line
    /// kernels).
    pub(crate) fn emit(&mut self, effect: Effect) {
        if self.frame.context != Context::Device || self.current_module != 0 {
            return;
        }
        let dyn_control = self.frame.dyn_control;
        if let Some(trace) = &mut self.trace {
            trace.effects.push(if dyn_control > 0 {
                Effect::Unsupported(
                    "an effect under run-time control flow".to_owned(),
                    effect_span(&effect),
                )
            } else {
                effect
            });
        }
    }

    /// Checks the user's module; returns the diagnostics in source order.
    pub(crate) fn run(self) -> (Vec<Diagnostic>, Vec<Binding>) {
        let (diagnostics, bindings, _) = self.run_traced();
        (diagnostics, bindings)
    }

    /// [`Checker::run`], also returning the kernel traces when tracing.
    pub(crate) fn run_traced(mut self) -> (Vec<Diagnostic>, Vec<Binding>, Vec<KernelTrace>) {
        for module in 0..self.modules.len() {
            self.index_items(module);
        }
        self.resolve_uses();
        let module = self.modules[0].module;
        for (index, item) in module.items.iter().enumerate() {
            match &item.kind {
                ItemKind::Const(_) => {
                    self.const_item(0, index);
                }
                ItemKind::Atom(atom) if atom.generics.is_empty() => {
                    let id = self.item_id(0, index);
                    self.instantiate_atom(&id, &[], atom.name.span);
                }
                ItemKind::Atom(atom) => self.check_atom_defaults(0, index, atom.name.span),
                ItemKind::Kernel(kernel) => {
                    let id = self.item_id(0, index);
                    self.check_kernel(&id, kernel, &[], kernel.name.span);
                }
                ItemKind::Test(test) => self.check_test(test, false),
                ItemKind::Bench(bench) => self.check_test(bench, true),
                ItemKind::Function(_) | ItemKind::Use(_) | ItemKind::Error => {}
            }
        }
        for (index, item) in module.items.iter().enumerate() {
            if let ItemKind::Function(function) = &item.kind
                && !self.called_functions.contains(&(0, index))
            {
                self.check_function_alone(function);
            }
        }
        let mut diagnostics = self.diagnostics;
        diagnostics.sort_by_key(|diagnostic| (diagnostic.span().start, diagnostic.span().end));
        (diagnostics, self.bindings, self.traces)
    }

    // ----- diagnostics -----

    /// Reports `diagnostic` once (checking a body several times repeats findings).
    /// Inside stdlib code, the diagnostic moves to the user's span that led there.
    pub(crate) fn report(&mut self, mut diagnostic: Diagnostic) {
        if self.current_module != 0 {
            let Some(anchor) = self.anchor else { return };
            let module = self.modules[self.current_module].name;
            diagnostic.primary.span = anchor;
            diagnostic.secondary.clear();
            diagnostic.notes.push(format!(
                "found while evaluating the stdlib module `{module}`"
            ));
        }
        let key = (
            diagnostic.code,
            diagnostic.span(),
            diagnostic.message.clone(),
        );
        if self.seen.insert(key) {
            self.diagnostics.push(diagnostic);
        }
    }

    /// Reports an error with one labelled span and returns [`Value::Unknown`].
    pub(crate) fn error(
        &mut self,
        code: &'static str,
        span: Span,
        message: String,
        label: &str,
    ) -> Value {
        self.report(Diagnostic::error(code, message).with_primary(span, label));
        Value::Unknown
    }

    /// Counts one unit of work; false (after one diagnostic) once the budget is spent.
    pub(crate) fn spend(&mut self, span: Span) -> bool {
        self.work += 1;
        if self.work <= WORK_LIMIT {
            return true;
        }
        if !self.work_reported {
            self.work_reported = true;
            self.report(
                Diagnostic::error(
                    "E0222",
                    format!("compile-time evaluation stopped after {WORK_LIMIT} steps"),
                )
                .with_primary(span, "still evaluating here")
                .with_note("static loops unroll and functions inline while checking; this program does too much of either"),
            );
        }
        false
    }

    /// Enters one level of evaluation; false (after one diagnostic) past
    /// [`EVAL_DEPTH_LIMIT`], and then the caller must not evaluate. Every true is
    /// matched by a [`Checker::leave`].
    pub(crate) fn enter(&mut self, span: Span) -> bool {
        if self.depth < EVAL_DEPTH_LIMIT {
            self.depth += 1;
            return true;
        }
        if !self.depth_reported {
            self.depth_reported = true;
            self.report(
                Diagnostic::error(
                    "E0222",
                    format!("compile-time evaluation nested deeper than {EVAL_DEPTH_LIMIT} levels"),
                )
                .with_primary(span, "nested too deep here")
                .with_note("each operand, const naming another const, and inlined call adds a level; split long chains"),
            );
        }
        false
    }

    /// Leaves a level entered with [`Checker::enter`].
    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    // ----- names -----

    fn index_items(&mut self, module: usize) {
        let items = &self.modules[module].module.items;
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut duplicates = Vec::new();
        for (index, item) in items.iter().enumerate() {
            for name in item_names(item) {
                if let Some(&first) = names.get(&name.text) {
                    duplicates.push((name.clone(), first));
                } else {
                    names.insert(name.text.clone(), index);
                }
            }
        }
        self.modules[module].items = names;
        if module == 0 {
            for (name, first) in duplicates {
                let earlier = item_names(&items[first])
                    .into_iter()
                    .find(|earlier| earlier.text == name.text)
                    .map_or(items[first].span, |earlier| earlier.span);
                self.report(
                    Diagnostic::error("E0203", format!("`{}` is defined twice", name.text))
                        .with_primary(name.span, "defined again here")
                        .with_secondary(earlier, "first defined here"),
                );
            }
        }
    }

    fn resolve_uses(&mut self) {
        let module = self.modules[0].module;
        for item in &module.items {
            let ItemKind::Use(use_item) = &item.kind else {
                continue;
            };
            let segments = &use_item.path.segments;
            let (module_name, names): (&Name, Vec<&Name>) = match &use_item.tree {
                UseTree::Single if segments.len() == 2 => (&segments[0], vec![&segments[1]]),
                UseTree::Group(_) | UseTree::Glob if segments.len() == 1 => (
                    &segments[0],
                    names_or_empty(&use_item.tree).iter().collect(),
                ),
                _ => {
                    self.report(
                        Diagnostic::error("E0202", "a `use` names a stdlib module and its items")
                            .with_primary(use_item.path.span, "not of the form `module::item`")
                            .with_help(format!(
                                "the modules are {}; write `use sm80::cp_async;` or `use sm80::{{cp_async, ldmatrix_x4}};`",
                                module_list()
                            )),
                    );
                    continue;
                }
            };
            let Some(target) = self.module_index(&module_name.text) else {
                self.unknown_module(module_name);
                continue;
            };
            if matches!(use_item.tree, UseTree::Glob) {
                let items: Vec<(String, usize)> = self.modules[target]
                    .items
                    .iter()
                    .map(|(name, &index)| (name.clone(), index))
                    .collect();
                for (name, index) in items {
                    self.modules[0].imports.insert(name, (target, index));
                }
                continue;
            }
            for name in names {
                match self.modules[target].items.get(&name.text) {
                    Some(&index) => {
                        if self.modules[0].items.contains_key(&name.text) {
                            self.report(
                                Diagnostic::error(
                                    "E0203",
                                    format!(
                                        "`{}` is both imported and defined in this file",
                                        name.text
                                    ),
                                )
                                .with_primary(name.span, "imported here"),
                            );
                        }
                        self.modules[0]
                            .imports
                            .insert(name.text.clone(), (target, index));
                    }
                    None => self.unknown_member(target, name),
                }
            }
        }
    }

    pub(crate) fn module_index(&self, name: &str) -> Option<usize> {
        (1..self.modules.len()).find(|&index| self.modules[index].name == name)
    }

    pub(crate) fn unknown_module(&mut self, name: &Name) {
        let modules: Vec<&str> = stdlib::SOURCES.iter().map(|(name, _)| *name).collect();
        let mut diagnostic = Diagnostic::error(
            "E0202",
            format!("there is no stdlib module `{}`", name.text),
        )
        .with_primary(name.span, "unknown module")
        .with_note(format!("the stdlib modules are {}", module_list()));
        if let Some(best) = closest(&name.text, modules.iter().copied()) {
            diagnostic = diagnostic.with_help(format!("did you mean `{best}`?"));
        }
        self.report(diagnostic);
    }

    pub(crate) fn unknown_member(&mut self, module: usize, name: &Name) {
        let module_name = self.modules[module].name;
        let mut members: Vec<&str> = self.modules[module]
            .items
            .keys()
            .map(String::as_str)
            .collect();
        members.sort_unstable();
        let mut diagnostic = Diagnostic::error(
            "E0202",
            format!(
                "the stdlib module `{module_name}` has no item `{}`",
                name.text
            ),
        )
        .with_primary(name.span, "not in this module")
        .with_note(format!("`{module_name}` has {}", members.join(", ")));
        if let Some(best) = closest(&name.text, members.iter().copied()) {
            diagnostic = diagnostic.with_help(format!("did you mean `{module_name}::{best}`?"));
        }
        self.report(diagnostic);
    }

    pub(crate) fn item_id(&self, module: usize, item: usize) -> ItemId {
        let entry = &self.modules[module];
        let name = item_names(&entry.module.items[item])
            .first()
            .map_or_else(String::new, |name| name.text.clone());
        let name = if entry.name.is_empty() {
            name
        } else {
            format!("{}::{name}", entry.name)
        };
        ItemId { module, item, name }
    }

    pub(crate) fn item(&self, id: &ItemId) -> &'a Item {
        &self.modules[id.module].module.items[id.item]
    }

    /// The value of a global name in `module` (an item or an import).
    pub(crate) fn global(&mut self, module: usize, name: &Name) -> Option<Value> {
        let entry = &self.modules[module];
        let (target_module, index) = match entry.items.get(&name.text) {
            Some(&index) => (module, index),
            None => *entry.imports.get(&name.text)?,
        };
        Some(self.item_value(target_module, index, &name.text, name.span))
    }

    /// An item of a stdlib module by path (`sm80::cp_async`).
    pub(crate) fn module_member(&mut self, module_name: &Name, member: &Name) -> Value {
        let Some(module) = self.module_index(&module_name.text) else {
            self.unknown_module(module_name);
            return Value::Unknown;
        };
        match self.modules[module].items.get(&member.text) {
            Some(&index) => self.item_value(module, index, &member.text, member.span),
            None => {
                self.unknown_member(module, member);
                Value::Unknown
            }
        }
    }

    fn item_value(&mut self, module: usize, index: usize, name: &str, span: Span) -> Value {
        let id = self.item_id(module, index);
        match &self.modules[module].module.items[index].kind {
            ItemKind::Const(_) => {
                let values = self.const_item(module, index);
                values
                    .into_iter()
                    .find(|(bound, _)| bound == name)
                    .map_or(Value::Unknown, |(_, value)| value)
            }
            ItemKind::Function(_) => Value::Callable(Callee::Function(id)),
            ItemKind::Kernel(_) => Value::Callable(Callee::Kernel(id)),
            ItemKind::Atom(atom) if atom.generics.is_empty() => {
                self.instantiate_atom(&id, &[], span)
            }
            ItemKind::Atom(_) => Value::Callable(Callee::AtomTemplate(id)),
            ItemKind::Test(_) | ItemKind::Bench(_) => self.error(
                "E0216",
                span,
                format!("`{name}` is a test, which runs on its own and is not a value"),
                "a test",
            ),
            ItemKind::Use(_) | ItemKind::Error => Value::Unknown,
        }
    }

    /// Every name visible here, for "did you mean" suggestions.
    pub(crate) fn visible_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .scopes
            .iter()
            .flat_map(|scope| scope.keys().cloned())
            .collect();
        let entry = &self.modules[self.current_module];
        names.extend(entry.items.keys().cloned());
        names.extend(entry.imports.keys().cloned());
        names.extend(
            crate::builtins::BUILTIN_FUNCTIONS
                .iter()
                .map(|name| (*name).to_owned()),
        );
        names.extend(["thread_idx", "block_idx", "block_dim", "grid_dim"].map(str::to_owned));
        names.extend(Dtype::ALL.iter().map(|dtype| dtype.name().to_owned()));
        names
    }

    // ----- scopes -----

    pub(crate) fn lookup_local(&self, name: &str) -> Option<&Local> {
        self.scopes.iter().rev().find_map(|scope| scope.get(name))
    }

    pub(crate) fn bind(&mut self, name: &Name, value: Value, mutable: bool, kind: BindingKind) {
        self.record(&name.text, name.span, &value, kind);
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(
                name.text.clone(),
                Local {
                    value,
                    mutable,
                    span: name.span,
                },
            );
        }
    }

    /// Records a binding for `--dump-types` and hovers: the first evaluation wins.
    pub(crate) fn record(&mut self, name: &str, span: Span, value: &Value, kind: BindingKind) {
        if self.current_module != 0 || !self.recorded.insert((span, name.to_owned())) {
            return;
        }
        let dyn_reason = self.dyn_origin(value).map(|origin| origin.reason);
        self.bindings.push(Binding {
            name: name.to_owned(),
            span,
            kind,
            scope: self.frame.title.clone(),
            type_name: value.type_name(),
            contents: value.contents(),
            dyn_reason,
        });
    }

    /// Runs `body` with a fresh scope stack and frame in `module`, restoring both after.
    pub(crate) fn isolated<T>(
        &mut self,
        module: usize,
        frame: Frame,
        body: impl FnOnce(&mut Self) -> T,
    ) -> (T, Frame) {
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let saved_frame = std::mem::replace(&mut self.frame, frame);
        let saved_module = std::mem::replace(&mut self.current_module, module);
        let result = body(self);
        self.current_module = saved_module;
        let frame = std::mem::replace(&mut self.frame, saved_frame);
        self.scopes = saved_scopes;
        (result, frame)
    }

    pub(crate) fn frame_for(&self, context: Context, title: String) -> Frame {
        Frame::new(context, title)
    }

    // ----- stages -----

    /// A fresh run-time integer variable named after `base`, with its origin.
    pub(crate) fn fresh_variable(&mut self, base: &str, origin: Origin) -> SymInt {
        let mut name = base.to_owned();
        while self
            .origins
            .get(&name)
            .is_some_and(|known| *known != origin)
        {
            self.fresh += 1;
            name = format!("{base}'{}", self.fresh);
        }
        self.origins.insert(name.clone(), origin);
        SymInt::variable(&name)
    }

    /// Why `value` is only known at run time, or `None` when it is const.
    pub(crate) fn dyn_origin(&self, value: &Value) -> Option<Origin> {
        match value {
            Value::Int { value, .. } => self.symbolic_origin(value),
            Value::Float {
                value: Known::Dyn(origin),
                ..
            }
            | Value::Bool(Known::Dyn(origin)) => Some(origin.clone()),
            Value::Tuple(items) => items.iter().find_map(|item| self.dyn_origin(item)),
            Value::Layout(layout) => layout
                .shape()
                .leaves()
                .iter()
                .chain(layout.stride().leaves().iter())
                .find_map(|leaf| self.symbolic_origin(leaf)),
            Value::Vector { .. } => Some(Origin {
                reason: "a fragment's values are in registers".to_owned(),
                span: None,
                term: None,
            }),
            _ => None,
        }
    }

    pub(crate) fn symbolic_origin(&self, value: &SymInt) -> Option<Origin> {
        if value.as_constant().is_some() {
            return None;
        }
        let variables = value.variables();
        let origin = variables
            .iter()
            .find_map(|name| self.origins.get(name).cloned());
        Some(origin.unwrap_or_else(|| Origin {
            reason: format!("`{}` is only known at run time", variables.join("`, `")),
            span: None,
            term: None,
        }))
    }

    /// Whether a variable is a run-time extent (a kernel's integer argument), which
    /// checks of alignment assume to be suitably divisible.
    pub(crate) fn is_extent_variable(&self, name: &str) -> bool {
        self.origins
            .get(name)
            .is_some_and(|origin| origin.reason.ends_with("is a kernel argument"))
    }

    // ----- items -----

    /// Evaluates a `const` item once; returns the names it binds and their values.
    pub(crate) fn const_item(&mut self, module: usize, index: usize) -> Vec<(String, Value)> {
        match self.consts.get(&(module, index)) {
            Some(ConstState::Done(values)) => return values.clone(),
            Some(ConstState::InProgress) => {
                let item = &self.modules[module].module.items[index];
                self.report(
                    Diagnostic::error("E0221", "this const depends on itself")
                        .with_primary(item.span, "its value needs its own value")
                        .with_help("a const must be computable from the consts before it"),
                );
                return Vec::new();
            }
            None => {}
        }
        self.consts.insert((module, index), ConstState::InProgress);
        let item = &self.modules[module].module.items[index];
        let ItemKind::Const(const_item) = &item.kind else {
            return Vec::new();
        };
        let frame = self.frame_for(Context::Const, "const".to_owned());
        let (bound, _) = self.isolated(module, frame, |checker| {
            let value = checker.eval(&const_item.value);
            let value = match &const_item.ty {
                Some(ty) => checker.check_declared_type(value, ty, const_item.value.span),
                None => value,
            };
            if let Some(origin) = checker.dyn_origin(&value) {
                checker.require_const_failed("a `const` item", const_item.value.span, &origin);
            }
            checker.bind_pattern(
                &const_item.pattern,
                value.clone(),
                false,
                BindingKind::Const,
            );
            let mut bound = Vec::new();
            destructure(&const_item.pattern, value, &mut bound);
            bound
        });
        self.consts
            .insert((module, index), ConstState::Done(bound.clone()));
        bound
    }

    /// Evaluates `expr` without reporting or recording anything (a second look at a
    /// value already checked).
    pub(crate) fn eval_quiet(&mut self, expr: &'a lang::ast::Expr) -> Value {
        let saved_diagnostics = self.diagnostics.len();
        let saved_seen = self.seen.clone();
        let saved_bindings = self.bindings.len();
        let value = self.eval(expr);
        self.diagnostics.truncate(saved_diagnostics);
        self.seen = saved_seen;
        self.bindings.truncate(saved_bindings);
        value
    }

    /// Checks a kernel with the given const arguments (the defaults for the rest).
    pub(crate) fn check_kernel(
        &mut self,
        id: &ItemId,
        kernel: &'a Kernel,
        const_arguments: &[(String, Value)],
        call_span: Span,
    ) {
        let key = format!(
            "{}<{}>",
            id.name,
            const_arguments
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        if !self.instantiated.insert(key) {
            return;
        }
        let frame = self.frame_for(Context::Device, format!("kernel {}", kernel.name.text));
        let errors_before = self.error_count();
        let (trace, frame) = self.isolated(id.module, frame, |checker| {
            checker.bind_generics(&kernel.generics, const_arguments, call_span);
            checker.bind_kernel_params(&kernel.params);
            checker.check_launch(kernel);
            let trace = checker.tracing.then(|| {
                let mut trace = checker.start_trace(kernel);
                trace.is_default = const_arguments.is_empty();
                trace
            });
            checker.trace = trace;
            checker.eval_block(&kernel.body);
            checker.trace.take()
        });
        self.check_shared_budget(kernel, &frame.shared);
        if let Some(mut trace) = trace {
            trace.shared = frame
                .shared
                .iter()
                .map(|buffer| crate::trace::TraceBuffer {
                    name: buffer.name.clone(),
                    span: buffer.span,
                    bytes: buffer.bytes,
                })
                .collect();
            trace.has_errors = self.error_count() > errors_before;
            self.traces.push(trace);
        }
    }

    fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.severity == lang::Severity::Error)
            .count()
    }

    /// A trace with the kernel's bound const parameters, parameters and launch clause.
    fn start_trace(&mut self, kernel: &'a Kernel) -> KernelTrace {
        let const_args = kernel
            .generics
            .iter()
            .map(|generic| {
                let value = match self
                    .lookup_local(&generic.name.text)
                    .map(|local| &local.value)
                {
                    Some(Value::Int { value, .. }) => value.as_constant(),
                    _ => None,
                };
                (generic.name.text.clone(), value)
            })
            .collect();
        let params = kernel
            .params
            .iter()
            .map(|param| {
                let value = self
                    .lookup_local(&param.name.text)
                    .map(|local| &local.value);
                let kind = match value {
                    Some(Value::Int {
                        ty: IntType::Sized(dtype),
                        value,
                    }) => match value.variables().as_slice() {
                        [variable] => TraceParamKind::Int(*dtype, variable.clone()),
                        _ => TraceParamKind::Unknown,
                    },
                    Some(Value::Float {
                        dtype: Some(dtype), ..
                    }) => TraceParamKind::Scalar(*dtype),
                    Some(Value::Bool(_)) => TraceParamKind::Scalar(Dtype::Bool),
                    Some(Value::Tensor(tensor)) => match tensor.dtype {
                        Some(dtype) => TraceParamKind::Tensor(dtype, tensor.layout.layout.clone()),
                        None => TraceParamKind::Unknown,
                    },
                    _ => TraceParamKind::Unknown,
                };
                TraceParam {
                    name: param.name.text.clone(),
                    kind,
                }
            })
            .collect();
        let mut extents = |kind: LaunchKind| -> Vec<SymInt> {
            let Some(part) = kernel.launch.iter().find(|part| part.kind == kind) else {
                return Vec::new();
            };
            part.args
                .iter()
                .map(|arg| match self.eval_quiet(arg) {
                    Value::Int { value, .. } => value,
                    _ => SymInt::constant(0),
                })
                .collect()
        };
        let grid = extents(LaunchKind::Grid);
        let block = extents(LaunchKind::Block);
        KernelTrace {
            name: kernel.name.text.clone(),
            span: kernel.name.span,
            const_args,
            params,
            grid,
            block,
            shared: Vec::new(),
            effects: Vec::new(),
            has_errors: false,
            is_default: true,
        }
    }

    fn check_launch(&mut self, kernel: &'a Kernel) {
        for part in &kernel.launch {
            for arg in &part.args {
                if part.kind == LaunchKind::Smem
                    && let lang::ast::ExprKind::Path(path) = &arg.kind
                    && path.segments.len() == 1
                    && path.segments[0].text == "auto"
                {
                    continue;
                }
                let value = self.eval(arg);
                let what = format!("`{}` of the launch clause", part.kind.keyword());
                let Some(extent) = self.expect_int(&value, arg.span, &what) else {
                    continue;
                };
                match part.kind {
                    LaunchKind::Block | LaunchKind::Cluster => {
                        if let Some(origin) = self.symbolic_origin(&extent) {
                            self.require_const_failed(
                                &format!("the {} size", part.kind.keyword()),
                                arg.span,
                                &origin,
                            );
                        } else if extent.as_constant().is_some_and(|extent| extent < 1) {
                            self.error(
                                "E0216",
                                arg.span,
                                format!(
                                    "a {} dimension must be at least 1, not {extent}",
                                    part.kind.keyword()
                                ),
                                "not a positive size",
                            );
                        }
                    }
                    LaunchKind::Grid | LaunchKind::Smem => {}
                }
            }
        }
        if let Some(block) = kernel
            .launch
            .iter()
            .find(|part| part.kind == LaunchKind::Block)
        {
            let threads = block
                .args
                .iter()
                .map(|arg| {
                    let value = self.eval_quiet(arg);
                    match value {
                        Value::Int { value, .. } => value.as_constant(),
                        _ => None,
                    }
                })
                .try_fold(1i64, |product, extent| product.checked_mul(extent?));
            if let Some(threads) = threads
                && threads > 1024
            {
                self.error(
                    "E0216",
                    block.span,
                    format!("a block has at most 1024 threads; this one has {threads}"),
                    "too many threads",
                );
            }
        }
    }

    fn bind_generics(
        &mut self,
        generics: &'a [GenericParam],
        given: &[(String, Value)],
        span: Span,
    ) {
        for generic in generics {
            let value = match self.const_argument(generic, given) {
                Some(value) => value,
                None => {
                    if self.current_module == 0
                        && self.frame.context == Context::Device
                        && !given.is_empty()
                    {
                        self.error(
                            "E0215",
                            span,
                            format!(
                                "the const parameter `{}` has no default and is not given",
                                generic.name.text
                            ),
                            "missing a const argument",
                        );
                    }
                    Value::Unknown
                }
            };
            let value = self.check_generic_kind(generic, value, span);
            self.bind(&generic.name, value, false, BindingKind::ConstParameter);
        }
    }

    /// A const parameter's argument: the one given by name, else its default
    /// evaluated; `None` when there is neither.
    pub(crate) fn const_argument(
        &mut self,
        generic: &'a GenericParam,
        given: &[(String, Value)],
    ) -> Option<Value> {
        match given.iter().find(|(name, _)| *name == generic.name.text) {
            Some((_, value)) => Some(value.clone()),
            None => generic.default.as_ref().map(|default| self.eval(default)),
        }
    }

    /// Checks a const argument against its parameter's kind (`int` or `dtype`).
    pub(crate) fn check_generic_kind(
        &mut self,
        generic: &GenericParam,
        value: Value,
        span: Span,
    ) -> Value {
        let kind = type_name(&generic.kind);
        match (kind.as_str(), &value) {
            (_, Value::Unknown) => value,
            ("int", Value::Int { value: extent, .. }) => match self.symbolic_origin(extent) {
                Some(origin) => {
                    self.require_const_failed(
                        &format!("the const parameter `{}`", generic.name.text),
                        span,
                        &origin,
                    );
                    Value::Unknown
                }
                None => value,
            },
            ("dtype", Value::Dtype(_)) => value,
            ("int" | "dtype", _) => self.error(
                "E0216",
                span,
                format!(
                    "the const parameter `{}` is of kind `{kind}`, but it is given a {}",
                    generic.name.text,
                    value.type_name()
                ),
                "wrong kind of value",
            ),
            _ => self.error(
                "E0216",
                generic.kind.span,
                format!("a const parameter is of kind `int` or `dtype`, not `{kind}`"),
                "unknown kind",
            ),
        }
    }

    fn bind_kernel_params(&mut self, params: &'a [Param]) {
        for (index, param) in params.iter().enumerate() {
            let value = match self.param_value(param, "a kernel argument") {
                Value::Tensor(tensor) => Value::Tensor(Rc::new(Tensor {
                    base: Base::Param(index),
                    ..(*tensor).clone()
                })),
                other => other,
            };
            self.bind(&param.name, value, false, BindingKind::Parameter);
        }
    }

    /// The value a run-time parameter has inside the body: dyn, with its declared type.
    pub(crate) fn param_value(&mut self, param: &'a Param, role: &str) -> Value {
        let origin = Origin {
            reason: format!("`{}` is {role}", param.name.text),
            span: Some(param.name.span),
            term: None,
        };
        match &param.ty.kind {
            TypeKind::Named(path) => {
                if path.segments.len() != 1 {
                    return self.error(
                        "E0216",
                        param.ty.span,
                        "a parameter's type is a dtype or a tensor type".to_owned(),
                        "not a type",
                    );
                }
                let name = &path.segments[0];
                match Dtype::from_name(&name.text) {
                    Some(dtype) if dtype.is_integer() => Value::Int {
                        ty: IntType::Sized(dtype),
                        value: self.fresh_variable(&param.name.text, origin),
                    },
                    Some(Dtype::Bool) => Value::Bool(Known::Dyn(origin)),
                    Some(dtype) => Value::Float {
                        dtype: Some(dtype),
                        value: Known::Dyn(origin),
                    },
                    None => self.unknown_type(name),
                }
            }
            TypeKind::Tensor {
                space,
                element,
                layout,
            } => {
                let dtype = match self.resolve_dtype(element) {
                    Some(dtype) => dtype,
                    None => return Value::Unknown,
                };
                if matches!(layout.kind, lang::ast::ExprKind::Wildcard) {
                    if self.frame.is_function {
                        return Value::Unknown;
                    }
                    return self.error(
                        "E0216",
                        layout.span,
                        "a kernel's tensor parameter needs a layout; `_` is for device functions"
                            .to_owned(),
                        "layout unknown",
                    );
                }
                if *space != lang::ast::MemorySpace::Global && !self.frame.is_function {
                    return self.error(
                        "E0216",
                        param.ty.span,
                        format!(
                            "a kernel receives tensors in global memory, not `{}`",
                            space.keyword()
                        ),
                        "not gmem",
                    );
                }
                let layout_value = self.eval(layout);
                let Some(layout) = self.expect_layout(&layout_value, layout.span) else {
                    return Value::Unknown;
                };
                Value::Tensor(Rc::new(Tensor {
                    space: *space,
                    dtype: Some(dtype),
                    layout: TensorLayout {
                        layout,
                        offset: SymInt::constant(0),
                        codomain: Codomain::Offsets,
                    },
                    read_only: false,
                    base: Base::Unknown,
                }))
            }
        }
    }

    /// The dtype a name spells: a dtype name or a `dtype` const parameter.
    pub(crate) fn resolve_dtype(&mut self, name: &Name) -> Option<Dtype> {
        if let Some(dtype) = Dtype::from_name(&name.text) {
            return Some(dtype);
        }
        match self
            .lookup_local(&name.text)
            .map(|local| local.value.clone())
        {
            Some(Value::Dtype(dtype)) => Some(dtype),
            Some(Value::Unknown) => None,
            Some(other) => {
                self.error(
                    "E0216",
                    name.span,
                    format!("`{}` is a {}, not a dtype", name.text, other.type_name()),
                    "not a dtype",
                );
                None
            }
            None => {
                self.unknown_type(name);
                None
            }
        }
    }

    pub(crate) fn unknown_type(&mut self, name: &Name) -> Value {
        let dtypes: Vec<&str> = Dtype::ALL.iter().map(|dtype| dtype.name()).collect();
        let mut diagnostic = Diagnostic::error("E0201", format!("unknown type `{}`", name.text))
            .with_primary(name.span, "not a dtype or kind")
            .with_note(format!("the dtypes are {}", dtypes.join(", ")));
        if let Some(best) = closest(&name.text, dtypes.iter().copied().chain(["int", "dtype"])) {
            diagnostic = diagnostic.with_help(format!("did you mean `{best}`?"));
        }
        self.report(diagnostic);
        Value::Unknown
    }

    /// A device function never called: checked once with its parameters as written.
    fn check_function_alone(&mut self, function: &'a lang::ast::Function) {
        let mut frame = self.frame_for(Context::Device, format!("fn {}", function.name.text));
        frame.is_function = true;
        self.isolated(0, frame, |checker| {
            checker.bind_generics(&function.generics, &[], function.name.span);
            for param in &function.params {
                let value = checker.param_value(param, "a function argument");
                checker.bind(&param.name, value, false, BindingKind::Parameter);
            }
            checker.eval_block(&function.body);
        });
    }

    pub(crate) fn mark_function_called(&mut self, id: &ItemId) {
        self.called_functions.insert((id.module, id.item));
    }

    pub(crate) fn enter_call(&mut self, id: &ItemId, span: Span) -> bool {
        if self.call_stack.contains(id) {
            self.error(
                "E0221",
                span,
                format!(
                    "`{}` calls itself; device functions are inlined, so they cannot recurse",
                    id.name
                ),
                "recursive call",
            );
            return false;
        }
        if self.call_stack.len() >= CALL_DEPTH_LIMIT {
            self.error(
                "E0222",
                span,
                format!("calls nest deeper than {CALL_DEPTH_LIMIT}"),
                "too deep",
            );
            return false;
        }
        self.call_stack.push(id.clone());
        true
    }

    // ----- tests -----

    fn check_test(&mut self, test: &'a TestBlock, is_bench: bool) {
        let word = if is_bench { "bench" } else { "test" };
        let mut frame = self.frame_for(Context::Host, format!("{word} {}", test.name.text));
        frame.is_bench = is_bench;
        self.isolated(0, frame, |checker| checker.eval_block(&test.body));
    }

    // ----- statements -----

    pub(crate) fn eval_block(&mut self, block: &'a Block) -> Value {
        self.scopes.push(HashMap::new());
        for statement in &block.statements {
            self.eval_statement(statement);
        }
        let result = match &block.tail {
            Some(tail) => self.eval(tail),
            None => Value::Unit,
        };
        self.scopes.pop();
        result
    }

    fn eval_statement(&mut self, statement: &'a Stmt) {
        if !self.spend(statement.span) {
            return;
        }
        match &statement.kind {
            StmtKind::Let {
                mutable,
                pattern,
                ty,
                value,
            } => {
                let mut evaluated = self.eval(value);
                if let Some(ty) = ty {
                    evaluated = self.check_declared_type(evaluated, ty, value.span);
                }
                if let (PatternKind::Name(name), lang::ast::ExprKind::Alloc { space, .. }) =
                    (&pattern.kind, &value.kind)
                    && *space == lang::ast::MemorySpace::Shared
                    && let Some(buffer) = self
                        .frame
                        .shared
                        .iter_mut()
                        .rev()
                        .find(|buffer| buffer.span == value.span)
                {
                    buffer.name.clone_from(&name.text);
                }
                self.bind_pattern(pattern, evaluated, *mutable, BindingKind::Local);
            }
            StmtKind::Assign { op, target, value } => {
                self.assign(*op, target, value, statement.span)
            }
            StmtKind::Expr(expr) => {
                self.eval(expr);
            }
            StmtKind::Return(value) => {
                let result = value.as_ref().map_or(Value::Unit, |value| self.eval(value));
                if !self.frame.is_function {
                    self.error(
                        "E0220",
                        statement.span,
                        format!(
                            "`return` belongs in a device function, not in a {}",
                            self.frame_kind()
                        ),
                        "nothing to return from",
                    );
                }
                self.frame.returns.push(result);
            }
            StmtKind::Break | StmtKind::Continue => {
                if self.frame.loops == 0 {
                    let word = if matches!(statement.kind, StmtKind::Break) {
                        "break"
                    } else {
                        "continue"
                    };
                    self.error(
                        "E0220",
                        statement.span,
                        format!("`{word}` outside a loop"),
                        "not in a loop",
                    );
                }
            }
            StmtKind::Empty | StmtKind::Error => {}
            StmtKind::Report(parts) => self.check_report(parts, statement.span),
            StmtKind::For {
                variable,
                unrolled,
                start,
                end,
                body,
            } => self.eval_for(variable, *unrolled, start, end, body),
            StmtKind::Block(block) => {
                self.eval_block(block);
            }
            StmtKind::While { condition, body } => {
                let value = self.eval(condition);
                self.expect_bool(&value, condition.span, "a `while` condition");
                self.dyn_region(body, |checker| {
                    checker.frame.loops += 1;
                    checker.eval_block(body);
                    checker.frame.loops -= 1;
                });
            }
            StmtKind::If {
                branches,
                otherwise,
            } => self.eval_if(branches, otherwise.as_ref()),
        }
    }

    fn frame_kind(&self) -> &'static str {
        match self.frame.context {
            Context::Const => "const",
            Context::Device => "kernel",
            Context::Host if self.frame.is_bench => "bench",
            Context::Host => "test",
        }
    }

    fn eval_for(
        &mut self,
        variable: &'a Name,
        unrolled: bool,
        start: &'a lang::ast::Expr,
        end: &'a lang::ast::Expr,
        body: &'a Block,
    ) {
        let start_value = self.eval(start);
        let end_value = self.eval(end);
        let bounds = [(&start_value, start.span), (&end_value, end.span)];
        if unrolled {
            let mut constant = [0i64; 2];
            for (index, (value, span)) in bounds.into_iter().enumerate() {
                match self.expect_int(value, span, "a loop bound") {
                    Some(bound) => match self.symbolic_origin(&bound) {
                        Some(origin) => {
                            self.require_const_failed(
                                "the bound of a `static` loop",
                                span,
                                &origin,
                            );
                            return;
                        }
                        None => constant[index] = bound.as_constant().unwrap_or(0),
                    },
                    None => return,
                }
            }
            let [first, last] = constant;
            if last.saturating_sub(first) > UNROLL_LIMIT {
                self.error(
                    "E0222",
                    end.span,
                    format!("a `static` loop unrolls at most {UNROLL_LIMIT} iterations; this one has {}", last.saturating_sub(first)),
                    "too many iterations",
                );
                return;
            }
            self.frame.loops += 1;
            for index in first..last {
                self.scopes.push(HashMap::new());
                self.bind(variable, Value::int(index), false, BindingKind::Local);
                self.eval_block(body);
                self.scopes.pop();
                if self.work > WORK_LIMIT {
                    break;
                }
            }
            self.frame.loops -= 1;
            return;
        }
        let mut ty = IntType::Int;
        for (value, span) in bounds {
            if let Some(Value::Int { ty: bound_ty, .. }) =
                self.expect_int(value, span, "a loop bound").map(|_| value)
            {
                ty = self.unify_int_types(ty, *bound_ty, span).unwrap_or(ty);
            }
        }
        let origin = Origin {
            reason: format!("`{}` is the counter of a run-time loop", variable.text),
            span: Some(variable.span),
            term: None,
        };
        let counter = Value::Int {
            ty,
            value: self.fresh_variable(&variable.text, origin),
        };
        self.dyn_region(body, |checker| {
            checker.frame.loops += 1;
            checker.scopes.push(HashMap::new());
            checker.bind(variable, counter, false, BindingKind::Local);
            checker.eval_block(body);
            checker.scopes.pop();
            checker.frame.loops -= 1;
        });
    }

    fn eval_if(&mut self, branches: &'a [lang::ast::IfBranch], otherwise: Option<&'a Block>) {
        for branch in branches {
            let condition = self.eval(&branch.condition);
            if branch.is_const {
                match condition {
                    Value::Bool(Known::Const(true)) => {
                        self.eval_block(&branch.body);
                        return;
                    }
                    Value::Bool(Known::Const(false)) => continue,
                    Value::Bool(Known::Dyn(origin)) => {
                        self.require_const_failed(
                            "the condition of `if const`",
                            branch.condition.span,
                            &origin,
                        );
                        return;
                    }
                    Value::Unknown => return,
                    other => {
                        self.error(
                            "E0216",
                            branch.condition.span,
                            format!("a condition is a bool, not a {}", other.type_name()),
                            "not a bool",
                        );
                        return;
                    }
                }
            }
            self.expect_bool(&condition, branch.condition.span, "an `if` condition");
            self.dyn_region(&branch.body, |checker| {
                checker.eval_block(&branch.body);
            });
        }
        if let Some(otherwise) = otherwise {
            self.dyn_region(otherwise, |checker| {
                checker.eval_block(otherwise);
            });
        }
    }

    /// Evaluates run-time control flow: variables the region assigns are dyn inside it
    /// and after it.
    fn dyn_region(&mut self, body: &'a Block, run: impl FnOnce(&mut Self)) {
        if let Some(trace) = &mut self.trace
            && self.frame.dyn_control == 0
        {
            trace.effects.push(Effect::Unsupported(
                "run-time control flow (`if`, `for` or `while` on run-time values)".to_owned(),
                body.span,
            ));
        }
        let mut assigned = Vec::new();
        assigned_names(body, &mut assigned);
        self.make_dyn(&assigned, body.span);
        self.frame.dyn_control += 1;
        run(self);
        self.frame.dyn_control -= 1;
        self.make_dyn(&assigned, body.span);
    }

    fn make_dyn(&mut self, names: &[String], span: Span) {
        for name in names {
            let Some(local) = self.lookup_local(name).cloned() else {
                continue;
            };
            let origin = Origin {
                reason: format!("`{name}` changes in run-time control flow"),
                span: Some(span),
                term: None,
            };
            let value = self.dyn_like(&local.value, name, origin);
            if let Some(scope) = self
                .scopes
                .iter_mut()
                .rev()
                .find(|scope| scope.contains_key(name))
                && let Some(entry) = scope.get_mut(name)
            {
                entry.value = value;
            }
        }
    }

    /// A dyn value of the same type as `value`.
    pub(crate) fn dyn_like(&mut self, value: &Value, name: &str, origin: Origin) -> Value {
        match value {
            Value::Int { ty, value }
                if value.as_constant().is_some() || self.symbolic_origin(value).is_some() =>
            {
                Value::Int {
                    ty: *ty,
                    value: self.fresh_variable(name, origin),
                }
            }
            Value::Float { dtype, .. } => Value::Float {
                dtype: *dtype,
                value: Known::Dyn(origin),
            },
            Value::Bool(_) => Value::Bool(Known::Dyn(origin)),
            other => other.clone(),
        }
    }

    pub(crate) fn bind_pattern(
        &mut self,
        pattern: &Pattern,
        value: Value,
        mutable: bool,
        kind: BindingKind,
    ) {
        match &pattern.kind {
            PatternKind::Name(name) => self.bind(name, value, mutable, kind),
            PatternKind::Wildcard => {}
            PatternKind::Tuple(patterns) => match value {
                Value::Tuple(items) if items.len() == patterns.len() => {
                    for (pattern, item) in patterns.iter().zip(items) {
                        self.bind_pattern(pattern, item, mutable, kind);
                    }
                }
                Value::Unknown => {
                    for pattern in patterns {
                        self.bind_pattern(pattern, Value::Unknown, mutable, kind);
                    }
                }
                other => {
                    let found = match &other {
                        Value::Tuple(items) => format!("a tuple of {}", items.len()),
                        other => format!("a {}", other.type_name()),
                    };
                    self.error(
                        "E0216",
                        pattern.span,
                        format!(
                            "this pattern takes a tuple of {}, but the value is {found}",
                            patterns.len()
                        ),
                        "pattern does not fit",
                    );
                    for pattern in patterns {
                        self.bind_pattern(pattern, Value::Unknown, mutable, kind);
                    }
                }
            },
        }
    }

    /// Checks `value` against a written type and returns it (or `Unknown` on error).
    pub(crate) fn check_declared_type(&mut self, value: Value, ty: &'a Type, span: Span) -> Value {
        if matches!(value, Value::Unknown) {
            return value;
        }
        let TypeKind::Named(path) = &ty.kind else {
            return match &value {
                Value::Tensor(_) => self.check_tensor_type(value, ty, span),
                _ => self.error(
                    "E0216",
                    span,
                    format!("expected a tensor, found a {}", value.type_name()),
                    "not a tensor",
                ),
            };
        };
        let name = path.segments.last().map_or("", |name| name.text.as_str());
        let matches = match (name, &value) {
            (
                "int",
                Value::Int {
                    ty: IntType::Int, ..
                },
            ) => true,
            ("int", Value::Int { .. }) => true,
            ("dtype", Value::Dtype(_)) => true,
            ("layout", Value::Layout(_) | Value::Composed(_)) => true,
            (name, Value::Int { ty, value: _ })
                if Dtype::from_name(name).is_some_and(Dtype::is_integer) =>
            {
                matches!(ty, IntType::Int)
                    || *ty == IntType::Sized(Dtype::from_name(name).unwrap_or(Dtype::I32))
            }
            (name, Value::Float { dtype, .. })
                if Dtype::from_name(name).is_some_and(Dtype::is_float) =>
            {
                dtype.is_none() || *dtype == Dtype::from_name(name)
            }
            ("bool", Value::Bool(_)) => true,
            _ => {
                if Dtype::from_name(name).is_none() && !matches!(name, "int" | "dtype" | "layout") {
                    if let Some(segment) = path.segments.last() {
                        self.unknown_type(segment);
                    }
                    return Value::Unknown;
                }
                false
            }
        };
        if !matches {
            return self.error(
                "E0216",
                span,
                format!(
                    "expected a value of type `{name}`, found a {}",
                    value.type_name()
                ),
                &format!("this is a {}", value.type_name()),
            );
        }
        match (Dtype::from_name(name), value) {
            (Some(dtype), Value::Int { value, .. }) if dtype.is_integer() => Value::Int {
                ty: IntType::Sized(dtype),
                value,
            },
            (Some(dtype), Value::Float { value, .. }) => Value::Float {
                dtype: Some(dtype),
                value,
            },
            (_, value) => value,
        }
    }

    fn check_tensor_type(&mut self, value: Value, ty: &'a Type, span: Span) -> Value {
        let (
            Value::Tensor(tensor),
            TypeKind::Tensor {
                space,
                element,
                layout,
            },
        ) = (&value, &ty.kind)
        else {
            return value;
        };
        if tensor.space != *space {
            return self.error(
                "E0216",
                span,
                format!(
                    "expected a `{}` tensor, found a {}",
                    space.keyword(),
                    tensor.type_name()
                ),
                "wrong memory space",
            );
        }
        if let Some(expected) = self.resolve_dtype(element)
            && tensor.dtype != Some(expected)
        {
            return self.error(
                "E0216",
                span,
                format!(
                    "expected a tensor of {expected}, found a {}",
                    tensor.type_name()
                ),
                "wrong element type",
            );
        }
        if !matches!(layout.kind, lang::ast::ExprKind::Wildcard) {
            let expected = self.eval(layout);
            if let Some(expected) = self.expect_layout(&expected, layout.span)
                && expected.shape() != tensor.shape()
            {
                return self.error(
                    "E0216",
                    span,
                    format!(
                        "expected a tensor of shape {}, found shape {}",
                        expected.shape(),
                        tensor.shape()
                    ),
                    "wrong shape",
                );
            }
        }
        value
    }

    // ----- const requirements -----

    /// Reports that `what` needed a const value and got one that is dyn because of
    /// `origin`.
    pub(crate) fn require_const_failed(&mut self, what: &str, span: Span, origin: &Origin) {
        let mut diagnostic = Diagnostic::error(
            "E0204",
            format!(
                "{what} must be known at compile time, but {}",
                origin.reason
            ),
        )
        .with_primary(span, "only known at run time");
        if let Some(origin_span) = origin.span
            && origin_span != span
        {
            diagnostic = diagnostic.with_secondary(origin_span, "declared here");
        }
        self.report(diagnostic.with_help(
            "use a const item, a const parameter (`<const N: int = ...>`) or a literal",
        ));
    }
}

/// The names an item binds.
fn item_names(item: &Item) -> Vec<Name> {
    match &item.kind {
        ItemKind::Const(const_item) => {
            let mut names = Vec::new();
            collect_pattern_names(&const_item.pattern, &mut names);
            names
        }
        ItemKind::Function(function) => vec![function.name.clone()],
        ItemKind::Kernel(kernel) => vec![kernel.name.clone()],
        ItemKind::Atom(atom) => vec![atom.name.clone()],
        ItemKind::Test(test) | ItemKind::Bench(test) => vec![test.name.clone()],
        ItemKind::Use(_) | ItemKind::Error => Vec::new(),
    }
}

fn collect_pattern_names(pattern: &Pattern, names: &mut Vec<Name>) {
    match &pattern.kind {
        PatternKind::Name(name) => names.push(name.clone()),
        PatternKind::Wildcard => {}
        PatternKind::Tuple(patterns) => {
            for pattern in patterns {
                collect_pattern_names(pattern, names);
            }
        }
    }
}

/// Binds the names of `pattern` to the parts of `value`, without diagnostics.
fn destructure(pattern: &Pattern, value: Value, bound: &mut Vec<(String, Value)>) {
    match (&pattern.kind, value) {
        (PatternKind::Name(name), value) => bound.push((name.text.clone(), value)),
        (PatternKind::Wildcard, _) => {}
        (PatternKind::Tuple(patterns), Value::Tuple(items)) if items.len() == patterns.len() => {
            for (pattern, item) in patterns.iter().zip(items) {
                destructure(pattern, item, bound);
            }
        }
        (PatternKind::Tuple(patterns), _) => {
            for pattern in patterns {
                destructure(pattern, Value::Unknown, bound);
            }
        }
    }
}

/// Names assigned (`x = ...`, `x += ...`) anywhere inside `block`.
fn assigned_names(block: &Block, names: &mut Vec<String>) {
    for statement in &block.statements {
        match &statement.kind {
            StmtKind::Assign { target, .. } => {
                if let lang::ast::ExprKind::Path(path) = &target.kind
                    && let [name] = path.segments.as_slice()
                {
                    names.push(name.text.clone());
                }
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::Block(body) => {
                assigned_names(body, names);
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for branch in branches {
                    assigned_names(&branch.body, names);
                }
                if let Some(otherwise) = otherwise {
                    assigned_names(otherwise, names);
                }
            }
            _ => {}
        }
    }
}

fn names_or_empty(tree: &UseTree) -> &[Name] {
    match tree {
        UseTree::Group(names) => names,
        UseTree::Single | UseTree::Glob => &[],
    }
}

/// The stdlib modules, as a readable list.
fn module_list() -> String {
    stdlib::SOURCES
        .iter()
        .map(|(name, _)| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The written name of a type (`int`, `i32`, `sm80::Atom`).
pub(crate) fn type_name(ty: &Type) -> String {
    match &ty.kind {
        TypeKind::Named(path) => path
            .segments
            .iter()
            .map(|segment| segment.text.as_str())
            .collect::<Vec<_>>()
            .join("::"),
        TypeKind::Tensor { space, element, .. } => {
            format!("{} {}[..]", space.keyword(), element.text)
        }
    }
}

/// Names longer than this get no "did you mean": comparing them costs the product of
/// the lengths, and nobody mistypes a name that long.
const SUGGESTION_MAX_LENGTH: usize = 64;

/// The candidate closest to `name` by edit distance, if close enough to suggest.
pub(crate) fn closest<'n>(
    name: &str,
    candidates: impl Iterator<Item = &'n str>,
) -> Option<&'n str> {
    let length = name.chars().count();
    if length > SUGGESTION_MAX_LENGTH {
        return None;
    }
    let limit = (length / 3).max(1);
    candidates
        .filter(|candidate| *candidate != name)
        // The distance is at least the difference in length: skip what cannot be close
        // before paying for the quadratic comparison.
        .filter(|candidate| candidate.chars().count().abs_diff(length) <= limit)
        .map(|candidate| (strsim::levenshtein(name, candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min()
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggestions_need_a_small_edit_distance() {
        let names = ["thread_idx", "block_idx", "make_layout"];
        assert_eq!(closest("thred_idx", names.into_iter()), Some("thread_idx"));
        assert_eq!(closest("blockidx", names.into_iter()), Some("block_idx"));
        assert_eq!(closest("zzz", names.into_iter()), None);
    }

    #[test]
    fn long_names_are_not_compared() {
        let long = "a".repeat(100_000);
        let other = format!("{long}b");
        assert_eq!(closest(&long, [other.as_str()].into_iter()), None);
        let near = "x".repeat(60);
        let candidates = [format!("{near}y"), "x".repeat(200)];
        let found = closest(&near, candidates.iter().map(String::as_str));
        assert_eq!(found, Some(candidates[0].as_str()));
    }
}
