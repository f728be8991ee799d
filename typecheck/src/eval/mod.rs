//! Expressions: the evaluation of each kind of expression to a [`Value`], and
//! names resolved to locals, items, built-ins and module members.
//!
//! The kinds are split by concern: `expect` (a value required to be an integer, a layout,
//! ...), `arithmetic` and `integers` (operators), `indexing` (fields, indices, slices),
//! `memory` (allocations) and `assign` (assignments and stores).

mod arithmetic;
mod assign;
mod expect;
mod indexing;
mod integers;
pub(crate) mod memory;
mod short_circuit;

use cute::Dtype;
use lang::ast::{Expr, ExprKind, Name};
use lang::{Diagnostic, Span};
use layout::{Layout, SymInt};

use crate::builtins::table::builtin;
use crate::check::reporting::closest;
use crate::check::{Checker, Context};
use crate::value::{IntType, Known, Origin, Value};

pub(crate) fn item_has_name(item: &lang::ast::Item, name: &str) -> bool {
    match &item.kind {
        lang::ast::ItemKind::Atom(atom) => atom.name.text == name,
        lang::ast::ItemKind::Function(function) => function.name.text == name,
        _ => false,
    }
}

/// The hardware's three-dimensional indices and extents, read as `.x`, `.y`, `.z`.
pub(crate) const INDEX3: [&str; 6] = [
    "thread_idx",
    "block_idx",
    "block_dim",
    "grid_dim",
    "block_idx_in_cluster",
    "cluster_idx",
];

/// The hardware's scalar indices.
pub(crate) const INDEX1: [&str; 3] = ["lane_idx", "warp_idx", "block_rank_in_cluster"];

impl<'a> Checker<'a> {
    /// Evaluates an expression (through [`Checker::eval`], which records its type).
    pub(crate) fn eval_untyped(&mut self, expr: &'a Expr) -> Value {
        if !self.spend(expr.span) {
            return Value::Unknown;
        }
        match &expr.kind {
            ExprKind::Int(value) => Value::int(*value),
            ExprKind::Float(value) => Value::Float {
                dtype: None,
                value: Known::Const(*value),
            },
            ExprKind::Bool(value) => Value::Bool(Known::Const(*value)),
            ExprKind::String(text) => Value::Str(text.clone()),
            ExprKind::Wildcard => Value::Wildcard,
            ExprKind::Path(path) => match path.segments.as_slice() {
                [name] => self.resolve_name(name),
                [module, member] => self.module_member(module, member),
                _ => self.error(
                    "E0202",
                    path.span,
                    "a path has at most two parts: `module::item`".to_owned(),
                    "too many `::`",
                ),
            },
            ExprKind::Tuple(items) => {
                Value::Tuple(items.iter().map(|item| self.eval(item)).collect())
            }
            ExprKind::Layout { shape, stride } => self.layout_literal(shape, stride, expr.span),
            ExprKind::Binary { op, lhs, rhs } => {
                let left = self.eval(lhs);
                let right = self.eval_short_circuit(*op, &left, rhs);
                self.binary(*op, left, right, lhs.span, rhs.span, expr.span)
            }
            ExprKind::Unary { op, operand } => {
                let value = self.eval(operand);
                self.unary(*op, value, expr.span)
            }
            ExprKind::Call { callee, args } => self.call(callee, args, expr.span),
            ExprKind::MethodCall {
                receiver,
                method,
                args,
            } => {
                let receiver_value = self.eval(receiver);
                self.method_call(receiver_value, receiver.span, method, args, expr.span)
            }
            ExprKind::Field { base, field } => {
                let value = self.eval(base);
                self.field(value, field)
            }
            ExprKind::Index { base, indices } => {
                let value = self.eval(base);
                let coordinate = self.index_coordinate(indices);
                self.index(value, coordinate, base.span, expr.span)
            }
            ExprKind::Alloc {
                space,
                element,
                layout,
            } => self.alloc(*space, element, layout, expr.span),
        }
    }

    pub(crate) fn resolve_name(&mut self, name: &Name) -> Value {
        if let Some(local) = self.lookup_local(&name.text) {
            let (value, definition) = (local.value.clone(), local.span);
            self.refer_to_binding(name.span, definition);
            return value;
        }
        if let Some(value) = self.global(self.names.current_module, name) {
            return value;
        }
        if let Some(dtype) = Dtype::from_name(&name.text) {
            return Value::Dtype(dtype);
        }
        if let Some(arch) = name
            .text
            .strip_prefix("sm")
            .and_then(|digits| digits.parse::<u32>().ok())
            && self.frame.context == Context::Const
        {
            return Value::Arch(arch);
        }
        if name.text == "inf" {
            return Value::Float {
                dtype: None,
                value: Known::Const(f64::INFINITY),
            };
        }
        let index1 = INDEX1.into_iter().find(|builtin| *builtin == name.text);
        let index3 = INDEX3.into_iter().find(|builtin| *builtin == name.text);
        if let Some(index) = index1.or(index3)
            && self.frame.context != Context::Device
        {
            return self.error(
                "E0220",
                name.span,
                format!("`{index}` exists only in device code (kernels and device functions)"),
                "not available here",
            );
        }
        if let Some(index) = index1 {
            let reason = match index {
                "lane_idx" => "`lane_idx` is the thread's lane in its warp",
                "warp_idx" => "`warp_idx` is the warp's index in its block",
                _ => {
                    if !self.require_arch(index, 90, name.span) {
                        return Value::Unknown;
                    }
                    "`block_rank_in_cluster` is the block's rank in its cluster"
                }
            };
            let origin = Origin {
                reason: reason.to_owned(),
                span: None,
                term: None,
            };
            self.origins.insert(index.to_owned(), origin);
            self.refer_to_builtin(name.span, index);
            return Value::Int {
                ty: IntType::Sized(Dtype::I32),
                value: SymInt::variable(index),
            };
        }
        if let Some(index) = index3 {
            if index.contains("cluster") && !self.require_arch(index, 90, name.span) {
                return Value::Unknown;
            }
            self.refer_to_builtin(name.span, index);
            return Value::Index3(index);
        }
        if let Some(builtin) = builtin(&name.text) {
            self.refer_to_builtin(name.span, builtin.name);
            return Value::Callable(crate::callee::Callee::Builtin(builtin));
        }
        let names = self.visible_names();
        let mut diagnostic = Diagnostic::error(
            "E0201",
            format!("cannot find `{}` in this scope", name.text),
        )
        .with_primary(name.span, "not found");
        if let Some(help) = crate::cute_names::help(&name.text) {
            diagnostic = diagnostic.with_help(help);
        } else if let Some(best) = closest(&name.text, names.iter().map(String::as_str)) {
            diagnostic = diagnostic.with_help(format!("did you mean `{best}`?"));
        } else if crate::stdlib::modules().iter().any(|module| {
            module
                .module
                .items
                .iter()
                .any(|item| item_has_name(item, &name.text))
        }) {
            let module = crate::stdlib::modules()
                .iter()
                .find(|module| {
                    module
                        .module
                        .items
                        .iter()
                        .any(|item| item_has_name(item, &name.text))
                })
                .map_or("", |module| module.name);
            diagnostic = diagnostic.with_help(format!(
                "it is in the stdlib: add `use {module}::{};`",
                name.text
            ));
        }
        self.report(diagnostic);
        Value::Unknown
    }

    pub(crate) fn layout_literal(
        &mut self,
        shape: &'a Expr,
        stride: &'a Expr,
        span: Span,
    ) -> Value {
        let shape_value = self.eval(shape);
        let stride_value = self.eval(stride);
        let Some(shape_tuple) = self.int_tuple(&shape_value, shape.span, "a layout's shape") else {
            return Value::Unknown;
        };
        let Some(stride_tuple) = self.int_tuple(&stride_value, stride.span, "a layout's stride")
        else {
            return Value::Unknown;
        };
        match Layout::new(shape_tuple, stride_tuple) {
            Ok(layout) => Value::Layout(layout),
            Err(error) => self.layout_error(span, "this layout", &error),
        }
    }
}
