//! Device-function calls: the function inlined with its arguments bound, each checked
//! against its parameter's declared type.

use lang::Span;

use crate::builtins::{Arg, Args};
use crate::check::{Checker, Context};
use crate::value::Value;

impl<'a> Checker<'a> {
    /// Calls a device function: binds its parameters and evaluates its body inline.
    pub(crate) fn call_function(
        &mut self,
        id: &crate::callee::ItemId,
        args: &Args,
        span: Span,
    ) -> Value {
        self.mark_function_called(id);
        let lang::ast::ItemKind::Function(function) = &self.item(id).kind else {
            return Value::Unknown;
        };
        if self.frame.context == Context::Host {
            return self.error(
                "E0220",
                span,
                format!("`{}` is a device function; a test calls kernels", id.name),
                "device code only",
            );
        }
        if !self.callable_arity(&id.name, args, function.params.len(), &function.generics) {
            return Value::Unknown;
        }
        if !self.enter_call(id, span) {
            return Value::Unknown;
        }
        let given = args.named_values();
        let positional: Vec<Arg> = args.positional().into_iter().cloned().collect();
        let mut frame = self.frame_for(Context::Device, format!("fn {}", function.name.text));
        frame.is_function = true;
        frame.shared = std::mem::take(&mut self.frame.shared);
        frame.dyn_control = self.frame.dyn_control;
        frame.block_threads = self.frame.block_threads;
        frame.cluster = self.frame.cluster;
        frame.ranks = self.frame.ranks.clone();
        let anchor = if self.names.current_module == 0 {
            Some(span)
        } else {
            self.reporting.anchor
        };
        let saved_anchor = std::mem::replace(&mut self.reporting.anchor, anchor);
        let (result, frame) = self.isolated(id.module, frame, |checker| {
            for generic in &function.generics {
                let value = match checker.const_argument(generic, &given) {
                    Some(value) => value,
                    None => checker.missing_const_argument(generic, span),
                };
                let value = checker.check_generic_kind(generic, value, span);
                checker.bind(
                    &generic.name,
                    value,
                    false,
                    crate::BindingKind::ConstParameter,
                );
            }
            for (param, arg) in function.params.iter().zip(&positional) {
                let value = checker.check_argument(param, arg);
                checker.bind(&param.name, value, false, crate::BindingKind::Parameter);
            }
            let tail = checker.eval_block(&function.body);
            let result = if function.body.tail.is_some() {
                tail
            } else {
                checker
                    .frame
                    .returns
                    .first()
                    .cloned()
                    .unwrap_or(Value::Unit)
            };
            match &function.return_type {
                Some(ty) => checker.check_declared_type(result, ty, function.body.span),
                None => result,
            }
        });
        self.frame.shared = frame.shared;
        self.reporting.anchor = saved_anchor;
        self.budgets.call_stack.pop();
        result
    }

    /// Checks an argument against a function parameter's declared type.
    pub(crate) fn check_argument(&mut self, param: &'a lang::ast::Param, arg: &Arg) -> Value {
        match &param.ty.kind {
            lang::ast::TypeKind::Tensor { .. } => {
                if !matches!(arg.value, Value::Tensor(_)) {
                    return self.error(
                        "E0216",
                        arg.span,
                        format!(
                            "`{}` is a tensor parameter, but this is a {}",
                            param.name.text,
                            arg.value.type_name()
                        ),
                        "not a tensor",
                    );
                }
                self.check_declared_type(arg.value.clone(), &param.ty, arg.span)
            }
            lang::ast::TypeKind::Named(_) => {
                let value = self.check_declared_type(arg.value.clone(), &param.ty, arg.span);
                if matches!(value, Value::Unknown) {
                    value
                } else {
                    arg.value.clone()
                }
            }
        }
    }
}
