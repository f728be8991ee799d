//! A `tune` block read against its file: the diagnostics of what is wrong with it,
//! else its [`Space`] and the [`Point`]s its `where` conditions keep.
//!
//! Codes: `E0233` a name the block gives that is not in the file (the kernel, a
//! bench, a const parameter of the kernel), or a parameter given twice; `E0234` a
//! value of the wrong kind for its parameter; `E0235` a `where` condition that names
//! something other than the parameters and dtypes, or is not a `bool`; `E0236` a
//! space with no valid point (an empty list, conditions no point meets) or more
//! points than [`MAX_POINTS`].

use std::fmt;

use lang::ast::{ExprKind, GenericParam, ItemKind, Kernel, Module, TuneBlock, TypeKind, UnaryOp};
use lang::{Diagnostic, Span};

use crate::condition::{self, Failure};

/// The most points a space may have before its conditions are applied.
pub const MAX_POINTS: u64 = 100_000;

/// A const parameter's value at a point.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstValue {
    /// An `int`.
    Int(i64),
    /// A `bool`.
    Bool(bool),
    /// A `dtype`, by its name (`bf16`).
    Dtype(String),
}

impl ConstValue {
    /// `int`, `bool` or `dtype`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ConstValue::Int(_) => "int",
            ConstValue::Bool(_) => "bool",
            ConstValue::Dtype(_) => "dtype",
        }
    }

    /// The value a literal written for a parameter of `kind` (`int`, `bool`, `dtype`)
    /// spells, or `None` when it is no literal of that kind.
    pub fn from_literal(kind: &str, expr: &lang::ast::Expr) -> Option<ConstValue> {
        match (kind, &expr.kind) {
            ("int", ExprKind::Int(value)) => Some(ConstValue::Int(*value)),
            (
                "int",
                ExprKind::Unary {
                    op: UnaryOp::Negate,
                    operand,
                },
            ) => match operand.kind {
                ExprKind::Int(value) => value.checked_neg().map(ConstValue::Int),
                _ => None,
            },
            ("bool", ExprKind::Bool(value)) => Some(ConstValue::Bool(*value)),
            ("dtype", ExprKind::Path(path)) if path.segments.len() == 1 => {
                let name = &path.segments[0].text;
                cute::Dtype::from_name(name).map(|_| ConstValue::Dtype(name.clone()))
            }
            _ => None,
        }
    }

    /// The value written as `text` (as [`fmt::Display`] writes it): an integer,
    /// `true`/`false`, else a dtype name.
    pub fn parse(text: &str) -> Option<ConstValue> {
        match text {
            "true" => Some(ConstValue::Bool(true)),
            "false" => Some(ConstValue::Bool(false)),
            _ => match text.parse() {
                Ok(value) => Some(ConstValue::Int(value)),
                Err(_) => cute::Dtype::from_name(text).map(|_| ConstValue::Dtype(text.to_owned())),
            },
        }
    }

    /// The value as an expression, at `span`.
    pub fn to_expr(&self, span: Span) -> lang::ast::Expr {
        let kind = match self {
            ConstValue::Int(value) if *value < 0 => ExprKind::Unary {
                op: UnaryOp::Negate,
                operand: Box::new(lang::ast::Expr {
                    kind: ExprKind::Int(value.unsigned_abs() as i64),
                    span,
                }),
            },
            ConstValue::Int(value) => ExprKind::Int(*value),
            ConstValue::Bool(value) => ExprKind::Bool(*value),
            ConstValue::Dtype(name) => ExprKind::Path(lang::ast::Path {
                segments: vec![lang::ast::Name {
                    text: name.clone(),
                    span,
                }],
                span,
            }),
        };
        lang::ast::Expr { kind, span }
    }
}

impl fmt::Display for ConstValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstValue::Int(value) => write!(f, "{value}"),
            ConstValue::Bool(value) => write!(f, "{value}"),
            ConstValue::Dtype(name) => f.write_str(name),
        }
    }
}

/// One configuration: a value for each tuned parameter, in the block's order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Point {
    values: Vec<(String, ConstValue)>,
}

impl Point {
    /// The point giving each name its value.
    pub fn new(values: Vec<(String, ConstValue)>) -> Point {
        Point { values }
    }

    /// The value of parameter `name`, if the point has it.
    pub fn value(&self, name: &str) -> Option<&ConstValue> {
        self.values
            .iter()
            .find(|(parameter, _)| parameter == name)
            .map(|(_, value)| value)
    }

    /// The parameters and their values.
    pub fn values(&self) -> &[(String, ConstValue)] {
        &self.values
    }
}

impl fmt::Display for Point {
    /// `BM=128 BN=256 STAGES=4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, (name, value)) in self.values.iter().enumerate() {
            let gap = if index == 0 { "" } else { " " };
            write!(f, "{gap}{name}={value}")?;
        }
        Ok(())
    }
}

/// A checked `tune` block's space: every point its `where` conditions keep, in
/// order (the last parameter varying fastest), and how many there were before.
#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    /// The points the conditions keep.
    pub points: Vec<Point>,
    /// The size of the whole product of the value lists.
    pub total: u64,
}

/// What [`check`] found: the diagnostics, and the space when there were none.
pub struct Checked {
    /// Every problem, in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// The space, when the block has no error.
    pub space: Option<Space>,
}

/// Checks `block` against `module` and enumerates its space.
pub fn check(module: &Module, block: &TuneBlock) -> Checked {
    let mut diagnostics = Vec::new();
    let kernel = module.items.iter().find_map(|item| match &item.kind {
        ItemKind::Kernel(kernel) if kernel.name.text == block.kernel.text => Some(kernel),
        _ => None,
    });
    if kernel.is_none() {
        diagnostics.push(
            Diagnostic::error(
                "E0233",
                format!("no kernel `{}` in this file", block.kernel.text),
            )
            .with_primary(block.kernel.span, "the kernel to tune"),
        );
    }
    check_benches(module, block, &mut diagnostics);
    let lists = kernel.map(|kernel| value_lists(kernel, block, &mut diagnostics));
    check_condition_names(block, &mut diagnostics);
    let space = match lists {
        Some(lists) if diagnostics.is_empty() => enumerate(block, &lists, &mut diagnostics),
        _ => None,
    };
    Checked { diagnostics, space }
}

fn check_benches(module: &Module, block: &TuneBlock, diagnostics: &mut Vec<Diagnostic>) {
    if block.benches.is_empty() {
        diagnostics.push(
            Diagnostic::error(
                "E0233",
                format!("`{}` names no bench to time", block.name.text),
            )
            .with_primary(block.name.span, "this tune block")
            .with_note("write `tune NAME: KERNEL for BENCH, ... { .. }`"),
        );
    }
    for bench in &block.benches {
        let found = module.items.iter().any(|item| {
            matches!(&item.kind, ItemKind::Bench(candidate) if candidate.name.text == bench.text)
        });
        if !found {
            diagnostics.push(
                Diagnostic::error("E0233", format!("no bench `{}` in this file", bench.text))
                    .with_primary(bench.span, "a bench to time each point with"),
            );
        }
    }
}

/// Each tuned parameter with its values, checked against the kernel's generics.
fn value_lists(
    kernel: &Kernel,
    block: &TuneBlock,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<(String, Vec<ConstValue>)> {
    let mut lists: Vec<(String, Vec<ConstValue>)> = Vec::new();
    for param in &block.params {
        let name = &param.name.text;
        let Some(generic) = kernel
            .generics
            .iter()
            .find(|generic| generic.name.text == *name)
        else {
            let known: Vec<&str> = (kernel.generics.iter())
                .map(|generic| generic.name.text.as_str())
                .collect();
            diagnostics.push(
                Diagnostic::error(
                    "E0233",
                    format!("`{}` has no const parameter `{name}`", kernel.name.text),
                )
                .with_primary(param.name.span, "not a parameter of the kernel")
                .with_note(format!("its const parameters: {}", known.join(", "))),
            );
            continue;
        };
        if lists.iter().any(|(seen, _)| seen == name) {
            diagnostics.push(
                Diagnostic::error("E0233", format!("`{name}` is given values twice"))
                    .with_primary(param.name.span, "a second list for the parameter"),
            );
            continue;
        }
        let kind = kind_of(generic);
        let mut values = Vec::new();
        for value in &param.values {
            match ConstValue::from_literal(kind, value) {
                Some(value) => values.push(value),
                None => diagnostics.push(
                    Diagnostic::error(
                        "E0234",
                        format!(
                            "`{name}` is a `{kind}` parameter: each value must be a {kind} literal"
                        ),
                    )
                    .with_primary(value.span, format!("not a {kind} literal"))
                    .with_secondary(generic.span, "declared here"),
                ),
            }
        }
        lists.push((name.clone(), values));
    }
    lists
}

/// The kind a generic parameter is declared with: `int`, `bool`, `dtype`, ...
fn kind_of(generic: &GenericParam) -> &str {
    match &generic.kind.kind {
        TypeKind::Named(path) if path.segments.len() == 1 => &path.segments[0].text,
        _ => "",
    }
}

fn check_condition_names(block: &TuneBlock, diagnostics: &mut Vec<Diagnostic>) {
    for condition in &block.constraints {
        for (name, span) in condition::names(condition) {
            let tuned = block.params.iter().any(|param| param.name.text == name);
            if !tuned && cute::Dtype::from_name(name).is_none() {
                let params: Vec<&str> = (block.params.iter())
                    .map(|param| param.name.text.as_str())
                    .collect();
                diagnostics.push(
                    Diagnostic::error(
                        "E0235",
                        format!("`{name}` in a `where` condition is not a tuned parameter"),
                    )
                    .with_primary(span, "unknown here")
                    .with_note(format!("the block tunes: {}", params.join(", "))),
                );
            }
        }
    }
}

/// The points the conditions keep, or `None` after a diagnostic.
fn enumerate(
    block: &TuneBlock,
    lists: &[(String, Vec<ConstValue>)],
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Space> {
    let total = lists.iter().try_fold(1u64, |total, (_, values)| {
        total.checked_mul(values.len() as u64)
    });
    let total = match total {
        Some(total) if total <= MAX_POINTS => total,
        _ => {
            diagnostics.push(
                Diagnostic::error(
                    "E0236",
                    format!(
                        "the space of `{}` has more than {MAX_POINTS} points",
                        block.name.text
                    ),
                )
                .with_primary(block.name.span, "too many configurations")
                .with_note("shorten the value lists"),
            );
            return None;
        }
    };
    let mut points = Vec::new();
    let mut wrong_kind: Vec<(Span, String)> = Vec::new();
    let mut indices = vec![0usize; lists.len()];
    for _ in 0..total {
        let point = Point::new(
            (lists.iter().zip(&indices))
                .map(|((name, values), index)| (name.clone(), values[*index].clone()))
                .collect(),
        );
        if keeps(block, &point, &mut wrong_kind) {
            points.push(point);
        }
        advance(&mut indices, lists);
    }
    for (span, why) in wrong_kind {
        diagnostics.push(
            Diagnostic::error(
                "E0235",
                format!("a `where` condition must be a `bool`: {why}"),
            )
            .with_primary(span, "in this condition"),
        );
    }
    if diagnostics.is_empty() && points.is_empty() {
        let why = if total == 0 {
            "a parameter has an empty list of values".to_owned()
        } else {
            format!("the `where` conditions reject all {total} points")
        };
        diagnostics.push(
            Diagnostic::error(
                "E0236",
                format!("the space of `{}` has no valid point", block.name.text),
            )
            .with_primary(block.name.span, "nothing to tune")
            .with_note(why),
        );
    }
    diagnostics.is_empty().then_some(Space { points, total })
}

/// Whether every condition holds at `point`; a condition whose value is not a bool
/// is noted in `wrong_kind` (once), and one with no value (a division by zero) rejects.
fn keeps(block: &TuneBlock, point: &Point, wrong_kind: &mut Vec<(Span, String)>) -> bool {
    block.constraints.iter().all(|condition| {
        let why = match condition::evaluate(condition, point) {
            Ok(ConstValue::Bool(holds)) => return holds,
            Ok(value) => format!("it is {} `{value}` here", value.kind_name()),
            Err(Failure::Kind(_, why)) => why,
            Err(Failure::Unknown(_) | Failure::Arithmetic(..)) => return false,
        };
        if !wrong_kind.iter().any(|(span, _)| *span == condition.span) {
            wrong_kind.push((condition.span, why));
        }
        false
    })
}

/// The next combination of indices, the last list fastest.
fn advance(indices: &mut [usize], lists: &[(String, Vec<ConstValue>)]) {
    for (index, (_, values)) in indices.iter_mut().zip(lists).rev() {
        *index += 1;
        if *index < values.len() {
            return;
        }
        *index = 0;
    }
}
