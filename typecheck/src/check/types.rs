//! Declared types: dtype names, and a value checked against the type written for it
//! (`: int`, `: gmem bf16[(m,k):(k,1)]`).

use cute::Dtype;
use lang::ast::{Name, Type, TypeKind};
use lang::{Diagnostic, Span};
use layout::SymInt;

use crate::builtins::methods::wrap_integer;
use crate::check::Checker;
use crate::check::reporting::closest;
use std::sync::Arc;

use crate::trace::{Term, held_dtype};
use crate::value::{IntType, Origin, Value};

impl<'a> Checker<'a> {
    /// The dtype a name spells: a dtype name or a `dtype` const parameter.
    pub(crate) fn resolve_dtype(&mut self, name: &Name) -> Option<Dtype> {
        if let Some(dtype) = Dtype::from_name(&name.text) {
            return Some(dtype);
        }
        let local = (self.lookup_local(&name.text)).map(|local| (local.value.clone(), local.span));
        if let Some((_, definition)) = local {
            self.refer_to_binding(name.span, definition);
        }
        match local.map(|(value, _)| value) {
            Some(Value::Dtype(dtype)) => Some(dtype),
            Some(Value::Unknown) => None,
            Some(other) => {
                self.error(
                    "E0216",
                    name.span,
                    format!("`{}` is a {}, not a dtype", name.text, other.type_name()),
                    "not a dtype",
                );
                None
            }
            None => {
                self.unknown_type(name);
                None
            }
        }
    }

    pub(crate) fn unknown_type(&mut self, name: &Name) -> Value {
        let dtypes: Vec<&str> = Dtype::ALL.iter().map(|dtype| dtype.name()).collect();
        let mut diagnostic = Diagnostic::error("E0201", format!("unknown type `{}`", name.text))
            .with_primary(name.span, "not a dtype or kind")
            .with_note(format!("the dtypes are {}", dtypes.join(", ")));
        if let Some(best) = closest(&name.text, dtypes.iter().copied().chain(["int", "dtype"])) {
            diagnostic = diagnostic.with_help(format!("did you mean `{best}`?"));
        }
        self.report(diagnostic);
        Value::Unknown
    }

    /// Checks `value` against a written type and returns it (or `Unknown` on error).
    pub(crate) fn check_declared_type(&mut self, value: Value, ty: &'a Type, span: Span) -> Value {
        if matches!(value, Value::Unknown) {
            return value;
        }
        let TypeKind::Named(path) = &ty.kind else {
            return match &value {
                Value::Tensor(_) => self.check_tensor_type(value, ty, span),
                _ => self.error(
                    "E0216",
                    span,
                    format!("expected a tensor, found a {}", value.type_name()),
                    "not a tensor",
                ),
            };
        };
        let name = path.segments.last().map_or("", |name| name.text.as_str());
        let matches = match (name, &value) {
            (
                "int",
                Value::Int {
                    ty: IntType::Int, ..
                },
            ) => true,
            ("int", Value::Int { .. }) => true,
            ("dtype", Value::Dtype(_)) => true,
            ("layout", Value::Layout(_) | Value::Composed(_)) => true,
            (name, Value::Int { ty, value: _ })
                if Dtype::from_name(name).is_some_and(Dtype::is_integer) =>
            {
                matches!(ty, IntType::Int)
                    || *ty == IntType::Sized(Dtype::from_name(name).unwrap_or(Dtype::I32))
            }
            (name, Value::Float { dtype, .. })
                if Dtype::from_name(name).is_some_and(Dtype::is_float) =>
            {
                dtype.is_none() || *dtype == Dtype::from_name(name)
            }
            ("bool", Value::Bool(_)) => true,
            _ => {
                if Dtype::from_name(name).is_none() && !matches!(name, "int" | "dtype" | "layout") {
                    if let Some(segment) = path.segments.last() {
                        self.unknown_type(segment);
                    }
                    return Value::Unknown;
                }
                false
            }
        };
        if !matches {
            return self.error(
                "E0216",
                span,
                format!(
                    "expected a value of type `{name}`, found a {}",
                    value.type_name()
                ),
                &format!("this is a {}", value.type_name()),
            );
        }
        match Dtype::from_name(name) {
            Some(dtype) => self.coerce_literal(dtype, value, span),
            None => value,
        }
    }

    /// `value` given the dtype of the place it goes (a typed `let`, an assignment to a
    /// typed local): an `int` literal becomes a `dtype` integer, an untyped float a
    /// `dtype` float, as C converts on assignment. A constant outside the integer type's
    /// range is E0223 (C would wrap it silently). An 8- or 16-bit integer, which C
    /// computes in `int`, is wrapped to its width here, where it is held.
    pub(crate) fn coerce_literal(&mut self, dtype: Dtype, value: Value, span: Span) -> Value {
        match value {
            Value::Int { ty, value }
                if dtype.bits() < 32 && dtype.is_integer() && value.as_constant().is_none() =>
            {
                let origin = self
                    .symbolic_origin(&value)
                    .unwrap_or_else(|| Origin::computed(span));
                let term = Term::Convert(dtype, Arc::new(Term::Int(value, held_dtype(ty))));
                Value::Int {
                    ty: IntType::Sized(dtype),
                    value: self.defined_variable("held", origin, term, span),
                }
            }
            Value::Int { ty, value } if dtype.is_integer() => {
                // A literal (of the `int` kind) must fit; a constant computed in a type
                // is held wrapped to it (an 8-bit one computed in `int`; a u64's above
                // 2^63 is its bits already).
                let value = match (value.as_constant(), dtype.integer_range()) {
                    (Some(constant), Some((low, high)))
                        if !(low..=high).contains(&i128::from(constant)) =>
                    {
                        if ty == IntType::Int {
                            return self.error(
                                "E0223",
                                span,
                                format!("{constant} does not fit in {dtype}"),
                                "out of range",
                            );
                        }
                        SymInt::constant(wrap_integer(i128::from(constant), dtype))
                    }
                    _ => value,
                };
                Value::Int {
                    ty: IntType::Sized(dtype),
                    value,
                }
            }
            Value::Float { value, .. } if dtype.is_float() => Value::Float {
                dtype: Some(dtype),
                value,
            },
            value => value,
        }
    }

    pub(crate) fn check_tensor_type(&mut self, value: Value, ty: &'a Type, span: Span) -> Value {
        let (
            Value::Tensor(tensor),
            TypeKind::Tensor {
                space,
                element,
                layout,
            },
        ) = (&value, &ty.kind)
        else {
            return value;
        };
        if tensor.space != *space {
            return self.error(
                "E0216",
                span,
                format!(
                    "expected a `{}` tensor, found a {}",
                    space.keyword(),
                    tensor.type_name()
                ),
                "wrong memory space",
            );
        }
        if let Some(expected) = self.resolve_dtype(element)
            && tensor.dtype != Some(expected)
        {
            return self.error(
                "E0216",
                span,
                format!(
                    "expected a tensor of {expected}, found a {}",
                    tensor.type_name()
                ),
                "wrong element type",
            );
        }
        if !matches!(layout.kind, lang::ast::ExprKind::Wildcard) {
            let expected = self.eval(layout);
            if let Some(expected) = self.expect_layout(&expected, layout.span)
                && expected.shape() != tensor.shape()
            {
                return self.error(
                    "E0216",
                    span,
                    format!(
                        "expected a tensor of shape {}, found shape {}",
                        expected.shape(),
                        tensor.shape()
                    ),
                    "wrong shape",
                );
            }
        }
        value
    }
}

/// The written name of a type (`int`, `i32`, `sm80::Atom`).
pub(crate) fn type_name(ty: &Type) -> String {
    match &ty.kind {
        TypeKind::Named(path) => path
            .segments
            .iter()
            .map(|segment| segment.text.as_str())
            .collect::<Vec<_>>()
            .join("::"),
        TypeKind::Tensor { space, element, .. } => {
            format!("{} {}[..]", space.keyword(), element.text)
        }
    }
}
