//! Helpers called from the grammar's actions: node construction that needs
//! more than a struct literal, and the checks the parser makes on the way
//! (layout congruence, the launch clause, a missing `:` in a layout).

use std::convert::Infallible;

use lalrpop_util::{ErrorRecovery, ParseError};
use lang::ast::{
    Argument, BinaryOp, Block, Expr, ExprKind, GenericParam, IfBranch, Kernel, LaunchKind,
    LaunchPart, Name, Param, ReportPart, StmtKind, TuneBlock, TuneParam, UnaryOp,
};
use lang::{Diagnostic, Span};

use crate::congruence::check_congruence;
use crate::token::Token;

/// A syntax error the parser recovered from, as lalrpop reports it.
pub type Recovery<'input> = ErrorRecovery<usize, Token<'input>, Infallible>;

/// State shared by all actions of one parse.
#[derive(Default)]
pub struct Context<'input> {
    /// Syntax errors the parser recovered from, in the order it met them.
    pub recovered: Vec<ParseError<usize, Token<'input>, Infallible>>,
    /// Diagnostics from the checks made while building nodes.
    pub diagnostics: Vec<Diagnostic>,
}

impl<'input> Context<'input> {
    /// Records a syntax error the parser recovered from. The tokens it
    /// skipped are let go: kept, a long unreadable stretch would be held twice.
    pub fn recover(&mut self, recovery: Recovery<'input>) {
        self.recovered.push(recovery.error);
    }
}

/// The span of the byte offsets `start..end` reported by the parser.
pub fn span(start: usize, end: usize) -> Span {
    Span::from_range(start..end)
}

/// A binary operation node.
pub fn binary(op: BinaryOp, lhs: Expr, rhs: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        span,
    }
}

/// A prefix operation node.
pub fn unary(op: UnaryOp, operand: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Unary {
            op,
            operand: Box::new(operand),
        },
        span,
    }
}

/// A tuple of at least one element (`(a,)`, `(a, b)`).
pub fn tuple(first: Expr, rest: Vec<Expr>, span: Span) -> Expr {
    let mut elements = Vec::with_capacity(rest.len() + 1);
    elements.push(first);
    elements.extend(rest);
    Expr {
        kind: ExprKind::Tuple(elements),
        span,
    }
}

/// A layout literal `shape : stride`, checked for congruence where both
/// sides are written out.
pub fn layout(context: &mut Context<'_>, shape: Expr, stride: Expr, span: Span) -> Expr {
    if let Some(diagnostic) = check_congruence(&shape, &stride) {
        context.diagnostics.push(diagnostic);
    }
    Expr {
        kind: ExprKind::Layout {
            shape: Box::new(shape),
            stride: Box::new(stride),
        },
        span,
    }
}

/// `base[indices]`; empty brackets are reported (at `close`, the `]`) and
/// kept as an index with no coordinates.
pub fn index(
    context: &mut Context<'_>,
    base: Expr,
    indices: Vec<Expr>,
    close: usize,
    span: Span,
) -> Expr {
    if indices.is_empty() {
        context.diagnostics.push(
            Diagnostic::error("E0107", "expected an expression, found `]`")
                .with_primary(Span::from_range(close..close + 1), "empty index")
                .with_help("an index gives a coordinate, such as `t[i]`, `t[i, j]` or `t[_, j]`"),
        );
    }
    Expr {
        kind: ExprKind::Index {
            base: Box::new(base),
            indices,
        },
        span,
    }
}

/// A call. `x.m(args)` becomes a method call; a tuple literal followed by
/// `(..)` is the layout `(4,3)(1,4)` with its `:` missing, diagnosed and read
/// as that layout.
pub fn call(context: &mut Context<'_>, callee: Expr, args: Vec<Argument>, span: Span) -> Expr {
    match callee.kind {
        ExprKind::Field { base, field } => Expr {
            kind: ExprKind::MethodCall {
                receiver: base,
                method: field,
                args,
            },
            span,
        },
        ExprKind::Tuple(_) => {
            let stride_start = callee.span.end;
            context.diagnostics.push(
                Diagnostic::error("E0113", "missing `:` between a layout's shape and stride")
                    .with_primary(Span::empty(stride_start), "expected `:` here")
                    .with_secondary(callee.span, "this tuple is the shape")
                    .with_help("a layout literal is written `shape:stride`, as in `(4,3):(1,4)`"),
            );
            let stride = Expr {
                kind: ExprKind::Tuple(args.into_iter().map(|argument| argument.value).collect()),
                span: Span::new(stride_start, span.end),
            };
            Expr {
                kind: ExprKind::Layout {
                    shape: Box::new(callee),
                    stride: Box::new(stride),
                },
                span,
            }
        }
        kind => {
            let callee = Expr {
                kind,
                span: callee.span,
            };
            Expr {
                kind: ExprKind::Call {
                    callee: Box::new(callee),
                    args,
                },
                span,
            }
        }
    }
}

/// A `report` statement from its parts.
pub fn report(first: ReportPart, rest: Vec<ReportPart>) -> StmtKind {
    let mut parts = Vec::with_capacity(rest.len() + 1);
    parts.push(first);
    parts.extend(rest);
    StmtKind::Report(parts)
}

/// An `if` statement from its first branch, `else if` branches and `else`.
pub fn if_chain(first: IfBranch, rest: Vec<IfBranch>, otherwise: Option<Block>) -> StmtKind {
    let mut branches = Vec::with_capacity(rest.len() + 1);
    branches.push(first);
    branches.extend(rest);
    StmtKind::If {
        branches,
        otherwise,
    }
}

/// A kernel, with its launch clause checked: `grid` and `block` present,
/// parts known, in order, each once.
pub fn kernel(
    context: &mut Context<'_>,
    name: Name,
    generics: Vec<GenericParam>,
    params: Vec<Param>,
    launch: Option<Vec<(Name, Vec<Expr>, Span)>>,
    body: Block,
) -> Kernel {
    let launch = match launch {
        Some(parts) => launch_parts(context, parts),
        None => {
            context.diagnostics.push(
                Diagnostic::error(
                    "E0114",
                    format!("kernel `{}` has no launch clause", name.text),
                )
                .with_primary(
                    Span::empty(body.span.start),
                    "expected `launch grid(..) block(..)` before the body",
                )
                .with_secondary(name.span, "this kernel")
                .with_help("for example `launch grid(n / 128) block(128)`"),
            );
            Vec::new()
        }
    };
    Kernel {
        name,
        generics,
        params,
        launch,
        body,
    }
}

fn launch_parts(context: &mut Context<'_>, parts: Vec<(Name, Vec<Expr>, Span)>) -> Vec<LaunchPart> {
    let clause = parts
        .iter()
        .map(|(_, _, span)| *span)
        .reduce(Span::cover)
        .unwrap_or_default();
    let mut checked: Vec<LaunchPart> = Vec::with_capacity(parts.len());
    // A misspelt part is most likely the missing one: report it once.
    let mut unknown_parts = false;
    for (name, args, span) in parts {
        let kind = match name.text.as_str() {
            "grid" => LaunchKind::Grid,
            "block" => LaunchKind::Block,
            "cluster" => LaunchKind::Cluster,
            "smem" => LaunchKind::Smem,
            "symmetric" => LaunchKind::Symmetric,
            other => {
                let unknown = launch_error(
                    format!("unknown launch part `{other}`"),
                    name.span,
                    "expected `grid`, `block`, `cluster`, `smem` or `symmetric`",
                );
                let meant = LaunchKind::ALL
                    .into_iter()
                    .map(LaunchKind::keyword)
                    .map(|part| (strsim::levenshtein(other, part), part))
                    .filter(|(distance, _)| *distance <= 2)
                    .min()
                    .map(|(_, part)| part);
                context.diagnostics.push(match meant {
                    Some(part) => unknown.with_help(format!("did you mean `{part}`?")),
                    None => unknown,
                });
                unknown_parts = true;
                continue;
            }
        };
        if let Some(previous) = checked.iter().find(|part| part.kind == kind) {
            context.diagnostics.push(
                launch_error(
                    format!("`{}` appears twice in the launch clause", kind.keyword()),
                    name.span,
                    "repeated",
                )
                .with_secondary(previous.span, "first given here"),
            );
            continue;
        }
        if let Some(later) = checked.iter().find(|part| part.kind > kind) {
            context.diagnostics.push(
                launch_error(
                    format!(
                        "`{}` must come before `{}`",
                        kind.keyword(),
                        later.kind.keyword()
                    ),
                    name.span,
                    "out of order",
                )
                .with_secondary(later.span, "this part comes later in the order")
                .with_note("launch parts go in the order grid, block, cluster, smem, symmetric"),
            );
        }
        let (minimum, maximum) = match kind {
            LaunchKind::Smem => (1, 1),
            LaunchKind::Symmetric => (1, usize::MAX),
            _ => (1, 3),
        };
        if args.len() < minimum || args.len() > maximum {
            let expected = if maximum == 1 {
                "one value".to_owned()
            } else {
                "one to three values".to_owned()
            };
            context.diagnostics.push(launch_error(
                format!(
                    "`{}` takes {expected}, found {}",
                    kind.keyword(),
                    args.len()
                ),
                span,
                "wrong number of values",
            ));
        }
        checked.push(LaunchPart { kind, args, span });
    }
    for required in [LaunchKind::Grid, LaunchKind::Block] {
        if !unknown_parts && !checked.iter().any(|part| part.kind == required) {
            context.diagnostics.push(launch_error(
                format!("launch clause has no `{}` part", required.keyword()),
                clause,
                "every kernel needs `grid(..)` and `block(..)`",
            ));
        }
    }
    checked
}

fn launch_error(message: String, span: Span, label: &str) -> Diagnostic {
    Diagnostic::error("E0115", message).with_primary(span, label)
}

/// One line of a `tune` block: a parameter's values or a `where` condition.
pub enum TuneEntry {
    /// `BM in [64, 128];`
    Param(TuneParam),
    /// `where BM <= BN;`
    Constraint(Expr),
}

/// A `tune` block from its header and its lines in source order.
pub fn tune_block(
    name: Name,
    kernel: Name,
    benches: Vec<Name>,
    entries: Vec<TuneEntry>,
) -> TuneBlock {
    let mut block = TuneBlock {
        name,
        kernel,
        benches,
        params: Vec::new(),
        constraints: Vec::new(),
    };
    for entry in entries {
        match entry {
            TuneEntry::Param(param) => block.params.push(param),
            TuneEntry::Constraint(condition) => block.constraints.push(condition),
        }
    }
    block
}
