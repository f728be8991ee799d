//! Host calls of the training kernels' references: `rms_norm`, `layer_norm`, their
//! `_backward`s, `softmax_backward` and `cross_entropy` (the math is in `ops/norms.rs`
//! and `ops/losses.rs`). A reference with several results gives a tuple of tensors.

use lang::Span;
use lang::ast::Expr;

use super::expr::number;
use super::{Eval, Interpreter, Stop, Value};
use crate::ops;
use crate::tensor::{Dense, Tensor};

/// The host built-ins this file evaluates.
pub(super) const NAMES: [&str; 6] = [
    "rms_norm",
    "rms_norm_backward",
    "layer_norm",
    "layer_norm_backward",
    "softmax_backward",
    "cross_entropy",
];

impl Interpreter<'_> {
    /// `name(positional...)` for a name of [`NAMES`], its arity already checked.
    pub(super) fn training_reference(
        &mut self,
        name: &str,
        positional: &[&Expr],
        span: Span,
    ) -> Eval<Value> {
        let failed = |error: ops::OperandError| Stop::error(span, error.to_string());
        let tensors: Vec<Dense> = positional
            .iter()
            .take(if name == "layer_norm" { 3 } else { 2 })
            .map(|expr| self.tensor_arg(expr))
            .collect::<Eval<_>>()?;
        let results = match name {
            "rms_norm" => vec![ops::rms_norm(
                &tensors[0],
                &tensors[1],
                self.float(positional[2])?,
            )],
            "layer_norm" => vec![ops::layer_norm(
                &tensors[0],
                &tensors[1],
                &tensors[2],
                self.float(positional[3])?,
            )],
            "rms_norm_backward" | "layer_norm_backward" => {
                let dy = self.tensor_arg(positional[2])?;
                let eps = self.float(positional[3])?;
                let (x, w) = (&tensors[0], &tensors[1]);
                match name {
                    "rms_norm_backward" => ops::rms_norm_backward(x, w, &dy, eps)
                        .map(|(dx, dw)| vec![Ok(dx), Ok(dw)])
                        .map_err(failed)?,
                    _ => ops::layer_norm_backward(x, w, &dy, eps)
                        .map(|(dx, dw, db)| vec![Ok(dx), Ok(dw), Ok(db)])
                        .map_err(failed)?,
                }
            }
            "softmax_backward" => vec![ops::softmax_backward(&tensors[0], &tensors[1])],
            _ => {
                let ignore_index = self.int(positional[2])?;
                let smoothing = self.float(positional[3])?;
                if !(0.0..=1.0).contains(&smoothing) {
                    return Err(Stop::error(
                        positional[3].span,
                        format!("label smoothing is between 0 and 1, not {smoothing}"),
                    ));
                }
                ops::cross_entropy(&tensors[0], &tensors[1], ignore_index, smoothing)
                    .map(|(loss, dlogits)| vec![Ok(loss), Ok(dlogits)])
                    .map_err(failed)?
            }
        };
        let mut values = Vec::with_capacity(results.len());
        for result in results {
            let dense = result.map_err(failed)?;
            values.push(self.new_tensor(Tensor::from_dense(&dense)));
        }
        Ok(match <[Value; 1]>::try_from(values) {
            Ok([single]) => single,
            Err(values) => Value::Tuple(values),
        })
    }

    /// A number (an integer or a float) as `f64`.
    fn float(&mut self, expr: &Expr) -> Eval<f64> {
        let value = self.expr(expr)?;
        number(&value).ok_or_else(|| {
            Stop::error(
                expr.span,
                format!("expected a number, found a {}", value.kind()),
            )
        })
    }
}
