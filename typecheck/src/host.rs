//! Host code: kernel launches from tests and benches (arguments checked against the
//! kernel's parameters, extents inferred), element-wise host arithmetic and `report`.

use cute::Dtype;
use lang::ast::{ItemKind, LaunchKind, ReportPart, TypeKind};
use lang::{Diagnostic, Span};

use crate::builtins::{Arg, Args};
use crate::callee::ItemId;
use crate::check::{Checker, Context};
use crate::host_tensors::{HostTensor, shape_text};
use crate::value::{IntType, Value};

impl<'a> Checker<'a> {
    /// Elementwise arithmetic on fragment values or host tensors.
    pub(crate) fn elementwise(
        &mut self,
        op: lang::ast::BinaryOp,
        left: &Value,
        right: &Value,
        span: Span,
    ) -> Value {
        use lang::ast::BinaryOp as B;
        let comparison = matches!(
            op,
            B::Equal | B::NotEqual | B::Less | B::LessEqual | B::Greater | B::GreaterEqual
        );
        let host =
            matches!(left, Value::HostTensor { .. }) || matches!(right, Value::HostTensor { .. });
        if comparison && host {
            // A mask of 0 and 1, as u8 (NumPy's bool), shaped as the operands broadcast.
            return match self.elementwise(B::Subtract, left, right, span) {
                Value::HostTensor { shape, .. } => Value::HostTensor {
                    dtype: Dtype::U8,
                    shape,
                },
                other => other,
            };
        }
        if !matches!(op, B::Add | B::Subtract | B::Multiply | B::Divide) {
            return self.error(
                "E0216",
                span,
                format!("`{}` does not apply to whole tensors", op.symbol()),
                "unsupported",
            );
        }
        let scalar_fits = |checker: &mut Self, dtype: Dtype, scalar: &Value| -> bool {
            match scalar {
                Value::Float {
                    dtype: scalar_type, ..
                } => {
                    dtype.is_float() && scalar_type.is_none_or(|scalar_type| scalar_type == dtype)
                        || {
                            checker.report(
                                Diagnostic::error(
                                    "E0214",
                                    format!(
                                        "this mixes {dtype} values with a {}",
                                        scalar.type_name()
                                    ),
                                )
                                .with_primary(span, "mixed types"),
                            );
                            false
                        }
                }
                Value::Int {
                    ty: IntType::Int, ..
                } => true,
                _ => {
                    checker.error(
                        "E0216",
                        span,
                        format!(
                            "`{}` does not apply to {dtype} values and a {}",
                            op.symbol(),
                            scalar.type_name()
                        ),
                        "unsupported operands",
                    );
                    false
                }
            }
        };
        match (left, right) {
            (
                Value::Vector {
                    dtype: a, shape: x, ..
                },
                Value::Vector {
                    dtype: b, shape: y, ..
                },
            ) => {
                if a != b {
                    return self.mixed_fragment(*a, *b, span);
                }
                if x.product().ok() != y.product().ok() {
                    return self.error(
                        "E0206",
                        span,
                        format!("fragment values of shapes {x} and {y} differ in size"),
                        "sizes differ",
                    );
                }
                left.clone()
            }
            (
                Value::HostTensor { dtype: a, shape: x },
                Value::HostTensor { dtype: b, shape: y },
            ) => {
                if a != b {
                    return self.mixed_host(*a, *b, span);
                }
                match broadcast_shape(x, y) {
                    Some(shape) => Value::HostTensor { dtype: *a, shape },
                    None => self.error(
                        "E0206",
                        span,
                        format!(
                            "host tensors of shapes {} and {} do not broadcast (each extent, from the last, must be equal or 1)",
                            shape_text(x),
                            shape_text(y)
                        ),
                        "shapes differ",
                    ),
                }
            }
            (tensor @ (Value::Vector { dtype, .. } | Value::HostTensor { dtype, .. }), scalar)
            | (scalar, tensor @ (Value::Vector { dtype, .. } | Value::HostTensor { dtype, .. })) => {
                if scalar_fits(self, *dtype, scalar) {
                    tensor.clone()
                } else {
                    Value::Unknown
                }
            }
            _ => Value::Unknown,
        }
    }

    pub(crate) fn mixed_fragment(&mut self, a: Dtype, b: Dtype, span: Span) -> Value {
        self.report(
            Diagnostic::error(
                "E0214",
                format!("this mixes {a} and {b} fragment values without a conversion"),
            )
            .with_primary(span, format!("{a} and {b}"))
            .with_help(format!("convert one side first: `.to({a})`")),
        );
        Value::Unknown
    }

    /// A kernel call in a test: argument count and types against the signature,
    /// tensor shapes against the parameter layouts, then the kernel is checked with
    /// the const arguments given.
    pub(crate) fn call_kernel(&mut self, id: &ItemId, args: &Args, span: Span) -> Value {
        let reported = self.reporting.diagnostics.len();
        let value = self.launch_kernel(id, args, span);
        // A kernel named like a host built-in (`matmul`) hides it in tests: say so at
        // the first mistake the call made.
        if crate::builtins::table::builtin(&id.name).is_some()
            && let Some(first) = self.reporting.diagnostics.get_mut(reported)
        {
            *first = std::mem::replace(first, Diagnostic::error("E0215", "")).with_help(format!(
                "this `{}` is the file's kernel, which hides the built-in `{}`: rename the kernel to call the built-in",
                id.name, id.name
            ));
        }
        // A launch that went wrong has no value to complain about again where it is used.
        if self.reporting.diagnostics[reported..]
            .iter()
            .any(Diagnostic::is_error)
        {
            return Value::Unknown;
        }
        value
    }

    /// A launch of kernel `id` from host code, checked against its parameters.
    fn launch_kernel(&mut self, id: &ItemId, args: &Args, span: Span) -> Value {
        let ItemKind::Kernel(kernel) = &self.item(id).kind else {
            return Value::Unknown;
        };
        if self.frame.context != Context::Host {
            return self.error(
                "E0220",
                span,
                format!(
                    "kernel `{}` is launched from a test or bench, not called from device code",
                    id.name
                ),
                "kernels are not device functions",
            );
        }
        let symmetric = (kernel.launch.iter()).any(|part| part.kind == LaunchKind::Symmetric);
        if symmetric && self.frame.world.is_none() {
            let message = format!(
                "kernel `{}` has `symmetric(...)` tensors: it is launched on every rank, from a `test ... ranks(N)` block",
                id.name
            );
            return self.error("E0245", span, message, "not in a multi-rank test");
        }
        if !self.callable_arity(&id.name, args, kernel.params.len(), &kernel.generics) {
            return Value::Unit;
        }
        let positional: Vec<Arg> = args.positional().into_iter().cloned().collect();
        let mut consts: Vec<(String, Value)> = Vec::new();
        for arg in &args.items {
            if let Some(name) = &arg.name {
                if let Some(origin) = self.dyn_origin(&arg.value) {
                    self.require_const_failed(
                        &format!("the const argument `{}`", name.text),
                        arg.span,
                        &origin,
                    );
                    return Value::Unit;
                }
                consts.push((name.text.clone(), arg.value.clone()));
            }
        }
        let mut bound: Vec<(String, Value)> = Vec::new();
        for (param, arg) in kernel.params.iter().zip(&positional) {
            match &param.ty.kind {
                TypeKind::Named(path) => {
                    let expected = path.segments.last().map_or("", |name| name.text.as_str());
                    let fits = match (Dtype::from_name(expected), &arg.value) {
                        (Some(dtype), Value::Int { ty, value }) if dtype.is_integer() => {
                            if let (Some(constant), Some((low, high))) =
                                (value.as_constant(), dtype.integer_range())
                                && !(low..=high).contains(&i128::from(constant))
                            {
                                self.error(
                                    "E0216",
                                    arg.span,
                                    format!(
                                        "{constant} does not fit `{}: {dtype}`",
                                        param.name.text
                                    ),
                                    "out of range",
                                );
                            }
                            matches!(ty, IntType::Int) || *ty == IntType::Sized(dtype)
                        }
                        (Some(dtype), Value::Float { dtype: given, .. }) if dtype.is_float() => {
                            given.is_none_or(|given| given == dtype)
                        }
                        (Some(Dtype::Bool), Value::Bool(_)) => true,
                        (_, Value::Unknown) => true,
                        _ => false,
                    };
                    if !fits {
                        self.report(
                            Diagnostic::error(
                                "E0216",
                                format!(
                                    "`{}` is a {expected}, but this argument is a {}",
                                    param.name.text,
                                    arg.value.type_name()
                                ),
                            )
                            .with_primary(arg.span, format!("a {}", arg.value.type_name()))
                            .with_secondary(param.span, "parameter declared here"),
                        );
                    }
                    bound.push((param.name.text.clone(), arg.value.clone()));
                }
                TypeKind::Tensor {
                    element, layout, ..
                } => {
                    let Value::HostTensor { dtype, shape } = &arg.value else {
                        if !matches!(arg.value, Value::Unknown) {
                            self.report(
                                Diagnostic::error("E0216", format!("`{}` is a tensor, but this argument is a {}", param.name.text, arg.value.type_name()))
                                    .with_primary(arg.span, format!("a {}", arg.value.type_name()))
                                    .with_secondary(param.span, "parameter declared here")
                                    .with_help("create device tensors with randn, rand, zeros, ones, arange, full or empty"),
                            );
                        }
                        continue;
                    };
                    let tensor = HostTensor {
                        param,
                        arg,
                        dtype: *dtype,
                        shape,
                    };
                    self.check_host_tensor(kernel, (&bound, &consts), element, layout, tensor);
                }
            }
        }
        self.check_kernel(id, kernel, &consts, span);
        Value::Unit
    }

    /// `report NAME = EXPR, ..., against EXPR;` in a bench.
    pub(crate) fn check_report(&mut self, parts: &'a [ReportPart], span: Span) {
        if !self.frame.is_bench {
            self.error(
                "E0220",
                span,
                "`report` belongs in a `bench` block".to_owned(),
                "not in a bench",
            );
        }
        let metrics: Vec<&str> = parts
            .iter()
            .filter_map(|part| match part {
                ReportPart::Metric { name, .. } => Some(name.text.as_str()),
                ReportPart::Against(_) => None,
            })
            .collect();
        for part in parts {
            match part {
                ReportPart::Metric { name, value } => {
                    let evaluated = self.eval(value);
                    if !matches!(name.text.as_str(), "bytes" | "flops") {
                        self.report(
                            Diagnostic::error(
                                "E0216",
                                format!("a bench reports `bytes` or `flops`, not `{}`", name.text),
                            )
                            .with_primary(name.span, "unknown metric"),
                        );
                    }
                    if let Some(value) =
                        self.expect_int(&evaluated, value.span, "a reported amount")
                        && value.as_constant().is_some_and(|value| value <= 0)
                    {
                        self.error(
                            "E0216",
                            span,
                            "a reported amount is positive".to_owned(),
                            "not positive",
                        );
                    }
                }
                ReportPart::Against(reference) => self.check_reference(reference, &metrics),
            }
        }
    }
}

/// The shape two host tensors broadcast to, as NumPy broadcasts: extents aligned from the
/// last, each pair equal or one of them 1 (an extent known only at run time matches any);
/// `None` when they do not.
pub(crate) fn broadcast_shape(x: &[Option<i64>], y: &[Option<i64>]) -> Option<Vec<Option<i64>>> {
    let rank = x.len().max(y.len());
    let at = |shape: &[Option<i64>], axis: usize| match (axis + shape.len()).checked_sub(rank) {
        Some(index) => shape[index],
        None => Some(1),
    };
    (0..rank)
        .map(|axis| match (at(x, axis), at(y, axis)) {
            (Some(1), other) | (other, Some(1)) => Some(other),
            (Some(p), Some(q)) if p == q => Some(Some(p)),
            (Some(_), Some(_)) => None,
            (None, _) | (_, None) => Some(None),
        })
        .collect()
}
