//! Host calls of the packed (variable-length) attention references,
//! `attention_varlen`, `attention_varlen_lse` and `attention_varlen_backward` (the math
//! is in `ops/attention_varlen.rs`), and `tensor(dtype, (values...))`, the host tensor
//! a test writes out, such as a batch's `cu_seqlens`.

use kir::Element;
use lang::Span;
use lang::ast::Expr;

use super::expr::number;
use super::{Eval, Interpreter, Stop, Value};
use crate::element::round_to;
use crate::ops;
use crate::tensor::{Dense, Tensor};

/// The host built-ins this file evaluates, with their numbers of tensor operands.
pub(super) const NAMES: [(&str, usize); 3] = [
    ("attention_varlen", 5),
    ("attention_varlen_lse", 4),
    ("attention_varlen_backward", 6),
];

impl Interpreter<'_> {
    /// `name(positional..., causal = flag)` for a name of [`NAMES`], its arity checked.
    pub(super) fn varlen_reference(
        &mut self,
        name: &str,
        positional: &[&Expr],
        causal: bool,
        span: Span,
    ) -> Eval<Value> {
        let tensors: Vec<Dense> = positional
            .iter()
            .map(|expr| self.tensor_arg(expr))
            .collect::<Eval<_>>()?;
        let failed = |error: ops::VarlenError| Stop::error(span, error.to_string());
        let results = match (name, tensors.as_slice()) {
            ("attention_varlen", [q, k, v, cu_q, cu_k]) => {
                vec![ops::attention_varlen((q, k, v), (cu_q, cu_k), causal).map_err(failed)?]
            }
            ("attention_varlen_lse", [q, k, cu_q, cu_k]) => {
                vec![ops::attention_varlen_lse((q, k), (cu_q, cu_k), causal).map_err(failed)?]
            }
            (_, [q, k, v, d_out, cu_q, cu_k]) => {
                let (dq, dk, dv) =
                    ops::attention_varlen_backward((q, k, v), d_out, (cu_q, cu_k), causal)
                        .map_err(failed)?;
                vec![dq, dk, dv]
            }
            _ => return Err(Stop::error(span, format!("`{name}` takes other operands"))),
        };
        let mut values: Vec<Value> = results
            .iter()
            .map(|dense| self.new_tensor(Tensor::from_dense(dense)))
            .collect();
        Ok(match values.len() {
            1 => values.remove(0),
            _ => Value::Tuple(values),
        })
    }

    /// `tensor(dtype, (v0, v1, ...))`: a one-dimensional host tensor of those numbers,
    /// each rounded to the dtype.
    pub(super) fn listed_tensor(&mut self, dtype: Element, values: &Expr) -> Eval<Value> {
        let items = match self.expr(values)? {
            Value::Tuple(items) => items,
            single @ (Value::Int(_) | Value::Float(_)) => vec![single],
            other => {
                return Err(Stop::error(
                    values.span,
                    format!("`tensor` takes a tuple of numbers, not a {}", other.kind()),
                ));
            }
        };
        let numbers = items
            .iter()
            .map(|item| {
                number(item)
                    .map(|value| round_to(dtype, value))
                    .ok_or_else(|| {
                        Stop::error(
                            values.span,
                            format!("`tensor` takes numbers, not a {}", item.kind()),
                        )
                    })
            })
            .collect::<Eval<Vec<f64>>>()?;
        let dense = Dense {
            dtype,
            shape: vec![numbers.len()],
            values: numbers,
        };
        Ok(self.new_tensor(Tensor::from_dense(&dense)))
    }
}
