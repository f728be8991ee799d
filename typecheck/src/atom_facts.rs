//! An atom's facts: its properties read into `cute`'s copy or MMA atom (dtypes,
//! spaces, threads, thread-value layouts, `shape_mnk`), each checked, and the
//! consistency of its layouts with each other.

use rustc_hash::FxHashMap;

use cute::{
    AtomDetail, AtomKind, CopyAtom, Dtype, MmaAtom, SpaceRule, check_copy_shapes, check_mma_shapes,
    three_extents,
};
use lang::Span;
use layout::{Layout, SymInt};

use crate::builtins::operands::static_tuple;
use crate::check::Checker;
use crate::value::Value;

impl<'a> Checker<'a> {
    /// The facts of an atom of `kind` from its evaluated properties, or `None` after a
    /// diagnostic.
    pub(crate) fn atom_facts(
        &mut self,
        kind: AtomKind,
        properties: &FxHashMap<String, (Value, Span)>,
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
                let operand_spaces = match properties.get("operands") {
                    None => (SpaceRule::Only("rmem"), SpaceRule::Only("rmem")),
                    Some((Value::Tuple(items), span)) if items.len() == 2 => {
                        let rule = |item: &Value| match item {
                            Value::Str(text) if text == "rmem" || text == "smem" => {
                                SpaceRule::from_name(text)
                            }
                            _ => None,
                        };
                        match (rule(&items[0]), rule(&items[1])) {
                            (Some(a), Some(b)) => (a, b),
                            _ => {
                                self.error("E0218", *span, "`operands` is a pair of \"rmem\" or \"smem\": where A and B are read from".to_owned(), "not memory spaces");
                                return None;
                            }
                        }
                    }
                    Some((_, span)) => {
                        self.error(
                            "E0218",
                            *span,
                            "`operands` is a pair (A's space, B's space)".to_owned(),
                            "not a pair",
                        );
                        return None;
                    }
                };
                let mma = MmaAtom {
                    operand_spaces,
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

    pub(crate) fn atom_layout(
        &mut self,
        properties: &FxHashMap<String, (Value, Span)>,
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

    pub(crate) fn atom_dtypes<const N: usize>(
        &mut self,
        properties: &FxHashMap<String, (Value, Span)>,
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
        let module = crate::stdlib::modules().get(self.names.current_module.checked_sub(1)?)?;
        module.source.get(span.range()).map(str::to_owned)
    }
}
