//! Hovers: what a name or an expression is, and its evaluated value.
//!
//! A name refers to what the typechecker resolved it to ([`typecheck::resolution`]);
//! for a binding the
//! typechecker evaluated (a const, a parameter, a `let`), the hover is the
//! `--dump-types` line: `let tAgA: gmem bf16 tensor = ((8,1),8,1):((1,0),16*k,0) @
//! offset ...`, with why it is dyn. Items show their declaration and doc comment;
//! stdlib atoms their declaration (instruction, shape, thread-value layouts) and,
//! where a call instantiates them, the instantiated facts. Anything else shows the
//! type and value of the smallest evaluated expression under the cursor.

use lang::Span;
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};
use typecheck::expr_types::ExprType;
use typecheck::stdlib;

use typecheck::resolution::{Definition, Target};

use crate::analysis::FileAnalysis;
use crate::source_text::{declaration, doc_comment, module_summary};

/// The hover at byte `offset`, as Markdown.
pub fn hover(analysis: &FileAnalysis, offset: u32) -> Option<Hover> {
    let (span, markdown) = match analysis.names.target_at(offset) {
        Some((span, target)) => (span, describe_target(analysis, span, target)?),
        None => {
            let record = analysis.expr_at(offset)?;
            (record.span, expression(record))
        }
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: Some(analysis.lines.range(&analysis.text, span)),
    })
}

/// The Markdown for the name at `span`, which refers to `target`.
fn describe_target(analysis: &FileAnalysis, span: Span, target: Target) -> Option<String> {
    match target {
        Target::Definition(index) => {
            let definition = analysis.names.definitions.get(index)?;
            Some(definition_hover(analysis, span, definition))
        }
        Target::Stdlib { module, item } => {
            let std_module = stdlib::modules().get(module)?;
            let entry = std_module.module.items.get(item)?;
            let mut markdown = code(&format!(
                "// {}\n{}",
                std_module.name,
                declaration(std_module.source, entry)
            ));
            push_paragraph(
                &mut markdown,
                &doc_comment(std_module.source, entry.span.start),
            );
            if let Some(call) = instantiation(analysis, span) {
                push_paragraph(
                    &mut markdown,
                    &format!("Here:\n{}", code(&type_and_value(call))),
                );
            }
            Some(markdown)
        }
        Target::StdlibModule(module) => {
            let std_module = stdlib::modules().get(module)?;
            let mut markdown = code(&format!("mod {}", std_module.name));
            push_paragraph(&mut markdown, &module_summary(module));
            Some(markdown)
        }
        Target::Builtin(name) => {
            let function = typecheck::BUILTINS
                .iter()
                .find(|builtin| builtin.name == name);
            let signature = function.map_or_else(|| name.to_owned(), |builtin| builtin.signature());
            let mut markdown = code(&format!("built-in {signature}"));
            if let Some(builtin) = function {
                push_paragraph(&mut markdown, builtin.doc);
            }
            if let Some(call) = instantiation(analysis, span) {
                push_paragraph(
                    &mut markdown,
                    &format!("Here:\n{}", code(&type_and_value(call))),
                );
            }
            Some(markdown)
        }
    }
}

fn definition_hover(analysis: &FileAnalysis, span: Span, definition: &Definition) -> String {
    if let Some(binding) = analysis.binding_at(definition.span) {
        let mut markdown = code(&binding.summary());
        push_paragraph(&mut markdown, &format!("in `{}`", binding.scope));
        if let Some(reason) = &binding.dyn_reason {
            push_paragraph(&mut markdown, &format!("dyn: {reason}"));
        }
        return markdown;
    }
    if definition.kind.is_item()
        && let Some(item) =
            (analysis.item_of(definition)).and_then(|i| analysis.module.items.get(i))
    {
        let mut markdown = code(&declaration(&analysis.text, item));
        push_paragraph(&mut markdown, &doc_comment(&analysis.text, item.span.start));
        return markdown;
    }
    // A name the checker did not evaluate under this definition (an unused
    // function's parameter, a partial parse): what the use evaluated to, if anything.
    match analysis.expr_covering(span) {
        Some(record) if record.span == span => code(&format!(
            "{} {}: {}",
            definition.kind.word(),
            definition.name,
            type_and_value(record)
        )),
        _ => code(&format!("{} {}", definition.kind.word(), definition.name)),
    }
}

/// The evaluated call around the callee at `span` (`universal::copy(...)`).
fn instantiation(analysis: &FileAnalysis, span: Span) -> Option<&ExprType> {
    analysis
        .expr_types
        .iter()
        .filter(|record| record.span.start <= span.start && span.end < record.span.end)
        .filter(|record| {
            analysis
                .text
                .get(span.end as usize..record.span.end as usize)
                .is_some_and(|rest| rest.trim_start().starts_with('('))
        })
        .min_by_key(|record| record.span.len())
}

fn expression(record: &ExprType) -> String {
    let mut markdown = code(&type_and_value(record));
    if let Some(reason) = &record.dyn_reason {
        push_paragraph(&mut markdown, &format!("dyn: {reason}"));
    }
    markdown
}

/// `type = value`, or the type alone.
fn type_and_value(record: &ExprType) -> String {
    match &record.contents {
        Some(contents) if *contents != record.type_name => {
            format!("{} = {contents}", record.type_name)
        }
        _ => record.type_name.clone(),
    }
}

fn code(text: &str) -> String {
    format!("```cuk\n{text}\n```")
}

fn push_paragraph(markdown: &mut String, paragraph: &str) {
    if !paragraph.is_empty() {
        markdown.push_str("\n\n");
        markdown.push_str(paragraph);
    }
}

#[cfg(test)]
mod tests {
    use super::hover;
    use crate::analysis::FileAnalysis;
    use lsp_types::HoverContents;

    fn hover_text(source: &str, needle: &str) -> String {
        let analysis = FileAnalysis::new(source.to_owned(), cute::Target::Sm90a);
        let offset = source.find(needle).map_or(u32::MAX, |offset| offset as u32);
        match hover(&analysis, offset).map(|hover| hover.contents) {
            Some(HoverContents::Markup(markup)) => markup.value,
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn a_const_layout_shows_its_evaluated_value_at_uses_too() {
        let source = "const T = (16, 8):(8, 1);\nconst U = T;\n";
        assert!(hover_text(source, "T =").contains("const T: layout = (16,8):(8,1)"));
        assert!(hover_text(source, "T;").contains("const T: layout = (16,8):(8,1)"));
    }

    #[test]
    fn expressions_show_their_type_and_value() {
        let source = "const N: int = 3 * 4 + 1;\n";
        assert!(hover_text(source, "3 *").contains("int = 3"));
        assert!(
            hover_text(source, "* 4").contains("int = 12"),
            "the product"
        );
    }

    #[test]
    fn stdlib_atoms_show_declaration_doc_and_instantiation() {
        let source = "const A = universal::copy(T = bf16, BITS = 128);\n";
        let text = hover_text(source, "copy(");
        assert!(text.contains("atom copy<const T: dtype"), "{text}");
        assert!(text.contains("ptx = \"mov.b{BITS}"), "{text}");
        assert!(text.contains("CuTe's UniversalCopy"), "{text}");
        assert!(
            text.contains("Here:\n```cuk\ncopy atom = universal::copy(T = bf16, BITS = 128)"),
            "{text}"
        );
    }

    #[test]
    fn built_ins_show_their_signature_and_meaning_from_the_table() {
        let source = "const L = make_layout((4, 8));
const S = size(L);
";
        let text = hover_text(source, "make_layout");
        assert!(
            text.contains("built-in make_layout(shape, stride?)"),
            "{text}"
        );
        assert!(text.contains("column-major (`LayoutLeft`)"), "{text}");
        assert!(hover_text(source, "size").contains("built-in size(x)"));
    }
}
