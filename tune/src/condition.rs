//! A `where` condition evaluated at a point: integer arithmetic as the checker does it
//! on `int` consts (64 bits, division rounding toward zero, overflow an error),
//! comparisons, `&&`, `||`, `!`, and dtypes compared with `==` and `!=`. Names are
//! the block's parameters or dtype names (`T == bf16`); nothing else is in scope.

use lang::Span;
use lang::ast::{BinaryOp, Expr, ExprKind, UnaryOp};

use crate::space::{ConstValue, Point};

/// Why a condition has no value at a point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A name that is neither a parameter nor a dtype (the check reports it first).
    Unknown(Span),
    /// An operation on values of the wrong kind: `BM && 2`, `T + 1`.
    Kind(Span, String),
    /// Arithmetic with no result: division by zero, overflow, a shift out of range.
    Arithmetic(Span, String),
}

/// The value of `expr` at `point`.
pub fn evaluate(expr: &Expr, point: &Point) -> Result<ConstValue, Failure> {
    match &expr.kind {
        ExprKind::Int(value) => Ok(ConstValue::Int(*value)),
        ExprKind::Bool(value) => Ok(ConstValue::Bool(*value)),
        ExprKind::Path(path) if path.segments.len() == 1 => {
            let name = &path.segments[0].text;
            match point.value(name) {
                Some(value) => Ok(value.clone()),
                None => cute::Dtype::from_name(name)
                    .map(|_| ConstValue::Dtype(name.clone()))
                    .ok_or(Failure::Unknown(expr.span)),
            }
        }
        ExprKind::Unary { op, operand } => match (op, evaluate(operand, point)?) {
            (UnaryOp::Negate, ConstValue::Int(value)) => value
                .checked_neg()
                .map(ConstValue::Int)
                .ok_or_else(|| overflow(expr.span)),
            (UnaryOp::Not, ConstValue::Bool(value)) => Ok(ConstValue::Bool(!value)),
            (UnaryOp::Not, ConstValue::Int(value)) => Ok(ConstValue::Int(!value)),
            (op, value) => Err(Failure::Kind(
                expr.span,
                format!("`{}` does not apply to {}", op.symbol(), value.kind_name()),
            )),
        },
        ExprKind::Binary { op, lhs, rhs } => binary(*op, lhs, rhs, expr.span, point),
        _ => Err(Failure::Kind(
            expr.span,
            "a `where` condition is made of the parameters, literals and operators".to_owned(),
        )),
    }
}

fn binary(
    op: BinaryOp,
    lhs: &Expr,
    rhs: &Expr,
    span: Span,
    point: &Point,
) -> Result<ConstValue, Failure> {
    use ConstValue::{Bool, Dtype, Int};
    let left = evaluate(lhs, point)?;
    // `&&` and `||` short-circuit, so `BN > 0 && BM % BN == 0` never divides by zero.
    match (op, &left) {
        (BinaryOp::And, Bool(false)) => return Ok(Bool(false)),
        (BinaryOp::Or, Bool(true)) => return Ok(Bool(true)),
        _ => {}
    }
    let right = evaluate(rhs, point)?;
    let value = match (op, &left, &right) {
        (BinaryOp::And | BinaryOp::Or, Bool(_), Bool(value)) => Bool(*value),
        (BinaryOp::Equal, _, _) if same_kind(&left, &right) => Bool(left == right),
        (BinaryOp::NotEqual, _, _) if same_kind(&left, &right) => Bool(left != right),
        (_, Int(a), Int(b)) => return integer(op, *a, *b, span),
        (_, Dtype(_) | Bool(_) | Int(_), _) => {
            return Err(Failure::Kind(
                span,
                format!(
                    "`{}` does not apply to {} and {}",
                    op.symbol(),
                    left.kind_name(),
                    right.kind_name()
                ),
            ));
        }
    };
    Ok(value)
}

fn same_kind(left: &ConstValue, right: &ConstValue) -> bool {
    std::mem::discriminant(left) == std::mem::discriminant(right)
}

fn integer(op: BinaryOp, a: i64, b: i64, span: Span) -> Result<ConstValue, Failure> {
    use ConstValue::{Bool, Int};
    let by_zero = || Failure::Arithmetic(span, "division by zero".to_owned());
    let arithmetic = |result: Option<i64>| result.map(Int).ok_or_else(|| overflow(span));
    let shift = |result: Option<i64>| {
        result
            .map(Int)
            .ok_or_else(|| Failure::Arithmetic(span, format!("a shift by {b} bits")))
    };
    match op {
        BinaryOp::Add => arithmetic(a.checked_add(b)),
        BinaryOp::Subtract => arithmetic(a.checked_sub(b)),
        BinaryOp::Multiply => arithmetic(a.checked_mul(b)),
        BinaryOp::Divide if b == 0 => Err(by_zero()),
        BinaryOp::Divide => arithmetic(a.checked_div(b)),
        BinaryOp::Remainder if b == 0 => Err(by_zero()),
        BinaryOp::Remainder => arithmetic(a.checked_rem(b)),
        BinaryOp::ShiftLeft => shift(u32::try_from(b).ok().and_then(|b| a.checked_shl(b))),
        BinaryOp::ShiftRight => shift(u32::try_from(b).ok().and_then(|b| a.checked_shr(b))),
        BinaryOp::BitAnd => Ok(Int(a & b)),
        BinaryOp::BitOr => Ok(Int(a | b)),
        BinaryOp::BitXor => Ok(Int(a ^ b)),
        BinaryOp::Less => Ok(Bool(a < b)),
        BinaryOp::LessEqual => Ok(Bool(a <= b)),
        BinaryOp::Greater => Ok(Bool(a > b)),
        BinaryOp::GreaterEqual => Ok(Bool(a >= b)),
        BinaryOp::And | BinaryOp::Or | BinaryOp::Equal | BinaryOp::NotEqual => Err(Failure::Kind(
            span,
            format!("`{}` does not apply to int and int", op.symbol()),
        )),
    }
}

fn overflow(span: Span) -> Failure {
    Failure::Arithmetic(span, "the result does not fit 64 bits".to_owned())
}

/// Every name `expr` reads, in source order, with its span.
pub fn names(expr: &Expr) -> Vec<(&str, Span)> {
    let mut found = Vec::new();
    collect(expr, &mut found);
    found
}

fn collect<'a>(expr: &'a Expr, found: &mut Vec<(&'a str, Span)>) {
    match &expr.kind {
        ExprKind::Path(path) => found.push((
            path.segments.last().map_or("", |name| name.text.as_str()),
            expr.span,
        )),
        ExprKind::Unary { operand, .. } => collect(operand, found),
        ExprKind::Binary { lhs, rhs, .. } => {
            collect(lhs, found);
            collect(rhs, found);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::{Failure, evaluate};
    use crate::space::{ConstValue, Point};

    fn condition(text: &str) -> lang::ast::Expr {
        let source = format!("const X: bool = {text};");
        let (module, diagnostics) = grammar::parse(&source);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        match &module.items[0].kind {
            lang::ast::ItemKind::Const(item) => item.value.clone(),
            other => panic!("{other:?}"),
        }
    }

    fn point() -> Point {
        Point::new(vec![
            ("BM".to_owned(), ConstValue::Int(128)),
            ("BN".to_owned(), ConstValue::Int(0)),
            ("T".to_owned(), ConstValue::Dtype("bf16".to_owned())),
        ])
    }

    fn value(text: &str) -> Result<ConstValue, Failure> {
        evaluate(&condition(text), &point())
    }

    #[test]
    fn arithmetic_comparisons_and_dtypes() {
        assert_eq!(value("BM * 2 + 1 == 257"), Ok(ConstValue::Bool(true)));
        assert_eq!(
            value("-7 / 2 == -3 && -7 % 2 == -1"),
            Ok(ConstValue::Bool(true))
        );
        assert_eq!(value("T == bf16 && T != f16"), Ok(ConstValue::Bool(true)));
        assert_eq!(value("(1 << 4) | 3"), Ok(ConstValue::Int(19)));
        assert_eq!(value("!(BM >= 64)"), Ok(ConstValue::Bool(false)));
    }

    #[test]
    fn short_circuits_guard_a_division_by_zero() {
        assert_eq!(value("BN > 0 && BM % BN == 0"), Ok(ConstValue::Bool(false)));
        assert!(matches!(
            value("BM % BN == 0"),
            Err(Failure::Arithmetic(..))
        ));
        assert!(matches!(
            value("BM * 9223372036854775807 > 0"),
            Err(Failure::Arithmetic(..))
        ));
        assert!(matches!(
            value("BM << 64 > 0"),
            Err(Failure::Arithmetic(..))
        ));
    }

    #[test]
    fn wrong_kinds_and_unknown_names_fail() {
        assert!(matches!(value("T + 1 > 0"), Err(Failure::Kind(..))));
        assert!(matches!(value("BM && true"), Err(Failure::Kind(..))));
        assert!(matches!(value("T == 3"), Err(Failure::Kind(..))));
        assert!(matches!(value("STAGES > 2"), Err(Failure::Unknown(..))));
    }
}
