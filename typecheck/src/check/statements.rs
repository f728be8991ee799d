//! Statements: blocks, `let` and patterns, `static` loops unrolled, run-time loops
//! and branches evaluated once with what they assign made dyn.

use std::collections::HashMap;

use lang::Span;
use lang::ast::{Block, Name, Pattern, PatternKind, Stmt, StmtKind};

use crate::BindingKind;
use crate::check::{Checker, Context, UNROLL_LIMIT, WORK_LIMIT};
use crate::trace::Effect;
use crate::value::{IntType, Known, Origin, Value};

impl<'a> Checker<'a> {
    pub(crate) fn eval_block(&mut self, block: &'a Block) -> Value {
        self.scopes.push(HashMap::new());
        for statement in &block.statements {
            self.eval_statement(statement);
        }
        let result = match &block.tail {
            Some(tail) => self.eval(tail),
            None => Value::Unit,
        };
        self.scopes.pop();
        result
    }

    pub(crate) fn eval_statement(&mut self, statement: &'a Stmt) {
        if !self.spend(statement.span) {
            return;
        }
        match &statement.kind {
            StmtKind::Let {
                mutable,
                pattern,
                ty,
                value,
            } => {
                let mut evaluated = self.eval(value);
                if let Some(ty) = ty {
                    evaluated = self.check_declared_type(evaluated, ty, value.span);
                }
                if let (PatternKind::Name(name), lang::ast::ExprKind::Alloc { space, .. }) =
                    (&pattern.kind, &value.kind)
                    && *space == lang::ast::MemorySpace::Shared
                    && let Some(buffer) = self
                        .frame
                        .shared
                        .iter_mut()
                        .rev()
                        .find(|buffer| buffer.span == value.span)
                {
                    buffer.name.clone_from(&name.text);
                }
                self.bind_pattern(pattern, evaluated, *mutable, BindingKind::Local);
            }
            StmtKind::Assign { op, target, value } => {
                self.assign(*op, target, value, statement.span)
            }
            StmtKind::Expr(expr) => {
                self.eval(expr);
            }
            StmtKind::Return(value) => {
                let result = value.as_ref().map_or(Value::Unit, |value| self.eval(value));
                if !self.frame.is_function {
                    self.error(
                        "E0220",
                        statement.span,
                        format!(
                            "`return` belongs in a device function, not in a {}",
                            self.frame_kind()
                        ),
                        "nothing to return from",
                    );
                }
                self.frame.returns.push(result);
            }
            StmtKind::Break | StmtKind::Continue => {
                if self.frame.loops == 0 {
                    let word = if matches!(statement.kind, StmtKind::Break) {
                        "break"
                    } else {
                        "continue"
                    };
                    self.error(
                        "E0220",
                        statement.span,
                        format!("`{word}` outside a loop"),
                        "not in a loop",
                    );
                }
            }
            StmtKind::Empty | StmtKind::Error => {}
            StmtKind::Report(parts) => self.check_report(parts, statement.span),
            StmtKind::For {
                variable,
                unrolled,
                start,
                end,
                body,
            } => self.eval_for(variable, *unrolled, start, end, body),
            StmtKind::Block(block) => {
                self.eval_block(block);
            }
            StmtKind::While { condition, body } => {
                let value = self.eval(condition);
                self.expect_bool(&value, condition.span, "a `while` condition");
                self.dyn_region(body, |checker| {
                    checker.frame.loops += 1;
                    checker.eval_block(body);
                    checker.frame.loops -= 1;
                });
            }
            StmtKind::If {
                branches,
                otherwise,
            } => self.eval_if(branches, otherwise.as_ref()),
        }
    }

    pub(crate) fn frame_kind(&self) -> &'static str {
        match self.frame.context {
            Context::Const => "const",
            Context::Device => "kernel",
            Context::Host if self.frame.is_bench => "bench",
            Context::Host => "test",
        }
    }

    pub(crate) fn eval_for(
        &mut self,
        variable: &'a Name,
        unrolled: bool,
        start: &'a lang::ast::Expr,
        end: &'a lang::ast::Expr,
        body: &'a Block,
    ) {
        let start_value = self.eval(start);
        let end_value = self.eval(end);
        let bounds = [(&start_value, start.span), (&end_value, end.span)];
        if unrolled {
            let mut constant = [0i64; 2];
            for (index, (value, span)) in bounds.into_iter().enumerate() {
                match self.expect_int(value, span, "a loop bound") {
                    Some(bound) => match self.symbolic_origin(&bound) {
                        Some(origin) => {
                            self.require_const_failed(
                                "the bound of a `static` loop",
                                span,
                                &origin,
                            );
                            return;
                        }
                        None => constant[index] = bound.as_constant().unwrap_or(0),
                    },
                    None => return,
                }
            }
            let [first, last] = constant;
            if last.saturating_sub(first) > UNROLL_LIMIT {
                self.error(
                    "E0222",
                    end.span,
                    format!("a `static` loop unrolls at most {UNROLL_LIMIT} iterations; this one has {}", last.saturating_sub(first)),
                    "too many iterations",
                );
                return;
            }
            self.frame.loops += 1;
            for index in first..last {
                self.scopes.push(HashMap::new());
                self.bind(variable, Value::int(index), false, BindingKind::Local);
                self.eval_block(body);
                self.scopes.pop();
                if self.budgets.work > WORK_LIMIT {
                    break;
                }
            }
            self.frame.loops -= 1;
            return;
        }
        let mut ty = IntType::Int;
        for (value, span) in bounds {
            if let Some(Value::Int { ty: bound_ty, .. }) =
                self.expect_int(value, span, "a loop bound").map(|_| value)
            {
                ty = self.unify_int_types(ty, *bound_ty, span).unwrap_or(ty);
            }
        }
        let origin = Origin {
            reason: format!("`{}` is the counter of a run-time loop", variable.text),
            span: Some(variable.span),
            term: None,
        };
        let counter = Value::Int {
            ty,
            value: self.fresh_variable(&variable.text, origin),
        };
        self.dyn_region(body, |checker| {
            checker.frame.loops += 1;
            checker.scopes.push(HashMap::new());
            checker.bind(variable, counter, false, BindingKind::Local);
            checker.eval_block(body);
            checker.scopes.pop();
            checker.frame.loops -= 1;
        });
    }

    pub(crate) fn eval_if(
        &mut self,
        branches: &'a [lang::ast::IfBranch],
        otherwise: Option<&'a Block>,
    ) {
        // Whether a run-time condition came before: what follows it runs under it.
        let mut run_time = false;
        for branch in branches {
            let condition = self.eval(&branch.condition);
            if branch.is_const {
                match condition {
                    Value::Bool(Known::Const(true)) => {
                        self.eval_branch(&branch.body, run_time);
                        return;
                    }
                    Value::Bool(Known::Const(false)) => continue,
                    Value::Bool(Known::Dyn(origin)) => {
                        self.require_const_failed(
                            "the condition of `if const`",
                            branch.condition.span,
                            &origin,
                        );
                        return;
                    }
                    Value::Unknown => return,
                    other => {
                        self.error(
                            "E0216",
                            branch.condition.span,
                            format!("a condition is a bool, not a {}", other.type_name()),
                            "not a bool",
                        );
                        return;
                    }
                }
            }
            self.expect_bool(&condition, branch.condition.span, "an `if` condition");
            run_time = true;
            self.eval_branch(&branch.body, true);
        }
        if let Some(otherwise) = otherwise {
            self.eval_branch(otherwise, run_time);
        }
    }

    /// A branch's body: a run-time region when a run-time condition decides whether it
    /// runs, else plain code (the `else` of an `if const` chain keeps values const).
    fn eval_branch(&mut self, body: &'a Block, run_time: bool) {
        if run_time {
            self.dyn_region(body, |checker| {
                checker.eval_block(body);
            });
        } else {
            self.eval_block(body);
        }
    }

    /// Evaluates run-time control flow: variables the region assigns are dyn inside it
    /// and after it.
    pub(crate) fn dyn_region(&mut self, body: &'a Block, run: impl FnOnce(&mut Self)) {
        if let Some(trace) = &mut self.tracing.trace
            && self.frame.dyn_control == 0
        {
            trace.effects.push(Effect::Unsupported(
                "run-time control flow (`if`, `for` or `while` on run-time values)".to_owned(),
                body.span,
            ));
        }
        let mut assigned = Vec::new();
        assigned_names(body, &mut assigned);
        self.make_dyn(&assigned, body.span);
        self.frame.dyn_control += 1;
        run(self);
        self.frame.dyn_control -= 1;
        self.make_dyn(&assigned, body.span);
    }

    pub(crate) fn make_dyn(&mut self, names: &[String], span: Span) {
        for name in names {
            let Some(local) = self.lookup_local(name).cloned() else {
                continue;
            };
            let origin = Origin {
                reason: format!("`{name}` changes in run-time control flow"),
                span: Some(span),
                term: None,
            };
            let value = self.dyn_like(&local.value, name, origin);
            if let Some(scope) = self
                .scopes
                .iter_mut()
                .rev()
                .find(|scope| scope.contains_key(name))
                && let Some(entry) = scope.get_mut(name)
            {
                entry.value = value;
            }
        }
    }

    /// A dyn value of the same type as `value`.
    pub(crate) fn dyn_like(&mut self, value: &Value, name: &str, origin: Origin) -> Value {
        match value {
            Value::Int { ty, value }
                if value.as_constant().is_some() || self.symbolic_origin(value).is_some() =>
            {
                Value::Int {
                    ty: *ty,
                    value: self.fresh_variable(name, origin),
                }
            }
            Value::Float { dtype, .. } => Value::Float {
                dtype: *dtype,
                value: Known::Dyn(origin),
            },
            Value::Bool(_) => Value::Bool(Known::Dyn(origin)),
            other => other.clone(),
        }
    }

    pub(crate) fn bind_pattern(
        &mut self,
        pattern: &Pattern,
        value: Value,
        mutable: bool,
        kind: BindingKind,
    ) {
        match &pattern.kind {
            PatternKind::Name(name) => self.bind(name, value, mutable, kind),
            PatternKind::Wildcard => {}
            PatternKind::Tuple(patterns) => match value {
                Value::Tuple(items) if items.len() == patterns.len() => {
                    for (pattern, item) in patterns.iter().zip(items) {
                        self.bind_pattern(pattern, item, mutable, kind);
                    }
                }
                Value::Unknown => {
                    for pattern in patterns {
                        self.bind_pattern(pattern, Value::Unknown, mutable, kind);
                    }
                }
                other => {
                    let found = match &other {
                        Value::Tuple(items) => format!("a tuple of {}", items.len()),
                        other => format!("a {}", other.type_name()),
                    };
                    self.error(
                        "E0216",
                        pattern.span,
                        format!(
                            "this pattern takes a tuple of {}, but the value is {found}",
                            patterns.len()
                        ),
                        "pattern does not fit",
                    );
                    for pattern in patterns {
                        self.bind_pattern(pattern, Value::Unknown, mutable, kind);
                    }
                }
            },
        }
    }
}

pub(crate) fn collect_pattern_names(pattern: &Pattern, names: &mut Vec<Name>) {
    match &pattern.kind {
        PatternKind::Name(name) => names.push(name.clone()),
        PatternKind::Wildcard => {}
        PatternKind::Tuple(patterns) => {
            for pattern in patterns {
                collect_pattern_names(pattern, names);
            }
        }
    }
}

/// Binds the names of `pattern` to the parts of `value`, without diagnostics.
pub(crate) fn destructure(pattern: &Pattern, value: Value, bound: &mut Vec<(String, Value)>) {
    match (&pattern.kind, value) {
        (PatternKind::Name(name), value) => bound.push((name.text.clone(), value)),
        (PatternKind::Wildcard, _) => {}
        (PatternKind::Tuple(patterns), Value::Tuple(items)) if items.len() == patterns.len() => {
            for (pattern, item) in patterns.iter().zip(items) {
                destructure(pattern, item, bound);
            }
        }
        (PatternKind::Tuple(patterns), _) => {
            for pattern in patterns {
                destructure(pattern, Value::Unknown, bound);
            }
        }
    }
}

/// Names assigned (`x = ...`, `x += ...`) anywhere inside `block`.
pub(crate) fn assigned_names(block: &Block, names: &mut Vec<String>) {
    for statement in &block.statements {
        match &statement.kind {
            StmtKind::Assign { target, .. } => {
                if let lang::ast::ExprKind::Path(path) = &target.kind
                    && let [name] = path.segments.as_slice()
                {
                    names.push(name.text.clone());
                }
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::Block(body) => {
                assigned_names(body, names);
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for branch in branches {
                    assigned_names(&branch.body, names);
                }
                if let Some(otherwise) = otherwise {
                    assigned_names(otherwise, names);
                }
            }
            _ => {}
        }
    }
}
