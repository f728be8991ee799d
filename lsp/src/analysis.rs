//! One document analysed: its text parsed and typechecked, with what the checker
//! recorded for editors (each expression's value, each name's definition),
//! everything the requests answer from.
//!
//! The text goes through the same checks as `cukc check`: [`lang::source::load`]
//! (a NUL byte makes it binary), [`grammar::parse`], the `W0001` warning for a file
//! without items, and [`typecheck`]. Diagnostics are published only from the stages
//! `cukc check` reports: when the parse failed, the typechecker's diagnostics are
//! dropped, but it still runs on the partial tree so that hovers keep answering
//! while the user types. A module the checker accepts is lowered too, for the
//! diagnostics only lowering gives (`E03xx`, and `E0227` for tensor-memory rules),
//! as `cukc check` does.

use lang::ast::Module;
use lang::{Diagnostic, Span, source};
use typecheck::Binding;
use typecheck::expr_types::{EditorAnalysis, ExprType, check_for_editor};
use typecheck::resolution::{Definition, Names};

use crate::position::LineMap;

/// A document's text and what the compiler knows about it.
#[derive(Debug)]
pub struct FileAnalysis {
    /// The text analysed.
    pub text: String,
    /// Its lines, for position conversions.
    pub lines: LineMap,
    /// The parsed (possibly partial) module.
    pub module: Module,
    /// The diagnostics to publish, in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// Every binding the typechecker evaluated.
    pub bindings: Vec<Binding>,
    /// Every expression the typechecker evaluated.
    pub expr_types: Vec<ExprType>,
    /// Definitions and what each use of a name refers to, as the checker resolved them.
    pub names: Names,
}

impl FileAnalysis {
    /// Analyses `text` for `target`.
    pub fn new(text: String, target: cute::Target) -> FileAnalysis {
        FileAnalysis::build(text, Some(target))
    }

    /// Only the checks of the bytes and the parse: what is left to show when the
    /// typechecker failed on this text.
    pub fn parse_only(text: String) -> FileAnalysis {
        FileAnalysis::build(text, None)
    }

    fn build(text: String, target: Option<cute::Target>) -> FileAnalysis {
        let loaded = source::load("", text.into_bytes());
        let text = loaded.file.text().to_owned();
        let lines = LineMap::new(&text);
        let mut diagnostics = loaded.diagnostics;
        if !loaded.is_text {
            return FileAnalysis {
                names: Names::default(),
                text,
                lines,
                module: Module::default(),
                diagnostics,
                bindings: Vec::new(),
                expr_types: Vec::new(),
            };
        }
        let (module, parse_diagnostics) = grammar::parse(&text);
        let parsed = !parse_diagnostics.iter().any(Diagnostic::is_error);
        diagnostics.extend(parse_diagnostics);
        diagnostics.extend(source::no_items_warning(&module, &diagnostics));
        let EditorAnalysis {
            analysis,
            expr_types,
            names,
        } = match target {
            Some(target) => check_for_editor(&module, target),
            None => EditorAnalysis::default(),
        };
        if parsed {
            diagnostics.extend(analysis.diagnostics);
        }
        if let Some(target) = target
            && parsed
            && !diagnostics.iter().any(Diagnostic::is_error)
        {
            diagnostics.extend(lowering_diagnostics(&module, target));
        }
        FileAnalysis {
            text,
            lines,
            module,
            diagnostics,
            bindings: analysis.bindings,
            expr_types,
            names,
        }
    }

    /// The binding recorded for the name written at `span`.
    pub fn binding_at(&self, span: Span) -> Option<&Binding> {
        self.bindings.iter().find(|binding| binding.span == span)
    }

    /// The index of the item `definition` is in.
    pub fn item_of(&self, definition: &Definition) -> Option<usize> {
        (self.module.items.iter()).position(|item| item.span.contains(definition.span.start))
    }

    /// The smallest evaluated expression covering `span`.
    pub fn expr_covering(&self, span: Span) -> Option<&ExprType> {
        self.expr_types
            .iter()
            .filter(|record| record.span.start <= span.start && span.end <= record.span.end)
            .min_by_key(|record| record.span.len())
    }

    /// The smallest evaluated expression at `offset` (touching it from either side).
    pub fn expr_at(&self, offset: u32) -> Option<&ExprType> {
        self.expr_types
            .iter()
            .filter(|record| record.span.contains(offset) || record.span.end == offset)
            .min_by_key(|record| (record.span.len(), u32::MAX - record.span.start))
    }
}

/// What lowering finds in a module the checker accepts (a construct kernels cannot
/// compute yet, a collective under divergent control flow, a tensor-memory rule
/// broken), as `cukc check` reports it: the module is traced and each kernel
/// instantiation lowered on a thread of its own. The checker's own diagnostics are
/// not given again.
fn lowering_diagnostics(module: &Module, target: cute::Target) -> Vec<Diagnostic> {
    std::thread::scope(|scope| {
        let mut lowering = lower::ConcurrentLowering::new(scope);
        let (_, traces) = typecheck::trace_each(module, target, |trace| lowering.start(trace));
        drop(traces);
        lowering.finish(Vec::new()).diagnostics
    })
}

#[cfg(test)]
mod tests {
    use super::FileAnalysis;

    #[test]
    fn typechecker_diagnostics_wait_for_a_clean_parse() {
        let clean = FileAnalysis::new("const A: int = B;\n".to_owned(), cute::Target::Sm90a);
        let codes: Vec<&str> = clean.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["E0201"]);
        let broken = FileAnalysis::new(
            "const A: int = B;\nconst C = (;\n".to_owned(),
            cute::Target::Sm90a,
        );
        assert!(broken.diagnostics.iter().all(|d| d.code.starts_with("E01")));
        assert!(!broken.diagnostics.is_empty());
    }

    #[test]
    fn what_lowering_refuses_is_published_at_its_line() {
        let text = "fn pick(x: i32, a: gmem f32[_], b: gmem f32[_]) -> gmem f32[_] {\n\
                    \x20   if x < 0 { return a; }\n\
                    \x20   b\n\
                    }\n\
                    kernel k(a: gmem f32[32:1], b: gmem f32[32:1]) launch grid(1) block(32) {\n\
                    \x20   let t = thread_idx.x;\n\
                    \x20   let chosen = pick(t - 4, a, b);\n\
                    \x20   chosen[t] = 1.0;\n\
                    }\n";
        let analysis = FileAnalysis::new(text.to_owned(), cute::Target::Sm90a);
        let codes: Vec<&str> = analysis.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["E0301"]);
        let span = analysis.diagnostics[0].span();
        assert_eq!(&text[span.range()], "return a;");
    }

    #[test]
    fn binary_text_is_rejected_without_parsing() {
        let analysis = FileAnalysis::new("a\0b".to_owned(), cute::Target::Sm90a);
        assert_eq!(analysis.diagnostics[0].code, "E0003");
        assert!(analysis.module.items.is_empty());
    }
}
