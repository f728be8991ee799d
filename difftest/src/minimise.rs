//! Shrinks a program that disagrees with the reference to a small one that still
//! disagrees the same way: outputs, statements, inputs and subexpressions are removed
//! or replaced by their operands while the reference stays defined and the verdict's
//! class stays the same.

use crate::harness::{Runner, Verdict};
use crate::program::{Expr, ExprKind, Program, Stmt};
use crate::reference;

/// Compiles at most this many candidates.
const BUDGET: usize = 400;

/// The smallest program found that fails as `program` does, and its verdict.
pub fn minimise(
    runner: &mut Runner<'_>,
    program: &Program,
    verdict: &Verdict,
) -> (Program, Verdict) {
    let class = verdict.class();
    let mut best = (program.clone(), verdict.clone());
    let mut budget = BUDGET;
    loop {
        let mut improved = false;
        for candidate in candidates(&best.0) {
            if budget == 0 {
                return best;
            }
            let defined = reference::evaluate(&candidate)
                .is_ok_and(|rows| (rows.iter()).all(|row| row.stored.iter().all(Option::is_some)));
            if !defined {
                continue;
            }
            budget -= 1;
            let verdict = runner.run(std::slice::from_ref(&candidate)).remove(0);
            if verdict.class() == class {
                best = (candidate, verdict);
                improved = true;
                break;
            }
        }
        if !improved {
            return best;
        }
    }
}

/// Every program one step smaller than `program`, the biggest steps first.
fn candidates(program: &Program) -> Vec<Program> {
    let mut found = Vec::new();
    // An output fewer.
    for output in 0..program.outputs.len() {
        if program.outputs.len() > 1 {
            let mut smaller = program.clone();
            smaller.outputs.remove(output);
            smaller.body = without_store(&smaller.body, output);
            found.push(smaller);
        }
    }
    // A statement fewer, or a block's statements in its place.
    for at in (0..count_stmts(&program.body)).rev() {
        let mut smaller = program.clone();
        edit_stmt(&mut smaller.body, &mut { at }, &mut |_| Vec::new());
        found.push(smaller);
        let mut flattened = program.clone();
        edit_stmt(&mut flattened.body, &mut { at }, &mut |stmt| match stmt {
            Stmt::If { then, .. } => then.clone(),
            Stmt::For { body, .. } | Stmt::While { body, .. } => body.clone(),
            other => vec![other.clone()],
        });
        found.push(flattened);
    }
    // An input fewer (loads name inputs by position, so not where there are loads).
    let mut loads = false;
    for_each_expr(&mut program.clone().body, &mut |expr| {
        loads |= matches!(expr.kind, ExprKind::Load(..));
    });
    for input in 0..if loads { 0 } else { program.inputs.len() } {
        let mut smaller = program.clone();
        smaller.inputs.remove(input);
        found.push(smaller);
    }
    // An expression replaced by an operand of its dtype.
    let mut exprs = 0;
    for_each_expr(&mut program.clone().body, &mut |_| exprs += 1);
    for at in 0..exprs {
        let mut operand_count = 0;
        let mut probe = program.clone();
        let mut position = 0;
        for_each_expr(&mut probe.body, &mut |expr| {
            if position == at {
                operand_count = operands(expr).len();
            }
            position += 1;
        });
        for operand in 0..operand_count {
            let mut smaller = program.clone();
            let mut position = 0;
            let mut replaced = false;
            for_each_expr(&mut smaller.body, &mut |expr| {
                if position == at
                    && let Some(child) = operands(expr).get(operand).cloned()
                    && child.dtype == expr.dtype
                    && !matches!(child.kind, ExprKind::Literal(_))
                {
                    *expr = child;
                    replaced = true;
                }
                position += 1;
            });
            if replaced {
                found.push(smaller);
            }
        }
    }
    let size = program.to_source().len();
    found.retain(|candidate| candidate.to_source().len() < size);
    found
}

fn operands(expr: &Expr) -> Vec<Expr> {
    match &expr.kind {
        ExprKind::Unary(_, operand) | ExprKind::To(operand) => vec![(**operand).clone()],
        ExprKind::Binary(_, left, right) => vec![(**left).clone(), (**right).clone()],
        ExprKind::Call(_, args) => args.clone(),
        _ => Vec::new(),
    }
}

fn without_store(stmts: &[Stmt], output: usize) -> Vec<Stmt> {
    stmts
        .iter()
        .filter_map(|stmt| match stmt {
            Stmt::Store { output: at, .. } if *at == output => None,
            Stmt::Store { output: at, value } if *at > output => Some(Stmt::Store {
                output: at - 1,
                value: value.clone(),
            }),
            other => Some(other.clone()),
        })
        .collect()
}

fn count_stmts(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|stmt| {
            1 + match stmt {
                Stmt::If {
                    then, otherwise, ..
                } => count_stmts(then) + count_stmts(otherwise),
                Stmt::For { body, .. } | Stmt::While { body, .. } => count_stmts(body),
                _ => 0,
            }
        })
        .sum()
}

/// Replaces the statement `at` (pre-order) by what `edit` makes of it.
fn edit_stmt(
    stmts: &mut Vec<Stmt>,
    at: &mut usize,
    edit: &mut dyn FnMut(&Stmt) -> Vec<Stmt>,
) -> bool {
    let mut index = 0;
    while index < stmts.len() {
        if *at == 0 {
            let replacement = edit(&stmts[index]);
            stmts.splice(index..=index, replacement);
            return true;
        }
        *at -= 1;
        let done = match &mut stmts[index] {
            Stmt::If {
                then, otherwise, ..
            } => edit_stmt(then, at, edit) || edit_stmt(otherwise, at, edit),
            Stmt::For { body, .. } | Stmt::While { body, .. } => edit_stmt(body, at, edit),
            _ => false,
        };
        if done {
            return true;
        }
        index += 1;
    }
    false
}

/// Calls `visit` on every expression of `stmts`, outer ones first.
fn for_each_expr(stmts: &mut [Stmt], visit: &mut dyn FnMut(&mut Expr)) {
    for stmt in stmts {
        match stmt {
            Stmt::Let { value, .. } | Stmt::Assign { value, .. } | Stmt::Store { value, .. } => {
                walk(value, visit);
            }
            Stmt::Shuffle { lane, .. } => walk(lane, visit),
            Stmt::Atomic { slot, value, .. } => {
                walk(slot, visit);
                walk(value, visit);
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                walk(cond, visit);
                for_each_expr(then, visit);
                for_each_expr(otherwise, visit);
            }
            Stmt::For { trips, body, .. } => {
                walk(trips, visit);
                for_each_expr(body, visit);
            }
            Stmt::While { cond, body } => {
                walk(cond, visit);
                for_each_expr(body, visit);
            }
        }
    }
}

fn walk(expr: &mut Expr, visit: &mut dyn FnMut(&mut Expr)) {
    visit(expr);
    match &mut expr.kind {
        ExprKind::Unary(_, operand) | ExprKind::To(operand) | ExprKind::Load(_, operand) => {
            walk(operand, visit);
        }
        ExprKind::Binary(_, left, right) => {
            walk(left, visit);
            walk(right, visit);
        }
        ExprKind::Call(_, args) => {
            for arg in args {
                walk(arg, visit);
            }
        }
        ExprKind::Var(_) | ExprKind::Literal(_) => {}
    }
}
