//! What each use of a name in the user's file refers to, recorded by the checker as
//! it resolves the name, for editors (go to definition, hovers, completion).
//!
//! The checker resolves every name it evaluates (`eval::resolve_name`, stdlib paths,
//! `use` imports, dtype names, assignment targets, named const arguments); with a
//! [`Recorder`] attached ([`crate::expr_types::check_for_editor`]) each resolution
//! of a name written in the user's file is kept once, and so is every definition the
//! checker binds there, with where it is visible. There are no scoping rules here:
//! a use refers to whatever the checker found. Code the checker does not evaluate
//! (the branch an `if const` drops, a `static` loop of no iterations) has no entries.

use std::cell::RefCell;
use std::rc::Rc;

use lang::Span;
use lang::ast::{ItemKind, Name};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::BindingKind;
use crate::check::Checker;
use crate::check::item_names;

/// What kind of thing a definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefinitionKind {
    /// A `kernel`.
    Kernel,
    /// A device function.
    Function,
    /// An `atom` item.
    Atom,
    /// A `const` item.
    Const,
    /// A `test` block.
    Test,
    /// A `bench` block.
    Bench,
    /// A const generic parameter.
    ConstParameter,
    /// A run-time parameter.
    Parameter,
    /// A `let` or a loop variable.
    Local,
}

impl DefinitionKind {
    /// The keyword a hover shows before the name.
    pub fn word(self) -> &'static str {
        match self {
            DefinitionKind::Kernel => "kernel",
            DefinitionKind::Function => "fn",
            DefinitionKind::Atom => "atom",
            DefinitionKind::Const => "const",
            DefinitionKind::Test => "test",
            DefinitionKind::Bench => "bench",
            DefinitionKind::ConstParameter => "const param",
            DefinitionKind::Parameter => "param",
            DefinitionKind::Local => "let",
        }
    }

    /// Whether this is a top-level item (visible in the whole file).
    pub fn is_item(self) -> bool {
        matches!(
            self,
            DefinitionKind::Kernel
                | DefinitionKind::Function
                | DefinitionKind::Atom
                | DefinitionKind::Const
                | DefinitionKind::Test
                | DefinitionKind::Bench
        )
    }
}

/// A name defined in the user's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// The name.
    pub name: String,
    /// Where the name is written at its definition.
    pub span: Span,
    /// What it defines.
    pub kind: DefinitionKind,
    /// Where uses of the name see this definition: the whole file for items, from a
    /// parameter to the end of its item, from the end of a `let` to the end of its
    /// block, a loop's body for its variable.
    pub visible: Span,
}

/// What a use of a name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A definition of the user's file, by index into [`Names::definitions`].
    Definition(usize),
    /// A stdlib item: the module's index in [`crate::stdlib::modules`] and the
    /// item's index in that module.
    Stdlib {
        /// The module.
        module: usize,
        /// The item inside it.
        item: usize,
    },
    /// A stdlib module itself (`sm80` in `sm80::cp_async`).
    StdlibModule(usize),
    /// A built-in function or index (`local_tile`, `thread_idx`).
    Builtin(&'static str),
}

/// A use of a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The name's text at the use.
    pub span: Span,
    /// What it refers to.
    pub target: Target,
}

/// Every definition of the user's file and what each use of a name refers to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    /// Definitions, items first (in source order), then the others as bound.
    pub definitions: Vec<Definition>,
    /// Uses the checker resolved, in the order first resolved.
    pub references: Vec<Reference>,
    /// Names brought in by `use` items, sorted: the name and the stdlib item.
    pub imports: Vec<(String, Target)>,
}

impl Names {
    /// The target of the name at `offset` (touching it from either side): a use, or
    /// a definition itself.
    pub fn target_at(&self, offset: u32) -> Option<(Span, Target)> {
        let covers = |span: Span| span.contains(offset) || span.end == offset;
        if let Some(reference) = self.references.iter().find(|r| covers(r.span)) {
            return Some((reference.span, reference.target));
        }
        let index = self.definitions.iter().position(|d| covers(d.span))?;
        Some((self.definitions[index].span, Target::Definition(index)))
    }

    /// The definitions visible at `offset`, innermost (latest bound) first.
    pub fn visible_at(&self, offset: u32) -> impl Iterator<Item = &Definition> {
        let mut visible: Vec<&Definition> = (self.definitions.iter())
            .filter(|d| d.visible.contains(offset) || d.visible.end == offset)
            .collect();
        visible.sort_by_key(|d| std::cmp::Reverse((d.visible.start, d.span.start)));
        visible.into_iter()
    }
}

/// The whole file, as the visibility of its items.
const WHOLE_FILE: Span = Span::new(0, u32::MAX);

/// A use whose definition may be bound later (a named const argument of a kernel a
/// test launches before the kernel is checked).
#[derive(Debug)]
enum Pending {
    Definition(Span),
    Resolved(Target),
}

/// What [`Checker`] records while attached: definitions and uses of the user's file.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    definitions: Vec<Definition>,
    /// Each definition's index, by the span of its name.
    by_span: FxHashMap<Span, usize>,
    /// Each item's definition, by name.
    items: FxHashMap<String, usize>,
    references: Vec<(Span, Pending)>,
    referred: FxHashSet<Span>,
    imports: Vec<(String, Target)>,
    /// The blocks being evaluated, innermost last: where a `let`'s visibility ends.
    blocks: Vec<Span>,
    /// While a `let` binds: the end of its statement, where its names become visible.
    statement_end: Option<u32>,
}

impl Recorder {
    /// The table, each use pointing at its definition's index.
    pub(crate) fn into_names(self) -> Names {
        let by_span = self.by_span;
        let references = (self.references.into_iter())
            .filter_map(|(span, pending)| {
                let target = match pending {
                    Pending::Resolved(target) => target,
                    Pending::Definition(at) => Target::Definition(*by_span.get(&at)?),
                };
                Some(Reference { span, target })
            })
            .collect();
        let mut imports = self.imports;
        imports.sort_by(|a, b| a.0.cmp(&b.0));
        Names {
            definitions: self.definitions,
            references,
            imports,
        }
    }

    fn define(&mut self, name: &str, span: Span, kind: DefinitionKind, visible: Span) -> usize {
        if let Some(&index) = self.by_span.get(&span) {
            return index;
        }
        let index = self.definitions.len();
        self.definitions.push(Definition {
            name: name.to_owned(),
            span,
            kind,
            visible,
        });
        self.by_span.insert(span, index);
        index
    }

    fn refer(&mut self, span: Span, target: Pending) {
        if self.referred.insert(span) {
            self.references.push((span, target));
        }
    }
}

/// The recorder as the checker holds it (shared with the caller that reads it).
pub(crate) type SharedRecorder = Rc<RefCell<Recorder>>;

impl<'a> Checker<'a> {
    /// The recorder, while code of the user's file is evaluated and one is attached.
    fn recorder(&self) -> Option<SharedRecorder> {
        if self.names.current_module != 0 {
            return None;
        }
        self.tracing.resolution.clone()
    }

    /// Records the names of the user's items, visible in the whole file.
    pub(crate) fn record_item_definitions(&mut self) {
        let Some(recorder) = self.recorder() else {
            return;
        };
        let mut recorder = recorder.borrow_mut();
        for item in &self.names.modules[0].module.items {
            let kind = match &item.kind {
                ItemKind::Kernel(_) => DefinitionKind::Kernel,
                ItemKind::Function(_) => DefinitionKind::Function,
                ItemKind::Atom(_) => DefinitionKind::Atom,
                ItemKind::Const(_) => DefinitionKind::Const,
                ItemKind::Test(_) => DefinitionKind::Test,
                ItemKind::Bench(_) => DefinitionKind::Bench,
                ItemKind::Use(_) | ItemKind::Tune(_) | ItemKind::Error => continue,
            };
            for name in item_names(item) {
                let index = recorder.define(&name.text, name.span, kind, WHOLE_FILE);
                recorder.items.entry(name.text.clone()).or_insert(index);
            }
        }
    }

    /// Records a binding of the user's file as a definition, visible from its name
    /// (a `let`'s from the end of its statement) to the end of its item or block.
    pub(crate) fn record_definition(&mut self, name: &str, span: Span, kind: BindingKind) {
        let Some(recorder) = self.recorder() else {
            return;
        };
        let mut recorder = recorder.borrow_mut();
        let (kind, visible) = match kind {
            BindingKind::Const => (DefinitionKind::Const, WHOLE_FILE),
            BindingKind::ConstParameter | BindingKind::Parameter => {
                let item_end = (self.names.modules[0].module.items.iter())
                    .find(|item| item.span.contains(span.start))
                    .map_or(span.end, |item| item.span.end);
                let kind = match kind {
                    BindingKind::Parameter => DefinitionKind::Parameter,
                    _ => DefinitionKind::ConstParameter,
                };
                (kind, Span::new(span.start, item_end))
            }
            BindingKind::Local => {
                let start = recorder.statement_end.unwrap_or(span.start);
                let end = recorder.blocks.last().map_or(span.end, |block| block.end);
                (DefinitionKind::Local, Span::new(start, end.max(start)))
            }
        };
        recorder.define(name, span, kind, visible);
    }

    /// Runs `body` with `block` as the innermost block a `let` is visible to the end of.
    pub(crate) fn in_block<T>(&mut self, block: Span, body: impl FnOnce(&mut Self) -> T) -> T {
        let Some(recorder) = self.tracing.resolution.clone() else {
            return body(self);
        };
        recorder.borrow_mut().blocks.push(block);
        let result = body(self);
        recorder.borrow_mut().blocks.pop();
        result
    }

    /// Runs `bind` with the names it binds visible from `statement_end` (a `let`'s).
    pub(crate) fn binding_after(&mut self, statement_end: u32, bind: impl FnOnce(&mut Self)) {
        let Some(recorder) = self.tracing.resolution.clone() else {
            return bind(self);
        };
        let saved = recorder.borrow_mut().statement_end.replace(statement_end);
        bind(self);
        recorder.borrow_mut().statement_end = saved;
    }

    /// Records that the name at `span` refers to the binding whose name is at
    /// `definition`.
    pub(crate) fn refer_to_binding(&mut self, span: Span, definition: Span) {
        if let Some(recorder) = self.recorder() {
            (recorder.borrow_mut()).refer(span, Pending::Definition(definition));
        }
    }

    /// Records that `name` refers to item `item` of module `module` (the user's file
    /// is module 0, the stdlib's modules follow).
    pub(crate) fn refer_to_item(&mut self, name: &Name, module: usize, item: usize) {
        let Some(recorder) = self.recorder() else {
            return;
        };
        let target = match module.checked_sub(1) {
            Some(module) => Pending::Resolved(Target::Stdlib { module, item }),
            None => {
                let defined = item_names(&self.names.modules[0].module.items[item]);
                let Some(definition) = defined.iter().find(|defined| defined.text == name.text)
                else {
                    return;
                };
                Pending::Definition(definition.span)
            }
        };
        recorder.borrow_mut().refer(name.span, target);
    }

    /// Records a use of a stdlib module (`sm80` in `sm80::cp_async`), by the
    /// checker's module index.
    pub(crate) fn refer_to_module(&mut self, span: Span, module: usize) {
        if let Some(recorder) = self.recorder()
            && let Some(module) = module.checked_sub(1)
        {
            let target = Pending::Resolved(Target::StdlibModule(module));
            recorder.borrow_mut().refer(span, target);
        }
    }

    /// Records a use of a built-in function or index.
    pub(crate) fn refer_to_builtin(&mut self, span: Span, name: &'static str) {
        if let Some(recorder) = self.recorder() {
            let target = Pending::Resolved(Target::Builtin(name));
            recorder.borrow_mut().refer(span, target);
        }
    }

    /// Records the names `use` items brought into the user's file.
    pub(crate) fn record_imports(&mut self) {
        let Some(recorder) = self.recorder() else {
            return;
        };
        let imports = (self.names.modules[0].imports.iter())
            .map(|(name, &(module, item))| {
                let target = Target::Stdlib {
                    module: module - 1,
                    item,
                };
                (name.clone(), target)
            })
            .collect();
        recorder.borrow_mut().imports = imports;
    }

    /// Records what the named arguments of a call to an item of the user's file
    /// (`k(a, N = 64)`) refer to: the item's const parameters of those names.
    pub(crate) fn refer_named_arguments(&mut self, item: usize, names: &[&Name]) {
        if self.recorder().is_none() {
            return;
        }
        let generics = match &self.names.modules[0].module.items[item].kind {
            ItemKind::Kernel(kernel) => &kernel.generics,
            ItemKind::Function(function) => &function.generics,
            ItemKind::Atom(atom) => &atom.generics,
            _ => return,
        };
        for name in names {
            if let Some(generic) = generics.iter().find(|g| g.name.text == name.text) {
                self.refer_to_binding(name.span, generic.name.span);
            }
        }
    }
}

#[cfg(test)]
mod tests;
