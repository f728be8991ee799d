//! Run-time control flow: `for` over run-time bounds, `if` on a run-time condition
//! and `while`, each checked once for every iteration it may run and traced as a
//! region holding its body's effects.
//!
//! A scalar local the region assigns becomes a cell: its value is written to the cell
//! on entry, read back where the value may differ from the one the checker saw (at
//! the top of each iteration, after the region), and written at each assignment
//! inside. So a loop's body is checked with what it assigns unknown, as it is at the
//! top of any iteration. A local of any other type (a tensor, a layout) must keep its
//! static value: assigning it another one under run-time control flow is `E0226`
//! (`eval/assign.rs`).

use rustc_hash::FxHashMap;
use std::sync::Arc;

use cute::Dtype;
use lang::ast::{Block, Expr, IfBranch, Name};
use lang::{Diagnostic, Span};
use layout::SymInt;

use crate::BindingKind;
use crate::check::Checker;
use crate::trace::{CellId, Effect, Term, term_of};
use crate::value::{IntType, Known, Origin, Value};

/// What a region's assigned locals were on entry: name and value.
type Entry = Vec<(String, Value)>;

impl<'a> Checker<'a> {
    /// `for variable in start..end { body }` with run-time bounds.
    pub(crate) fn run_time_for(
        &mut self,
        variable: &'a Name,
        (start, end): (SymInt, SymInt),
        ty: IntType,
        body: &'a Block,
        span: Span,
    ) {
        let origin = Origin {
            reason: format!("`{}` is the counter of a run-time loop", variable.text),
            span: Some(variable.span),
            term: None,
        };
        let counter = self.unique_variable(&variable.text, origin);
        let counter_value = Value::Int {
            ty,
            value: SymInt::variable(&counter),
        };
        let entry = self.enter_region(body);
        let effects = self.traced(|checker| {
            checker.read_cells(&entry, body.span);
            checker.frame.loops += 1;
            checker.scopes.push(FxHashMap::default());
            checker.in_block(body.span, |checker| {
                checker.bind(variable, counter_value, false, BindingKind::Local);
            });
            checker.eval_block(body);
            checker.scopes.pop();
            checker.frame.loops -= 1;
        });
        self.leave_region();
        self.emit_region(
            Effect::For {
                counter,
                start,
                end,
                body: effects,
                span,
            },
            &entry,
            span,
        );
    }

    /// `while condition { body }`: a loop whose body tests the condition first.
    pub(crate) fn run_time_while(&mut self, condition: &'a Expr, body: &'a Block, span: Span) {
        let entry = self.enter_region(body);
        let mut test = None;
        let effects = self.traced(|checker| {
            checker.read_cells(&entry, body.span);
            let value = checker.eval(condition);
            checker.expect_bool(&value, condition.span, "a `while` condition");
            test = checker.condition_term(&value, condition.span);
            checker.frame.loops += 1;
            let term = test.clone().unwrap_or(Arc::new(Term::Bool(false)));
            checker.run_time_branches(term, body, None, span);
            checker.frame.loops -= 1;
        });
        self.leave_region();
        let condition = test.unwrap_or(Arc::new(Term::Bool(false)));
        self.emit_region(
            Effect::Loop {
                body: effects,
                condition,
                span,
            },
            &entry,
            span,
        );
    }

    /// The run-time part of an `if` chain: `branches[0]`'s condition is run-time and
    /// already evaluated (`condition`); the rest of the chain is its `else`.
    pub(crate) fn run_time_if(
        &mut self,
        condition: &Value,
        branch: &'a IfBranch,
        rest: (&'a [IfBranch], Option<&'a Block>),
        span: Span,
    ) {
        self.expect_bool(condition, branch.condition.span, "an `if` condition");
        let term = self
            .condition_term(condition, branch.condition.span)
            .unwrap_or(Arc::new(Term::Bool(false)));
        self.run_time_branches(term, &branch.body, Some(rest), span);
    }

    /// `if term { then } else { rest of the chain }`, traced as one region.
    fn run_time_branches(
        &mut self,
        condition: Arc<Term>,
        then: &'a Block,
        rest: Option<(&'a [IfBranch], Option<&'a Block>)>,
        span: Span,
    ) {
        let mut assigned = Vec::new();
        super::statements::assigned_names(then, &mut assigned);
        if let Some((branches, otherwise)) = rest {
            for branch in branches {
                super::statements::assigned_names(&branch.body, &mut assigned);
            }
            if let Some(otherwise) = otherwise {
                super::statements::assigned_names(otherwise, &mut assigned);
            }
        }
        let entry = self.enter_cells(&assigned, span);
        self.frame.dyn_control += 1;
        let then_effects = self.traced(|checker| {
            checker.eval_block(then);
        });
        self.restore(&entry);
        let otherwise_effects = self.traced(|checker| {
            if let Some((branches, otherwise)) = rest {
                checker.eval_if_chain(branches, otherwise, span);
            }
        });
        self.frame.dyn_control -= 1;
        self.emit_region(
            Effect::If {
                condition,
                then: then_effects,
                otherwise: otherwise_effects,
                span,
            },
            &entry,
            span,
        );
    }

    /// The term a run-time condition is computed by; `None` (with lowering told it
    /// cannot compute it) when there is none.
    fn condition_term(&mut self, value: &Value, span: Span) -> Option<Arc<Term>> {
        if !self.tracing_kernel() {
            return None;
        }
        let term = term_of(value);
        if term.is_none() && !matches!(value, Value::Unknown) {
            self.emit(Effect::Unsupported(
                "a condition computed in a way lowering does not know".to_owned(),
                span,
            ));
        }
        term
    }

    /// Runs `body` collecting the effects it traces, which are returned instead of
    /// being added to the enclosing region.
    pub(crate) fn traced(&mut self, body: impl FnOnce(&mut Self)) -> Vec<Effect> {
        let outer = (self.tracing.trace.as_mut()).map(|trace| std::mem::take(&mut trace.effects));
        body(self);
        match (&mut self.tracing.trace, outer) {
            (Some(trace), Some(outer)) => std::mem::replace(&mut trace.effects, outer),
            _ => Vec::new(),
        }
    }

    /// Before a loop: its assigned locals get cells holding their values.
    fn enter_region(&mut self, body: &'a Block) -> Entry {
        let mut assigned = Vec::new();
        super::statements::assigned_names(body, &mut assigned);
        let entry = self.enter_cells(&assigned, body.span);
        self.frame.dyn_control += 1;
        entry
    }

    /// After a loop's body.
    fn leave_region(&mut self) {
        self.frame.dyn_control -= 1;
    }

    /// Emits the region, then reads each cell back: after the region, a local holds
    /// whatever the region left in its cell.
    fn emit_region(&mut self, region: Effect, entry: &Entry, span: Span) {
        self.emit(region);
        self.read_cells(entry, span);
    }

    /// Gives each scalar local in `names` a cell (once) and writes its value there.
    fn enter_cells(&mut self, names: &[String], span: Span) -> Entry {
        let mut entry: Entry = Vec::new();
        for name in names {
            if entry.iter().any(|(known, _)| known == name) {
                continue;
            }
            let Some(local) = self.lookup_local(name).cloned() else {
                continue;
            };
            entry.push((name.clone(), local.value.clone()));
            let Some(dtype) = cell_dtype(&local.value) else {
                if matches!(local.value, Value::Vector { .. }) {
                    self.emit(Effect::Unsupported(
                        format!("the fragment value `{name}` changed in run-time control flow (store it in a register tensor instead)"),
                        span,
                    ));
                }
                continue;
            };
            if !self.tracing_kernel() {
                continue;
            }
            let cell = match local.cell {
                Some(cell) => cell,
                None => {
                    self.tracing.cells += 1;
                    let cell = CellId(self.tracing.cells);
                    if let Some(local) = self.local_mut(name) {
                        local.cell = Some(cell);
                    }
                    cell
                }
            };
            self.write_cell(cell, dtype, &local.value, span);
        }
        entry
    }

    /// Records `value` as the new content of `cell`.
    pub(crate) fn write_cell(&mut self, cell: CellId, dtype: Dtype, value: &Value, span: Span) {
        let value = match (term_of(value), value) {
            (_, Value::Int { value, .. }) => Arc::new(Term::Int(value.clone(), Dtype::I64)),
            (Some(term), _) => term,
            (None, _) => {
                self.emit(Effect::Unsupported(
                    "a value computed in a way lowering does not know, assigned in run-time control flow".to_owned(),
                    span,
                ));
                return;
            }
        };
        self.emit(Effect::WriteCell {
            cell,
            dtype,
            value,
            span,
        });
    }

    /// Gives each scalar local of `entry` a new run-time value: its cell's content
    /// (when tracing) or simply an unknown one.
    fn read_cells(&mut self, entry: &Entry, span: Span) {
        for (name, _) in entry {
            let Some(local) = self.lookup_local(name).cloned() else {
                continue;
            };
            let Some(dtype) = cell_dtype(&local.value) else {
                continue;
            };
            let origin = Origin {
                reason: format!("`{name}` changes in run-time control flow"),
                span: Some(span),
                term: None,
            };
            let variable = self.unique_variable(name, origin.clone());
            if let (Some(cell), true) = (local.cell, self.tracing_kernel()) {
                self.emit(Effect::ReadCell {
                    cell,
                    dtype,
                    variable: variable.clone(),
                    span,
                });
            }
            let term = Some(Arc::new(Term::Variable(variable.clone(), dtype)));
            let value = match &local.value {
                Value::Int { ty, .. } => Value::Int {
                    ty: *ty,
                    value: SymInt::variable(&variable),
                },
                Value::Float { dtype, .. } => Value::Float {
                    dtype: *dtype,
                    value: Known::Dyn(Origin { term, ..origin }),
                },
                _ => Value::Bool(Known::Dyn(Origin { term, ..origin })),
            };
            if let Some(local) = self.local_mut(name) {
                local.value = value;
            }
        }
    }

    /// Puts back the values the locals of `entry` had on entry (for the `else` side
    /// of a branch).
    fn restore(&mut self, entry: &[(String, Value)]) {
        for (name, value) in entry {
            if let Some(local) = self.local_mut(name) {
                local.value = value.clone();
            }
        }
    }

    /// `E0226`: a tensor, layout or other static value assigned another one under
    /// run-time control flow.
    pub(crate) fn static_local_changed(
        &mut self,
        name: &str,
        before: &Value,
        after: &Value,
        span: Span,
    ) {
        self.report(
            Diagnostic::error(
                "E0226",
                format!(
                    "`{name}` is a {} and cannot change in run-time control flow: it is `{before}`, and this makes it `{after}`",
                    before.type_name()
                ),
            )
            .with_primary(span, "changes a static value at run time")
            .with_note("only scalars (integers, floats, bools) may change in run-time loops and branches; a tensor's layout and place are fixed while compiling")
            .with_help("index by the loop counter instead, e.g. `buffers[_, _, k % STAGES]`, or keep a stage index as an integer"),
        );
    }

    fn local_mut(&mut self, name: &str) -> Option<&mut super::Local> {
        self.scopes
            .iter_mut()
            .rev()
            .find_map(|scope| scope.get_mut(name))
    }
}

/// The type of the cell that holds a scalar local (integers as `i64`), or `None` for
/// a local that is not a scalar.
pub(crate) fn cell_dtype(value: &Value) -> Option<Dtype> {
    match value {
        // A sized integer's cell holds its type, wrapping as C's variables do.
        Value::Int {
            ty: IntType::Sized(dtype),
            ..
        } => Some(*dtype),
        Value::Int { .. } => Some(Dtype::I64),
        Value::Float { dtype, .. } => Some(dtype.unwrap_or(Dtype::F32)),
        Value::Bool(_) => Some(Dtype::Bool),
        _ => None,
    }
}
