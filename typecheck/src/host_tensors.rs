//! A host tensor given to a kernel's tensor parameter in a test or bench: its element
//! type and its shape against the parameter's, each an E0216 at the argument.
//!
//! The parameter's type is read in the kernel's signature with the launch's const
//! arguments, or the defaults of those it leaves out, and its integer arguments
//! bound: `q: gmem T[(heads, s, D):(s * D, D, 1)]` with `T` defaulting to bf16 wants a
//! bf16 tensor of shape (heads, s, D) for the `heads` and `s` passed.

use cute::Dtype;
use lang::Diagnostic;
use lang::ast::{Expr, ExprKind, Kernel, Name, Param};
use layout::IntTuple;

use crate::builtins::Arg;
use crate::builtins::operands::static_tuple;
use crate::check::{Checker, Context, Local};
use crate::value::Value;

/// A host tensor passed for a parameter.
pub(crate) struct HostTensor<'p> {
    pub(crate) param: &'p Param,
    pub(crate) arg: &'p Arg,
    pub(crate) dtype: Dtype,
    pub(crate) shape: &'p [Option<i64>],
}

/// The launch's integer arguments bound so far, and its const arguments, by name.
type Arguments<'l> = (&'l [(String, Value)], &'l [(String, Value)]);

impl<'a> Checker<'a> {
    /// Checks `tensor` against its parameter, whose type is `element` and `layout`.
    pub(crate) fn check_host_tensor(
        &mut self,
        kernel: &'a Kernel,
        arguments: Arguments<'_>,
        element: &Name,
        layout: &'a Expr,
        tensor: HostTensor<'_>,
    ) {
        let (expected_dtype, expected_shape) = self.in_signature(kernel, arguments, |checker| {
            let dtype = match checker.scopes[0].get(&element.text) {
                Some(Local {
                    value: Value::Dtype(dtype),
                    ..
                }) => Some(*dtype),
                _ => Dtype::from_name(&element.text),
            };
            let shape = match &layout.kind {
                ExprKind::Wildcard => None,
                _ => match checker.eval_quiet(layout) {
                    Value::Layout(layout) => static_tuple(layout.shape()),
                    _ => None,
                },
            };
            (dtype, shape)
        });
        let HostTensor {
            param,
            arg,
            dtype,
            shape,
        } = tensor;
        if let Some(expected) = expected_dtype.filter(|expected| *expected != dtype) {
            self.report(
                Diagnostic::error(
                    "E0216",
                    format!(
                        "`{}` holds {expected}, but this tensor holds {dtype}",
                        param.name.text
                    ),
                )
                .with_primary(arg.span, format!("{dtype} tensor"))
                .with_secondary(param.span, "parameter declared here"),
            );
        }
        let Some(expected) = expected_shape else {
            return;
        };
        let expected: Vec<i64> = match &expected {
            IntTuple::Int(extent) => vec![*extent],
            IntTuple::Tuple(items) => items
                .iter()
                .map(|item| item.product().unwrap_or(0))
                .collect(),
        };
        let matches = expected.len() == shape.len()
            && expected
                .iter()
                .zip(shape)
                .all(|(want, have)| have.is_none_or(|have| have == *want));
        if !matches {
            let wanted = format!(
                "({})",
                expected
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            self.report(
                Diagnostic::error(
                    "E0216",
                    format!(
                        "`{}` needs a tensor of shape {wanted} with these arguments, but this one has shape {}",
                        param.name.text,
                        shape_text(shape)
                    ),
                )
                .with_primary(arg.span, format!("shape {}", shape_text(shape)))
                .with_secondary(param.span, "the parameter's layout"),
            );
        }
    }

    /// Runs `body` in the scope of `kernel`'s signature at this launch: each const
    /// parameter its argument or else its default, each integer parameter bound so far
    /// its argument.
    fn in_signature<T>(
        &mut self,
        kernel: &'a Kernel,
        (bound, consts): Arguments<'_>,
        body: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let frame = self.frame_for(Context::Const, "signature".to_owned());
        let (result, _) = self.isolated(0, frame, |checker| {
            for generic in &kernel.generics {
                let value = consts
                    .iter()
                    .find(|(name, _)| *name == generic.name.text)
                    .map(|(_, value)| value.clone())
                    .or_else(|| {
                        generic
                            .default
                            .as_ref()
                            .map(|default| checker.eval_quiet(default))
                    })
                    .unwrap_or(Value::Unknown);
                let local = Local {
                    value,
                    mutable: false,
                    span: generic.name.span,
                    cell: None,
                };
                checker.scopes[0].insert(generic.name.text.clone(), local);
            }
            for (name, value) in bound {
                let local = Local {
                    value: value.clone(),
                    mutable: false,
                    span: kernel.name.span,
                    cell: None,
                };
                checker.scopes[0].insert(name.clone(), local);
            }
            body(checker)
        });
        result
    }
}

/// A shape as text, `?` for an extent not known: `(2, ?, 128)`.
pub(crate) fn shape_text(shape: &[Option<i64>]) -> String {
    let extents: Vec<String> = shape
        .iter()
        .map(|extent| extent.map_or("?".to_owned(), |extent| extent.to_string()))
        .collect();
    format!("({})", extents.join(", "))
}
