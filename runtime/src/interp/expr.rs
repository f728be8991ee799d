//! Expressions of host code: literals, names, tuples, and arithmetic on integers, floats
//! and tensors. Calls of the host built-ins are in `builtins.rs`, kernel calls in
//! `call.rs`, `matmul` in `gemm.rs`.

use lang::Span;
use lang::ast::{Argument, BinaryOp, Expr, ExprKind, ItemKind, UnaryOp};

use super::{Eval, Interpreter, Stop, Value};
use crate::ops::{self, Operand};
use crate::tensor::{Dense, Tensor};

/// Why a block that calls `gpu_only()` is skipped on the emulator.
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
                    _ => Value::Bool(op.holds_for(a.cmp(&b))),
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
                            .is_some_and(|ordering| op.holds_for(ordering)),
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
        .map_err(|error| Stop::error(span, error.to_string()))?;
        Ok(self.new_tensor(Tensor::from_dense(&result)))
    }

    fn operand(&mut self, value: &Value, span: Span) -> Eval<Option<Dense>> {
        match value {
            Value::Tensor(index) => self.dense(*index, span).map(Some),
            _ => Ok(None),
        }
    }

    pub(super) fn new_tensor(&mut self, tensor: Tensor) -> Value {
        self.tensors.push(tensor);
        Value::Tensor(self.tensors.len() - 1)
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
