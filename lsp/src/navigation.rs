//! Go to definition and document symbols.
//!
//! A definition is what the typechecker resolved the name to
//! ([`typecheck::resolution`]): a local, parameter or item
//! of the file is a location in the same document; a stdlib name is a location in
//! the stdlib's file ([`crate::source_text::stdlib_files`]); built-ins have none.
//! Document symbols list the file's items (kernels, functions, atoms, consts, tests,
//! benches), each with its parameters and `let`s as children.

use lang::Span;
use lang::ast::ItemKind;
use lsp_types::{DocumentSymbol, Location, SymbolKind, Uri};
use typecheck::stdlib;

use typecheck::resolution::{DefinitionKind, Target};

use crate::analysis::FileAnalysis;
use crate::source_text::{item_name, stdlib_files};

/// Where the name at byte `offset` of the document `uri` is defined.
pub fn definition(analysis: &FileAnalysis, uri: &Uri, offset: u32) -> Option<Location> {
    let (_, target) = analysis.names.target_at(offset)?;
    match target {
        Target::Definition(index) => {
            let definition = analysis.names.definitions.get(index)?;
            Some(Location {
                uri: uri.clone(),
                range: analysis.lines.range(&analysis.text, definition.span),
            })
        }
        Target::Stdlib { module, item } => {
            let std_module = stdlib::modules().get(module)?;
            let name = item_name(std_module.module.items.get(item)?)?;
            let file = stdlib_files().get(module)?;
            Some(Location {
                uri: file.uri.clone()?,
                range: file.lines.range(std_module.source, name.span),
            })
        }
        Target::StdlibModule(module) => {
            let file = stdlib_files().get(module)?;
            Some(Location {
                uri: file.uri.clone()?,
                range: file.lines.range("", Span::empty(0)),
            })
        }
        Target::Builtin(_) => None,
    }
}

/// The file's items, each with its parameters and locals as children.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written, as `None`.
pub fn document_symbols(analysis: &FileAnalysis) -> Vec<DocumentSymbol> {
    let range = |span: Span| analysis.lines.range(&analysis.text, span);
    let mut symbols = Vec::new();
    for (index, item) in analysis.module.items.iter().enumerate() {
        let (kind, detail) = match &item.kind {
            ItemKind::Kernel(_) => (SymbolKind::FUNCTION, "kernel".to_owned()),
            ItemKind::Function(_) => (SymbolKind::FUNCTION, "fn".to_owned()),
            ItemKind::Atom(atom) => (SymbolKind::STRUCT, format!("atom: {}", atom.kind.text)),
            ItemKind::Test(_) => (SymbolKind::METHOD, "test".to_owned()),
            ItemKind::Bench(_) => (SymbolKind::METHOD, "bench".to_owned()),
            ItemKind::Tune(tune) => (SymbolKind::METHOD, format!("tune: {}", tune.kernel.text)),
            ItemKind::Const(_) => (SymbolKind::CONSTANT, "const".to_owned()),
            ItemKind::Use(_) | ItemKind::Error => continue,
        };
        let definitions = analysis
            .names
            .definitions
            .iter()
            .filter(|definition| analysis.item_of(definition) == Some(index));
        let mut children = Vec::new();
        let mut names = Vec::new();
        for definition in definitions {
            if definition.kind.is_item() {
                names.push(definition);
                continue;
            }
            let type_name = analysis
                .binding_at(definition.span)
                .map(|binding| binding.type_name.clone());
            children.push(DocumentSymbol {
                name: definition.name.clone(),
                detail: Some(type_name.unwrap_or_else(|| definition.kind.word().to_owned())),
                kind: match definition.kind {
                    DefinitionKind::ConstParameter => SymbolKind::TYPE_PARAMETER,
                    _ => SymbolKind::VARIABLE,
                },
                tags: None,
                deprecated: None,
                range: range(definition.span),
                selection_range: range(definition.span),
                children: None,
            });
        }
        // A `const (A, B) = ...` item defines several names: one symbol each.
        let fallback = item_name(item).map(|name| (name.text.clone(), name.span));
        let named: Vec<(String, Span)> = if names.is_empty() {
            fallback.into_iter().collect()
        } else {
            names.iter().map(|d| (d.name.clone(), d.span)).collect()
        };
        for (name, span) in named {
            let detail = match (&item.kind, analysis.binding_at(span)) {
                (ItemKind::Const(_), Some(binding)) => binding.type_name.clone(),
                _ => detail.clone(),
            };
            symbols.push(DocumentSymbol {
                name,
                detail: Some(detail),
                kind,
                tags: None,
                deprecated: None,
                range: range(item.span),
                selection_range: range(span),
                children: (!children.is_empty()).then(|| children.clone()),
            });
        }
    }
    symbols
}

#[cfg(test)]
mod tests {
    use super::{definition, document_symbols};
    use crate::analysis::FileAnalysis;
    use lsp_types::{Position, SymbolKind};

    const SOURCE: &str = "const N: int = 4;\nfn twice(x: int) -> int { x * 2 }\nkernel k(m: i32) launch grid(1) block(32) {\n    let y = twice(N);\n}\ntest t { k(1); }\n";

    #[test]
    fn definitions_of_items_parameters_and_stdlib_names() {
        let analysis = FileAnalysis::new(SOURCE.to_owned(), cute::Target::Sm90a);
        let uri: lsp_types::Uri = "file:///tmp/a.cuk".parse().expect("a valid URI");
        let at = |needle: &str| SOURCE.find(needle).unwrap_or(0) as u32;
        let twice = definition(&analysis, &uri, at("twice(N)")).map(|l| l.range.start);
        assert_eq!(
            twice,
            Some(Position {
                line: 1,
                character: 3
            })
        );
        let x = definition(&analysis, &uri, at("x * 2")).map(|l| l.range.start);
        assert_eq!(
            x,
            Some(Position {
                line: 1,
                character: 9
            })
        );
        assert!(definition(&analysis, &uri, at("grid")).is_none());
        let std_source = "const A = sm80::cp_async(T = bf16);\n";
        let std_analysis = FileAnalysis::new(std_source.to_owned(), cute::Target::Sm90a);
        let offset = std_source.find("cp_async").unwrap_or(0) as u32;
        let location = definition(&std_analysis, &uri, offset);
        assert!(location.is_some_and(|l| l.uri.as_str().ends_with("sm80.cuk")));
    }

    #[test]
    fn symbols_list_items_with_their_locals() {
        let analysis = FileAnalysis::new(SOURCE.to_owned(), cute::Target::Sm90a);
        let symbols = document_symbols(&analysis);
        let names: Vec<(&str, SymbolKind)> =
            symbols.iter().map(|s| (s.name.as_str(), s.kind)).collect();
        assert_eq!(
            names,
            [
                ("N", SymbolKind::CONSTANT),
                ("twice", SymbolKind::FUNCTION),
                ("k", SymbolKind::FUNCTION),
                ("t", SymbolKind::METHOD)
            ]
        );
        let kernel_children: Vec<&str> = symbols[2]
            .children
            .iter()
            .flatten()
            .map(|child| child.name.as_str())
            .collect();
        assert_eq!(kernel_children, ["m", "y"]);
    }
}
