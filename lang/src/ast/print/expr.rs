//! Printing expressions, arguments and names on one line.

use std::fmt::Write;

use super::Printer;
use crate::ast::{Argument, Expr, ExprKind, MemorySpace, Name, Path};

impl Printer {
    pub(super) fn path(&mut self, path: &Path) {
        self.names(&path.segments, "::");
    }

    pub(super) fn names(&mut self, names: &[Name], separator: &str) {
        for (position, name) in names.iter().enumerate() {
            if position > 0 {
                self.out.push_str(separator);
            }
            self.out.push_str(&name.text);
        }
    }

    pub(super) fn expr(&mut self, expr: &Expr) {
        match &expr.kind {
            ExprKind::Int(value) => {
                let _ = write!(self.out, "{value}");
            }
            ExprKind::Float(value) => {
                let _ = write!(self.out, "{value:?}");
            }
            ExprKind::Bool(value) => {
                let _ = write!(self.out, "{value}");
            }
            ExprKind::String(text) => {
                let _ = write!(self.out, "{text:?}");
            }
            ExprKind::Path(path) => self.path(path),
            ExprKind::Wildcard => self.out.push('_'),
            ExprKind::Tuple(elements) => self.list("tuple", elements),
            ExprKind::Layout { shape, stride } => {
                self.out.push_str("(layout ");
                self.expr(shape);
                self.out.push(' ');
                self.expr(stride);
                self.out.push(')');
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let _ = write!(self.out, "({} ", op.symbol());
                self.expr(lhs);
                self.out.push(' ');
                self.expr(rhs);
                self.out.push(')');
            }
            ExprKind::Unary { op, operand } => {
                let _ = write!(self.out, "({} ", op.symbol());
                self.expr(operand);
                self.out.push(')');
            }
            ExprKind::Call { callee, args } => {
                self.out.push_str("(call ");
                self.expr(callee);
                self.arguments(args);
            }
            ExprKind::MethodCall {
                receiver,
                method,
                args,
            } => {
                self.out.push_str("(method ");
                self.expr(receiver);
                let _ = write!(self.out, " {}", method.text);
                self.arguments(args);
            }
            ExprKind::Field { base, field } => {
                self.out.push_str("(. ");
                self.expr(base);
                let _ = write!(self.out, " {})", field.text);
            }
            ExprKind::Index { base, indices } => {
                self.out.push_str("(index ");
                self.expr(base);
                for index in indices {
                    self.out.push(' ');
                    self.expr(index);
                }
                self.out.push(')');
            }
            ExprKind::Alloc {
                space,
                element,
                layout,
            } => self.tensor(*space, element, layout),
        }
    }

    /// A tensor type or allocation: `(space element layout)`.
    pub(super) fn tensor(&mut self, space: MemorySpace, element: &Name, layout: &Expr) {
        let head = format!("{} {}", space.keyword(), element.text);
        self.list(&head, std::slice::from_ref(layout));
    }

    fn list(&mut self, head: &str, elements: &[Expr]) {
        let _ = write!(self.out, "({head}");
        for element in elements {
            self.out.push(' ');
            self.expr(element);
        }
        self.out.push(')');
    }

    fn arguments(&mut self, args: &[Argument]) {
        for arg in args {
            self.out.push(' ');
            match &arg.name {
                Some(name) => {
                    let _ = write!(self.out, "(= {} ", name.text);
                    self.expr(&arg.value);
                    self.out.push(')');
                }
                None => self.expr(&arg.value),
            }
        }
        self.out.push(')');
    }
}
