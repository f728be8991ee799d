//! Expressions of host code: literals, names, tuples, arithmetic on integers, floats and
//! tensors, and calls of the host built-ins (tensor creation, reference operations,
//! `assert_close`, `ceil_div`, `min`, `max`). Kernel calls are in `call.rs`, `matmul` in
//! `gemm.rs`.

use lang::Span;
use lang::ast::{Argument, BinaryOp, Expr, ExprKind, ItemKind, UnaryOp};

use super::{Eval, Interpreter, Stop, Value};
use crate::compare::{Tolerance, assert_close};
use crate::device::Device;
use crate::ops::{self, Operand};
use crate::random::mix;
use crate::tensor::{Creation, Dense, Tensor, shape_text};

/// Why a block that calls `gpu_only()` is skipped on the emulator.
const GPU_ONLY: &str = "gpu_only(): the block runs only on a GPU";

impl Interpreter<'_> {
    /// Evaluates an expression.
    pub(super) fn expr(&mut self, expr: &Expr) -> Eval<Value> {
        let span = expr.span;
        match &expr.kind {
            ExprKind::Int(value) => Ok(Value::Int(*value)),
            ExprKind::Float(value) => Ok(Value::Float(*value)),
            ExprKind::Bool(value) => Ok(Value::Bool(*value)),
            ExprKind::Tuple(items) => Ok(Value::Tuple(
                items
                    .iter()
                    .map(|item| self.expr(item))
                    .collect::<Eval<Vec<Value>>>()?,
            )),
            ExprKind::Path(path) => {
                let [name] = path.segments.as_slice() else {
                    return Err(Stop::error(
                        span,
                        "host code names variables, consts and dtypes, not paths",
                    ));
                };
                self.name(&name.text, span)
            }
            ExprKind::Binary { op, lhs, rhs } => match op {
                BinaryOp::And | BinaryOp::Or => {
                    let left = self.condition(lhs)?;
                    if left == (*op == BinaryOp::Or) {
                        return Ok(Value::Bool(left));
                    }
                    Ok(Value::Bool(self.condition(rhs)?))
                }
                _ => {
                    let left = self.expr(lhs)?;
                    let right = self.expr(rhs)?;
                    self.binary(*op, left, right, span)
                }
            },
            ExprKind::Unary { op, operand } => {
                let value = self.expr(operand)?;
                match (op, value) {
                    (UnaryOp::Negate, Value::Int(value)) => value
                        .checked_neg()
                        .map(Value::Int)
                        .ok_or_else(|| Stop::error(span, "integer overflow in `-`")),
                    (UnaryOp::Negate, Value::Float(value)) => Ok(Value::Float(-value)),
                    (UnaryOp::Negate, tensor @ Value::Tensor(_)) => {
                        self.binary(BinaryOp::Multiply, tensor, Value::Float(-1.0), span)
                    }
                    (UnaryOp::Not, Value::Bool(value)) => Ok(Value::Bool(!value)),
                    (UnaryOp::Not, Value::Int(value)) => Ok(Value::Int(!value)),
                    (op, value) => Err(Stop::error(
                        span,
                        format!("`{}` does not apply to a {}", op.symbol(), value.kind()),
                    )),
                }
            }
            ExprKind::Call { callee, args } => {
                let ExprKind::Path(path) = &callee.kind else {
                    return Err(Stop::error(
                        callee.span,
                        "host code calls built-ins and kernels by name",
                    ));
                };
                let [name] = path.segments.as_slice() else {
                    return Err(Stop::error(
                        callee.span,
                        "host code calls built-ins and kernels by name",
                    ));
                };
                let module = self.module;
                let kernel = module.items.iter().find_map(|item| match &item.kind {
                    ItemKind::Kernel(kernel) if kernel.name.text == name.text => Some(kernel),
                    _ => None,
                });
                match kernel {
                    Some(kernel) => self.call_kernel(kernel, args, span),
                    None => self.builtin(&name.text, args, span),
                }
            }
            ExprKind::MethodCall {
                receiver,
                method,
                args,
            } if method.text == "to" && args.len() == 1 => self.converted(receiver, &args[0]),
            _ => Err(Stop::error(
                span,
                "this expression does not run in host code",
            )),
        }
    }

    /// `tensor.to(dtype)`: a new tensor of the values rounded to `dtype`.
    fn converted(&mut self, receiver: &Expr, dtype: &Argument) -> Eval<Value> {
        let mut dense = self.tensor_arg(receiver)?;
        let Value::Dtype(element) = self.expr(&dtype.value)? else {
            return Err(Stop::error(dtype.value.span, "`to` takes a dtype"));
        };
        dense.dtype = element;
        Ok(self.new_tensor(Tensor::from_dense(&dense)))
    }

    fn name(&mut self, name: &str, span: Span) -> Eval<Value> {
        if let Some(value) = self.variable(name) {
            return Ok(value.clone());
        }
        if let Some(value) = self.module_const(name, span)? {
            return Ok(value);
        }
        if let Some(element) = kir::Element::from_name(name) {
            return Ok(Value::Dtype(element));
        }
        Err(Stop::error(
            span,
            format!("`{name}` is not a variable, an integer const or a dtype"),
        ))
    }

    /// `left op right` on evaluated operands.
    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        left: Value,
        right: Value,
        span: Span,
    ) -> Eval<Value> {
        use BinaryOp as B;
        match (left, right) {
            (Value::Int(a), Value::Int(b)) => {
                let overflow = || {
                    Stop::error(
                        span,
                        format!("integer overflow or division by zero in `{}`", op.symbol()),
                    )
                };
                let value = match op {
                    B::Add => Value::Int(a.checked_add(b).ok_or_else(overflow)?),
                    B::Subtract => Value::Int(a.checked_sub(b).ok_or_else(overflow)?),
                    B::Multiply => Value::Int(a.checked_mul(b).ok_or_else(overflow)?),
                    B::Divide => Value::Int(a.checked_div(b).ok_or_else(overflow)?),
                    B::Remainder => Value::Int(a.checked_rem(b).ok_or_else(overflow)?),
                    B::BitAnd => Value::Int(a & b),
                    B::BitOr => Value::Int(a | b),
                    B::BitXor => Value::Int(a ^ b),
                    B::ShiftLeft => Value::Int(
                        u32::try_from(b)
                            .ok()
                            .and_then(|b| a.checked_shl(b))
                            .ok_or_else(overflow)?,
                    ),
                    B::ShiftRight => Value::Int(
                        u32::try_from(b)
                            .ok()
                            .and_then(|b| a.checked_shr(b))
                            .ok_or_else(overflow)?,
                    ),
                    _ => Value::Bool(compare(op, a.cmp(&b))),
                };
                Ok(value)
            }
            (Value::Tensor(a), right) => self.tensor_arithmetic(op, Value::Tensor(a), right, span),
            (left, Value::Tensor(b)) => self.tensor_arithmetic(op, left, Value::Tensor(b), span),
            (Value::Bool(a), Value::Bool(b)) if matches!(op, B::Equal | B::NotEqual) => {
                Ok(Value::Bool((a == b) == (op == B::Equal)))
            }
            (left, right) => {
                let (Some(a), Some(b)) = (number(&left), number(&right)) else {
                    return Err(Stop::error(
                        span,
                        format!(
                            "`{}` does not apply to a {} and a {}",
                            op.symbol(),
                            left.kind(),
                            right.kind()
                        ),
                    ));
                };
                match op {
                    B::Add => Ok(Value::Float(a + b)),
                    B::Subtract => Ok(Value::Float(a - b)),
                    B::Multiply => Ok(Value::Float(a * b)),
                    B::Divide => Ok(Value::Float(a / b)),
                    B::Equal
                    | B::NotEqual
                    | B::Less
                    | B::LessEqual
                    | B::Greater
                    | B::GreaterEqual => Ok(Value::Bool(
                        a.partial_cmp(&b)
                            .is_some_and(|ordering| compare(op, ordering)),
                    )),
                    _ => Err(Stop::error(
                        span,
                        format!("`{}` does not apply to floats", op.symbol()),
                    )),
                }
            }
        }
    }

    fn tensor_arithmetic(
        &mut self,
        op: BinaryOp,
        left: Value,
        right: Value,
        span: Span,
    ) -> Eval<Value> {
        let left_dense = self.operand(&left, span)?;
        let right_dense = self.operand(&right, span)?;
        fn as_operand<'a>(
            dense: &'a Option<Dense>,
            value: &Value,
            op: BinaryOp,
            span: Span,
        ) -> Eval<Operand<'a>> {
            match dense {
                Some(dense) => Ok(Operand::Tensor(dense)),
                None => number(value).map(Operand::Scalar).ok_or_else(|| {
                    Stop::error(
                        span,
                        format!(
                            "`{}` does not apply to a tensor and a {}",
                            op.symbol(),
                            value.kind()
                        ),
                    )
                }),
            }
        }
        let result = ops::elementwise(
            op,
            as_operand(&left_dense, &left, op, span)?,
            as_operand(&right_dense, &right, op, span)?,
        )
        .map_err(|message| Stop::error(span, message))?;
        Ok(self.new_tensor(Tensor::from_dense(&result)))
    }

    fn operand(&mut self, value: &Value, span: Span) -> Eval<Option<Dense>> {
        match value {
            Value::Tensor(index) => self.dense(*index, span).map(Some),
            _ => Ok(None),
        }
    }

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

    pub(super) fn new_tensor(&mut self, tensor: Tensor) -> Value {
        self.tensors.push(tensor);
        Value::Tensor(self.tensors.len() - 1)
    }

    fn builtin(&mut self, name: &str, args: &[Argument], span: Span) -> Eval<Value> {
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
                .map_err(|message| Stop::error(span, message))?;
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

    pub(super) fn tensor_arg(&mut self, expr: &Expr) -> Eval<Dense> {
        match self.expr(expr)? {
            Value::Tensor(index) => self.dense(index, expr.span),
            other => Err(Stop::error(
                expr.span,
                format!("expected a tensor, found a {}", other.kind()),
            )),
        }
    }
}

/// An integer or float as `f64`.
pub(super) fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Int(value) => Some(*value as f64),
        Value::Float(value) => Some(*value),
        _ => None,
    }
}

fn compare(op: BinaryOp, ordering: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match op {
        BinaryOp::Equal => ordering == Equal,
        BinaryOp::NotEqual => ordering != Equal,
        BinaryOp::Less => ordering == Less,
        BinaryOp::LessEqual => ordering != Greater,
        BinaryOp::Greater => ordering == Greater,
        BinaryOp::GreaterEqual => ordering != Less,
        _ => false,
    }
}
