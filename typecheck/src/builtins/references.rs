//! The training kernels' host references (`rms_norm`, `layer_norm`, their `_backward`s,
//! `softmax_backward`, `cross_entropy`): their operands' dtypes and shapes, and the
//! types of their results (a tuple of host tensors for the backward references and the
//! loss). The runtime computes them (`runtime/src/ops/norms.rs`, `ops/losses.rs`).

use cute::Dtype;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::value::Value;

type Shape = Vec<Option<i64>>;

impl<'a> Checker<'a> {
    /// Any of the references, once its row of the table has checked the arity.
    pub(crate) fn training_reference(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        if name == "cross_entropy" {
            return self.cross_entropy_reference(&p);
        }
        // The tensors: x (or y) first, then w, then b or dy; eps last.
        let tensors = match name {
            "rms_norm" => 2,
            "softmax_backward" => 2,
            _ => 3,
        };
        let mut operands: Vec<(Dtype, Shape)> = Vec::with_capacity(tensors);
        for arg in &p[..tensors] {
            let Some(operand) = self.float_tensor(arg) else {
                return Value::Unknown;
            };
            if let Some((first, _)) = operands.first()
                && *first != operand.0
            {
                return self.mixed_host(*first, operand.0, arg.span);
            }
            operands.push(operand);
        }
        if let Some(eps) = p.get(tensors) {
            self.expect_number(eps, "eps");
        }
        let (dtype, x) = operands[0].clone();
        let n = x.last().copied().flatten();
        // Weights and biases are vectors of a row's length; dy is shaped as x.
        for (index, (_, shape)) in operands.iter().enumerate().skip(1) {
            let vector = !(name == "softmax_backward" || name.ends_with("_backward") && index == 2);
            let fits = if vector {
                shape.len() == 1 && (shape[0].is_none() || n.is_none() || shape[0] == n)
            } else {
                shape.len() == x.len()
                    && x.iter()
                        .zip(shape)
                        .all(|(a, b)| a.is_none() || b.is_none() || a == b)
            };
            if !fits {
                let what = match vector {
                    true => "the weights and bias are vectors of a row's length, x's last extent",
                    false => "the gradient is shaped as the tensor",
                };
                return self.host_shape_error(what, p[0], &x, p[index], shape, args.call_span);
            }
        }
        let tensor = |shape: &Shape| Value::HostTensor {
            dtype,
            shape: shape.clone(),
        };
        let w = operands.get(1).map(|(_, shape)| tensor(shape));
        match (name, w) {
            ("rms_norm_backward", Some(w)) => Value::Tuple(vec![tensor(&x), w]),
            ("layer_norm_backward", Some(w)) => Value::Tuple(vec![tensor(&x), w.clone(), w]),
            _ => tensor(&x),
        }
    }

    /// `cross_entropy(logits, labels, ignore_index, smoothing)`: `(loss, dlogits)`, an
    /// f32 loss a row and the gradient shaped as the logits.
    fn cross_entropy_reference(&mut self, p: &[&Arg]) -> Value {
        let (Some((dtype, logits)), Some((label_type, labels))) =
            (self.float_tensor(p[0]), self.host_tensor(p[1]))
        else {
            return Value::Unknown;
        };
        if !label_type.is_integer() {
            return self.error(
                "E0216",
                p[1].span,
                format!("labels are integers, not {label_type}"),
                "not integers",
            );
        }
        if logits.len() != 2
            || labels.len() != 1
            || (logits[0].is_some() && labels[0].is_some() && logits[0] != labels[0])
        {
            return self.host_shape_error(
                "cross_entropy takes logits (rows, classes) and one label a row",
                p[0],
                &logits,
                p[1],
                &labels,
                p[0].span,
            );
        }
        if !matches!(p[2].value, Value::Int { .. } | Value::Unknown) {
            self.wrong_arg(p[2], "ignore_index is an integer", "not an integer");
        }
        self.expect_number(p[3], "the label smoothing");
        Value::Tuple(vec![
            Value::HostTensor {
                dtype: Dtype::F32,
                shape: labels,
            },
            Value::HostTensor {
                dtype,
                shape: logits,
            },
        ])
    }

    /// A host tensor of floats.
    fn float_tensor(&mut self, arg: &Arg) -> Option<(Dtype, Shape)> {
        let (dtype, shape) = self.host_tensor(arg)?;
        if !dtype.is_float() || shape.is_empty() {
            self.error(
                "E0216",
                arg.span,
                format!("the references take float tensors of rank at least 1, not {dtype}"),
                "not floats",
            );
            return None;
        }
        Some((dtype, shape))
    }

    /// An integer or float argument (`eps`, the smoothing).
    fn expect_number(&mut self, arg: &Arg, what: &str) {
        if !matches!(
            arg.value,
            Value::Int { .. } | Value::Float { .. } | Value::Unknown
        ) {
            self.wrong_arg(arg, &format!("{what} is a number"), "not a number");
        }
    }
}
