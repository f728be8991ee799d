//! Calls of the host built-ins: tensor creation (`randn`, `zeros`, `full`, ...), dtype
//! conversion, the reference operations (`transpose`, `sum`, `softmax`, `attention`,
//! `reshape`, ...), `assert_close`, `ceil_div`, `min`, `max`, `this_rank`,
//! `world_size` and `gpu_only`; each checks its arguments' number, names and kinds
//! and fails at the call's span. `matmul` is in `gemm.rs`, the training references
//! in `references.rs`, the array operations in `arrays.rs`.

use lang::Span;
use lang::ast::{Argument, Expr};

use super::expr::number;
use super::{Eval, Interpreter, Stop, Value};
use crate::compare::{Tolerance, assert_close};
use crate::device::Device;
use crate::ops;
use crate::random::mix;
use crate::tensor::{Creation, Tensor, shape_text};

const GPU_ONLY: &str = "gpu_only(): the block runs only on a GPU";

impl Interpreter<'_> {
    /// A bool argument named `name`.
    fn flag(&mut self, expr: &Expr, name: &str) -> Eval<bool> {
        match self.expr(expr)? {
            Value::Bool(flag) => Ok(flag),
            other => Err(Stop::error(
                expr.span,
                format!("`{name}` is a bool, not a {}", other.kind()),
            )),
        }
    }

    pub(super) fn builtin(&mut self, name: &str, args: &[Argument], span: Span) -> Eval<Value> {
        let positional: Vec<&Expr> = args
            .iter()
            .filter(|arg| arg.name.is_none())
            .map(|arg| &arg.value)
            .collect();
        let named = |wanted: &str| {
            args.iter()
                .find(|arg| arg.name.as_ref().is_some_and(|name| name.text == wanted))
        };
        if let Some(arg) = args.iter().find(|arg| {
            arg.name.as_ref().is_some_and(|arg_name| {
                !matches!(
                    (name, arg_name.text.as_str()),
                    ("assert_close", "rtol" | "atol")
                        | (
                            "attention"
                                | "attention_lse"
                                | "attention_backward"
                                | "attention_varlen"
                                | "attention_varlen_lse"
                                | "attention_varlen_backward",
                            "causal"
                        )
                )
            })
        }) {
            return Err(Stop::error(
                arg.span,
                format!("`{name}` takes no argument of this name"),
            ));
        }
        let arity = |range: std::ops::RangeInclusive<usize>| {
            if range.contains(&positional.len()) {
                Ok(())
            } else {
                Err(Stop::error(
                    span,
                    format!(
                        "`{name}` takes {range:?} arguments, not {}",
                        positional.len()
                    ),
                ))
            }
        };
        if let Some(result) = self.array_builtin(name, &positional, span) {
            return result;
        }
        match name {
            "randn" | "rand" | "zeros" | "ones" | "empty" | "arange" | "full" => {
                arity(if name == "full" { 3..=3 } else { 2..=2 })?;
                let Value::Dtype(dtype) = self.expr(positional[0])? else {
                    return Err(Stop::error(
                        positional[0].span,
                        format!("`{name}` takes a dtype first"),
                    ));
                };
                let shape = self.shape(positional[1])?;
                let creation = match name {
                    "randn" => Creation::Randn,
                    "rand" => Creation::Rand,
                    "zeros" => Creation::Zeros,
                    "ones" => Creation::Ones,
                    "empty" => Creation::Empty,
                    "arange" => Creation::Arange,
                    _ => {
                        let value = self.expr(positional[2])?;
                        Creation::Full(number(&value).ok_or_else(|| {
                            Stop::error(
                                positional[2].span,
                                format!("`full` fills with a number, not a {}", value.kind()),
                            )
                        })?)
                    }
                };
                self.created += 1;
                let seed = self.seed ^ mix(self.created);
                let tensor = self.create(creation, dtype, shape, seed, span)?;
                Ok(self.new_tensor(tensor))
            }
            "transpose" | "sum" | "softmax" => {
                arity(if name == "transpose" { 1..=1 } else { 1..=2 })?;
                let a = self.tensor_arg(positional[0])?;
                let dimension = match positional.get(1) {
                    Some(expr) => {
                        let value = self.int(expr)?;
                        usize::try_from(value).map_err(|_| {
                            Stop::error(expr.span, format!("dimension {value} does not exist"))
                        })?
                    }
                    None => a.shape.len().saturating_sub(1),
                };
                let result = match name {
                    "transpose" => ops::transpose(&a),
                    "sum" => ops::sum(&a, dimension),
                    _ => ops::softmax(&a, dimension),
                }
                .map_err(|error| Stop::error(span, error.to_string()))?;
                Ok(self.new_tensor(Tensor::from_dense(&result)))
            }
            "reshape" => {
                arity(2..=2)?;
                let a = self.tensor_arg(positional[0])?;
                let shape = self.shape(positional[1])?;
                let message = format!(
                    "reshape of {} elements (shape {}) to shape {}",
                    a.values.len(),
                    shape_text(&a.shape),
                    shape_text(&shape)
                );
                let result = ops::reshape(&a, shape).ok_or_else(|| Stop::error(span, message))?;
                Ok(self.new_tensor(Tensor::from_dense(&result)))
            }
            "attention" | "attention_lse" | "attention_backward" => {
                let operands = match name {
                    "attention" => 3,
                    "attention_lse" => 2,
                    _ => 4,
                };
                arity(operands..=operands)?;
                let causal = match named("causal") {
                    Some(arg) => self.flag(&arg.value, "causal")?,
                    None => false,
                };
                let q = self.tensor_arg(positional[0])?;
                let k = self.tensor_arg(positional[1])?;
                if let [_, _, v, d_out] = positional[..] {
                    let (v, d_out) = (self.tensor_arg(v)?, self.tensor_arg(d_out)?);
                    let (dq, dk, dv) = ops::attention_backward((&q, &k, &v), &d_out, causal)
                        .map_err(|error| Stop::error(span, error.to_string()))?;
                    let gradients = [dq, dk, dv].map(|g| self.new_tensor(Tensor::from_dense(&g)));
                    return Ok(Value::Tuple(gradients.into()));
                }
                let result = match positional.get(2) {
                    Some(v) => ops::attention(&q, &k, &self.tensor_arg(v)?, causal),
                    None => ops::attention_lse(&q, &k, causal),
                }
                .map_err(|error| Stop::error(span, error.to_string()))?;
                Ok(self.new_tensor(Tensor::from_dense(&result)))
            }
            "paged_attention" => {
                arity(5..=5)?;
                let t = (positional.iter())
                    .map(|expr| self.tensor_arg(expr))
                    .collect::<Eval<Vec<_>>>()?;
                let result = ops::paged_attention(&t[0], (&t[1], &t[2]), &t[3], &t[4])
                    .map_err(|error| Stop::error(span, error.to_string()))?;
                Ok(self.new_tensor(Tensor::from_dense(&result)))
            }
            _ if super::varlen::NAMES.iter().any(|(known, _)| *known == name) => {
                let operands = (super::varlen::NAMES.iter())
                    .find_map(|(known, operands)| (*known == name).then_some(*operands))
                    .unwrap_or_default();
                arity(operands..=operands)?;
                let causal = match named("causal") {
                    Some(arg) => self.flag(&arg.value, "causal")?,
                    None => false,
                };
                self.varlen_reference(name, &positional, causal, span)
            }
            "tensor" => {
                arity(2..=2)?;
                let Value::Dtype(dtype) = self.expr(positional[0])? else {
                    return Err(Stop::error(
                        positional[0].span,
                        "`tensor` takes a dtype first".to_owned(),
                    ));
                };
                self.listed_tensor(dtype, positional[1])
            }
            _ if super::references::NAMES.contains(&name) => {
                let operands = match name {
                    "softmax_backward" => 2,
                    "rms_norm" => 3,
                    _ => 4,
                };
                arity(operands..=operands)?;
                self.training_reference(name, &positional, span)
            }
            "matmul" => {
                arity(2..=2)?;
                self.matmul(positional[0], positional[1], span)
            }
            "this_rank" | "world_size" => {
                arity(0..=0)?;
                match self.device.as_ref().ok().and_then(Device::rank) {
                    Some((rank, _)) if name == "this_rank" => Ok(Value::Int(i64::from(rank))),
                    Some((_, world)) => Ok(Value::Int(i64::from(world))),
                    None => Err(Stop::error(
                        span,
                        format!("`{name}()` is only known in a `test ... ranks(N)` block"),
                    )),
                }
            }
            "gpu_only" => {
                arity(0..=0)?;
                match &self.device {
                    Ok(Device::Gpu(_) | Device::GpuRank(..)) => Ok(Value::Unit),
                    Ok(_) => Err(Stop::Skip(GPU_ONLY.to_owned())),
                    Err(reason) => Err(Stop::Skip(format!("{GPU_ONLY} ({reason})"))),
                }
            }
            "assert_close" => {
                arity(2..=2)?;
                let actual = self.tensor_arg(positional[0])?;
                let expected = self.tensor_arg(positional[1])?;
                let mut tolerance = Tolerance::default_for(expected.dtype);
                for (key, slot) in [("rtol", &mut tolerance.rtol), ("atol", &mut tolerance.atol)] {
                    if let Some(arg) = named(key) {
                        let value = self.expr(&arg.value)?;
                        *slot = number(&value)
                            .filter(|value| *value >= 0.0)
                            .ok_or_else(|| {
                                Stop::error(arg.span, format!("`{key}` is a number at least 0"))
                            })?;
                    }
                }
                assert_close(&actual, &expected, tolerance)
                    .map_err(|mismatch| Stop::error(span, mismatch.to_string()))?;
                Ok(Value::Unit)
            }
            "ceil_div" | "min" | "max" => {
                arity(2..=2)?;
                let a = self.int(positional[0])?;
                let b = self.int(positional[1])?;
                let value = match name {
                    "min" => Some(a.min(b)),
                    "max" => Some(a.max(b)),
                    _ if b > 0 && a >= 0 => a.checked_add(b - 1).map(|sum| sum / b),
                    _ => None,
                };
                value.map(Value::Int).ok_or_else(|| {
                    Stop::error(
                        span,
                        format!(
                            "ceil_div({a}, {b}) takes a count at least 0 and a divisor at least 1"
                        ),
                    )
                })
            }
            _ => Err(Stop::error(
                span,
                format!("`{name}` is not a kernel or a host built-in"),
            )),
        }
    }

    /// A shape: an integer or a tuple of integers.
    fn shape(&mut self, expr: &Expr) -> Eval<Vec<usize>> {
        let extents = match self.expr(expr)? {
            Value::Int(extent) => vec![Value::Int(extent)],
            Value::Tuple(items) => items,
            other => {
                return Err(Stop::error(
                    expr.span,
                    format!("a shape is a tuple of integers, not a {}", other.kind()),
                ));
            }
        };
        extents
            .into_iter()
            .map(|extent| match extent {
                Value::Int(extent) if extent > 0 => usize::try_from(extent)
                    .map_err(|_| Stop::error(expr.span, format!("extent {extent} is too large"))),
                Value::Int(extent) => Err(Stop::error(
                    expr.span,
                    format!("a tensor's extents are positive, not {extent}"),
                )),
                other => Err(Stop::error(
                    expr.span,
                    format!("a shape's extents are integers, not a {}", other.kind()),
                )),
            })
            .collect()
    }
}
