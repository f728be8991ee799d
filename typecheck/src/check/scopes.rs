//! Scopes and stages: local bindings and what `--dump-types` records about them, and
//! the run-time variables that make a value dyn, with their origins.

use rustc_hash::FxHashMap;

use lang::Span;
use lang::ast::Name;
use layout::SymInt;

use crate::check::{Checker, Context, Frame, Local};
use crate::value::{Known, Origin, Value};
use crate::{Binding, BindingKind};

impl<'a> Checker<'a> {
    pub(crate) fn lookup_local(&self, name: &str) -> Option<&Local> {
        self.scopes.iter().rev().find_map(|scope| scope.get(name))
    }

    pub(crate) fn bind(&mut self, name: &Name, value: Value, mutable: bool, kind: BindingKind) {
        self.record(&name.text, name.span, &value, kind);
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(
                name.text.clone(),
                Local {
                    value,
                    mutable,
                    span: name.span,
                    cell: None,
                },
            );
        }
    }

    /// Records a binding for `--dump-types` and hovers: the first evaluation wins.
    pub(crate) fn record(&mut self, name: &str, span: Span, value: &Value, kind: BindingKind) {
        // The locals `jumps` adds are not the user's.
        if self.names.current_module != 0
            || name.starts_with('$')
            || !self.reporting.recorded.insert((span, name.to_owned()))
        {
            return;
        }
        self.record_definition(name, span, kind);
        let dyn_reason = self.dyn_origin(value).map(|origin| origin.reason);
        self.reporting.bindings.push(Binding {
            name: name.to_owned(),
            span,
            kind,
            scope: self.frame.title.clone(),
            type_name: value.type_name(),
            contents: value.contents(),
            dyn_reason,
        });
    }

    /// Runs `body` with a fresh scope stack and frame in `module`, restoring both after.
    pub(crate) fn isolated<T>(
        &mut self,
        module: usize,
        frame: Frame,
        body: impl FnOnce(&mut Self) -> T,
    ) -> (T, Frame) {
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![FxHashMap::default()]);
        let saved_frame = std::mem::replace(&mut self.frame, frame);
        let saved_module = std::mem::replace(&mut self.names.current_module, module);
        let result = body(self);
        self.names.current_module = saved_module;
        let frame = std::mem::replace(&mut self.frame, saved_frame);
        self.scopes = saved_scopes;
        (result, frame)
    }

    pub(crate) fn frame_for(&self, context: Context, title: String) -> Frame {
        Frame::new(context, title)
    }

    /// A fresh run-time integer variable named after `base`, with its origin.
    pub(crate) fn fresh_variable(&mut self, base: &str, origin: Origin) -> SymInt {
        let mut name = base.to_owned();
        while self
            .origins
            .get(&name)
            .is_some_and(|known| *known != origin)
        {
            self.fresh += 1;
            name = format!("{base}'{}", self.fresh);
        }
        self.origins.insert(name.clone(), origin);
        SymInt::variable(&name)
    }

    /// A new run-time integer variable for a value symbolic arithmetic cannot express:
    /// traced as computed by `term` here, so lowering can compute it.
    pub(crate) fn defined_variable(
        &mut self,
        base: &str,
        origin: Origin,
        term: crate::trace::Term,
        span: Span,
    ) -> SymInt {
        if !self.tracing_kernel() {
            return self.fresh_variable(base, origin);
        }
        let variable = self.unique_variable(base, origin);
        self.emit(crate::trace::Effect::Define {
            variable: variable.clone(),
            value: std::sync::Arc::new(term),
            span,
        });
        SymInt::variable(&variable)
    }

    /// The name of a new variable that no other value shares, even one with the same
    /// origin (a load evaluated twice reads two values).
    pub(crate) fn unique_variable(&mut self, base: &str, origin: Origin) -> String {
        let mut name = base.to_owned();
        while self.origins.contains_key(&name) {
            self.fresh += 1;
            name = format!("{base}'{}", self.fresh);
        }
        self.origins.insert(name.clone(), origin);
        name
    }

    /// Why `value` is only known at run time, or `None` when it is const.
    pub(crate) fn dyn_origin(&self, value: &Value) -> Option<Origin> {
        match value {
            Value::Int { value, .. } => self.symbolic_origin(value),
            Value::Float {
                value: Known::Dyn(origin),
                ..
            }
            | Value::Bool(Known::Dyn(origin)) => Some(origin.clone()),
            Value::Tuple(items) => items.iter().find_map(|item| self.dyn_origin(item)),
            Value::Layout(layout) => layout
                .shape()
                .leaves()
                .iter()
                .chain(layout.stride().leaves().iter())
                .find_map(|leaf| self.symbolic_origin(leaf)),
            Value::Vector { .. } => Some(Origin {
                reason: "a fragment's values are in registers".to_owned(),
                span: None,
                term: None,
            }),
            _ => None,
        }
    }

    pub(crate) fn symbolic_origin(&self, value: &SymInt) -> Option<Origin> {
        if value.as_constant().is_some() {
            return None;
        }
        let variables = value.variables();
        let origin = variables
            .iter()
            .find_map(|name| self.origins.get(name).cloned());
        Some(origin.unwrap_or_else(|| Origin {
            reason: format!("`{}` is only known at run time", variables.join("`, `")),
            span: None,
            term: None,
        }))
    }

    /// Whether a variable is a run-time extent (a kernel's integer argument), which
    /// checks of alignment assume to be suitably divisible.
    pub(crate) fn is_extent_variable(&self, name: &str) -> bool {
        self.origins
            .get(name)
            .is_some_and(|origin| origin.reason.ends_with("is a kernel argument"))
    }
}
