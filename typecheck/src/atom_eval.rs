//! Instantiating `atom` items: binding their const parameters, evaluating their
//! properties and checking them against what the atom's kind needs.

use rustc_hash::FxHashMap;
use std::sync::Arc;

use cute::{Atom, AtomKind};
use lang::ast::ItemKind;
use lang::{Diagnostic, Span};

use crate::BindingKind;
use crate::builtins::Args;
use crate::callee::ItemId;
use crate::check::{Checker, Context};
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
const OPTIONAL_KEYS: &[&str] = &["requires", "layout_ref", "operands"];

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
        let given = args.named_values();
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
        let value = match self.evaluated.atoms.get(&key) {
            Some(value) => value.clone(),
            None if self.evaluated.atoms_in_progress.contains(&key) => {
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
                self.evaluated.atoms_in_progress.insert(key.clone());
                let value = self.build_atom(id, given, span);
                self.evaluated.atoms_in_progress.remove(&key);
                self.evaluated.atoms.insert(key, value.clone());
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
        if let Value::Atom(atom) = &value
            && atom.ptx.starts_with("wgmma")
            && self.target.arch() != 90
        {
            self.report(
                Diagnostic::error(
                    "E0212",
                    format!(
                        "`{}` is a wgmma, which exists on sm_90a only; this build is for {}",
                        atom.name, self.target
                    ),
                )
                .with_primary(span, "an sm_90a instruction"),
            );
            return Value::Unknown;
        }
        value
    }

    pub(crate) fn build_atom(
        &mut self,
        id: &ItemId,
        given: &[(String, Value)],
        span: Span,
    ) -> Value {
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
        let anchor = if self.names.current_module == 0 {
            Some(span)
        } else {
            self.reporting.anchor
        };
        let saved_anchor = std::mem::replace(&mut self.reporting.anchor, anchor);
        let frame = self.frame_for(Context::Const, format!("atom {}", atom.name.text));
        let (result, _) = self.isolated(id.module, frame, |checker| {
            let mut arguments = Vec::new();
            let mut consts = Vec::new();
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
                match &value {
                    Value::Dtype(dtype) => {
                        consts.push((generic.name.text.clone(), ptx_type(*dtype).to_owned()));
                    }
                    Value::Int { value, .. } => {
                        if let Some(value) = value.as_constant() {
                            consts.push((generic.name.text.clone(), value.to_string()));
                        }
                    }
                    _ => {}
                }
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
            let mut properties: FxHashMap<String, (Value, Span)> = FxHashMap::default();
            let required = match kind {
                AtomKind::Copy => COPY_KEYS,
                AtomKind::Mma => MMA_KEYS,
            };
            for property in &atom.properties {
                let key = property.key.text.as_str();
                if !required.contains(&key) && !OPTIONAL_KEYS.contains(&key)
                    || (key == "layout_ref" && kind == AtomKind::Mma)
                    || (key == "operands" && kind == AtomKind::Copy)
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
            Value::Atom(Arc::new(Atom {
                name: id.name.clone(),
                arguments,
                kind,
                arch,
                ptx: substitute_consts(&ptx, &consts),
                detail,
            }))
        });
        self.reporting.anchor = saved_anchor;
        result
    }
}

/// The template with each `{T}` of a dtype parameter `T` replaced by the dtype's PTX
/// name (`bf16`, `f16`, `s8` for `i8`) and each `{N}` of an integer parameter by its
/// value, so one atom serves several element types and shapes (`m64n{N}k16`).
/// Register lists (`{{T}}`) are left alone.
fn substitute_consts(ptx: &str, consts: &[(String, String)]) -> String {
    let mut text = ptx.to_owned();
    for (name, replacement) in consts {
        let placeholder = format!("{{{name}}}");
        let mut result = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find(&placeholder) {
            let end = at + placeholder.len();
            let in_list = rest[..at].ends_with('{') || rest[end..].starts_with('}');
            result.push_str(&rest[..at]);
            result.push_str(if in_list { &placeholder } else { replacement });
            rest = &rest[end..];
        }
        result.push_str(rest);
        text = result;
    }
    text
}

/// The PTX spelling of a dtype in an instruction's type suffix.
fn ptx_type(dtype: cute::Dtype) -> &'static str {
    use cute::Dtype;
    match dtype {
        Dtype::I8 => "s8",
        Dtype::I16 => "s16",
        Dtype::I32 => "s32",
        Dtype::I64 => "s64",
        Dtype::Bool => "pred",
        other => other.name(),
    }
}

#[cfg(test)]
mod tests {
    use super::{ptx_type, substitute_consts};
    use cute::Dtype;

    #[test]
    fn const_placeholders_become_ptx_text_but_register_lists_stay() {
        let ptx = "mma.sync.aligned.m16n8k16.row.col.f32.{T}.{T}.f32 {{d}}, {{a}}, {{T}};";
        let f16 = [("T".to_owned(), ptx_type(Dtype::F16).to_owned())];
        assert_eq!(
            substitute_consts(ptx, &f16),
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{d}}, {{a}}, {{T}};"
        );
        assert_eq!(ptx_type(Dtype::I8), "s8");
        let shape = [
            ("N".to_owned(), "256".to_owned()),
            ("T".to_owned(), "bf16".to_owned()),
        ];
        assert_eq!(
            substitute_consts("wgmma.m64n{N}k16.f32.{T} {{d}}, {{N}};", &shape),
            "wgmma.m64n256k16.f32.bf16 {{d}}, {{N}};"
        );
    }
}
