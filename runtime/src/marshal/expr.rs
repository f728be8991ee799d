//! A signature's host expressions (tensor extents and strides, the grid and the block)
//! prepared for evaluation on every call: a constant or a parameter, which almost all
//! are, is read directly; anything else walks its [`HostExpr`].

use std::fmt;

use kir::HostExpr;

/// A host expression, prepared.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Expr {
    /// A constant.
    Const(i64),
    /// The integer argument at this parameter index.
    Param(usize),
    /// Anything else.
    Tree(HostExpr),
}

impl Expr {
    /// `expr`, prepared.
    pub(super) fn new(expr: &HostExpr) -> Expr {
        match expr {
            HostExpr::Const(value) => Expr::Const(*value),
            HostExpr::Param(index) => Expr::Param(*index),
            tree => Expr::Tree(tree.clone()),
        }
    }

    /// Each of `exprs`, prepared.
    pub(super) fn all(exprs: &[HostExpr]) -> Box<[Expr]> {
        exprs.iter().map(Expr::new).collect()
    }

    /// The value with these integer arguments, as [`HostExpr::evaluate`] gives it.
    #[inline]
    pub(super) fn evaluate(&self, ints: &[i64]) -> Option<i64> {
        match self {
            Expr::Const(value) => Some(*value),
            Expr::Param(index) => ints.get(*index).copied(),
            Expr::Tree(expr) => expr.evaluate(ints),
        }
    }
}

/// As the expression it was prepared from prints.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Const(value) => HostExpr::Const(*value).fmt(f),
            Expr::Param(index) => HostExpr::Param(*index).fmt(f),
            Expr::Tree(expr) => expr.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prepared_expression_evaluates_and_prints_as_its_source() {
        let sum = HostExpr::Add(Box::new(HostExpr::Param(1)), Box::new(HostExpr::Const(3)));
        for expr in [HostExpr::Const(-2), HostExpr::Param(0), sum] {
            let prepared = Expr::new(&expr);
            for ints in [&[5, 7][..], &[][..]] {
                assert_eq!(prepared.evaluate(ints), expr.evaluate(ints), "{expr}");
            }
            assert_eq!(prepared.to_string(), expr.to_string());
        }
    }
}
