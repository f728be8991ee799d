//! `return`, `break` and `continue` inside control flow, rewritten before checking into
//! locals and guards the checker traces already. Each jump sets a hidden flag, and
//! what may not run after it runs under a guard on the flag:
//!
//! - `return e;` in a device function becomes `$result = e; $returned = true;`, the
//!   body's tail `e` a last `return e;`, and the function's value is `$result`;
//! - `break;` becomes `$break<k> = true;` for its loop `k` (declared just before the
//!   loop), `continue;` becomes `$continue<k> = true;` (declared at the top of each
//!   trip);
//! - the statements after one that may jump run under `if !(flags) { ... }`;
//! - a `for` body runs under the guard of the flags that end the loop (its remaining
//!   trips do nothing: the trip count was fixed on entry), and a `while` tests them
//!   first: `while !(flags) && c`.
//!
//! Where every jump is decided while compiling, the flags are compile-time bools and
//! the guards fold away; where one is run-time, each is a cell like any local assigned
//! under run-time control flow, so C's meaning (nothing after the jump runs) holds for
//! every thread. A function whose result is not a scalar (a tensor, a layout) keeps its
//! returns as written: the checker reports a run-time `return` there. A kernel's
//! `return;` inside control flow (a block with no work leaving early) is rewritten as a
//! function's without a result; a `return` directly in a kernel's body and a `break`
//! outside a loop are left for the checker to refuse.

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

/// `module` with every body that jumps from inside control flow rewritten; borrowed
/// when there is none.
pub(crate) fn rewrite(module: &Module) -> Cow<'_, Module> {
    let rewrites = |item: &lang::ast::Item| match &item.kind {
        ItemKind::Function(function) => {
            result_zero(function).is_some() || breaks_anywhere(&function.body)
        }
        ItemKind::Kernel(kernel) => {
            kernel.body.statements.iter().any(returns_inside) || breaks_anywhere(&kernel.body)
        }
        ItemKind::Test(test) | ItemKind::Bench(test) => breaks_anywhere(&test.body),
        _ => false,
    };
    if !module.items.iter().any(rewrites) {
        return Cow::Borrowed(module);
    }
    let mut module = module.clone();
    let mut rewriter = Rewriter { loops: 0 };
    for item in &mut module.items {
        match &mut item.kind {
            ItemKind::Function(function) => match result_zero(function) {
                Some(zero) => function.body = rewriter.function_body(&function.body, zero),
                None if breaks_anywhere(&function.body) => {
                    function.body = rewriter.block(&function.body, &Context::default());
                }
                None => {}
            },
            // A kernel's `return;` inside control flow ends its thread, as in CUDA C: the
            // kernel's body is rewritten as a function's without a result.
            ItemKind::Kernel(kernel) if kernel.body.statements.iter().any(returns_inside) => {
                kernel.body = rewriter.function_body(&kernel.body, None);
            }
            ItemKind::Kernel(kernel) if breaks_anywhere(&kernel.body) => {
                kernel.body = rewriter.block(&kernel.body, &Context::default());
            }
            ItemKind::Test(test) | ItemKind::Bench(test) if breaks_anywhere(&test.body) => {
                test.body = rewriter.block(&test.body, &Context::default());
            }
            _ => {}
        }
    }
    Cow::Owned(module)
}

/// What the statements being rewritten may jump to: whether returns are rewritten
/// (a device function's body), and the innermost loop's flags.
#[derive(Clone, Default)]
struct Context {
    returns: bool,
    innermost: Option<LoopFlags>,
}

#[derive(Clone)]
struct LoopFlags {
    broken: String,
    continued: String,
}

struct Rewriter {
    /// Loops given flags so far, for unique names.
    loops: usize,
}

/// For a function whose returns to rewrite (one with a `return` inside control flow),
/// the initial value of `$result`: `Some(None)` for a function without a result, `None`
/// for one to leave as written.
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
    let zero = match name.text.as_str() {
        "bool" => expr(ExprKind::Bool(false), span),
        "int" => expr(ExprKind::Int(0), span),
        text if Dtype::from_name(text).is_some() => {
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
    children(statement).iter().any(|block| returns(block))
}

/// Whether `block` holds a `return` anywhere.
fn returns(block: &Block) -> bool {
    block.statements.iter().any(statement_returns)
}

/// Whether `statement` is a `return` or holds one.
fn statement_returns(statement: &Stmt) -> bool {
    matches!(statement.kind, StmtKind::Return(_)) || returns_inside(statement)
}

/// Whether `block` holds a `break` or `continue` inside a loop, at any depth.
fn breaks_anywhere(block: &Block) -> bool {
    (block.statements.iter()).any(|statement| match &statement.kind {
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
            breaks(body) || continues(body) || breaks_anywhere(body)
        }
        _ => children(statement)
            .iter()
            .any(|block| breaks_anywhere(block)),
    })
}

/// Whether `block` holds a `break` of the loop it is the body of (outside the loops
/// nested in it).
fn breaks(block: &Block) -> bool {
    holds_outside_loops(block, &is_break)
}

/// Whether `block` holds a `continue` of the loop it is the body of.
fn continues(block: &Block) -> bool {
    holds_outside_loops(block, &is_continue)
}

fn is_break(kind: &StmtKind) -> bool {
    matches!(kind, StmtKind::Break)
}

fn is_continue(kind: &StmtKind) -> bool {
    matches!(kind, StmtKind::Continue)
}

fn holds_outside_loops(block: &Block, wanted: &dyn Fn(&StmtKind) -> bool) -> bool {
    (block.statements.iter()).any(|statement| statement_holds_outside_loops(statement, wanted))
}

/// Whether `statement` is, or holds outside the loops nested in it, a statement of the
/// kind `wanted` accepts.
fn statement_holds_outside_loops(statement: &Stmt, wanted: &dyn Fn(&StmtKind) -> bool) -> bool {
    match &statement.kind {
        StmtKind::For { .. } | StmtKind::While { .. } => false,
        kind if wanted(kind) => true,
        _ => (children(statement).iter()).any(|block| holds_outside_loops(block, wanted)),
    }
}

/// The blocks a statement holds.
fn children(statement: &Stmt) -> Vec<&Block> {
    match &statement.kind {
        StmtKind::If {
            branches,
            otherwise,
        } => (branches.iter().map(|branch| &branch.body))
            .chain(otherwise.iter())
            .collect(),
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::Block(body) => {
            vec![body]
        }
        _ => Vec::new(),
    }
}

/// The flags `statement` may set, in `context`: what the statements after it wait on.
fn flags_set(statement: &Stmt, context: &Context) -> Vec<String> {
    let mut flags = Vec::new();
    if context.returns && statement_returns(statement) {
        flags.push(RETURNED.to_owned());
    }
    if let Some(innermost) = &context.innermost {
        if statement_holds_outside_loops(statement, &is_break) {
            flags.push(innermost.broken.clone());
        }
        if statement_holds_outside_loops(statement, &is_continue) {
            flags.push(innermost.continued.clone());
        }
    }
    flags
}

impl Rewriter {
    /// The rewritten body of a function whose returns are rewritten: the hidden
    /// locals, the statements with the tail as a last `return`, and `$result` (when
    /// there is one) as the value.
    fn function_body(&mut self, body: &Block, zero: Option<Expr>) -> Block {
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
        let context = Context {
            returns: true,
            innermost: None,
        };
        let rewritten = self.block(
            &Block {
                statements: original,
                tail: None,
                span,
            },
            &context,
        );
        statements.extend(rewritten.statements);
        Block {
            statements,
            tail: has_result.then(|| Box::new(path_expr(RESULT, span))),
            span,
        }
    }

    /// `block` with its jumps rewritten and what follows one guarded.
    fn block(&mut self, block_in: &Block, context: &Context) -> Block {
        let mut statements = Vec::with_capacity(block_in.statements.len());
        for (at, original) in block_in.statements.iter().enumerate() {
            statements.push(self.statement(original, context));
            let flags = flags_set(original, context);
            if flags.is_empty() {
                continue;
            }
            let rest = &block_in.statements[at + 1..];
            if !rest.is_empty() || block_in.tail.is_some() {
                let rest = Block {
                    statements: rest.to_vec(),
                    tail: block_in.tail.clone(),
                    span: block_in.span,
                };
                let guarded = self.block(&rest, context);
                statements.push(unless(&flags, guarded));
            }
            return Block {
                statements,
                tail: None,
                span: block_in.span,
            };
        }
        Block {
            statements,
            tail: block_in.tail.clone(),
            span: block_in.span,
        }
    }

    fn statement(&mut self, original: &Stmt, context: &Context) -> Stmt {
        let span = original.span;
        let kind = match &original.kind {
            StmtKind::Return(value) if context.returns => {
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
            StmtKind::Break | StmtKind::Continue if let Some(flags) = &context.innermost => {
                let flag = match original.kind {
                    StmtKind::Break => &flags.broken,
                    _ => &flags.continued,
                };
                return assign(flag, expr(ExprKind::Bool(true), span), span);
            }
            StmtKind::If {
                branches,
                otherwise,
            } => StmtKind::If {
                branches: (branches.iter())
                    .map(|branch| IfBranch {
                        body: self.block(&branch.body, context),
                        ..branch.clone()
                    })
                    .collect(),
                otherwise: otherwise.as_ref().map(|block| self.block(block, context)),
            },
            StmtKind::Block(body) => StmtKind::Block(self.block(body, context)),
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                return self.a_loop(original, body, context);
            }
            _ => return original.clone(),
        };
        Stmt { kind, span }
    }

    /// A `for` or `while` loop: its body rewritten with its own flags, guarded by the
    /// flags that end it, after the declaration of its `break` flag.
    fn a_loop(&mut self, original: &Stmt, body: &Block, context: &Context) -> Stmt {
        let span = original.span;
        let (breaks, continues) = (breaks(body), continues(body));
        let returns = context.returns && returns(body);
        self.loops += 1;
        let flags = LoopFlags {
            broken: format!("$break{}", self.loops),
            continued: format!("$continue{}", self.loops),
        };
        let inner = Context {
            returns: context.returns,
            innermost: Some(flags.clone()),
        };
        let mut rewritten = self.block(body, &inner);
        if continues {
            let reset = local(&flags.continued, expr(ExprKind::Bool(false), span), span);
            rewritten.statements.insert(0, reset);
        }
        let mut ending = Vec::new();
        if returns {
            ending.push(RETURNED.to_owned());
        }
        if breaks {
            ending.push(flags.broken.clone());
        }
        let kind = match &original.kind {
            StmtKind::For {
                variable,
                unrolled,
                start,
                end,
                ..
            } => StmtKind::For {
                variable: variable.clone(),
                unrolled: *unrolled,
                start: start.clone(),
                end: end.clone(),
                body: if ending.is_empty() {
                    rewritten
                } else {
                    let body_span = rewritten.span;
                    Block {
                        statements: vec![unless(&ending, rewritten)],
                        tail: None,
                        span: body_span,
                    }
                },
            },
            StmtKind::While { condition, .. } => StmtKind::While {
                condition: if ending.is_empty() {
                    condition.clone()
                } else {
                    binary(BinaryOp::And, none_of(&ending, span), condition.clone())
                },
                body: rewritten,
            },
            _ => unreachable!("a_loop is given loops"),
        };
        let the_loop = Stmt { kind, span };
        if !breaks {
            return the_loop;
        }
        let declared = local(&flags.broken, expr(ExprKind::Bool(false), span), span);
        Stmt {
            kind: StmtKind::Block(Block {
                statements: vec![declared, the_loop],
                tail: None,
                span,
            }),
            span,
        }
    }
}

/// `if !(flags) { body }`.
fn unless(flags: &[String], body: Block) -> Stmt {
    let span = body.span;
    Stmt {
        kind: StmtKind::If {
            branches: vec![IfBranch {
                is_const: false,
                condition: none_of(flags, span),
                body,
                span,
            }],
            otherwise: None,
        },
        span,
    }
}

/// `!f1 && !f2 && ...`
fn none_of(flags: &[String], span: Span) -> Expr {
    let not = |flag: &String| {
        let operand = Box::new(path_expr(flag, span));
        expr(
            ExprKind::Unary {
                op: UnaryOp::Not,
                operand,
            },
            span,
        )
    };
    let mut flags = flags.iter();
    let first = not(flags.next().expect("a guard has a flag"));
    flags.fold(first, |all, flag| binary(BinaryOp::And, all, not(flag)))
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
    fn a_break_sets_its_loop_flag_which_a_while_tests_first() {
        let (module, _) = grammar::parse(
            "kernel k(n: i32) launch grid(1) block(1) {\n\
             \x20   let mut i = 0;\n\
             \x20   while i < n { if i == 3 { break; } i += 1; }\n\
             }",
        );
        let rewritten = rewrite(&module);
        let ItemKind::Kernel(kernel) = &rewritten.items[0].kind else {
            panic!("not a kernel");
        };
        // `let mut i`, then `{ let mut $break1 = false; while !$break1 && i < n { .. } }`.
        let StmtKind::Block(block) = &kernel.body.statements[1].kind else {
            panic!("no block around the loop: {:?}", kernel.body.statements[1]);
        };
        let StmtKind::While { condition, body } = &block.statements[1].kind else {
            panic!("no while");
        };
        assert!(matches!(
            condition.kind,
            lang::ast::ExprKind::Binary {
                op: lang::ast::BinaryOp::And,
                ..
            }
        ));
        // The `if` that breaks, then `i += 1` guarded by the flag.
        assert_eq!(body.statements.len(), 2);
        assert!(matches!(body.statements[1].kind, StmtKind::If { .. }));
    }

    #[test]
    fn a_function_with_a_tensor_result_is_left_for_the_checker_to_refuse() {
        let (borrowed, _) =
            body_of("fn f(x: i32, t: gmem f32[_]) -> gmem f32[_] { if x < 0 { return t; } t }");
        assert!(borrowed);
    }
}
