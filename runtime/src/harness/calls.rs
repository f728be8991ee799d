//! Which blocks call a kernel: a walk over a block's statements and expressions for a
//! call whose callee is one of the module's kernels. Only those blocks need a device
//! (the GPU or the emulator); the others run anyway.

use lang::ast::{Block, Expr, ExprKind, ItemKind, Module, ReportPart, Stmt, StmtKind};

/// Whether `block` calls one of the module's kernels.
pub(super) fn calls_kernel(module: &Module, block: &Block) -> bool {
    let is_kernel = |name: &str| {
        module
            .items
            .iter()
            .any(|item| matches!(&item.kind, ItemKind::Kernel(kernel) if kernel.name.text == name))
    };
    let mut found = false;
    visit_block(block, &mut |expr| {
        if let ExprKind::Call { callee, .. } = &expr.kind
            && let ExprKind::Path(path) = &callee.kind
            && let [name] = path.segments.as_slice()
            && is_kernel(&name.text)
        {
            found = true;
        }
    });
    found
}

fn visit_block(block: &Block, visit: &mut dyn FnMut(&Expr)) {
    for statement in &block.statements {
        visit_statement(statement, visit);
    }
    if let Some(tail) = &block.tail {
        visit_expr(tail, visit);
    }
}

fn visit_statement(statement: &Stmt, visit: &mut dyn FnMut(&Expr)) {
    match &statement.kind {
        StmtKind::Let { value, .. } | StmtKind::Expr(value) | StmtKind::Return(Some(value)) => {
            visit_expr(value, visit)
        }
        StmtKind::Assign { target, value, .. } => {
            visit_expr(target, visit);
            visit_expr(value, visit);
        }
        StmtKind::Report(parts) => {
            for part in parts {
                match part {
                    ReportPart::Metric { value, .. } | ReportPart::Against(value) => {
                        visit_expr(value, visit)
                    }
                }
            }
        }
        StmtKind::For {
            start, end, body, ..
        } => {
            visit_expr(start, visit);
            visit_expr(end, visit);
            visit_block(body, visit);
        }
        StmtKind::Block(body) => visit_block(body, visit),
        StmtKind::While { condition, body } => {
            visit_expr(condition, visit);
            visit_block(body, visit);
        }
        StmtKind::If {
            branches,
            otherwise,
        } => {
            for branch in branches {
                visit_expr(&branch.condition, visit);
                visit_block(&branch.body, visit);
            }
            if let Some(otherwise) = otherwise {
                visit_block(otherwise, visit);
            }
        }
        StmtKind::Return(None)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Empty
        | StmtKind::Error => {}
    }
}

fn visit_expr(expr: &Expr, visit: &mut dyn FnMut(&Expr)) {
    visit(expr);
    match &expr.kind {
        ExprKind::Tuple(items) => items.iter().for_each(|item| visit_expr(item, visit)),
        ExprKind::Layout { shape, stride } => {
            visit_expr(shape, visit);
            visit_expr(stride, visit);
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            visit_expr(lhs, visit);
            visit_expr(rhs, visit);
        }
        ExprKind::Unary { operand, .. } => visit_expr(operand, visit),
        ExprKind::Call { callee, args } => {
            visit_expr(callee, visit);
            args.iter().for_each(|arg| visit_expr(&arg.value, visit));
        }
        ExprKind::MethodCall { receiver, args, .. } => {
            visit_expr(receiver, visit);
            args.iter().for_each(|arg| visit_expr(&arg.value, visit));
        }
        ExprKind::Field { base, .. } => visit_expr(base, visit),
        ExprKind::Index { base, indices } => {
            visit_expr(base, visit);
            indices.iter().for_each(|index| visit_expr(index, visit));
        }
        ExprKind::Alloc { layout, .. } => visit_expr(layout, visit),
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::String(_)
        | ExprKind::Path(_)
        | ExprKind::Wildcard => {}
    }
}
