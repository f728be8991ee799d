//! Completion: the names in scope at the cursor, or a stdlib module's members
//! after `module::`.
//!
//! In scope are the file's items, the parameters and `let`s visible at the cursor
//! (shadowed names once), names imported with `use`, the stdlib modules, built-in
//! functions and indices, and dtypes. The editor filters by what has been typed.

use std::collections::HashSet;

use cute::Dtype;
use lsp_types::{CompletionItem, CompletionItemKind, Documentation, MarkupContent, MarkupKind};
use typecheck::stdlib;

use typecheck::resolution::{DefinitionKind, Target};

use crate::analysis::FileAnalysis;
use crate::source_text::{declaration, doc_comment, item_name, module_summary, stdlib_module};

/// The completions at byte `offset`.
pub fn complete(analysis: &FileAnalysis, offset: u32) -> Vec<CompletionItem> {
    let before = analysis
        .text
        .get(..analysis.text.floor_char_boundary(offset as usize))
        .unwrap_or("");
    let typed = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
    if let Some(qualifier) = typed.strip_suffix("::") {
        let module_name = qualifier
            .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        return stdlib_module(module_name).map_or_else(Vec::new, module_members);
    }
    if typed.ends_with('.') {
        // Fields and methods depend on the receiver's value; names would only mislead.
        return Vec::new();
    }
    names_in_scope(analysis, offset)
}

fn module_members(module: usize) -> Vec<CompletionItem> {
    let std_module = &stdlib::modules()[module];
    std_module
        .module
        .items
        .iter()
        .filter_map(|item| {
            let name = item_name(item)?;
            Some(CompletionItem {
                label: name.text.clone(),
                kind: Some(CompletionItemKind::STRUCT),
                detail: declaration(std_module.source, item)
                    .lines()
                    .next()
                    .map(str::to_owned),
                documentation: documentation(doc_comment(std_module.source, item.span.start)),
                ..CompletionItem::default()
            })
        })
        .collect()
}

fn names_in_scope(analysis: &FileAnalysis, offset: u32) -> Vec<CompletionItem> {
    let mut seen = HashSet::new();
    let mut items = Vec::new();
    let mut push = |item: CompletionItem| {
        if seen.insert(item.label.clone()) {
            items.push(item);
        }
    };
    for definition in analysis.names.visible_at(offset) {
        let binding = analysis.binding_at(definition.span);
        let detail = binding.map_or_else(
            || definition.kind.word().to_owned(),
            |binding| format!("{} {}", binding.kind.word(), binding.type_name),
        );
        push(CompletionItem {
            label: definition.name.clone(),
            kind: Some(match definition.kind {
                DefinitionKind::Kernel | DefinitionKind::Function => CompletionItemKind::FUNCTION,
                DefinitionKind::Atom => CompletionItemKind::STRUCT,
                DefinitionKind::Const => CompletionItemKind::CONSTANT,
                DefinitionKind::Test | DefinitionKind::Bench => CompletionItemKind::METHOD,
                DefinitionKind::ConstParameter => CompletionItemKind::TYPE_PARAMETER,
                DefinitionKind::Parameter | DefinitionKind::Local => CompletionItemKind::VARIABLE,
            }),
            detail: Some(detail),
            documentation: binding
                .and_then(|binding| binding.contents.clone())
                .and_then(documentation),
            ..CompletionItem::default()
        });
    }
    for (name, target) in &analysis.names.imports {
        if let Target::Stdlib { module, .. } = target {
            push(CompletionItem {
                label: name.clone(),
                kind: Some(CompletionItemKind::STRUCT),
                detail: Some(format!("{}::{name}", stdlib::modules()[*module].name)),
                ..CompletionItem::default()
            });
        }
    }
    for (module, std_module) in stdlib::modules().iter().enumerate() {
        push(CompletionItem {
            label: std_module.name.to_owned(),
            kind: Some(CompletionItemKind::MODULE),
            detail: Some(module_summary(module)),
            ..CompletionItem::default()
        });
    }
    for builtin in typecheck::BUILTINS {
        push(CompletionItem {
            label: builtin.name.to_owned(),
            kind: Some(CompletionItemKind::FUNCTION),
            detail: Some(builtin.signature()),
            documentation: documentation(builtin.doc.to_owned()),
            ..CompletionItem::default()
        });
    }
    for name in typecheck::builtin_indices() {
        push(CompletionItem {
            label: name.to_owned(),
            kind: Some(CompletionItemKind::FUNCTION),
            detail: Some("built-in".to_owned()),
            ..CompletionItem::default()
        });
    }
    for dtype in Dtype::ALL {
        push(CompletionItem {
            label: dtype.name().to_owned(),
            kind: Some(CompletionItemKind::TYPE_PARAMETER),
            detail: Some(format!("dtype, {} bits", dtype.bits())),
            ..CompletionItem::default()
        });
    }
    items
}

fn documentation(text: String) -> Option<Documentation> {
    (!text.is_empty()).then_some(Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value: text,
    }))
}

#[cfg(test)]
mod tests {
    use super::complete;
    use crate::analysis::FileAnalysis;

    fn labels(source: &str, cursor: &str) -> Vec<String> {
        let analysis = FileAnalysis::new(source.to_owned(), cute::Target::Sm90a);
        let offset = source
            .find(cursor)
            .map_or(0, |offset| offset + cursor.len()) as u32;
        complete(&analysis, offset)
            .into_iter()
            .map(|item| item.label)
            .collect()
    }

    #[test]
    fn stdlib_members_after_the_module_path() {
        let source = "const A = sm80::cp\n";
        let members = labels(source, "sm80::cp");
        assert!(members.contains(&"cp_async".to_owned()), "{members:?}");
        assert!(members.contains(&"ldmatrix_x4".to_owned()));
        assert!(!members.contains(&"copy".to_owned()), "copy is universal's");
    }

    #[test]
    fn locals_in_scope_items_and_builtins() {
        let source =
            "const N: int = 4;\nfn f(p: int) -> int {\n    let early = p;\n    let q = ea\n}\n";
        let names = labels(source, "let q = ea");
        for expected in ["early", "p", "N", "f", "local_tile", "bf16", "universal"] {
            assert!(
                names.contains(&expected.to_owned()),
                "{expected}: {names:?}"
            );
        }
        assert!(!names.contains(&"q".to_owned()), "not yet bound");
    }
}
