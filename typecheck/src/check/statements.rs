//! Statements: blocks, `let` and patterns, `static` loops unrolled, `if const`
//! decided; run-time loops and branches are `control.rs`.

use rustc_hash::FxHashMap;

use cute::Dtype;
use lang::Span;
use lang::ast::{Block, Name, Pattern, PatternKind, Stmt, StmtKind};

use crate::BindingKind;
use crate::check::{Checker, Context, UNROLL_LIMIT, WORK_LIMIT};
use crate::trace::Effect;
use layout::SymInt;

use crate::value::{IntType, Known, Value};

impl<'a> Checker<'a> {
    pub(crate) fn eval_block(&mut self, block: &'a Block) -> Value {
        self.scopes.push(FxHashMap::default());
        let result = self.in_block(block.span, |checker| {
            for statement in &block.statements {
                checker.eval_statement(statement);
            }
            match &block.tail {
                Some(tail) => checker.eval(tail),
                None => Value::Unit,
            }
        });
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
                } else if let Value::Int {
                    ty: IntType::Sized(dtype),
                    ..
                } = evaluated
                {
                    // A local holds a value of its type, an 8- or 16-bit one too.
                    evaluated = self.coerce_literal(dtype, evaluated, value.span);
                } else if *mutable
                    && let Value::Int {
                        ty: IntType::Int,
                        value: integer,
                    } = &evaluated
                    && let Some(constant) = integer.as_constant()
                {
                    // A variable from an untyped integer has C's type for its literal:
                    // `let mut c = 0` is an `int`, a literal past 32 bits a `long long`.
                    let dtype = if i32::try_from(constant).is_ok() {
                        Dtype::I32
                    } else {
                        Dtype::I64
                    };
                    evaluated = Value::Int {
                        ty: IntType::Sized(dtype),
                        value: integer.clone(),
                    };
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
                self.binding_after(statement.span.end, |checker| {
                    checker.bind_pattern(pattern, evaluated, *mutable, BindingKind::Local);
                });
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
                if self.frame.dyn_control > 0 {
                    self.emit(Effect::Unsupported(
                        "`return` inside run-time control flow".to_owned(),
                        statement.span,
                    ));
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
                } else {
                    self.emit(Effect::Unsupported(
                        "`break` and `continue`".to_owned(),
                        statement.span,
                    ));
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
            } => self.eval_for(variable, *unrolled, (start, end), body, statement.span),
            StmtKind::Block(block) => {
                self.eval_block(block);
            }
            StmtKind::While { condition, body } => {
                self.run_time_while(condition, body, statement.span)
            }
            StmtKind::If {
                branches,
                otherwise,
            } => self.eval_if_chain(branches, otherwise.as_ref(), statement.span),
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
        (start, end): (&'a lang::ast::Expr, &'a lang::ast::Expr),
        body: &'a Block,
        span: Span,
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
                self.scopes.push(FxHashMap::default());
                self.in_block(body.span, |checker| {
                    checker.bind(variable, Value::int(index), false, BindingKind::Local);
                });
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
        let mut symbolic = Vec::new();
        for (value, span) in bounds {
            if let Some(Value::Int {
                ty: bound_ty,
                value: bound,
            }) = self.expect_int(value, span, "a loop bound").map(|_| value)
            {
                ty = self.unify_int_types(ty, *bound_ty, span).unwrap_or(ty);
                symbolic.push(bound.clone());
            }
        }
        let [first, last] = symbolic.try_into().unwrap_or_else(|_| {
            let unknown = SymInt::constant(0);
            [unknown.clone(), unknown]
        });
        self.run_time_for(variable, (first, last), ty, body, span);
    }

    /// An `if` chain from `branches`: `if const` branches decided now, the first
    /// run-time condition traced as a branch whose `else` is the rest of the chain.
    pub(crate) fn eval_if_chain(
        &mut self,
        branches: &'a [lang::ast::IfBranch],
        otherwise: Option<&'a Block>,
        span: Span,
    ) {
        for (index, branch) in branches.iter().enumerate() {
            let condition = self.eval(&branch.condition);
            if !branch.is_const {
                let rest = (&branches[index + 1..], otherwise);
                self.run_time_if(&condition, branch, rest, span);
                return;
            }
            match condition {
                Value::Bool(Known::Const(true)) => {
                    self.eval_block(&branch.body);
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
                    self.wrong_type(
                        branch.condition.span,
                        &other,
                        "a condition is a bool",
                        "not a bool",
                    );
                    return;
                }
            }
        }
        if let Some(otherwise) = otherwise {
            self.eval_block(otherwise);
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
