//! Scalar built-ins: `bits`, `shared_memory_limit`, `min`/`max`, `const_print`,
//! `static_assert`, the barriers and `cp.async` group operations, and the math functions
//! evaluated on the GPU.

use std::sync::Arc;

use cute::Dtype;
use lang::{Diagnostic, Span};
use layout::SymInt;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::trace::{Effect, MathFn, Term, held_dtype, term_of, with_term};
use crate::value::{IntType, Known, Origin, Value};

impl<'a> Checker<'a> {
    /// `bits(dtype)`, once its row of the table has checked the arguments.
    pub(crate) fn bits(&mut self, args: &Args) -> Value {
        let p = args.positional();
        match &p[0].value {
            Value::Dtype(dtype) => Value::int(dtype.bits()),
            other => self.wrong_type(p[0].span, other, "`bits` takes a dtype", "not a dtype"),
        }
    }

    /// `shared_memory_limit()`: the target's shared memory per block, in bytes.
    pub(crate) fn shared_memory_limit(&mut self, _args: &Args) -> Value {
        Value::int(self.target.shared_memory_limit())
    }

    /// `max_value(dtype)` and `min_value(dtype)`: the finite limits of a dtype.
    pub(crate) fn dtype_limit(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let Value::Dtype(dtype) = &p[0].value else {
            return self.wrong_arg(p[0], &format!("`{name}` takes a dtype"), "not a dtype");
        };
        let largest = name == "max_value";
        let float = match dtype {
            Dtype::E4m3 => Some(448.0),
            Dtype::E5m2 => Some(57344.0),
            Dtype::F16 => Some(65504.0),
            Dtype::Tf32 => Some(f64::from(f32::from_bits(0x7F7F_E000))),
            Dtype::Bf16 => Some(f64::from(f32::from_bits(0x7F7F_0000))),
            Dtype::F32 => Some(f64::from(f32::MAX)),
            Dtype::F64 => Some(f64::MAX),
            _ => None,
        };
        if let Some(limit) = float {
            return Value::Float {
                dtype: Some(*dtype),
                value: Known::Const(if largest { limit } else { -limit }),
            };
        }
        let range = dtype.integer_range();
        let limit = range.map(|(low, high)| if largest { high } else { low });
        let Some(limit) = limit else {
            return self.error(
                "E0216",
                p[0].span,
                format!("`{name}` takes a number type, not {dtype}"),
                "not a number type",
            );
        };
        let Ok(limit) = i64::try_from(limit) else {
            return self.error(
                "E0223",
                p[0].span,
                format!("the largest {dtype} does not fit the compiler's 64-bit signed integers"),
                "too large",
            );
        };
        Value::Int {
            ty: IntType::Sized(*dtype),
            value: SymInt::constant(limit),
        }
    }

    /// `min`, `max`, once its row of the table has checked the arguments.
    pub(crate) fn min_max_call(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        if matches!(p[0].value, Value::HostTensor { .. }) {
            return self.host_reduction(name, args);
        }
        let [a, b] = p.as_slice() else {
            return self.error(
                "E0215",
                span,
                format!("`{name}` of numbers takes two of them, not {}", p.len()),
                "one argument",
            );
        };
        self.min_max(name, a, b, span)
    }

    /// `const_print(x...)`: a note with each argument's type and value.
    pub(crate) fn const_print(&mut self, args: &Args) -> Value {
        let span = args.call_span;
        let mut parts = Vec::new();
        for arg in &args.items {
            if let Some(origin) = self.dyn_origin(&arg.value) {
                self.require_const_failed("the argument of `const_print`", arg.span, &origin);
                return Value::Unit;
            }
            parts.push(format!("{}: {}", arg.value.type_name(), arg.value));
        }
        self.report(Diagnostic::note("N0201", parts.join(", ")).with_primary(span, "const_print"));
        Value::Unit
    }

    /// `static_assert(condition, message?)`: E0228 at the condition when it is false,
    /// saying `message` (a string saying what the const parameters must satisfy, and why).
    pub(crate) fn static_assert(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let condition = p[0];
        let message = match p.get(1).map(|arg| (&arg.value, arg.span)) {
            None => None,
            Some((Value::Str(text), _)) => Some(text.clone()),
            Some((other, span)) => {
                return self.error(
                    "E0216",
                    span,
                    format!(
                        "the message of `static_assert` must be a string; this argument is of type {}",
                        other.type_name()
                    ),
                    &format!("this is a {}", other.type_name()),
                );
            }
        };
        if let Some(origin) = self.dyn_origin(&condition.value) {
            self.require_const_failed("the condition of `static_assert`", condition.span, &origin);
            return Value::Unit;
        }
        match &condition.value {
            Value::Bool(Known::Const(false)) => {
                let text = match message {
                    Some(message) => format!("`static_assert` failed: {message}"),
                    None => {
                        "`static_assert` failed: the condition is false for these const arguments"
                            .to_owned()
                    }
                };
                self.error("E0228", condition.span, text, "false");
            }
            other => self.expect_bool(other, condition.span, "the condition of `static_assert`"),
        }
        Value::Unit
    }

    /// `syncthreads`, `syncwarp`, `cp_async_commit_group`, once its row of the table has
    /// checked the arguments.
    pub(crate) fn barrier(&mut self, name: &'static str, args: &Args) -> Value {
        let span = args.call_span;
        self.emit(match name {
            "syncthreads" => Effect::Barrier(span),
            "syncwarp" => Effect::WarpBarrier(span),
            _ => Effect::CpAsyncCommit(span),
        });
        Value::Unit
    }

    /// `cp_async_wait_group(n)`.
    pub(crate) fn cp_async_wait_group(&mut self, args: &Args) -> Value {
        let p = args.positional();
        if let Some(groups) = self.expect_const_int(
            &p[0].value,
            p[0].span,
            "the number of groups `cp_async_wait_group` leaves in flight",
        ) {
            self.emit(Effect::CpAsyncWait(groups, args.call_span));
        }
        Value::Unit
    }

    /// `exp`, `exp2`, `log`, `log2`, `sqrt`, `rsqrt`, `abs`, once its row of the table has
    /// checked the arguments.
    pub(crate) fn math(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        let value = &p[0].value;
        match value {
            Value::Float {
                dtype,
                value: known,
            } => {
                let origin = match known {
                    Known::Const(_) => Origin {
                        reason: format!("`{name}` is evaluated on the GPU"),
                        span: Some(span),
                        term: None,
                    },
                    Known::Dyn(origin) => origin.clone(),
                };
                let dtype = *dtype;
                let term = self.math_term(name, dtype, &[value]);
                with_term(
                    Value::Float {
                        dtype,
                        value: Known::Dyn(origin),
                    },
                    term,
                )
            }
            Value::Vector { dtype, .. } => {
                let term = self.math_term(name, Some(*dtype), &[value]);
                with_term(value.clone(), term)
            }
            Value::HostTensor { .. } => self.host_math(name, args),
            other => self.wrong_type(
                p[0].span,
                other,
                &format!("`{name}` takes a float"),
                "not a float",
            ),
        }
    }

    /// The term of math function `name` on `operands`, when tracing a kernel and every
    /// operand has one (else the value has no term, and lowering refuses it at its use).
    fn math_term(&self, name: &str, dtype: Option<Dtype>, operands: &[&Value]) -> Option<Term> {
        if !self.tracing_kernel() {
            return None;
        }
        Some(Term::Math {
            function: MathFn::named(name)?,
            dtype: dtype.unwrap_or(Dtype::F32),
            operands: operands
                .iter()
                .map(|operand| term_of(operand))
                .collect::<Option<_>>()?,
        })
    }

    pub(crate) fn min_max(&mut self, name: &str, a: &Arg, b: &Arg, span: Span) -> Value {
        match (&a.value, &b.value) {
            (Value::Int { ty: x_ty, value: x }, Value::Int { ty: y_ty, value: y }) => {
                let ty = self.unify_int_types(*x_ty, *y_ty, span).unwrap_or(*x_ty);
                match (x.as_constant(), y.as_constant()) {
                    (Some(x), Some(y)) => Value::Int {
                        ty,
                        value: SymInt::constant(if name == "min" { x.min(y) } else { x.max(y) }),
                    },
                    _ => {
                        let origin = self.first_origin(&[&a.value, &b.value], span);
                        let dtype = held_dtype(ty);
                        let term = Term::Math {
                            function: if name == "min" {
                                MathFn::Min
                            } else {
                                MathFn::Max
                            },
                            dtype,
                            operands: vec![
                                Arc::new(Term::Int(x.clone(), dtype)),
                                Arc::new(Term::Int(y.clone(), dtype)),
                            ],
                        };
                        let variable = format!("{name}({x},{y})");
                        Value::Int {
                            ty,
                            value: self.defined_variable(&variable, origin, term, span),
                        }
                    }
                }
            }
            (
                Value::Float {
                    dtype: x_ty,
                    value: x,
                },
                Value::Float {
                    dtype: y_ty,
                    value: y,
                },
            ) => {
                let dtype = self.unify_float_types(*x_ty, *y_ty, span);
                let value = match (x.as_const(), y.as_const()) {
                    (Some(x), Some(y)) => {
                        Known::Const(if name == "min" { x.min(y) } else { x.max(y) })
                    }
                    _ => {
                        let origin = self.first_origin(&[&a.value, &b.value], span);
                        let term = self.math_term(name, dtype, &[&a.value, &b.value]);
                        Known::Dyn(origin.computing(term))
                    }
                };
                Value::Float { dtype, value }
            }
            (x, y) => self.error(
                "E0216",
                span,
                format!(
                    "`{name}` takes two integers or two floats, not a {} and a {}",
                    x.type_name(),
                    y.type_name()
                ),
                "wrong arguments",
            ),
        }
    }
}
