//! Statements of host code: `let` (with tuple patterns), assignment and compound
//! assignment, expression statements, `for` over a range, `while`, `if`, blocks (each
//! a scope), `return`, `break`, `continue` and `report`. Every statement and loop
//! iteration counts a step against the block's limit.

use std::collections::HashMap;

use lang::Span;
use lang::ast::{AssignOp, Block, ExprKind, PatternKind, Stmt, StmtKind};

use super::{Eval, Flow, Interpreter, Stop, Value};

impl Interpreter<'_> {
    pub(super) fn block(&mut self, block: &Block) -> Eval<Flow> {
        self.scopes.push(HashMap::new());
        let flow = self.statements(block);
        self.scopes.pop();
        flow
    }

    fn statements(&mut self, block: &Block) -> Eval<Flow> {
        for statement in &block.statements {
            match self.statement(statement)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        if let Some(tail) = &block.tail {
            self.expr(tail)?;
        }
        Ok(Flow::Normal)
    }

    fn statement(&mut self, statement: &Stmt) -> Eval<Flow> {
        self.step(statement.span)?;
        match &statement.kind {
            StmtKind::Let { pattern, value, .. } => {
                let value = self.expr(value)?;
                self.bind(&pattern.kind, value, pattern.span)?;
            }
            StmtKind::Assign { op, target, value } => self.assign(*op, target, value)?,
            StmtKind::Expr(expr) => {
                self.expr(expr)?;
            }
            StmtKind::Return(value) => {
                if let Some(value) = value {
                    self.expr(value)?;
                }
                return Ok(Flow::Return);
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Empty => {}
            StmtKind::Report(parts) => self.report(parts, statement.span)?,
            StmtKind::For {
                variable,
                start,
                end,
                body,
                ..
            } => {
                let start = self.int(start)?;
                let end = self.int(end)?;
                for index in start..end {
                    self.step(body.span)?;
                    self.scopes
                        .push(HashMap::from([(variable.text.clone(), Value::Int(index))]));
                    let flow = self.block(body);
                    self.scopes.pop();
                    match flow? {
                        Flow::Normal | Flow::Continue => {}
                        Flow::Break => break,
                        Flow::Return => return Ok(Flow::Return),
                    }
                }
            }
            StmtKind::While { condition, body } => loop {
                self.step(body.span)?;
                if !self.condition(condition)? {
                    break;
                }
                match self.block(body)? {
                    Flow::Normal | Flow::Continue => {}
                    Flow::Break => break,
                    Flow::Return => return Ok(Flow::Return),
                }
            },
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for branch in branches {
                    if self.condition(&branch.condition)? {
                        return self.block(&branch.body);
                    }
                }
                if let Some(otherwise) = otherwise {
                    return self.block(otherwise);
                }
            }
            StmtKind::Block(block) => return self.block(block),
            StmtKind::Error => {
                return Err(Stop::error(statement.span, "this statement did not parse"));
            }
        }
        Ok(Flow::Normal)
    }

    fn bind(&mut self, pattern: &PatternKind, value: Value, span: Span) -> Eval<()> {
        match (pattern, value) {
            (PatternKind::Name(name), value) => {
                if let Some(scope) = self.scopes.last_mut() {
                    scope.insert(name.text.clone(), value);
                }
                Ok(())
            }
            (PatternKind::Wildcard, _) => Ok(()),
            (PatternKind::Tuple(patterns), Value::Tuple(values))
                if patterns.len() == values.len() =>
            {
                for (pattern, value) in patterns.iter().zip(values) {
                    self.bind(&pattern.kind, value, pattern.span)?;
                }
                Ok(())
            }
            (PatternKind::Tuple(patterns), value) => Err(Stop::error(
                span,
                format!(
                    "a pattern of {} names cannot take a {}",
                    patterns.len(),
                    value.kind()
                ),
            )),
        }
    }

    fn assign(
        &mut self,
        op: AssignOp,
        target: &lang::ast::Expr,
        value: &lang::ast::Expr,
    ) -> Eval<()> {
        let ExprKind::Path(path) = &target.kind else {
            return Err(Stop::error(
                target.span,
                "host code assigns to variables only",
            ));
        };
        let [name] = path.segments.as_slice() else {
            return Err(Stop::error(
                target.span,
                "host code assigns to variables only",
            ));
        };
        let mut new = self.expr(value)?;
        if let Some(binary) = op.binary() {
            let Some(old) = self.variable(&name.text).cloned() else {
                return Err(Stop::error(
                    target.span,
                    format!("`{}` is not a variable", name.text),
                ));
            };
            new = self.binary(binary, old, new, target.span.cover(value.span))?;
        }
        match self
            .scopes
            .iter_mut()
            .rev()
            .find_map(|scope| scope.get_mut(&name.text))
        {
            Some(slot) => {
                *slot = new;
                Ok(())
            }
            None => Err(Stop::error(
                target.span,
                format!("`{}` is not a variable", name.text),
            )),
        }
    }
}
