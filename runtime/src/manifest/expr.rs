//! Integer expressions in a manifest: what a host evaluates with the call's integer
//! arguments to get a tensor's extents and strides and the launch dimensions.
//!
//! An expression is a JSON number (a constant), a string (the integer parameter of
//! that name), or `{"op": OP, "args": [A, B]}` with `OP` one of `add`, `mul`, `div`
//! (rounding toward zero), `rem` and `ceil_div`. So `ceil_div(m, 128)` is
//! `{"op": "ceil_div", "args": ["m", 128]}`.

use kir::HostExpr;
use serde::{Deserialize, Serialize};

use super::EntryProblem;

/// An integer expression over the integer parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Expr {
    /// A constant.
    Const(i64),
    /// The integer parameter of this name.
    Param(String),
    /// An operation on two expressions.
    Apply(Box<Application>),
}

/// `op(args[0], args[1])`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Application {
    /// The operation.
    pub op: Operation,
    /// Its two operands.
    pub args: [Expr; 2],
}

/// The operations an expression may apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// `a + b`.
    Add,
    /// `a * b`.
    Mul,
    /// `a / b`, rounding toward zero.
    Div,
    /// `a % b`, with the sign of `a`.
    Rem,
    /// `a / b` rounded up.
    CeilDiv,
}

impl Expr {
    /// `expr` with parameters named by `name_of` (the parameter's index to its name).
    pub(crate) fn from_host(expr: &HostExpr, name_of: &dyn Fn(usize) -> String) -> Expr {
        let apply = |op, a: &HostExpr, b: &HostExpr| {
            Expr::Apply(Box::new(Application {
                op,
                args: [Expr::from_host(a, name_of), Expr::from_host(b, name_of)],
            }))
        };
        match expr {
            HostExpr::Const(value) => Expr::Const(*value),
            HostExpr::Param(index) => Expr::Param(name_of(*index)),
            HostExpr::Add(a, b) => apply(Operation::Add, a, b),
            HostExpr::Mul(a, b) => apply(Operation::Mul, a, b),
            HostExpr::Div(a, b) => apply(Operation::Div, a, b),
            HostExpr::Rem(a, b) => apply(Operation::Rem, a, b),
            HostExpr::CeilDiv(a, b) => apply(Operation::CeilDiv, a, b),
        }
    }

    /// The runtime's expression, with parameters found by `index_of` (a name to the
    /// index of an integer parameter); an error names a parameter it does not find.
    pub(crate) fn to_host(
        &self,
        index_of: &dyn Fn(&str) -> Option<usize>,
    ) -> Result<HostExpr, EntryProblem> {
        Ok(match self {
            Expr::Const(value) => HostExpr::Const(*value),
            Expr::Param(name) => {
                HostExpr::Param(index_of(name).ok_or_else(|| EntryProblem::NotInt(name.clone()))?)
            }
            Expr::Apply(application) => {
                let [a, b] = &application.args;
                let (a, b) = (
                    Box::new(a.to_host(index_of)?),
                    Box::new(b.to_host(index_of)?),
                );
                match application.op {
                    Operation::Add => HostExpr::Add(a, b),
                    Operation::Mul => HostExpr::Mul(a, b),
                    Operation::Div => HostExpr::Div(a, b),
                    Operation::Rem => HostExpr::Rem(a, b),
                    Operation::CeilDiv => HostExpr::CeilDiv(a, b),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_are_numbers_names_and_operations() {
        let grid = HostExpr::CeilDiv(Box::new(HostExpr::Param(1)), Box::new(HostExpr::Const(128)));
        let names = ["k", "m"];
        let expr = Expr::from_host(&grid, &|index| names[index].to_owned());
        let json = serde_json::to_string(&expr).unwrap();
        assert_eq!(json, r#"{"op":"ceil_div","args":["m",128]}"#);
        let read: Expr = serde_json::from_str(&json).unwrap();
        let index_of = |name: &str| names.iter().position(|known| *known == name);
        assert_eq!(read.to_host(&index_of), Ok(grid));
    }

    #[test]
    fn unknown_names_and_operations_are_refused() {
        let read: Expr = serde_json::from_str(r#"{"op":"add","args":["n",1]}"#).unwrap();
        assert_eq!(
            read.to_host(&|_| None),
            Err(EntryProblem::NotInt("n".to_owned()))
        );
        assert!(serde_json::from_str::<Expr>(r#"{"op":"pow","args":[2,3]}"#).is_err());
        assert!(serde_json::from_str::<Expr>(r#"{"op":"add","args":[1]}"#).is_err());
        assert!(serde_json::from_str::<Expr>("1.5").is_err());
    }
}
