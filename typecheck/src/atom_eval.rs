//! Instantiating `atom` items: binding their const parameters, evaluating their
//! properties and checking them against what the atom's kind needs.

use std::collections::HashMap;
use std::rc::Rc;

use lang::ast::ItemKind;
use lang::{Diagnostic, Span};
use layout::{Layout, SymInt};

use crate::BindingKind;
use crate::atom::{
    Atom, AtomDetail, AtomKind, CopyAtom, ItemId, MmaAtom, SpaceRule, check_copy_shapes,
    check_mma_shapes, three_extents,
};
use crate::builtins::{Args, static_tuple};
use crate::check::{Checker, Context};
use crate::dtype::Dtype;
use crate::value::{Known, Value};

/// The properties each kind of atom must have.
const COPY_KEYS: &[&str] = &[
    "ptx",
    "arch",
    "dtypes",
    "spaces",
    "threads",
    "layout_src",
    "layout_dst",
];
const MMA_KEYS: &[&str] = &[
    "ptx",
    "arch",
    "shape_mnk",
    "dtypes",
    "threads",
    "layout_a",
    "layout_b",
    "layout_c",
];
const OPTIONAL_KEYS: &[&str] = &["requires", "layout_ref"];

impl<'a> Checker<'a> {
    /// `atom_template(T = bf16, BITS = 128)`.
    pub(crate) fn atom_from_call(&mut self, id: &ItemId, args: &Args, span: Span) -> Value {
        let ItemKind::Atom(atom) = &self.item(id).kind else {
            return Value::Unknown;
        };
        let names: Vec<&str> = atom
            .generics
            .iter()
            .map(|generic| generic.name.text.as_str())
            .collect();
        if !args.positional().is_empty() {
            self.report(
                Diagnostic::error(
                    "E0215",
                    format!(
                        "an atom's const parameters are given by name: `{}({} = ...)`",
                        id.name,
                        names.first().unwrap_or(&"T")
                    ),
                )
                .with_primary(args.positional()[0].span, "positional argument")
                .with_note(format!("`{}` takes {}", id.name, names.join(", "))),
            );
            return Value::Unknown;
        }
        if !self.arity(&id.name, args, 0..=0, &names) {
            return Value::Unknown;
        }
        let given: Vec<(String, Value)> = args
            .items
            .iter()
            .filter_map(|arg| Some((arg.name.as_ref()?.text.clone(), arg.value.clone())))
            .collect();
        self.instantiate_atom(id, &given, span)
    }

    /// For a user atom with const parameters that all have defaults: checks its
    /// properties once with the defaults.
    pub(crate) fn check_atom_defaults(&mut self, module: usize, index: usize, span: Span) {
        let id = self.item_id(module, index);
        if let ItemKind::Atom(atom) = &self.item(&id).kind
            && atom
                .generics
                .iter()
                .all(|generic| generic.default.is_some())
        {
            self.instantiate_atom(&id, &[], span);
        }
    }

    /// The atom `id` with const arguments `given`, checked against the build target.
    pub(crate) fn instantiate_atom(
        &mut self,
        id: &ItemId,
        given: &[(String, Value)],
        span: Span,
    ) -> Value {
        let key = format!(
            "{}({})",
            id.name,
            given
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let value = match self.atoms.get(&key) {
            Some(value) => value.clone(),
            None if self.atoms_in_progress.contains(&key) => {
                let item_span = match &self.item(id).kind {
                    ItemKind::Atom(atom) => atom.name.span,
                    _ => self.item(id).span,
                };
                self.report(
                    Diagnostic::error("E0221", format!("atom `{}` depends on itself", id.name))
                        .with_primary(span, "its properties need the atom itself")
                        .with_secondary(item_span, "the atom it names")
                        .with_help("an atom's properties must be computable without it"),
                );
                return Value::Unknown;
            }
            None => {
                self.atoms_in_progress.insert(key.clone());
                let value = self.build_atom(id, given, span);
                self.atoms_in_progress.remove(&key);
                self.atoms.insert(key, value.clone());
                value
            }
        };
        if let Value::Atom(atom) = &value
            && atom.arch > self.target.arch()
        {
            self.report(
                Diagnostic::error(
                    "E0212",
                    format!(
                        "`{}` needs sm_{} or newer, but this build is for {}",
                        atom.name, atom.arch, self.target
                    ),
                )
                .with_primary(span, format!("an sm_{} instruction", atom.arch))
                .with_help(format!(
                    "build with `--target sm_{}a` or newer, or use an atom from an older module",
                    atom.arch
                )),
            );
            return Value::Unknown;
        }
        value
    }

    fn build_atom(&mut self, id: &ItemId, given: &[(String, Value)], span: Span) -> Value {
        let ItemKind::Atom(atom) = &self.item(id).kind else {
            return Value::Unknown;
        };
        for (name, _) in given {
            if !atom
                .generics
                .iter()
                .any(|generic| generic.name.text == *name)
            {
                return self.error(
                    "E0215",
                    span,
                    format!("`{}` has no const parameter `{name}`", id.name),
                    "unknown parameter",
                );
            }
        }
        let anchor = if self.current_module == 0 {
            Some(span)
        } else {
            self.anchor
        };
        let saved_anchor = std::mem::replace(&mut self.anchor, anchor);
        let frame = self.frame_for(Context::Const, format!("atom {}", atom.name.text));
        let (result, _) = self.isolated(id.module, frame, |checker| {
            let mut arguments = Vec::new();
            for generic in &atom.generics {
                let value = match checker.const_argument(generic, given) {
                    Some(value) => value,
                    None => {
                        return checker.error(
                            "E0215",
                            span,
                            format!(
                                "`{}` needs its const parameter `{}`",
                                id.name, generic.name.text
                            ),
                            "missing a const argument",
                        );
                    }
                };
                let value = checker.check_generic_kind(generic, value, span);
                if matches!(value, Value::Unknown) {
                    return Value::Unknown;
                }
                arguments.push(format!("{} = {value}", generic.name.text));
                checker.bind(&generic.name, value, false, BindingKind::ConstParameter);
            }
            let Some(kind) = AtomKind::from_name(&atom.kind.text) else {
                return checker.error(
                    "E0218",
                    atom.kind.span,
                    format!(
                        "unknown atom kind `{}`: an atom is a `copy` or an `mma`",
                        atom.kind.text
                    ),
                    "unknown kind",
                );
            };
            let mut properties: HashMap<String, (Value, Span)> = HashMap::new();
            let required = match kind {
                AtomKind::Copy => COPY_KEYS,
                AtomKind::Mma => MMA_KEYS,
            };
            for property in &atom.properties {
                let key = property.key.text.as_str();
                if !required.contains(&key) && !OPTIONAL_KEYS.contains(&key)
                    || (key == "layout_ref" && kind == AtomKind::Mma)
                {
                    checker.error(
                        "E0218",
                        property.key.span,
                        format!(
                            "a {} atom has no property `{key}`; it has {}",
                            kind.name(),
                            required
                                .iter()
                                .chain(OPTIONAL_KEYS)
                                .copied()
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        "unknown property",
                    );
                    continue;
                }
                let value = checker.eval(&property.value);
                if properties
                    .insert(key.to_owned(), (value, property.value.span))
                    .is_some()
                {
                    checker.error(
                        "E0218",
                        property.key.span,
                        format!("`{key}` is given twice"),
                        "repeated",
                    );
                }
            }
            let missing: Vec<&str> = required
                .iter()
                .copied()
                .filter(|key| !properties.contains_key(*key))
                .collect();
            if !missing.is_empty() {
                return checker.error(
                    "E0218",
                    atom.name.span,
                    format!("atom `{}` lacks {}", atom.name.text, missing.join(", ")),
                    "incomplete atom",
                );
            }
            if let Some((requirement, requirement_span)) = properties.get("requires") {
                match requirement {
                    Value::Bool(Known::Const(true)) | Value::Unknown => {}
                    Value::Bool(Known::Const(false)) => {
                        let text = checker.source_text(*requirement_span);
                        let mut diagnostic = Diagnostic::error(
                            "E0218",
                            format!(
                                "`{}` does not support {}",
                                id.name,
                                if arguments.is_empty() {
                                    "this use".to_owned()
                                } else {
                                    arguments.join(", ")
                                }
                            ),
                        )
                        .with_primary(*requirement_span, "this requirement does not hold");
                        if let Some(text) = text {
                            diagnostic = diagnostic.with_note(format!("it requires `{text}`"));
                        }
                        checker.report(diagnostic);
                        return Value::Unknown;
                    }
                    other => {
                        return checker.error(
                            "E0218",
                            *requirement_span,
                            format!("`requires` is a const bool, not a {}", other.type_name()),
                            "not a bool",
                        );
                    }
                }
            }
            let built = checker.atom_facts(kind, &properties, atom.name.span);
            let Some((arch, ptx, detail)) = built else {
                return Value::Unknown;
            };
            Value::Atom(Rc::new(Atom {
                name: id.name.clone(),
                arguments,
                kind,
                arch,
                ptx,
                detail,
            }))
        });
        self.anchor = saved_anchor;
        result
    }

    fn atom_facts(
        &mut self,
        kind: AtomKind,
        properties: &HashMap<String, (Value, Span)>,
        name_span: Span,
    ) -> Option<(u32, String, AtomDetail)> {
        let arch = match properties.get("arch")? {
            (Value::Arch(arch), _) => *arch,
            (other, span) => {
                self.error(
                    "E0218",
                    *span,
                    format!(
                        "`arch` is an architecture such as `sm80`, not a {}",
                        other.type_name()
                    ),
                    "not an architecture",
                );
                return None;
            }
        };
        let ptx = match properties.get("ptx")? {
            (Value::Str(text), _) => text.clone(),
            (other, span) => {
                self.error(
                    "E0218",
                    *span,
                    format!("`ptx` is a string, not a {}", other.type_name()),
                    "not a string",
                );
                return None;
            }
        };
        let threads = self.atom_layout(properties, "threads")?;
        let detail = match kind {
            AtomKind::Copy => {
                let dtypes = self.atom_dtypes::<2>(properties)?;
                let spaces = match properties.get("spaces")? {
                    (Value::Tuple(items), span) if items.len() == 2 => {
                        let rules: Option<Vec<SpaceRule>> = items
                            .iter()
                            .map(|item| match item {
                                Value::Str(text) => SpaceRule::from_name(text),
                                _ => None,
                            })
                            .collect();
                        match rules {
                            Some(rules) => (rules[0], rules[1]),
                            None => {
                                self.error("E0218", *span, "`spaces` is a pair of \"gmem\", \"smem\", \"rmem\", \"tmem\" or \"any\"".to_owned(), "not memory spaces");
                                return None;
                            }
                        }
                    }
                    (_, span) => {
                        self.error(
                            "E0218",
                            *span,
                            "`spaces` is a pair (source, destination)".to_owned(),
                            "not a pair",
                        );
                        return None;
                    }
                };
                let src_layout = self.atom_layout(properties, "layout_src")?;
                let dst_layout = self.atom_layout(properties, "layout_dst")?;
                let ref_layout = match properties.get("layout_ref") {
                    Some(_) => self.atom_layout(properties, "layout_ref")?,
                    None => dst_layout.clone(),
                };
                let copy = CopyAtom {
                    dtypes: (dtypes[0], dtypes[1]),
                    spaces,
                    threads,
                    src_layout,
                    dst_layout,
                    ref_layout,
                };
                if let Err(message) = check_copy_shapes(&copy) {
                    self.error(
                        "E0218",
                        name_span,
                        format!("this copy atom is inconsistent: {message}"),
                        "inconsistent atom",
                    );
                    return None;
                }
                AtomDetail::Copy(copy)
            }
            AtomKind::Mma => {
                let dtypes = self.atom_dtypes::<4>(properties)?;
                let (shape_value, shape_span) = properties.get("shape_mnk")?;
                let shape = shape_value
                    .as_int_tuple()
                    .as_ref()
                    .and_then(static_tuple)
                    .as_ref()
                    .and_then(three_extents);
                let Some(shape_mnk) = shape else {
                    self.error(
                        "E0218",
                        *shape_span,
                        "`shape_mnk` is a tuple of three const extents (M, N, K)".to_owned(),
                        "not (M, N, K)",
                    );
                    return None;
                };
                let mma = MmaAtom {
                    shape_mnk,
                    dtypes,
                    threads,
                    layout_a: self.atom_layout(properties, "layout_a")?,
                    layout_b: self.atom_layout(properties, "layout_b")?,
                    layout_c: self.atom_layout(properties, "layout_c")?,
                };
                if let Err(message) = check_mma_shapes(&mma) {
                    self.error(
                        "E0218",
                        name_span,
                        format!("this MMA atom is inconsistent: {message}"),
                        "inconsistent atom",
                    );
                    return None;
                }
                AtomDetail::Mma(mma)
            }
        };
        Some((arch, ptx, detail))
    }

    fn atom_layout(
        &mut self,
        properties: &HashMap<String, (Value, Span)>,
        key: &str,
    ) -> Option<Layout<i64>> {
        let (value, span) = properties.get(key)?;
        let layout: Option<Layout<SymInt>> = match value {
            Value::Layout(layout) => Some(layout.clone()),
            Value::Unknown => return None,
            _ => None,
        };
        match layout.and_then(|layout| layout.to_static().ok()) {
            Some(layout) => Some(layout),
            None => {
                self.error(
                    "E0218",
                    *span,
                    format!("`{key}` is a const layout, not a {}", value.type_name()),
                    "not a const layout",
                );
                None
            }
        }
    }

    fn atom_dtypes<const N: usize>(
        &mut self,
        properties: &HashMap<String, (Value, Span)>,
    ) -> Option<[Dtype; N]> {
        let (value, span) = properties.get("dtypes")?;
        let dtypes: Option<Vec<Dtype>> = match value {
            Value::Tuple(items) if items.len() == N => items
                .iter()
                .map(|item| match item {
                    Value::Dtype(dtype) => Some(*dtype),
                    _ => None,
                })
                .collect(),
            _ => None,
        };
        match dtypes.and_then(|dtypes| <[Dtype; N]>::try_from(dtypes).ok()) {
            Some(dtypes) => Some(dtypes),
            None => {
                self.error(
                    "E0218",
                    *span,
                    format!("`dtypes` is a tuple of {N} dtypes"),
                    "not dtypes",
                );
                None
            }
        }
    }

    /// The text of `span` in the module being evaluated, for stdlib modules.
    pub(crate) fn source_text(&self, span: Span) -> Option<String> {
        let module = crate::stdlib::modules().get(self.current_module.checked_sub(1)?)?;
        module.source.get(span.range()).map(str::to_owned)
    }
}
