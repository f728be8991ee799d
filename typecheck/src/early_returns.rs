//! `return` inside `if`, `for` and `while`, rewritten before checking into locals and
//! guards the checker traces already: a device function whose body returns from
//! inside control flow gets two hidden locals, `$returned` (a bool) and `$result` (a
//! value of its result type), and
//!
//! - `return e;` becomes `$result = e; $returned = true;`;
//! - the statements after one that may return run under `if !$returned { ... }`;
//! - a `for` body that may return runs under the same guard (the loop finishes its
//!   trips doing nothing), and a `while` that may return tests `!$returned && c`;
//! - the body's tail `e` becomes a last `return e;`, and the function's value is
//!   `$result`.
//!
//! Where every return is decided while compiling, `$returned` is a compile-time bool
//! and the guards fold away; where one is run-time, it is a cell like any local
//! assigned under run-time control flow, so C's meaning (nothing after the `return`
//! runs) holds for every thread. A function whose result is not a scalar (a tensor, a
//! layout) is left as written: the checker reports a run-time `return` there.

use std::borrow::Cow;

use cute::Dtype;
use lang::Span;
use lang::ast::{
    Argument, AssignOp, BinaryOp, Block, Expr, ExprKind, Function, IfBranch, ItemKind, Module,
    Name, Path, Pattern, PatternKind, Stmt, StmtKind, TypeKind, UnaryOp,
};

/// The hidden local that says whether the function has returned.
const RETURNED: &str = "$returned";
/// The hidden local that holds the function's result.
const RESULT: &str = "$result";

/// `module` with every device function that returns from inside control flow
/// rewritten; borrowed when there is none.
pub(crate) fn rewrite(module: &Module) -> Cow<'_, Module> {
    let rewrites = |item: &lang::ast::Item| match &item.kind {
        ItemKind::Function(function) => result_zero(function).is_some(),
        _ => false,
    };
    if !module.items.iter().any(rewrites) {
        return Cow::Borrowed(module);
    }
    let mut module = module.clone();
    for item in &mut module.items {
        if let ItemKind::Function(function) = &mut item.kind
            && let Some(zero) = result_zero(function)
        {
            function.body = function_body(&function.body, zero);
        }
    }
    Cow::Owned(module)
}

/// For a function to rewrite (one with a `return` inside control flow), the initial
/// value of `$result`: `Some(None)` for a function without a result, `None` for one
/// to leave as written.
fn result_zero(function: &Function) -> Option<Option<Expr>> {
    if !function.body.statements.iter().any(returns_inside) {
        return None;
    }
    let span = function.body.span;
    let Some(ty) = &function.return_type else {
        return Some(None);
    };
    let TypeKind::Named(path) = &ty.kind else {
        return None;
    };
    let [name] = path.segments.as_slice() else {
        return None;
    };
    let generic_dtype = (function.generics.iter()).any(|generic| {
        generic.name.text == name.text
            && matches!(&generic.kind.kind, TypeKind::Named(kind)
                if kind.segments.len() == 1 && kind.segments[0].text == "dtype")
    });
    let zero = match name.text.as_str() {
        "bool" => expr(ExprKind::Bool(false), span),
        "int" => expr(ExprKind::Int(0), span),
        text if generic_dtype || Dtype::from_name(text).is_some() => {
            let converted = ExprKind::MethodCall {
                receiver: Box::new(expr(ExprKind::Int(0), span)),
                method: Name {
                    text: "to".to_owned(),
                    span,
                },
                args: vec![Argument {
                    name: None,
                    value: path_expr(&name.text, span),
                    span,
                }],
            };
            expr(converted, span)
        }
        _ => return None,
    };
    Some(Some(zero))
}

/// Whether `statement` holds a `return` inside control flow or a nested block.
fn returns_inside(statement: &Stmt) -> bool {
    match &statement.kind {
        StmtKind::If {
            branches,
            otherwise,
        } => {
            branches.iter().any(|branch| returns(&branch.body))
                || otherwise.as_ref().is_some_and(returns)
        }
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::Block(body) => {
            returns(body)
        }
        _ => false,
    }
}

/// Whether `block` holds a `return` anywhere.
fn returns(block: &Block) -> bool {
    (block.statements.iter())
        .any(|statement| matches!(statement.kind, StmtKind::Return(_)) || returns_inside(statement))
}

fn may_return(statement: &Stmt) -> bool {
    matches!(statement.kind, StmtKind::Return(_)) || returns_inside(statement)
}

/// The rewritten body: the hidden locals, the statements with the tail as a last
/// `return`, and `$result` (when there is one) as the value.
fn function_body(body: &Block, zero: Option<Expr>) -> Block {
    let span = body.span;
    let mut statements = vec![local(RETURNED, expr(ExprKind::Bool(false), span), span)];
    let has_result = zero.is_some();
    if let Some(zero) = zero {
        statements.push(local(RESULT, zero, span));
    }
    let mut original = body.statements.clone();
    if let Some(tail) = &body.tail {
        original.push(Stmt {
            kind: StmtKind::Return(Some((**tail).clone())),
            span: tail.span,
        });
    }
    let rewritten = block(&Block {
        statements: original,
        tail: None,
        span,
    });
    statements.extend(rewritten.statements);
    Block {
        statements,
        tail: has_result.then(|| Box::new(path_expr(RESULT, span))),
        span,
    }
}

/// `block` with its returns rewritten and what follows one guarded.
fn block(block_in: &Block) -> Block {
    let mut statements = Vec::with_capacity(block_in.statements.len());
    for (at, original) in block_in.statements.iter().enumerate() {
        statements.push(statement(original));
        if may_return(original) {
            let rest = &block_in.statements[at + 1..];
            if !rest.is_empty() || block_in.tail.is_some() {
                let guarded = block(&Block {
                    statements: rest.to_vec(),
                    tail: block_in.tail.clone(),
                    span: block_in.span,
                });
                statements.push(unless_returned(guarded));
            }
            return Block {
                statements,
                tail: None,
                span: block_in.span,
            };
        }
    }
    Block {
        statements,
        tail: block_in.tail.clone(),
        span: block_in.span,
    }
}

fn statement(original: &Stmt) -> Stmt {
    let span = original.span;
    let kind = match &original.kind {
        StmtKind::Return(value) => {
            let mut assignments: Vec<Stmt> = (value.iter())
                .map(|value| assign(RESULT, value.clone(), span))
                .collect();
            assignments.push(assign(RETURNED, expr(ExprKind::Bool(true), span), span));
            StmtKind::Block(Block {
                statements: assignments,
                tail: None,
                span,
            })
        }
        StmtKind::If {
            branches,
            otherwise,
        } if returns_inside(original) => StmtKind::If {
            branches: (branches.iter())
                .map(|branch| IfBranch {
                    body: block(&branch.body),
                    ..branch.clone()
                })
                .collect(),
            otherwise: otherwise.as_ref().map(block),
        },
        StmtKind::For {
            variable,
            unrolled,
            start,
            end,
            body,
        } if returns(body) => StmtKind::For {
            variable: variable.clone(),
            unrolled: *unrolled,
            start: start.clone(),
            end: end.clone(),
            body: Block {
                statements: vec![unless_returned(block(body))],
                tail: None,
                span: body.span,
            },
        },
        StmtKind::While { condition, body } if returns(body) => StmtKind::While {
            condition: binary(
                BinaryOp::And,
                not_returned(condition.span),
                condition.clone(),
            ),
            body: block(body),
        },
        StmtKind::Block(body) if returns(body) => StmtKind::Block(block(body)),
        _ => return original.clone(),
    };
    Stmt { kind, span }
}

/// `if !$returned { body }`.
fn unless_returned(body: Block) -> Stmt {
    let span = body.span;
    Stmt {
        kind: StmtKind::If {
            branches: vec![IfBranch {
                is_const: false,
                condition: not_returned(span),
                body,
                span,
            }],
            otherwise: None,
        },
        span,
    }
}

fn not_returned(span: Span) -> Expr {
    let operand = Box::new(path_expr(RETURNED, span));
    expr(
        ExprKind::Unary {
            op: UnaryOp::Not,
            operand,
        },
        span,
    )
}

fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    let span = rhs.span;
    let kind = ExprKind::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    };
    expr(kind, span)
}

/// `let mut name = value;`
fn local(name: &str, value: Expr, span: Span) -> Stmt {
    let pattern = Pattern {
        kind: PatternKind::Name(Name {
            text: name.to_owned(),
            span,
        }),
        span,
    };
    let kind = StmtKind::Let {
        mutable: true,
        pattern,
        ty: None,
        value,
    };
    Stmt { kind, span }
}

/// `name = value;`
fn assign(name: &str, value: Expr, span: Span) -> Stmt {
    let kind = StmtKind::Assign {
        op: AssignOp::Assign,
        target: path_expr(name, span),
        value,
    };
    Stmt { kind, span }
}

fn path_expr(name: &str, span: Span) -> Expr {
    let segments = vec![Name {
        text: name.to_owned(),
        span,
    }];
    expr(ExprKind::Path(Path { segments, span }), span)
}

/// An expression the rewrite adds, at the empty span where `span` starts: hovers and
/// the expression types editors ask for never land on it.
fn expr(kind: ExprKind, span: Span) -> Expr {
    let span = Span::new(span.start, span.start);
    Expr { kind, span }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use lang::ast::{ItemKind, StmtKind};

    use super::rewrite;

    fn body_of(source: &str) -> (bool, lang::ast::Block) {
        let (module, diagnostics) = grammar::parse(source);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let rewritten = rewrite(&module);
        let borrowed = matches!(rewritten, Cow::Borrowed(_));
        let ItemKind::Function(function) = &rewritten.items[0].kind else {
            panic!("not a function");
        };
        (borrowed, function.body.clone())
    }

    #[test]
    fn a_function_returning_only_at_its_end_is_left_as_written() {
        let (borrowed, _) = body_of("fn f(x: i32) -> i32 { let y = x + 1; return y; }");
        assert!(borrowed);
    }

    #[test]
    fn a_return_inside_an_if_sets_the_hidden_locals_and_guards_what_follows() {
        let (borrowed, body) =
            body_of("fn f(x: i32) -> i32 { if x < 0 { return 0; } let y = x + 1; y }");
        assert!(!borrowed);
        // `let mut $returned`, `let mut $result`, the `if`, the guard around the rest.
        assert_eq!(body.statements.len(), 4);
        let StmtKind::If { branches, .. } = &body.statements[3].kind else {
            panic!("no guard: {:?}", body.statements[3]);
        };
        // The guarded rest: `let y`, then the tail as `$result = y; $returned = true;`.
        assert_eq!(branches[0].body.statements.len(), 2);
        assert!(body.tail.is_some());
    }

    #[test]
    fn a_function_with_a_tensor_result_is_left_for_the_checker_to_refuse() {
        let (borrowed, _) =
            body_of("fn f(x: i32, t: gmem f32[_]) -> gmem f32[_] { if x < 0 { return t; } t }");
        assert!(borrowed);
    }
}
