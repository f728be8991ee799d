//! Warp shuffles, `elect_one`, atomics and `fma`: run-time operations whose result is a
//! new value with an identity (another lane's value, the warp's choice, memory's old
//! value), each traced as an effect in program order.

use std::sync::Arc;

use cute::{Dtype, MemorySpace};
use lang::Span;
use layout::SymInt;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::trace::{Atomic, Effect, Shuffle, Term, term_of, with_term};
use crate::value::{IntType, Known, Origin, Value};

impl<'a> Checker<'a> {
    /// `shfl_up`, `shfl_down`, `shfl_xor`, `shfl_idx` of a 32-bit scalar.
    pub(crate) fn shuffle(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        let (value, lane) = (p[0], p[1]);
        let dtype = match &value.value {
            Value::Float {
                dtype: Some(dtype), ..
            }
            | Value::Int {
                ty: IntType::Sized(dtype),
                ..
            } => *dtype,
            Value::Float { dtype: None, .. } => Dtype::F32,
            Value::Int { .. } => Dtype::I32,
            Value::Unknown => return Value::Unknown,
            other => {
                let hint = if matches!(other, Value::Vector { .. }) {
                    "; shuffle its elements one by one"
                } else {
                    ""
                };
                return self.error(
                    "E0216",
                    value.span,
                    format!("`{name}` moves a scalar, not a {}{hint}", other.type_name()),
                    "not a scalar",
                );
            }
        };
        if dtype.bits() != 32 {
            return self.error(
                "E0216",
                value.span,
                format!("`{name}` moves 32-bit values; convert this {dtype} to f32 or i32 first"),
                "not 32 bits",
            );
        }
        let Some(lane_value) = self.lane_argument(name, lane) else {
            return Value::Unknown;
        };
        let origin = Origin {
            reason: format!("`{name}` reads another lane's value"),
            span: Some(span),
            term: None,
        };
        let variable = self.unique_variable(name, origin.clone());
        self.check_unguarded(span);
        if self.tracing_kernel() {
            let (Some(sent), Some(lane)) = (term_of(&value.value), term_of(&lane_value)) else {
                self.emit(Effect::Unsupported(
                    format!("a `{name}` of a value computed in a way lowering does not know"),
                    span,
                ));
                return Value::Unknown;
            };
            let mode = match name {
                "shfl_up" => Shuffle::Up,
                "shfl_down" => Shuffle::Down,
                "shfl_xor" => Shuffle::Xor,
                _ => Shuffle::Index,
            };
            self.emit(Effect::Shuffle {
                mode,
                value: sent,
                lane,
                variable: variable.clone(),
                dtype,
                span,
            });
        }
        self.named_value(&variable, dtype, origin)
    }

    /// `elect_one()`: a run-time bool, true in one lane of the warp (sm_90).
    pub(crate) fn elect_one(&mut self, name: &'static str, args: &Args) -> Value {
        let span = args.call_span;
        if !self.require_arch(name, 90, span) {
            return Value::Unknown;
        }
        let origin = Origin {
            reason: format!("`{name}` is true in one lane of the warp"),
            span: Some(span),
            term: None,
        };
        let variable = self.unique_variable(name, origin.clone());
        self.check_unguarded(span);
        if self.tracing_kernel() {
            self.emit(Effect::Elect {
                variable: variable.clone(),
                span,
            });
        }
        let term = Some(Arc::new(Term::Variable(variable, Dtype::Bool)));
        Value::Bool(Known::Dyn(Origin { term, ..origin }))
    }

    /// A lane argument: an integer from 0 to 31 when it is const.
    fn lane_argument(&mut self, name: &str, lane: &Arg) -> Option<Value> {
        match &lane.value {
            Value::Int { value, .. } => {
                if let Some(constant) = value.as_constant()
                    && !(0..32).contains(&constant)
                {
                    self.error(
                        "E0223",
                        lane.span,
                        format!(
                            "`{name}` takes a lane, delta or mask from 0 to 31, not {constant}"
                        ),
                        "not a lane",
                    );
                    return None;
                }
                Some(lane.value.clone())
            }
            Value::Unknown => None,
            other => {
                self.wrong_type(
                    lane.span,
                    other,
                    &format!("`{name}`'s second argument is an integer"),
                    "not an integer",
                );
                None
            }
        }
    }

    /// A run-time value named `variable`: an integer's [`SymInt`] variable, or a float
    /// whose term reads the variable.
    pub(crate) fn named_value(&mut self, variable: &str, dtype: Dtype, origin: Origin) -> Value {
        if dtype.is_integer() {
            return Value::Int {
                ty: IntType::Sized(dtype),
                value: SymInt::variable(variable),
            };
        }
        let term = Some(Arc::new(Term::Variable(variable.to_owned(), dtype)));
        Value::Float {
            dtype: Some(dtype),
            value: Known::Dyn(Origin { term, ..origin }),
        }
    }

    /// For an access `name` at `span` that `returns` what memory held: a fresh variable
    /// for that value (the access checked like any other whose result is used), and
    /// its origin.
    pub(crate) fn memory_old_value(
        &mut self,
        name: &str,
        returns: bool,
        span: Span,
    ) -> (Option<String>, Origin) {
        let origin = Origin {
            reason: format!("`{name}` returns what memory held"),
            span: Some(span),
            term: None,
        };
        let old = returns.then(|| self.unique_variable(name, origin.clone()));
        if returns {
            self.check_unguarded(span);
        }
        (old, origin)
    }

    /// What an access evaluates to: the `old` value of [`Checker::memory_old_value`]
    /// as a `dtype`, or unit for one that returns nothing.
    pub(crate) fn old_value(&mut self, old: Option<String>, dtype: Dtype, origin: Origin) -> Value {
        match old {
            Some(old) => self.named_value(&old, dtype, origin),
            None => Value::Unit,
        }
    }

    /// `atomic_add(t, coord, value)` and the others: a read-modify-write of one
    /// element of a global or shared tensor; `atomic_fetch_add` returns the old value.
    pub(crate) fn atomic(&mut self, name: &'static str, args: &Args) -> Value {
        if args.named("order").is_some() || args.named("scope").is_some() {
            return self.ordered(name, args);
        }
        let p = args.positional();
        let span = args.call_span;
        let what = format!("`{name}` updates a tensor's element");
        let Some(tensor) = self.expect_tensor(&p[0].value, p[0].span, "E0216", &what) else {
            return Value::Unknown;
        };
        if !matches!(tensor.space, MemorySpace::Global | MemorySpace::Shared) {
            return self.error(
                "E0216",
                p[0].span,
                format!("`{name}` updates global or shared memory; this tensor is in registers"),
                "not in memory",
            );
        }
        let op = match name
            .trim_start_matches("atomic_")
            .trim_start_matches("fetch_")
        {
            "add" => Atomic::Add,
            "max" => Atomic::Max,
            _ => Atomic::Min,
        };
        let dtype = tensor.dtype.unwrap_or(Dtype::F32);
        let supported = match op {
            Atomic::Add => matches!(
                dtype,
                Dtype::F32 | Dtype::I32 | Dtype::U32 | Dtype::I64 | Dtype::U64
            ),
            Atomic::Max | Atomic::Min => matches!(
                dtype,
                Dtype::F32 | Dtype::I32 | Dtype::U32 | Dtype::I64 | Dtype::U64
            ),
        };
        if !supported {
            return self.error(
                "E0216",
                p[0].span,
                format!("`{name}` works on f32, i32, u32, i64 and u64 elements, not {dtype}"),
                "unsupported element type",
            );
        }
        self.tracing.target_only = true;
        let (element, index) = self.index_element(
            p[0].value.clone(),
            (p[1].value.clone(), p[1].span),
            p[0].span,
            p[1].span,
        );
        self.tracing.target_only = false;
        if matches!(element, Value::Unknown) {
            return Value::Unknown;
        }
        if let Value::Tensor(_) = element {
            return self.error(
                "E0216",
                p[1].span,
                format!("`{name}` updates one element; this coordinate selects a slice"),
                "not one element",
            );
        }
        self.check_element_store(&element, &p[2].value, p[2].span);
        let returns = name.starts_with("atomic_fetch_");
        let (old, origin) = self.memory_old_value(name, returns, span);
        if self.tracing_kernel() {
            match (index, term_of(&p[2].value)) {
                (Some(index), Some(value)) => self.emit(Effect::Atomic {
                    op,
                    tensor: tensor.clone(),
                    index,
                    value,
                    old: old.clone(),
                    span,
                }),
                _ => self.emit(Effect::Unsupported(format!("this `{name}`"), span)),
            }
        }
        self.old_value(old, dtype, origin)
    }

    /// `fma(a, b, c)`: `a * b + c` rounded once, on floats.
    pub(crate) fn fma(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        let mut dtype = None;
        for arg in &p {
            match &arg.value {
                Value::Float { dtype: given, .. } => {
                    if let (Some(known), Some(given)) = (dtype, *given)
                        && known != given
                    {
                        return self.error(
                            "E0216",
                            arg.span,
                            format!("`fma` takes floats of one type; this is {given}, the others {known}"),
                            "another float type",
                        );
                    }
                    dtype = dtype.or(*given);
                }
                Value::Unknown => return Value::Unknown,
                other => {
                    return self.wrong_type(arg.span, other, "`fma` takes floats", "not a float");
                }
            }
        }
        let term = self.tracing_kernel().then(|| {
            let operands = p
                .iter()
                .map(|arg| term_of(&arg.value))
                .collect::<Option<Vec<_>>>()?;
            Some(Term::Math {
                function: crate::trace::MathFn::Fma,
                dtype: dtype.unwrap_or(Dtype::F32),
                operands,
            })
        });
        let origin = Origin {
            reason: "`fma` is evaluated on the GPU".to_owned(),
            span: Some(span),
            term: None,
        };
        with_term(
            Value::Float {
                dtype,
                value: Known::Dyn(origin),
            },
            term.flatten(),
        )
    }
}
