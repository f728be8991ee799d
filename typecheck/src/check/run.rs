//! Running a check over a file: its items in order, then the kernel instantiations a
//! host asks for, then the functions nothing called, and the diagnostics sorted into
//! source order.

use lang::Diagnostic;
use lang::ast::ItemKind;
use trace::{ConstBinding, HostFacts, Unheld};

use super::{CheckedFile, Checker, ConstState};
use crate::Analysis;
use crate::value::Value;

impl<'a> Checker<'a> {
    /// Checks the user's module.
    pub(crate) fn run(self) -> Analysis {
        self.run_traced().0
    }

    /// [`Checker::run`], also returning the kernel traces when tracing.
    pub(crate) fn run_traced(mut self) -> CheckedFile {
        self.check_items_and_requests();
        self.check_uncalled_functions();
        self.finish()
    }

    /// Checks the file's items, then the instantiations a host asks for.
    pub(super) fn check_items_and_requests(&mut self) {
        for module in 0..self.names.modules.len() {
            self.index_items(module);
        }
        self.record_item_definitions();
        self.resolve_uses();
        self.record_imports();
        let module = self.names.modules[0].module;
        for (index, item) in module.items.iter().enumerate() {
            match &item.kind {
                ItemKind::Const(_) => {
                    self.const_item(0, index);
                }
                ItemKind::Atom(atom) if atom.generics.is_empty() => {
                    let id = self.item_id(0, index);
                    self.instantiate_atom(&id, &[], atom.name.span);
                }
                ItemKind::Atom(atom) => self.check_atom_defaults(0, index, atom.name.span),
                ItemKind::Kernel(kernel) => {
                    let id = self.item_id(0, index);
                    self.check_kernel(&id, kernel, &[], kernel.name.span);
                }
                ItemKind::Test(test) => self.check_test(test, false),
                ItemKind::Bench(bench) => self.check_test(bench, true),
                ItemKind::Tune(block) => {
                    for diagnostic in tune::check(module, block).diagnostics {
                        self.report(diagnostic);
                    }
                }
                ItemKind::Function(_) | ItemKind::Use(_) | ItemKind::Error => {}
            }
        }
        for request in std::mem::take(&mut self.tracing.requested) {
            let kernel =
                module
                    .items
                    .iter()
                    .enumerate()
                    .find_map(|(index, item)| match &item.kind {
                        ItemKind::Kernel(kernel) if kernel.name.text == request.kernel => {
                            Some((index, kernel))
                        }
                        _ => None,
                    });
            if let Some((index, kernel)) = kernel {
                let id = self.item_id(0, index);
                let arguments: Vec<(String, Value)> = (request.const_args.iter())
                    .map(|(name, argument)| {
                        let value = match argument {
                            crate::ConstArgument::Int(value) => Value::int(*value),
                            crate::ConstArgument::Dtype(dtype) => Value::Dtype(*dtype),
                        };
                        (name.clone(), value)
                    })
                    .collect();
                self.check_kernel(&id, kernel, &arguments, kernel.name.span);
            }
        }
    }

    /// Checks the functions no check called, with their parameters unknown.
    pub(super) fn check_uncalled_functions(&mut self) {
        let module = self.names.modules[0].module;
        for (index, item) in module.items.iter().enumerate() {
            if let ItemKind::Function(function) = &item.kind
                && !self.evaluated.called_functions.contains(&(0, index))
            {
                self.check_function_alone(function);
            }
        }
    }

    /// The diagnostics in source order, the bindings, the const items' values and the
    /// traces.
    pub(super) fn finish(mut self) -> CheckedFile {
        let consts = self.const_bindings();
        self.report_never_instantiated();
        let mut diagnostics = self.reporting.diagnostics;
        diagnostics.sort_by_key(|diagnostic| (diagnostic.span().start, diagnostic.span().end));
        let mut instantiated = self.reporting.instantiated;
        // In the order the serial check gives them, whichever check ran.
        instantiated.sort_by_cached_key(|record| format!("{}{:?}", record.kernel, record.given));
        let analysis = Analysis {
            diagnostics,
            bindings: self.reporting.bindings,
            host: HostFacts {
                consts,
                instantiated,
            },
        };
        (analysis, self.tracing.traces)
    }

    /// A warning (W0201) at each kernel with a const parameter that has no default
    /// when no launch or host request gives it one: nothing builds such a kernel.
    fn report_never_instantiated(&mut self) {
        let module = self.names.modules[0].module;
        for item in &module.items {
            let ItemKind::Kernel(kernel) = &item.kind else {
                continue;
            };
            let Some(unbound) = kernel
                .generics
                .iter()
                .find(|generic| generic.default.is_none())
            else {
                continue;
            };
            let instantiated = self.reporting.instantiated.iter().any(|record| {
                record.kernel == kernel.name.text
                    && record.const_args.iter().all(|(_, value)| value.is_some())
            });
            if !instantiated {
                self.report(
                    Diagnostic::warning(
                        "W0201",
                        format!(
                            "kernel `{}` is never built: its const parameter `{}` has no default, and no launch gives it a value",
                            kernel.name.text, unbound.name.text
                        ),
                    )
                    .with_primary(kernel.name.span, "not built")
                    .with_help(format!(
                        "give `{}` a default (`const {}: ... = ...`) or launch the kernel with `{} = ...` from a test, a bench or the host",
                        unbound.name.text, unbound.name.text, unbound.name.text
                    )),
                );
            }
        }
    }

    /// The names the user's `const` items bind, in source order, with their values
    /// as host code holds them.
    fn const_bindings(&self) -> Vec<ConstBinding> {
        let mut bindings = Vec::new();
        for index in 0..self.names.modules[0].module.items.len() {
            if let Some(ConstState::Done(values)) = self.evaluated.consts.get(&(0, index)) {
                bindings.extend(values.iter().map(|(name, value)| ConstBinding {
                    name: name.clone(),
                    value: value.host_const().ok_or_else(|| match value {
                        Value::Unknown => Unheld::NotEvaluated,
                        other => Unheld::OfType(other.type_name()),
                    }),
                }));
            }
        }
        bindings
    }
}
