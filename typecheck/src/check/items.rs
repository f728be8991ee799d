//! Items other than kernels: `const` items (evaluated once, in dependency order),
//! device functions checked on their own, the call stack of inlined calls, and tests.

use lang::ast::{ItemKind, TestBlock};
use lang::{Diagnostic, Span};

use crate::BindingKind;
use crate::callee::ItemId;
use crate::check::statements::destructure;
use crate::check::{CALL_DEPTH_LIMIT, Checker, ConstState, Context};
use crate::value::Value;

impl<'a> Checker<'a> {
    /// Evaluates a `const` item once; returns the names it binds and their values.
    pub(crate) fn const_item(&mut self, module: usize, index: usize) -> Vec<(String, Value)> {
        match self.evaluated.consts.get(&(module, index)) {
            Some(ConstState::Done(values)) => return values.clone(),
            Some(ConstState::InProgress) => {
                let item = &self.names.modules[module].module.items[index];
                self.report(
                    Diagnostic::error("E0221", "this const depends on itself")
                        .with_primary(item.span, "its value needs its own value")
                        .with_help("a const must be computable from the consts before it"),
                );
                return Vec::new();
            }
            None => {}
        }
        self.evaluated
            .consts
            .insert((module, index), ConstState::InProgress);
        let item = &self.names.modules[module].module.items[index];
        let ItemKind::Const(const_item) = &item.kind else {
            return Vec::new();
        };
        let frame = self.frame_for(Context::Const, "const".to_owned());
        let (bound, _) = self.isolated(module, frame, |checker| {
            let value = checker.eval(&const_item.value);
            let value = match &const_item.ty {
                Some(ty) => checker.check_declared_type(value, ty, const_item.value.span),
                None => value,
            };
            if let Some(origin) = checker.dyn_origin(&value) {
                checker.require_const_failed("a `const` item", const_item.value.span, &origin);
            }
            checker.bind_pattern(
                &const_item.pattern,
                value.clone(),
                false,
                BindingKind::Const,
            );
            let mut bound = Vec::new();
            destructure(&const_item.pattern, value, &mut bound);
            bound
        });
        self.evaluated
            .consts
            .insert((module, index), ConstState::Done(bound.clone()));
        bound
    }

    /// Evaluates `expr` without reporting or recording anything (a second look at a
    /// value already checked).
    pub(crate) fn eval_quiet(&mut self, expr: &'a lang::ast::Expr) -> Value {
        let saved_diagnostics = self.reporting.diagnostics.len();
        let saved_seen = self.reporting.seen.clone();
        let saved_bindings = self.reporting.bindings.len();
        let value = self.eval(expr);
        self.reporting.diagnostics.truncate(saved_diagnostics);
        (self.reporting.per_kernel).retain(|_, finding| finding.index < saved_diagnostics);
        self.reporting.seen = saved_seen;
        self.reporting.bindings.truncate(saved_bindings);
        value
    }

    /// A device function never called: checked once with its parameters as written.
    pub(crate) fn check_function_alone(&mut self, function: &'a lang::ast::Function) {
        let mut frame = self.frame_for(Context::Device, format!("fn {}", function.name.text));
        frame.is_function = true;
        self.isolated(0, frame, |checker| {
            checker.bind_generics(&function.generics, &[], function.name.span);
            for param in &function.params {
                let value = checker.param_value(param, "a function argument");
                checker.bind(&param.name, value, false, BindingKind::Parameter);
            }
            checker.eval_block(&function.body);
        });
    }

    pub(crate) fn mark_function_called(&mut self, id: &ItemId) {
        self.evaluated.called_functions.insert((id.module, id.item));
    }

    pub(crate) fn enter_call(&mut self, id: &ItemId, span: Span) -> bool {
        if self.budgets.call_stack.contains(id) {
            self.error(
                "E0221",
                span,
                format!(
                    "`{}` calls itself; device functions are inlined, so they cannot recurse",
                    id.name
                ),
                "recursive call",
            );
            return false;
        }
        if self.budgets.call_stack.len() >= CALL_DEPTH_LIMIT {
            self.error(
                "E0222",
                span,
                format!("calls nest deeper than {CALL_DEPTH_LIMIT}"),
                "too deep",
            );
            return false;
        }
        self.budgets.call_stack.push(id.clone());
        true
    }

    pub(crate) fn check_test(&mut self, test: &'a TestBlock, is_bench: bool) {
        let word = if is_bench { "bench" } else { "test" };
        let mut frame = self.frame_for(Context::Host, format!("{word} {}", test.name.text));
        frame.is_bench = is_bench;
        // A clause in error (reported) still makes the block a multi-rank one, of one
        // rank, so that its launches and `this_rank()` report nothing more.
        frame.world = (test.ranks.as_ref()).map(|ranks| self.check_ranks(ranks).unwrap_or(1));
        self.isolated(0, frame, |checker| checker.eval_block(&test.body));
    }
}
