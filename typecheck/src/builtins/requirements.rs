//! What a kernel requires of the values in one of its integer tensor parameters:
//! `require_range(tensor, low, high)` (a block table's page indices below the number of
//! pages) and `require_offsets(tensor, total, max_step?)` (packed sequences' offsets:
//! from 0, never decreasing, ending at `total`, no sequence longer than `max_step`).
//! Nothing runs on the GPU; the trace records the requirement
//! (`trace::ElementRequirement`), the signature carries it, and the host checks every
//! element of the argument before each launch, naming the parameter and this line.
//!
//! Checked at the call (E0216): a tensor that is not a whole global tensor parameter of
//! an integer dtype (for offsets, a 1-D one), or a number that is not an integer the
//! host can compute from the kernel's integer parameters.

use cute::{Base, MemorySpace};
use layout::SymInt;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::trace::{ElementRequirement, ElementRule};
use crate::value::Value;

/// What the statement is called and says, for messages.
struct Statement {
    /// Its name: `require_range`.
    name: &'static str,
    /// What it states: `a range`.
    states: &'static str,
    /// The start of the message about a number the host cannot compute: `the host
    /// checks the range before launching, so its bounds are computed`.
    host_computes: &'static str,
}

const RANGE: Statement = Statement {
    name: "require_range",
    states: "a range",
    host_computes: "the host checks the range before launching, so its bounds are computed",
};

const OFFSETS: Statement = Statement {
    name: "require_offsets",
    states: "offsets",
    host_computes: "the host checks the offsets before launching, so their total and largest step are computed",
};

impl Checker<'_> {
    /// `require_range(tensor, low, high)`.
    pub(crate) fn require_range(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Some(param) = self.required_tensor(&RANGE, p[0], false) else {
            return Value::Unit;
        };
        let Some(low) = self.host_integer(&RANGE, p[1], "a range's bound") else {
            return Value::Unit;
        };
        let Some(high) = self.host_integer(&RANGE, p[2], "a range's bound") else {
            return Value::Unit;
        };
        self.record_requirement(param, ElementRule::Range { low, high }, args);
        Value::Unit
    }

    /// `require_offsets(tensor, total, max_step?)`.
    pub(crate) fn require_offsets(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Some(param) = self.required_tensor(&OFFSETS, p[0], true) else {
            return Value::Unit;
        };
        let Some(total) = self.host_integer(&OFFSETS, p[1], "the offsets' total") else {
            return Value::Unit;
        };
        let max_step = match p.get(2) {
            Some(arg) => match self.host_integer(&OFFSETS, arg, "the offsets' largest step") {
                Some(max_step) => Some(max_step),
                None => return Value::Unit,
            },
            None => None,
        };
        self.record_requirement(param, ElementRule::Offsets { total, max_step }, args);
        Value::Unit
    }

    fn record_requirement(&mut self, param: usize, rule: ElementRule, args: &Args) {
        if let Some(trace) = self.tracing.trace.as_mut() {
            trace.element_requirements.push(ElementRequirement {
                param,
                rule,
                span: args.call_span,
            });
        }
    }

    /// The index of the whole global integer tensor parameter `arg` is (a 1-D one when
    /// `one_dimensional`); `None` after an error, or when `arg` is unknown already.
    fn required_tensor(
        &mut self,
        statement: &Statement,
        arg: &Arg,
        one_dimensional: bool,
    ) -> Option<usize> {
        let name = statement.name;
        let tensor = match &arg.value {
            Value::Tensor(tensor) => tensor.clone(),
            Value::Unknown => return None,
            other => {
                self.wrong_type(
                    arg.span,
                    other,
                    &format!("`{name}` takes a tensor parameter"),
                    "not a tensor",
                );
                return None;
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
                self.error(
                    "E0216",
                    arg.span,
                    format!(
                        "`{name}` states {} for a whole global tensor parameter; this is a {}",
                        statement.states,
                        tensor.type_name()
                    ),
                    "not a whole tensor parameter",
                );
                return None;
            }
        };
        if !tensor.dtype.is_some_and(|dtype| dtype.is_integer()) {
            self.error(
                "E0216",
                arg.span,
                format!(
                    "`{name}` states {} of integers; this is a {}",
                    statement.states,
                    tensor.type_name()
                ),
                "not an integer tensor",
            );
            return None;
        }
        let extents = tensor.layout.layout.shape().leaves().len();
        if one_dimensional && extents != 1 {
            self.error(
                "E0216",
                arg.span,
                format!(
                    "`{name}` states {} of a 1-D tensor, one element after another; this one has shape {}",
                    statement.states,
                    tensor.shape()
                ),
                "not 1-D",
            );
            return None;
        }
        Some(param)
    }

    /// `arg`'s value, an integer over the kernel's integer parameters (`what` it is, for
    /// messages); `None` after an error, or when `arg` is unknown already.
    fn host_integer(&mut self, statement: &Statement, arg: &Arg, what: &str) -> Option<SymInt> {
        let Value::Int { value, .. } = &arg.value else {
            if !matches!(arg.value, Value::Unknown) {
                self.wrong_arg(arg, &format!("{what} is an integer"), "not an integer");
            }
            return None;
        };
        let unknown =
            (value.variables().into_iter()).find(|variable| !self.is_extent_variable(variable));
        if let Some(variable) = unknown {
            let why = (self.symbolic_origin(&SymInt::variable(&variable))).map_or_else(
                || format!("`{variable}` is not one"),
                |origin| origin.reason,
            );
            self.error(
                "E0216",
                arg.span,
                format!(
                    "{} from the kernel's integer parameters: {why}",
                    statement.host_computes
                ),
                "not known before the launch",
            );
            return None;
        }
        Some(value.clone())
    }
}
