//! Calls: evaluated arguments, the dispatch of a call to a built-in, a function, a
//! kernel, an atom template or a layout, and the arity check.
//!
//! Every built-in is a row of [`table::BUILTINS`] (name, where it may be called, arity,
//! named arguments, signature, one line of meaning, evaluator); the evaluators live
//! beside the built-ins they implement: `layouts`, `algebra` and `operands` (CuTe's
//! layout functions and their operands), `tensors`, `copies` and `mma` (tensors, tiled
//! copies and MMAs), `scalars` (synchronisation, math, `const_print`), `host` (tests and
//! benches). `methods`, `partitions` and `functions` evaluate method calls, the thread
//! slices of tiled copies and MMAs, and device-function calls.

mod algebra;
mod arrays;
mod blackwell;
mod cluster_view;
mod copies;
mod functions;
pub(crate) mod hopper;
mod host;
mod layouts;
pub(crate) mod methods;
mod mma;
pub(crate) mod operands;
mod ordered;
mod pairs;
mod partitions;
mod printing;
pub(crate) mod ranks;
mod references;
mod requirements;
mod scalars;
pub(crate) mod table;
mod tensors;
mod tma;
mod tma_tiles;
mod umma;
mod varlen;
mod warp;
mod warpgroups;
mod wgmma;

use lang::ast::{Argument, Expr, GenericParam, Name};
use lang::{Diagnostic, Span};
use layout::{Coord, Layout, SymInt};

use crate::builtins::operands::static_tuple;
use crate::builtins::table::{Arity, Builtin, Place};
use crate::callee::Callee;
use crate::check::reporting::closest;
use crate::check::{Checker, Context};
use crate::value::{IntType, Value};

/// One evaluated argument.
#[derive(Clone, Debug)]
pub(crate) struct Arg {
    pub(crate) name: Option<Name>,
    pub(crate) value: Value,
    pub(crate) span: Span,
}

/// The evaluated arguments of a call.
pub(crate) struct Args {
    pub(crate) items: Vec<Arg>,
    pub(crate) call_span: Span,
}

impl Args {
    pub(crate) fn positional(&self) -> Vec<&Arg> {
        self.items.iter().filter(|arg| arg.name.is_none()).collect()
    }

    pub(crate) fn named(&self, name: &str) -> Option<&Arg> {
        self.items.iter().find(|arg| {
            arg.name
                .as_ref()
                .is_some_and(|arg_name| arg_name.text == name)
        })
    }

    /// The named arguments, by name: a call's const arguments.
    pub(crate) fn named_values(&self) -> Vec<(String, Value)> {
        (self.items.iter())
            .filter_map(|arg| Some((arg.name.as_ref()?.text.clone(), arg.value.clone())))
            .collect()
    }
}

impl<'a> Checker<'a> {
    pub(crate) fn eval_args(&mut self, args: &'a [Argument], call_span: Span) -> Args {
        let items = args
            .iter()
            .map(|arg| Arg {
                name: arg.name.clone(),
                value: self.eval(&arg.value),
                span: arg.value.span,
            })
            .collect();
        Args { items, call_span }
    }

    /// A call expression.
    pub(crate) fn call(&mut self, callee: &'a Expr, args: &'a [Argument], span: Span) -> Value {
        let callee_value = self.eval(callee);
        if let Value::Callable(Callee::Function(id) | Callee::Kernel(id) | Callee::AtomTemplate(id)) =
            &callee_value
            && id.module == 0
        {
            let named: Vec<&Name> = args.iter().filter_map(|arg| arg.name.as_ref()).collect();
            self.refer_named_arguments(id.item, &named);
        }
        let evaluated = self.eval_args(args, span);
        match callee_value {
            Value::Unknown => Value::Unknown,
            Value::Callable(Callee::Builtin(builtin)) => {
                self.call_builtin(builtin, callee.span, &evaluated)
            }
            Value::Callable(Callee::Function(id)) => self.call_function(&id, &evaluated, span),
            Value::Callable(Callee::Kernel(id)) => self.call_kernel(&id, &evaluated, span),
            Value::Callable(Callee::AtomTemplate(id)) => self.atom_from_call(&id, &evaluated, span),
            Value::Layout(layout) => self.call_layout(&layout, &evaluated),
            Value::Composed(composed) => {
                let Some(coord) = self.single_coordinate(&evaluated) else {
                    return Value::Unknown;
                };
                let Some(static_coord) = static_tuple(&coord.with_free_as_zero()) else {
                    return self.error("E0204", span, "a swizzled layout is evaluated at compile time, so its coordinate must be const".to_owned(), "dyn coordinate");
                };
                match composed.evaluate(&static_coord) {
                    Ok(offset) => Value::int(offset),
                    Err(error) => self.layout_error(span, "this evaluation", &error),
                }
            }
            other => {
                let mut diagnostic =
                    Diagnostic::error("E0216", format!("a {} cannot be called", other.type_name()))
                        .with_primary(callee.span, "not callable");
                let shadowed = match &callee.kind {
                    lang::ast::ExprKind::Path(path) => match path.segments.as_slice() {
                        [name] => table::builtin(&name.text).map(|builtin| builtin.name),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(name) = shadowed {
                    diagnostic = diagnostic.with_help(format!(
                        "this `{name}` is a local binding, which hides the built-in `{name}`: rename the binding"
                    ));
                } else if matches!(other, Value::Tensor(_) | Value::HostTensor { .. }) {
                    diagnostic = diagnostic.with_help(
                        "a tensor is indexed with brackets, `t[i, j]` (CuTe's `t(i, j)`); a layout is called: `L(i, j)` is its offset",
                    );
                }
                self.report(diagnostic);
                Value::Unknown
            }
        }
    }

    pub(crate) fn single_coordinate(&mut self, args: &Args) -> Option<Coord<SymInt>> {
        let positional = args.positional();
        let value = match positional.as_slice() {
            [single] => single.value.clone(),
            _ => Value::Tuple(positional.iter().map(|arg| arg.value.clone()).collect()),
        };
        let span = positional
            .first()
            .map_or(args.call_span, |first| first.span);
        self.coordinate(&value, span)
    }

    /// `L(c)`: a layout evaluated at a coordinate.
    pub(crate) fn call_layout(&mut self, layout: &Layout<SymInt>, args: &Args) -> Value {
        let Some(coord) = self.single_coordinate(args) else {
            return Value::Unknown;
        };
        let span = args.items.first().map_or(args.call_span, |arg| {
            arg.span
                .cover(args.items.last().map_or(arg.span, |last| last.span))
        });
        if !self.check_coordinate(&coord, layout.shape(), span) {
            return Value::Unknown;
        }
        if coord.has_free() {
            return match layout.slice(&coord) {
                Ok((sliced, _)) => Value::Layout(sliced),
                Err(error) => self.layout_error(args.call_span, "this slice", &error),
            };
        }
        match layout.evaluate(&coord.with_free_as_zero()) {
            Ok(value) => Value::Int {
                ty: IntType::Int,
                value,
            },
            Err(error) => self.layout_error(args.call_span, "this evaluation", &error),
        }
    }

    /// [`Checker::arity`] for a call of a kernel or function: one positional argument a
    /// parameter, and named ones only for its const parameters.
    pub(crate) fn callable_arity(
        &mut self,
        name: &str,
        args: &Args,
        params: usize,
        generics: &[GenericParam],
    ) -> bool {
        let generic_names: Vec<&str> = (generics.iter())
            .map(|generic| generic.name.text.as_str())
            .collect();
        self.arity(name, args, params..=params, &generic_names)
    }

    /// Checks the number of positional arguments and that no named ones are given.
    pub(crate) fn arity(
        &mut self,
        name: &str,
        args: &Args,
        expected: std::ops::RangeInclusive<usize>,
        allowed_named: &[&str],
    ) -> bool {
        let mut ok = true;
        for arg in &args.items {
            if let Some(arg_name) = &arg.name
                && !allowed_named.contains(&arg_name.text.as_str())
            {
                let mut diagnostic = Diagnostic::error(
                    "E0215",
                    format!("`{name}` has no argument named `{}`", arg_name.text),
                )
                .with_primary(arg_name.span, "unknown argument name");
                let positional = table::builtin(name).filter(|builtin| {
                    (builtin.parameters.split(", "))
                        .any(|parameter| parameter.trim_end_matches(['?', '.']) == arg_name.text)
                });
                if let Some(builtin) = positional {
                    diagnostic = diagnostic.with_help(format!(
                        "`{}` is given by position: `{}`",
                        arg_name.text,
                        builtin.signature()
                    ));
                } else if allowed_named.is_empty() {
                    diagnostic = diagnostic.with_note(format!("`{name}` takes no named arguments"));
                } else if let Some(best) = closest(&arg_name.text, allowed_named.iter().copied()) {
                    diagnostic = diagnostic.with_help(format!("did you mean `{best}`?"));
                }
                self.report(diagnostic);
                ok = false;
            }
        }
        let count = args.positional().len();
        if !expected.contains(&count) {
            let wanted = if expected.start() == expected.end() {
                format!("{}", expected.start())
            } else {
                format!("{} to {}", expected.start(), expected.end())
            };
            let mut diagnostic = Diagnostic::error(
                "E0215",
                format!("`{name}` takes {wanted} argument(s), but {count} were given"),
            )
            .with_primary(args.call_span, format!("{count} argument(s)"));
            if count > *expected.end() && !allowed_named.is_empty() {
                let named: Vec<String> = (allowed_named.iter())
                    .map(|named| format!("`{named} = ...`"))
                    .collect();
                diagnostic = diagnostic.with_help(format!(
                    "`{name}`'s optional arguments are given by name: {}",
                    named.join(", ")
                ));
            }
            self.report(diagnostic);
            ok = false;
        }
        ok
    }

    /// A call of a built-in: the arguments checked against its table row (unknown
    /// arguments, where it may be called, arity and named arguments), then evaluated.
    pub(crate) fn call_builtin(
        &mut self,
        builtin: &'static Builtin,
        callee_span: Span,
        args: &Args,
    ) -> Value {
        let name = builtin.name;
        if builtin.arity != Arity::Any
            && args
                .items
                .iter()
                .any(|arg| matches!(arg.value, Value::Unknown))
        {
            return Value::Unknown;
        }
        let context = self.frame.context;
        if builtin.place == Place::Device && context != Context::Device {
            return self.error(
                "E0220",
                callee_span,
                format!("`{name}` runs on the GPU: it belongs in a kernel or device function"),
                "device code only",
            );
        }
        if builtin.place == Place::DeviceOrHost && context == Context::Const {
            return self.error(
                "E0220",
                callee_span,
                format!(
                    "`{name}` runs on the GPU, or on host tensors in a `test` or `bench` block: not in const code"
                ),
                "device or host code only",
            );
        }
        if builtin.place == Place::Host && context != Context::Host {
            return self.error(
                "E0220",
                callee_span,
                format!("`{name}` belongs in a `test` or `bench` block"),
                "host code only",
            );
        }
        if let Arity::Between(least, most) = builtin.arity
            && !self.arity(name, args, least..=most, builtin.named)
        {
            return if builtin.statement {
                Value::Unit
            } else {
                Value::Unknown
            };
        }
        (builtin.eval)(self, name, args)
    }
}
