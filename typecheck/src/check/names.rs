//! Names: the items of every module, `use` imports, and resolving a name to an item
//! or a module member, with "did you mean" when it is not found.

use rustc_hash::FxHashMap;

use cute::Dtype;
use lang::ast::{Item, ItemKind, Name, UseTree};
use lang::{Diagnostic, Span};

use crate::builtins::table::BUILTINS;
use crate::callee::{Callee, ItemId};
use crate::check::Checker;
use crate::check::reporting::closest;
use crate::check::statements::collect_pattern_names;
use crate::stdlib;
use crate::value::Value;

impl<'a> Checker<'a> {
    pub(crate) fn index_items(&mut self, module: usize) {
        let items = &self.names.modules[module].module.items;
        let mut names: FxHashMap<String, usize> = FxHashMap::default();
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
        self.names.modules[module].items = names;
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

    pub(crate) fn resolve_uses(&mut self) {
        let module = self.names.modules[0].module;
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
            self.refer_to_module(module_name.span, target);
            if matches!(use_item.tree, UseTree::Glob) {
                let items: Vec<(String, usize)> = self.names.modules[target]
                    .items
                    .iter()
                    .map(|(name, &index)| (name.clone(), index))
                    .collect();
                for (name, index) in items {
                    self.names.modules[0].imports.insert(name, (target, index));
                }
                continue;
            }
            for name in names {
                match self.names.modules[target].items.get(&name.text) {
                    Some(&index) => {
                        self.refer_to_item(name, target, index);
                        if self.names.modules[0].items.contains_key(&name.text) {
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
                        self.names.modules[0]
                            .imports
                            .insert(name.text.clone(), (target, index));
                    }
                    None => self.unknown_member(target, name),
                }
            }
        }
    }

    pub(crate) fn module_index(&self, name: &str) -> Option<usize> {
        (1..self.names.modules.len()).find(|&index| self.names.modules[index].name == name)
    }

    pub(crate) fn unknown_module(&mut self, name: &Name) {
        let modules: Vec<&str> = stdlib::SOURCES.iter().map(|(name, _)| *name).collect();
        let mut diagnostic = Diagnostic::error(
            "E0202",
            format!("there is no stdlib module `{}`", name.text),
        )
        .with_primary(name.span, "unknown module")
        .with_note(format!("the stdlib modules are {}", module_list()));
        if let Some(help) = crate::cute_names::help(&name.text) {
            diagnostic = diagnostic.with_help(help);
        } else if let Some(best) = closest(&name.text, modules.iter().copied()) {
            diagnostic = diagnostic.with_help(format!("did you mean `{best}`?"));
        }
        self.report(diagnostic);
    }

    pub(crate) fn unknown_member(&mut self, module: usize, name: &Name) {
        let module_name = self.names.modules[module].name;
        let mut members: Vec<&str> = self.names.modules[module]
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
        let entry = &self.names.modules[module];
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
        &self.names.modules[id.module].module.items[id.item]
    }

    /// The value of a global name in `module` (an item or an import).
    pub(crate) fn global(&mut self, module: usize, name: &Name) -> Option<Value> {
        let entry = &self.names.modules[module];
        let (target_module, index) = match entry.items.get(&name.text) {
            Some(&index) => (module, index),
            None => *entry.imports.get(&name.text)?,
        };
        self.refer_to_item(name, target_module, index);
        Some(self.item_value(target_module, index, &name.text, name.span))
    }

    /// An item of a stdlib module by path (`sm80::cp_async`).
    pub(crate) fn module_member(&mut self, module_name: &Name, member: &Name) -> Value {
        let Some(module) = self.module_index(&module_name.text) else {
            self.unknown_module(module_name);
            return Value::Unknown;
        };
        self.refer_to_module(module_name.span, module);
        match self.names.modules[module].items.get(&member.text) {
            Some(&index) => {
                self.refer_to_item(member, module, index);
                self.item_value(module, index, &member.text, member.span)
            }
            None => {
                self.unknown_member(module, member);
                Value::Unknown
            }
        }
    }

    pub(crate) fn item_value(
        &mut self,
        module: usize,
        index: usize,
        name: &str,
        span: Span,
    ) -> Value {
        let id = self.item_id(module, index);
        match &self.names.modules[module].module.items[index].kind {
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
            ItemKind::Use(_) | ItemKind::Tune(_) | ItemKind::Error => Value::Unknown,
        }
    }

    /// Every name visible here, for "did you mean" suggestions.
    pub(crate) fn visible_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .scopes
            .iter()
            .flat_map(|scope| scope.keys().cloned())
            .collect();
        let entry = &self.names.modules[self.names.current_module];
        names.extend(entry.items.keys().cloned());
        names.extend(entry.imports.keys().cloned());
        names.extend(BUILTINS.iter().map(|builtin| builtin.name.to_owned()));
        names.extend(crate::eval::INDEX3.map(str::to_owned));
        names.extend(crate::eval::INDEX1.map(str::to_owned));
        names.extend(Dtype::ALL.iter().map(|dtype| dtype.name().to_owned()));
        names
    }
}

/// The names an item binds.
pub(crate) fn item_names(item: &Item) -> Vec<Name> {
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
        ItemKind::Use(_) | ItemKind::Tune(_) | ItemKind::Error => Vec::new(),
    }
}

pub(crate) fn names_or_empty(tree: &UseTree) -> &[Name] {
    match tree {
        UseTree::Group(names) => names,
        UseTree::Single | UseTree::Glob => &[],
    }
}

/// The stdlib modules, as a readable list.
pub(crate) fn module_list() -> String {
    stdlib::SOURCES
        .iter()
        .map(|(name, _)| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
