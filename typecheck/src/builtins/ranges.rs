//! `require_range(tensor, low, high)`: what a kernel requires of the values in one of
//! its integer tensor parameters (a block table's page indices below the number of
//! pages). Nothing runs on the GPU; the trace records the range (`trace::ElementRange`),
//! the signature carries it, and the host checks every element of the argument before
//! each launch, naming the parameter and this line.
//!
//! Checked at the call (E0216): a tensor that is not a whole global tensor parameter of
//! an integer dtype, or a bound that is not an integer the host can compute from the
//! kernel's integer parameters.

use cute::{Base, MemorySpace};
use layout::SymInt;

use crate::builtins::Args;
use crate::check::Checker;
use crate::trace::ElementRange;
use crate::value::Value;

impl Checker<'_> {
    /// `require_range(tensor, low, high)`.
    pub(crate) fn require_range(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let tensor = match &p[0].value {
            Value::Tensor(tensor) => tensor.clone(),
            Value::Unknown => return Value::Unit,
            other => {
                return self.error(
                    "E0216",
                    p[0].span,
                    format!(
                        "`require_range` takes a tensor parameter, not a {}",
                        other.type_name()
                    ),
                    "not a tensor",
                );
            }
        };
        let param = match tensor.base {
            Base::Param(param)
                if tensor.space == MemorySpace::Global
                    && tensor.layout.offset.as_constant() == Some(0) =>
            {
                param
            }
            _ => {
                return self.error(
                    "E0216",
                    p[0].span,
                    format!(
                        "`require_range` states a range for a whole global tensor parameter; this is a {}",
                        tensor.type_name()
                    ),
                    "not a whole tensor parameter",
                );
            }
        };
        if !tensor.dtype.is_some_and(|dtype| dtype.is_integer()) {
            return self.error(
                "E0216",
                p[0].span,
                format!(
                    "`require_range` states a range of integers; this is a {}",
                    tensor.type_name()
                ),
                "not an integer tensor",
            );
        }
        let mut bounds: Vec<SymInt> = Vec::with_capacity(2);
        for bound in &p[1..3] {
            let Value::Int { value, .. } = &bound.value else {
                if !matches!(bound.value, Value::Unknown) {
                    self.error(
                        "E0216",
                        bound.span,
                        format!(
                            "a range's bound is an integer, not a {}",
                            bound.value.type_name()
                        ),
                        "not an integer",
                    );
                }
                return Value::Unit;
            };
            let unknown =
                (value.variables().into_iter()).find(|variable| !self.is_extent_variable(variable));
            if let Some(variable) = unknown {
                let why = (self.symbolic_origin(&SymInt::variable(&variable))).map_or_else(
                    || format!("`{variable}` is not one"),
                    |origin| origin.reason,
                );
                return self.error(
                    "E0216",
                    bound.span,
                    format!(
                        "the host checks the range before launching, so its bounds are computed from the kernel's integer parameters: {why}"
                    ),
                    "not known before the launch",
                );
            }
            bounds.push(value.clone());
        }
        if let Some(trace) = self.tracing.trace.as_mut() {
            let high = bounds.pop().unwrap_or_else(|| SymInt::constant(0));
            let low = bounds.pop().unwrap_or_else(|| SymInt::constant(0));
            trace.ranges.push(ElementRange {
                param,
                low,
                high,
                span: args.call_span,
            });
        }
        Value::Unit
    }
}
