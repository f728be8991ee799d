//! NumPy's array operations in host code (`ops/arrays.rs` computes them): `exp`, `log`,
//! `sqrt`, `abs`, `tanh`, `erf`, `gelu`; `maximum`, `minimum` and `if_else` (NumPy's
//! `where`); `max`, `min`, `mean`, `argmax` and `cumsum` of a tensor along a dimension
//! (the last by default); `permute`, `slice` and `concat`. The checker has checked their arguments' kinds and
//! shapes where it knows them; what only run time knows is checked again here.

use lang::Span;
use lang::ast::Expr;

use super::{Eval, Interpreter, Stop, Value};
use crate::ops::{self, Math, OperandError, Reduce};
use crate::tensor::{Dense, Tensor};

impl Interpreter<'_> {
    /// The array operation `name` of `positional`, or `None` when `name` is none (or is
    /// `max` or `min` of numbers, which `expr.rs` computes).
    pub(super) fn array_builtin(
        &mut self,
        name: &str,
        positional: &[&Expr],
        span: Span,
    ) -> Option<Eval<Value>> {
        let result = match name {
            "max" | "min" => match self.expr(positional.first()?) {
                Ok(Value::Tensor(index)) => {
                    let reduction = Reduce::named(name)?;
                    self.dense(index, positional[0].span)
                        .and_then(|a| self.reduce_along(&a, positional.get(1), reduction, span))
                }
                Ok(_) => return None,
                Err(stop) => Err(stop),
            },
            _ if Math::named(name).is_some() => {
                let function = Math::named(name)?;
                self.tensor_arg(positional.first()?)
                    .map(|a| ops::math(&a, function))
            }
            "maximum" | "minimum" => self.two_tensors(positional, span).and_then(|(a, b)| {
                ops::extreme(&a, &b, name == "maximum").map_err(|error| fail(span, error))
            }),
            "mean" | "argmax" => {
                let reduction = Reduce::named(name)?;
                self.tensor_arg(positional.first()?)
                    .and_then(|a| self.reduce_along(&a, positional.get(1), reduction, span))
            }
            "cumsum" => self.tensor_arg(positional.first()?).and_then(|a| {
                let dimension = self.dimension(&a, positional.get(1))?;
                ops::cumsum(&a, dimension).map_err(|error| fail(span, error))
            }),
            "if_else" => self.select(positional, span),
            "permute" => self.permute(positional, span),
            "slice" => self.slice(positional, span),
            "concat" => self.two_tensors(positional, span).and_then(|(a, b)| {
                let dimension = self.dimension(&a, positional.get(2))?;
                ops::concat(&a, &b, dimension).map_err(|error| fail(span, error))
            }),
            _ => return None,
        };
        Some(result.map(|dense| self.new_tensor(Tensor::from_dense(&dense))))
    }

    fn reduce_along(
        &mut self,
        a: &Dense,
        dimension: Option<&&Expr>,
        reduction: Reduce,
        span: Span,
    ) -> Eval<Dense> {
        let dimension = self.dimension(a, dimension)?;
        ops::reduce(a, dimension, reduction).map_err(|error| fail(span, error))
    }

    /// `if_else(mask, a, b)`: `a` and `b` tensors or numbers (in the other's dtype).
    fn select(&mut self, positional: &[&Expr], span: Span) -> Eval<Dense> {
        let [mask, a, b] = positional else {
            return Err(Stop::error(span, "`if_else` takes a mask and two values"));
        };
        let mask = self.tensor_arg(mask)?;
        let (a, b) = (self.expr(a)?, self.expr(b)?);
        let tensors = [&a, &b].map(|value| match value {
            Value::Tensor(index) => Some(*index),
            _ => None,
        });
        let dtype = match tensors {
            [Some(index), _] | [None, Some(index)] => self.dense(index, span)?.dtype,
            [None, None] => {
                return Err(Stop::error(
                    span,
                    "`if_else` needs a tensor among its values",
                ));
            }
        };
        let mut dense = |value: &Value| -> Eval<Dense> {
            match value {
                Value::Tensor(index) => self.dense(*index, span),
                other => super::expr::number(other)
                    .map(|number| Dense {
                        dtype,
                        shape: Vec::new(),
                        values: vec![number],
                    })
                    .ok_or_else(|| {
                        Stop::error(
                            span,
                            format!("`if_else` takes tensors or numbers, not a {}", other.kind()),
                        )
                    }),
            }
        };
        let (a, b) = (dense(&a)?, dense(&b)?);
        ops::select(&mask, &a, &b).map_err(|error| fail(span, error))
    }

    /// `permute(a, (d0, d1, ...))`.
    fn permute(&mut self, positional: &[&Expr], span: Span) -> Eval<Dense> {
        let [a, order] = positional else {
            return Err(Stop::error(span, "`permute` takes a tensor and an order"));
        };
        let a = self.tensor_arg(a)?;
        let order = match self.expr(order)? {
            Value::Tuple(items) => items,
            single @ Value::Int(_) => vec![single],
            other => {
                return Err(Stop::error(
                    order.span,
                    format!("an order is a tuple of dimensions, not a {}", other.kind()),
                ));
            }
        };
        let order = (order.iter())
            .map(|item| match item {
                Value::Int(d) => usize::try_from(*d).ok(),
                _ => None,
            })
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| Stop::error(span, "an order's dimensions are integers at least 0"))?;
        ops::permute(&a, &order).map_err(|error| fail(span, error))
    }

    /// `slice(a, dim, start, end)`.
    fn slice(&mut self, positional: &[&Expr], span: Span) -> Eval<Dense> {
        let [a, dimension, start, end] = positional else {
            return Err(Stop::error(
                span,
                "`slice` takes a tensor, a dimension, a start and an end",
            ));
        };
        let a = self.tensor_arg(a)?;
        let dimension = self.dimension(&a, Some(dimension))?;
        let mut index = |expr: &Expr| -> Eval<usize> {
            let value = self.int(expr)?;
            usize::try_from(value)
                .map_err(|_| Stop::error(expr.span, format!("an index is at least 0, not {value}")))
        };
        let (start, end) = (index(start)?, index(end)?);
        ops::slice(&a, dimension, start, end).map_err(|error| fail(span, error))
    }

    fn two_tensors(&mut self, positional: &[&Expr], span: Span) -> Eval<(Dense, Dense)> {
        match positional {
            [a, b, ..] => Ok((self.tensor_arg(a)?, self.tensor_arg(b)?)),
            _ => Err(Stop::error(span, "this takes two tensors")),
        }
    }

    /// The dimension `expr` names (the last of `a` when there is none).
    fn dimension(&mut self, a: &Dense, expr: Option<&&Expr>) -> Eval<usize> {
        let Some(expr) = expr else {
            return Ok(a.shape.len().saturating_sub(1));
        };
        let value = self.int(expr)?;
        usize::try_from(value)
            .ok()
            .filter(|dimension| *dimension < a.shape.len())
            .ok_or_else(|| {
                Stop::error(
                    expr.span,
                    format!(
                        "dimension {value} does not exist in a tensor of rank {}",
                        a.shape.len()
                    ),
                )
            })
    }
}

fn fail(span: Span, error: OperandError) -> Stop {
    Stop::error(span, error.to_string())
}
