//! What an editor needs beyond [`crate::Analysis`]: the type and evaluated value of
//! every expression of the user's file, and what each name there refers to.
//!
//! [`check_for_editor`] runs the ordinary check with recorders attached: one to
//! [`Checker::eval`], which keeps the first evaluation of each expression of the
//! user's module (span and all), so an expression inside an unrolled loop or an
//! inlined function shows the value of its first instantiation; and the
//! [`crate::resolution`] recorder, which keeps each name's definition. Stdlib code is
//! not recorded. Without the recorders (plain [`crate::check`]) evaluation costs
//! nothing extra.

use rustc_hash::FxHashSet;
use std::cell::RefCell;
use std::rc::Rc;

use cute::Target;
use lang::Span;
use lang::ast::{Expr, Module};

use crate::Analysis;
use crate::check::Checker;
use crate::resolution::{Names, Recorder};
use crate::value::Value;

/// The type and evaluated value of one expression of the user's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprType {
    /// The expression's text.
    pub span: Span,
    /// Its type, as [`crate::Binding::type_name`] writes types.
    pub type_name: String,
    /// Its evaluated contents, when there is something beyond the type (a layout,
    /// a tensor's layout and offset, an atom's facts and instruction).
    pub contents: Option<String>,
    /// Why it is only known at run time; `None` when it is const.
    pub dyn_reason: Option<String>,
}

/// The recorder [`Checker::eval`] feeds while it is attached.
#[derive(Debug, Default)]
pub(crate) struct ExprTypes {
    recorded: FxHashSet<Span>,
    types: Vec<ExprType>,
}

/// What [`check_for_editor`] gives.
#[derive(Clone, Debug, Default)]
pub struct EditorAnalysis {
    /// What [`crate::check`] gives.
    pub analysis: Analysis,
    /// Every expression's type and value, in the order first evaluated.
    pub expr_types: Vec<ExprType>,
    /// The file's definitions and what each use of a name refers to.
    pub names: Names,
}

/// [`crate::check`], also returning every expression's type and value and what each
/// name refers to.
pub fn check_for_editor(module: &Module, target: Target) -> EditorAnalysis {
    let module = crate::jumps::rewrite(module);
    crate::stack::on_checker_stack(|| {
        let recorder = Rc::new(RefCell::new(ExprTypes::default()));
        let names = Rc::new(RefCell::new(Recorder::default()));
        let mut checker = Checker::new(&module, target);
        checker.tracing.expr_types = Some(Rc::clone(&recorder));
        checker.tracing.resolution = Some(Rc::clone(&names));
        let analysis = checker.run();
        let expr_types = std::mem::take(&mut recorder.borrow_mut().types);
        EditorAnalysis {
            analysis,
            expr_types,
            names: names.take().into_names(),
        }
    })
}

impl<'a> Checker<'a> {
    /// Evaluates an expression, recording its type when a recorder is attached.
    pub(crate) fn eval(&mut self, expr: &'a Expr) -> Value {
        if !self.enter(expr.span) {
            return Value::Unknown;
        }
        let value = self.eval_untyped(expr);
        self.leave();
        if self.names.current_module == 0
            && !matches!(value, Value::Unknown)
            && let Some(recorder) = self.tracing.expr_types.clone()
            && recorder.borrow_mut().recorded.insert(expr.span)
        {
            let contents = match &value {
                Value::Atom(atom) => {
                    Some(format!("{}; instruction `{}`", atom.summary(), atom.ptx))
                }
                other => other.contents(),
            };
            let record = ExprType {
                span: expr.span,
                type_name: value.type_name(),
                contents,
                dyn_reason: self.dyn_origin(&value).map(|origin| origin.reason),
            };
            recorder.borrow_mut().types.push(record);
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::check_for_editor;
    use crate::Target;

    #[test]
    fn every_expression_of_the_file_gets_its_type_and_value() {
        let source = "const L = (4, 2):(2, 1);\nconst N: int = size(L) * 3;\n";
        let (module, diagnostics) = grammar::parse(source);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let checked = check_for_editor(&module, Target::Sm90a);
        let (analysis, types) = (checked.analysis, checked.expr_types);
        assert!(
            analysis.diagnostics.is_empty(),
            "{:?}",
            analysis.diagnostics
        );
        let find = |text: &str| {
            let start = source.find(text).unwrap_or(usize::MAX) as u32;
            types
                .iter()
                .find(|record| {
                    record.span.start == start && record.span.len() as usize == text.len()
                })
                .map(|record| (record.type_name.as_str(), record.contents.as_deref()))
        };
        assert_eq!(find("(4, 2):(2, 1)"), Some(("layout", Some("(4,2):(2,1)"))));
        assert_eq!(find("size(L)"), Some(("int", Some("8"))));
        assert_eq!(find("size(L) * 3"), Some(("int", Some("24"))));
    }

    #[test]
    fn stdlib_code_is_not_recorded() {
        let source = "const A = universal::copy(T = bf16, BITS = 128);\n";
        let (module, _) = grammar::parse(source);
        let types = check_for_editor(&module, Target::Sm90a).expr_types;
        assert!(
            types
                .iter()
                .all(|record| record.span.end as usize <= source.len())
        );
        let call = types.iter().find(|record| record.type_name == "copy atom");
        let contents = call
            .and_then(|record| record.contents.clone())
            .unwrap_or_default();
        assert!(
            contents.contains("instruction `mov.b128 {dst}"),
            "{contents}"
        );
    }
}
