//! Method calls: `t.load()`, `t.store(v)`, `x.to(dtype)`, the thread slices of tiled
//! copies and MMAs, and the scalar conversions they need.

use std::sync::Arc;

use cute::Dtype;
use lang::ast::{Argument, Name};
use lang::{Diagnostic, Span};
use layout::SymInt;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::check::reporting::closest;
use crate::trace::{Effect, Term, is_plain_variable, term_of, wraps_modulo};
use crate::value::{IntType, Known, Origin, Value};

impl<'a> Checker<'a> {
    /// A method call `receiver.method(args)`.
    pub(crate) fn method_call(
        &mut self,
        receiver: Value,
        receiver_span: Span,
        method: &Name,
        args: &'a [Argument],
        span: Span,
    ) -> Value {
        let args = self.eval_args(args, span);
        if matches!(receiver, Value::Unknown)
            || args
                .items
                .iter()
                .any(|arg| matches!(arg.value, Value::Unknown))
        {
            return Value::Unknown;
        }
        let name = method.text.as_str();
        match (&receiver, name) {
            (Value::Tensor(tensor), "load") => {
                self.arity(name, &args, 0..=0, &[]);
                match tensor.dtype {
                    Some(dtype) => Value::Vector {
                        dtype,
                        shape: tensor.shape().clone(),
                        term: self.record_load(tensor, None, None, span).map(Arc::new),
                    },
                    None => self.error(
                        "E0216",
                        receiver_span,
                        "a coordinate tensor has no values to load; index it instead".to_owned(),
                        "coordinates",
                    ),
                }
            }
            (Value::Tensor(tensor), "store") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unit;
                }
                if tensor.read_only {
                    self.read_only_error(tensor, receiver_span);
                    return Value::Unit;
                }
                self.store_vector(tensor, &args.items[0], span);
                Value::Unit
            }
            (Value::Tensor(tensor), "fill") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unit;
                }
                if tensor.read_only {
                    self.read_only_error(tensor, receiver_span);
                    return Value::Unit;
                }
                if let Some(dtype) = tensor.dtype {
                    self.check_scalar_for(dtype, &args.items[0]);
                }
                self.emit(match term_of(&args.items[0].value) {
                    Some(value) => Effect::StoreFragment {
                        tensor: tensor.clone(),
                        value,
                        span,
                    },
                    None => Effect::Unsupported("filling with this value".to_owned(), span),
                });
                Value::Unit
            }
            (Value::Vector { shape, term, .. }, "to") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                match &args.items[0].value {
                    Value::Dtype(dtype) => Value::Vector {
                        dtype: *dtype,
                        shape: shape.clone(),
                        term: term
                            .clone()
                            .map(|term| Arc::new(Term::Convert(*dtype, term))),
                    },
                    other => self.wrong_type(
                        args.items[0].span,
                        other,
                        "`to` takes a dtype",
                        "not a dtype",
                    ),
                }
            }
            (Value::HostTensor { shape, .. }, "to") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                match &args.items[0].value {
                    Value::Dtype(dtype) => Value::HostTensor {
                        dtype: *dtype,
                        shape: shape.clone(),
                    },
                    other => self.wrong_type(
                        args.items[0].span,
                        other,
                        "`to` takes a dtype",
                        "not a dtype",
                    ),
                }
            }
            (Value::Int { .. } | Value::Float { .. }, "to") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                self.convert_scalar(&receiver, &args.items[0], span)
            }
            (Value::TiledCopy(copy), "slice" | "get_slice") => self
                .slice_thread(name, &args, (copy.threads(), "tiled copy"), span)
                .map_or(Value::Unknown, |thread| Value::ThreadCopy {
                    copy: copy.clone(),
                    thread,
                }),
            (Value::TiledMma(mma), "slice" | "get_slice") => self
                .slice_thread(name, &args, (mma.threads(), "tiled MMA"), span)
                .map_or(Value::Unknown, |thread| Value::ThreadMma {
                    mma: mma.clone(),
                    thread,
                }),
            (
                Value::ThreadCopy { copy, thread },
                "partition_S" | "partition_D" | "retile_S" | "retile_D",
            ) => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                let (copy, thread) = (copy.clone(), thread.clone());
                self.thread_copy_method(&copy, &thread, name, &args.items[0], span)
            }
            (Value::ThreadMma { mma, thread }, _)
                if name.starts_with("partition_") || name.starts_with("make_fragment_") =>
            {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                let (mma, thread) = (mma.clone(), thread.clone());
                self.thread_mma_method(&mma, &thread, method, &args.items[0], span)
            }
            _ => {
                let methods: &[&str] = match &receiver {
                    Value::Tensor(_) => &["load", "store", "fill"],
                    Value::Vector { .. }
                    | Value::HostTensor { .. }
                    | Value::Int { .. }
                    | Value::Float { .. } => &["to"],
                    Value::TiledCopy(_) | Value::TiledMma(_) => &["slice", "get_slice"],
                    Value::ThreadCopy { .. } => {
                        &["partition_S", "partition_D", "retile_S", "retile_D"]
                    }
                    Value::ThreadMma { .. } => &[
                        "partition_A",
                        "partition_B",
                        "partition_C",
                        "partition_fragment_A",
                        "partition_fragment_B",
                        "partition_fragment_C",
                        "make_fragment_A",
                        "make_fragment_B",
                        "make_fragment_C",
                    ],
                    _ => &[],
                };
                let mut diagnostic = Diagnostic::error(
                    "E0217",
                    format!("a {} has no method `{name}`", receiver.type_name()),
                )
                .with_primary(method.span, "unknown method");
                if let Some(best) = closest(name, methods.iter().copied()) {
                    diagnostic = diagnostic.with_help(format!("did you mean `{best}`?"));
                } else if let Some(help) = crate::cute_names::help(name) {
                    diagnostic = diagnostic.with_help(help);
                } else if !methods.is_empty() {
                    diagnostic =
                        diagnostic.with_note(format!("its methods are {}", methods.join(", ")));
                }
                self.report(diagnostic);
                Value::Unknown
            }
        }
    }

    /// The thread index `name(thread)` takes from a tiled copy or MMA of `threads`
    /// threads (`tiled` saying which), once its arity and the block's threads are checked.
    fn slice_thread(
        &mut self,
        name: &str,
        args: &Args,
        (threads, tiled): (i64, &str),
        span: Span,
    ) -> Option<SymInt> {
        if !self.arity(name, args, 1..=1, &[]) || !self.block_has_threads(threads, tiled, span) {
            return None;
        }
        self.expect_int(&args.items[0].value, args.items[0].span, "a thread index")
    }

    pub(crate) fn convert_scalar(&mut self, value: &Value, target: &Arg, span: Span) -> Value {
        let Value::Dtype(dtype) = target.value else {
            return self.wrong_arg(target, "`to` takes a dtype", "not a dtype");
        };
        let origin = self.dyn_origin(value);
        match (dtype, origin) {
            (Dtype::Bool, _) => self.error(
                "E0216",
                span,
                "compare with `!= 0` to get a bool".to_owned(),
                "no conversion to bool",
            ),
            (dtype, Some(origin)) if dtype.is_float() => Value::Float {
                dtype: Some(dtype),
                value: Known::Dyn(
                    origin.computing(term_of(value).map(|term| Term::Convert(dtype, term))),
                ),
            },
            (dtype, None) if dtype.is_float() => {
                #[allow(clippy::cast_precision_loss)]
                let constant = match value {
                    // A u64 constant past 2^63 is held as its bits.
                    Value::Int { ty, value } => value.as_constant().map_or(0.0, |value| {
                        if *ty == IntType::Sized(Dtype::U64) {
                            value as u64 as f64
                        } else {
                            value as f64
                        }
                    }),
                    Value::Float { value, .. } => value.as_const().unwrap_or(0.0),
                    _ => 0.0,
                };
                Value::Float {
                    dtype: Some(dtype),
                    value: Known::Const(constant),
                }
            }
            (dtype, origin) => self.convert_to_integer(value, dtype, origin, span),
        }
    }

    /// `value.to(dtype)` for an integer `dtype`, as C converts: a value every value of
    /// the source type keeps (a widening of the same signedness, or unsigned into
    /// wider) is the same symbolic integer; any other is computed on the GPU (wrapped to
    /// the new width, or a float truncated toward zero) and a constant is converted here.
    fn convert_to_integer(
        &mut self,
        value: &Value,
        dtype: Dtype,
        origin: Option<Origin>,
        span: Span,
    ) -> Value {
        let sized = |value: SymInt| Value::Int {
            ty: IntType::Sized(dtype),
            value,
        };
        let Some((low, high)) = dtype.integer_range() else {
            return self.error(
                "E0216",
                span,
                format!("`to` converts numbers to numbers, not to {dtype}"),
                "not a number type",
            );
        };
        if let Value::Int { ty, value: integer } = value {
            // A sum may exceed its type until it is wrapped where it is held (a variable
            // is a value the type holds): a u32 or u64 one always, an i32 one widened to
            // 64 bits (CuK's i32 wraps); arithmetic on 8- and 16-bit integers is C's, in
            // `int`, so any of it may exceed its type.
            let small = matches!(ty, IntType::Sized(from) if from.bits() < 32);
            let widens = matches!(ty, IntType::Sized(from) if from.bits() < dtype.bits());
            let in_range = !small && (is_plain_variable(integer) || !(wraps_modulo(*ty) || widens));
            let keeps = match ty {
                IntType::Sized(from) => from
                    .integer_range()
                    .is_some_and(|(from_low, from_high)| low <= from_low && from_high <= high),
                IntType::Int => false,
            } && in_range;
            if let Some(constant) = integer.as_constant() {
                return sized(SymInt::constant(wrap_integer(i128::from(constant), dtype)));
            }
            if keeps {
                return sized(integer.clone());
            }
        }
        if let Value::Float {
            value: Known::Const(constant),
            ..
        } = value
        {
            return sized(SymInt::constant(truncate_float(*constant, dtype)));
        }
        let origin = origin.unwrap_or(Origin {
            reason: "it is converted on the GPU".to_owned(),
            span: Some(span),
            term: None,
        });
        let Some(operand) = term_of(value) else {
            return sized(self.fresh_variable("converted", origin));
        };
        let term = Term::Convert(dtype, operand);
        sized(self.defined_variable("converted", origin, term, span))
    }

    pub(crate) fn check_scalar_for(&mut self, dtype: Dtype, arg: &Arg) {
        let fits = match &arg.value {
            Value::Float {
                dtype: value_type, ..
            } => dtype.is_float() && value_type.is_none_or(|value_type| value_type == dtype),
            Value::Int {
                ty: IntType::Int, ..
            } => dtype != Dtype::Bool,
            Value::Int {
                ty: IntType::Sized(value_type),
                ..
            } => *value_type == dtype,
            Value::Bool(_) => dtype == Dtype::Bool,
            Value::Unknown => true,
            _ => false,
        };
        if !fits {
            self.report(
                Diagnostic::error(
                    "E0214",
                    format!(
                        "a {} cannot fill a tensor of {dtype} without a conversion",
                        arg.value.type_name()
                    ),
                )
                .with_primary(arg.span, format!("a {}", arg.value.type_name())),
            );
        }
    }
}

/// `value` wrapped to the width of the integer `dtype` (two's complement), as C converts
/// to an unsigned type and as CUDA converts to a signed one.
pub(crate) fn wrap_integer(value: i128, dtype: Dtype) -> i64 {
    let bits = u32::try_from(dtype.bits()).unwrap_or(64).min(64);
    let modulus = 1i128 << bits;
    let mut wrapped = value.rem_euclid(modulus);
    if dtype.integer_range().is_some_and(|(low, _)| low < 0) && wrapped >= modulus / 2 {
        wrapped -= modulus;
    }
    // A u64 above i64::MAX keeps its bits.
    wrapped as i64
}

/// A float converted to the integer `dtype` as the GPU's `cvt.rzi` does: toward zero,
/// saturating at the type's range, NaN to 0.
fn truncate_float(value: f64, dtype: Dtype) -> i64 {
    let (low, high) = dtype.integer_range().unwrap_or((0, 0));
    if value.is_nan() {
        return 0;
    }
    let truncated = value.trunc();
    let clamped = if truncated <= low as f64 {
        low
    } else if truncated >= high as f64 {
        high
    } else {
        truncated as i128
    };
    clamped as i64
}
