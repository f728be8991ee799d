//! Names: every definition in a file and what every use of a name refers to.
//!
//! The typechecker evaluates; it does not keep a map from uses to definitions, so
//! this walk over the AST follows the language's scoping rules itself: items,
//! `const`s and `use` imports are visible in the whole file; generic parameters and
//! parameters from their declaration to the end of their item; `let`s from the end
//! of their statement to the end of their block; loop variables in the loop's
//! body. A later `let` shadows an earlier one. A two-part path `sm80::cp_async`
//! names a stdlib item, a one-part name that nothing in the file defines may be a
//! built-in function.

use lang::Span;
use lang::ast::{
    Block, Expr, ExprKind, GenericParam, Item, ItemKind, Module, Name, Param, Path, Pattern,
    PatternKind, ReportPart, Stmt, StmtKind, Type, TypeKind, UseTree,
};
use typecheck::stdlib;

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

/// A name defined in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// The name.
    pub name: String,
    /// Where the name is written at its definition.
    pub span: Span,
    /// What it defines.
    pub kind: DefinitionKind,
    /// Where uses of the name see this definition.
    pub visible: Span,
    /// The index of the item it is in.
    pub item: usize,
}

/// What a use of a name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A definition of the file, by index into [`Names::definitions`].
    Definition(usize),
    /// A stdlib item: the module's index in [`stdlib::modules`] and the item's.
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

/// Every definition and resolved use of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    /// Definitions in source order of their items.
    pub definitions: Vec<Definition>,
    /// Uses whose target was found.
    pub references: Vec<Reference>,
    /// Names brought in by `use` items: the name and the stdlib item.
    pub imports: Vec<(String, Target)>,
}

/// The built-in names that are not functions.
pub const BUILTIN_INDICES: &[&str] = &["thread_idx", "block_idx", "block_dim", "grid_dim"];

impl Names {
    /// Resolves every name of `module`, whose text is `text_len` bytes long.
    pub fn of(module: &Module, text_len: usize) -> Names {
        let whole_file = Span::from_range(0..text_len);
        let mut walker = Walker {
            names: Names::default(),
            scopes: Vec::new(),
            item: 0,
        };
        for (index, item) in module.items.iter().enumerate() {
            walker.item = index;
            walker.declare_item(item, whole_file);
        }
        for (index, item) in module.items.iter().enumerate() {
            walker.item = index;
            walker.item_body(item);
        }
        walker.names
    }

    /// The target of the name at `offset`: a use, or a definition itself.
    pub fn target_at(&self, offset: u32) -> Option<(Span, Target)> {
        let covers = |span: Span| span.contains(offset) || span.end == offset;
        if let Some(reference) = self
            .references
            .iter()
            .find(|reference| covers(reference.span))
        {
            return Some((reference.span, reference.target));
        }
        self.definitions
            .iter()
            .position(|definition| covers(definition.span))
            .map(|index| (self.definitions[index].span, Target::Definition(index)))
    }

    /// The definitions visible at `offset`, innermost (latest) first.
    pub fn visible_at(&self, offset: u32) -> impl Iterator<Item = &Definition> {
        self.definitions.iter().rev().filter(move |definition| {
            definition.visible.contains(offset) || definition.visible.end == offset
        })
    }
}

/// The walk's state: the names found and the scopes of the item being walked.
struct Walker {
    names: Names,
    /// Innermost last: each scope's names and their definitions' indices.
    scopes: Vec<Vec<(String, usize)>>,
    item: usize,
}

impl Walker {
    fn define(&mut self, name: &Name, kind: DefinitionKind, visible: Span) -> usize {
        let index = self.names.definitions.len();
        self.names.definitions.push(Definition {
            name: name.text.clone(),
            span: name.span,
            kind,
            visible,
            item: self.item,
        });
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.text.clone(), index));
        }
        index
    }

    fn refer(&mut self, span: Span, target: Target) {
        self.names.references.push(Reference { span, target });
    }

    fn declare_item(&mut self, item: &Item, whole_file: Span) {
        let (name, kind) = match &item.kind {
            ItemKind::Kernel(kernel) => (&kernel.name, DefinitionKind::Kernel),
            ItemKind::Function(function) => (&function.name, DefinitionKind::Function),
            ItemKind::Atom(atom) => (&atom.name, DefinitionKind::Atom),
            ItemKind::Test(test) => (&test.name, DefinitionKind::Test),
            ItemKind::Bench(bench) => (&bench.name, DefinitionKind::Bench),
            ItemKind::Const(const_item) => {
                let mut names = Vec::new();
                pattern_names(&const_item.pattern, &mut names);
                for name in names {
                    self.define(name, DefinitionKind::Const, whole_file);
                }
                return;
            }
            ItemKind::Use(use_item) => {
                self.use_item(use_item);
                return;
            }
            ItemKind::Error => return,
        };
        self.define(name, kind, whole_file);
    }

    fn use_item(&mut self, use_item: &lang::ast::UseItem) {
        let segments = &use_item.path.segments;
        let Some(module_name) = segments.first() else {
            return;
        };
        let Some(module) = stdlib_module(&module_name.text) else {
            return;
        };
        self.refer(module_name.span, Target::StdlibModule(module));
        let imported: Vec<&Name> = match &use_item.tree {
            UseTree::Single => segments.get(1).into_iter().collect(),
            UseTree::Group(names) => names.iter().collect(),
            UseTree::Glob => {
                let items = &stdlib::modules()[module].module.items;
                for (item, entry) in items.iter().enumerate() {
                    if let Some(name) = item_name(entry) {
                        let target = Target::Stdlib { module, item };
                        self.names.imports.push((name.text.clone(), target));
                    }
                }
                Vec::new()
            }
        };
        for name in imported {
            if let Some(item) = stdlib_item(module, &name.text) {
                let target = Target::Stdlib { module, item };
                self.refer(name.span, target);
                self.names.imports.push((name.text.clone(), target));
            }
        }
    }

    fn item_body(&mut self, item: &Item) {
        self.scopes.push(Vec::new());
        let item_span = item.span;
        match &item.kind {
            ItemKind::Const(const_item) => {
                self.opt_type(const_item.ty.as_ref());
                self.expr(&const_item.value);
            }
            ItemKind::Function(function) => {
                self.generics(&function.generics, item_span);
                self.params(&function.params, item_span);
                self.opt_type(function.return_type.as_ref());
                self.block(&function.body);
            }
            ItemKind::Kernel(kernel) => {
                self.generics(&kernel.generics, item_span);
                self.params(&kernel.params, item_span);
                for part in &kernel.launch {
                    part.args.iter().for_each(|arg| self.expr(arg));
                }
                self.block(&kernel.body);
            }
            ItemKind::Atom(atom) => {
                self.generics(&atom.generics, item_span);
                for property in &atom.properties {
                    self.expr(&property.value);
                }
            }
            ItemKind::Test(test) | ItemKind::Bench(test) => self.block(&test.body),
            ItemKind::Use(_) | ItemKind::Error => {}
        }
        self.scopes.pop();
    }

    fn generics(&mut self, generics: &[GenericParam], item_span: Span) {
        for generic in generics {
            self.opt_type(Some(&generic.kind));
            if let Some(default) = &generic.default {
                self.expr(default);
            }
            let visible = Span::new(generic.span.start, item_span.end);
            self.define(&generic.name, DefinitionKind::ConstParameter, visible);
        }
    }

    fn params(&mut self, params: &[Param], item_span: Span) {
        for param in params {
            // `a: gmem bf16[(m, k):(k, 1)]` uses the parameters declared before it.
            self.opt_type(Some(&param.ty));
            let visible = Span::new(param.span.start, item_span.end);
            self.define(&param.name, DefinitionKind::Parameter, visible);
        }
    }

    fn block(&mut self, block: &Block) {
        self.scopes.push(Vec::new());
        for statement in &block.statements {
            self.statement(statement, block.span);
        }
        if let Some(tail) = &block.tail {
            self.expr(tail);
        }
        self.scopes.pop();
    }

    fn statement(&mut self, statement: &Stmt, block_span: Span) {
        match &statement.kind {
            StmtKind::Let {
                pattern, ty, value, ..
            } => {
                self.opt_type(ty.as_ref());
                self.expr(value);
                let mut names = Vec::new();
                pattern_names(pattern, &mut names);
                let visible = Span::new(statement.span.end, block_span.end);
                for name in names {
                    self.define(name, DefinitionKind::Local, visible);
                }
            }
            StmtKind::Assign { target, value, .. } => {
                self.expr(target);
                self.expr(value);
            }
            StmtKind::Expr(expr) | StmtKind::Return(Some(expr)) => self.expr(expr),
            StmtKind::Report(parts) => {
                for part in parts {
                    match part {
                        ReportPart::Metric { value, .. } => self.expr(value),
                        ReportPart::Against(expr) => self.expr(expr),
                    }
                }
            }
            StmtKind::For {
                variable,
                start,
                end,
                body,
                ..
            } => {
                self.expr(start);
                self.expr(end);
                self.scopes.push(Vec::new());
                self.define(variable, DefinitionKind::Local, body.span);
                self.block(body);
                self.scopes.pop();
            }
            StmtKind::Block(block) => self.block(block),
            StmtKind::While { condition, body } => {
                self.expr(condition);
                self.block(body);
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for branch in branches {
                    self.expr(&branch.condition);
                    self.block(&branch.body);
                }
                if let Some(otherwise) = otherwise {
                    self.block(otherwise);
                }
            }
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Empty
            | StmtKind::Error => {}
        }
    }

    fn opt_type(&mut self, ty: Option<&Type>) {
        match ty.map(|ty| &ty.kind) {
            Some(TypeKind::Named(path)) => self.path(path),
            Some(TypeKind::Tensor {
                element, layout, ..
            }) => {
                self.name(element);
                self.expr(layout);
            }
            None => {}
        }
    }

    fn expr(&mut self, expr: &Expr) {
        match &expr.kind {
            ExprKind::Path(path) => self.path(path),
            ExprKind::Tuple(items) => items.iter().for_each(|item| self.expr(item)),
            ExprKind::Layout { shape, stride } => {
                self.expr(shape);
                self.expr(stride);
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Unary { operand, .. } => self.expr(operand),
            ExprKind::Call { callee, args } => {
                self.expr(callee);
                args.iter().for_each(|arg| self.expr(&arg.value));
            }
            ExprKind::MethodCall { receiver, args, .. } => {
                self.expr(receiver);
                args.iter().for_each(|arg| self.expr(&arg.value));
            }
            ExprKind::Field { base, .. } => self.expr(base),
            ExprKind::Index { base, indices } => {
                self.expr(base);
                indices.iter().for_each(|index| self.expr(index));
            }
            ExprKind::Alloc {
                element, layout, ..
            } => {
                self.name(element);
                self.expr(layout);
            }
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::String(_)
            | ExprKind::Wildcard => {}
        }
    }

    fn path(&mut self, path: &Path) {
        match path.segments.as_slice() {
            [name] => self.name(name),
            [module_name, member, ..] => {
                if let Some(module) = stdlib_module(&module_name.text) {
                    self.refer(module_name.span, Target::StdlibModule(module));
                    if let Some(item) = stdlib_item(module, &member.text) {
                        self.refer(member.span, Target::Stdlib { module, item });
                    }
                }
            }
            [] => {}
        }
    }

    fn name(&mut self, name: &Name) {
        if let Some(target) = self.lookup(&name.text) {
            self.refer(name.span, target);
        }
    }

    fn lookup(&self, text: &str) -> Option<Target> {
        let local = self.scopes.iter().rev().find_map(|scope| {
            scope
                .iter()
                .rev()
                .find(|(name, _)| name == text)
                .map(|&(_, index)| index)
        });
        if let Some(index) = local {
            return Some(Target::Definition(index));
        }
        let item = self
            .names
            .definitions
            .iter()
            .position(|definition| definition.kind.is_item() && definition.name == text);
        if let Some(index) = item {
            return Some(Target::Definition(index));
        }
        if let Some(&(_, target)) = self.names.imports.iter().find(|(name, _)| name == text) {
            return Some(target);
        }
        typecheck::BUILTINS
            .iter()
            .map(|builtin| builtin.name)
            .chain(BUILTIN_INDICES.iter().copied())
            .find(|builtin| *builtin == text)
            .map(Target::Builtin)
    }
}

/// The names a `let` or `const` pattern binds, left to right.
fn pattern_names<'a>(pattern: &'a Pattern, names: &mut Vec<&'a Name>) {
    match &pattern.kind {
        PatternKind::Name(name) => names.push(name),
        PatternKind::Tuple(items) => items.iter().for_each(|item| pattern_names(item, names)),
        PatternKind::Wildcard => {}
    }
}

/// The name an item defines, if it defines one.
pub fn item_name(item: &Item) -> Option<&Name> {
    match &item.kind {
        ItemKind::Kernel(kernel) => Some(&kernel.name),
        ItemKind::Function(function) => Some(&function.name),
        ItemKind::Atom(atom) => Some(&atom.name),
        ItemKind::Test(test) | ItemKind::Bench(test) => Some(&test.name),
        ItemKind::Const(const_item) => match &const_item.pattern.kind {
            PatternKind::Name(name) => Some(name),
            PatternKind::Tuple(_) | PatternKind::Wildcard => None,
        },
        ItemKind::Use(_) | ItemKind::Error => None,
    }
}

/// The index of the stdlib module called `name`.
pub fn stdlib_module(name: &str) -> Option<usize> {
    stdlib::modules()
        .iter()
        .position(|module| module.name == name)
}

/// The index of the item called `name` in stdlib module `module`.
pub fn stdlib_item(module: usize, name: &str) -> Option<usize> {
    stdlib::modules()[module]
        .module
        .items
        .iter()
        .position(|item| item_name(item).is_some_and(|item_name| item_name.text == name))
}

#[cfg(test)]
mod tests {
    use super::{DefinitionKind, Names, Target};

    fn names_of(source: &str) -> Names {
        let (module, _) = grammar::parse(source);
        Names::of(&module, source.len())
    }

    fn target_of(names: &Names, source: &str, needle: &str, nth: usize) -> Option<Target> {
        let offset = source.match_indices(needle).nth(nth)?.0 as u32;
        names.target_at(offset).map(|(_, target)| target)
    }

    #[test]
    fn uses_resolve_to_the_innermost_earlier_definition() {
        let source = "const N: int = 4;\nkernel k(m: i32, a: gmem bf16[(m, N):(N, 1)]) launch grid(1) block(32) {\n    let x = m;\n    let x = x + N;\n    let y = a[x, 0];\n}\n";
        let names = names_of(source);
        let definition = |target: Option<Target>| match target {
            Some(Target::Definition(index)) => Some(names.definitions[index].clone()),
            _ => None,
        };
        let m_in_type = definition(target_of(&names, source, "m,", 0));
        assert_eq!(m_in_type.map(|d| d.kind), Some(DefinitionKind::Parameter));
        let x_use = definition(target_of(&names, source, "x + N", 0));
        let first_let = source.find("x = m").unwrap_or(0) as u32;
        assert_eq!(x_use.map(|d| d.span.start), Some(first_let));
        let x_index = definition(target_of(&names, source, "x, 0", 0));
        let second_let = source.find("x = x").unwrap_or(0) as u32;
        assert_eq!(x_index.map(|d| d.span.start), Some(second_let));
        let n_use = definition(target_of(&names, source, "N):", 0));
        assert_eq!(n_use.map(|d| d.kind), Some(DefinitionKind::Const));
    }

    #[test]
    fn stdlib_paths_imports_and_builtins_resolve() {
        let source = "use sm80::{cp_async};\nconst A = sm80::ldmatrix_x4(T = bf16);\nconst B = cp_async(T = bf16);\nconst C = size(1:0);\n";
        let names = names_of(source);
        assert!(matches!(
            target_of(&names, source, "ldmatrix_x4", 0),
            Some(Target::Stdlib { .. })
        ));
        assert!(matches!(
            target_of(&names, source, "sm80::ld", 0),
            Some(Target::StdlibModule(_))
        ));
        assert_eq!(
            target_of(&names, source, "cp_async(", 0),
            target_of(&names, source, "cp_async}", 0)
        );
        assert_eq!(
            target_of(&names, source, "size", 0),
            Some(Target::Builtin("size"))
        );
    }

    #[test]
    fn scopes_end_with_their_block() {
        let source = "fn f(p: i32) {\n    { let inner = 1; }\n    let after = p;\n}\n";
        let names = names_of(source);
        let end_of_inner_block = source.find("}\n").unwrap_or(0) as u32 + 1;
        let visible: Vec<&str> = names
            .visible_at(end_of_inner_block + 2)
            .map(|definition| definition.name.as_str())
            .collect();
        assert!(visible.contains(&"p") && visible.contains(&"f"));
        assert!(!visible.contains(&"inner"), "{visible:?}");
    }
}
