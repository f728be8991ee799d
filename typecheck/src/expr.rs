//! Expressions: literals, names, operators, indexing, fields and allocations.

use std::rc::Rc;

use lang::ast::{AssignOp, BinaryOp, Expr, ExprKind, MemorySpace, Name, UnaryOp};
use lang::{Diagnostic, Span};
use layout::{Coord, Int, IntTuple, Layout, LayoutError, SymInt};

use crate::check::{Checker, Context, closest};
use crate::dtype::Dtype;
use crate::trace::{Base, Effect, Term, term_dtype, term_of, with_term};
use crate::value::{Codomain, IntType, Known, Origin, Tensor, TensorLayout, Value};

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
                let right = self.eval(rhs);
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

    fn resolve_name(&mut self, name: &Name) -> Value {
        if let Some(local) = self.lookup_local(&name.text) {
            return local.value.clone();
        }
        if let Some(value) = self.global(self.current_module, name) {
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
        if let Some(index) = ["thread_idx", "block_idx", "block_dim", "grid_dim"]
            .into_iter()
            .find(|builtin| *builtin == name.text)
        {
            if self.frame.context != Context::Device {
                return self.error(
                    "E0220",
                    name.span,
                    format!("`{index}` exists only in device code (kernels and device functions)"),
                    "not available here",
                );
            }
            return Value::Index3(index);
        }
        if let Some(builtin) = crate::builtins::builtin(&name.text) {
            return Value::Callable(crate::atom::Callee::Builtin(builtin));
        }
        let names = self.visible_names();
        let mut diagnostic = Diagnostic::error(
            "E0201",
            format!("cannot find `{}` in this scope", name.text),
        )
        .with_primary(name.span, "not found");
        if let Some(best) = closest(&name.text, names.iter().map(String::as_str)) {
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

    fn layout_literal(&mut self, shape: &'a Expr, stride: &'a Expr, span: Span) -> Value {
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

    /// An int-tuple from a value: an integer or a tuple of them.
    pub(crate) fn int_tuple(
        &mut self,
        value: &Value,
        span: Span,
        what: &str,
    ) -> Option<IntTuple<SymInt>> {
        if matches!(value, Value::Unknown) {
            return None;
        }
        if let Some(tuple) = value.as_int_tuple() {
            return Some(tuple);
        }
        if contains_unknown(value) {
            return None;
        }
        self.error(
            "E0216",
            span,
            format!(
                "{what} is an integer or a tuple of integers, not a {}",
                value.type_name()
            ),
            &format!("this is a {}", value.type_name()),
        );
        None
    }

    /// The integer in `value`, reporting a type error otherwise.
    pub(crate) fn expect_int(&mut self, value: &Value, span: Span, what: &str) -> Option<SymInt> {
        match value {
            Value::Int { value, .. } => Some(value.clone()),
            Value::Unknown => None,
            other => {
                self.error(
                    "E0216",
                    span,
                    format!("{what} must be an integer, not a {}", other.type_name()),
                    &format!("this is a {}", other.type_name()),
                );
                None
            }
        }
    }

    /// A const integer, reporting a type error or a stage error otherwise.
    pub(crate) fn expect_const_int(
        &mut self,
        value: &Value,
        span: Span,
        what: &str,
    ) -> Option<i64> {
        let integer = self.expect_int(value, span, what)?;
        match self.symbolic_origin(&integer) {
            Some(origin) => {
                self.require_const_failed(what, span, &origin);
                None
            }
            None => integer.as_constant(),
        }
    }

    pub(crate) fn expect_bool(&mut self, value: &Value, span: Span, what: &str) {
        if !matches!(value, Value::Bool(_) | Value::Unknown) {
            self.error(
                "E0216",
                span,
                format!("{what} must be a bool, not a {}", value.type_name()),
                &format!("this is a {}", value.type_name()),
            );
        }
    }

    /// The layout in `value` (a layout, or a tensor's layout).
    pub(crate) fn expect_layout(&mut self, value: &Value, span: Span) -> Option<Layout<SymInt>> {
        match value {
            Value::Layout(layout) => Some(layout.clone()),
            Value::Unknown => None,
            other => {
                self.error(
                    "E0216",
                    span,
                    format!("expected a layout, found a {}", other.type_name()),
                    &format!("this is a {}", other.type_name()),
                );
                None
            }
        }
    }

    /// Reports a failed layout operation at `span` and returns `Unknown`.
    pub(crate) fn layout_error(&mut self, span: Span, what: &str, error: &LayoutError) -> Value {
        let code = match error {
            LayoutError::Overflow { .. } | LayoutError::DivisionByZero { .. } => "E0223",
            LayoutError::CoordinateOutOfRange { .. } => "E0208",
            LayoutError::TooManyTerms { .. } => "E0222",
            _ => "E0205",
        };
        self.error(
            code,
            span,
            format!("{what} is not valid: {error}"),
            "rejected here",
        )
    }

    /// Joins two integer types: `int` adapts to a sized type; two different sized
    /// types are an error.
    pub(crate) fn unify_int_types(
        &mut self,
        left: IntType,
        right: IntType,
        span: Span,
    ) -> Option<IntType> {
        match (left, right) {
            (IntType::Int, other) | (other, IntType::Int) => Some(other),
            (IntType::Sized(a), IntType::Sized(b)) if a == b => Some(left),
            (IntType::Sized(a), IntType::Sized(b)) => {
                self.report(
                    Diagnostic::error(
                        "E0214",
                        format!("this mixes {a} and {b} without a conversion"),
                    )
                    .with_primary(span, format!("{a} and {b}"))
                    .with_help(format!(
                        "convert one side first, for example with `.to({a})`"
                    )),
                );
                None
            }
        }
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        left: Value,
        right: Value,
        left_span: Span,
        right_span: Span,
        span: Span,
    ) -> Value {
        if !self.tracing_kernel() {
            return self.binary_value(op, left, right, left_span, right_span, span);
        }
        let operands = (term_of(&left), term_of(&right));
        let dtype = term_dtype(&left).or_else(|| term_dtype(&right));
        let result = self.binary_value(op, left, right, left_span, right_span, span);
        let term = match (operands, dtype) {
            ((Some(left), Some(right)), Some(dtype)) => Some(Term::Binary {
                op,
                dtype,
                left,
                right,
            }),
            _ => None,
        };
        with_term(result, term)
    }

    fn binary_value(
        &mut self,
        op: BinaryOp,
        left: Value,
        right: Value,
        left_span: Span,
        right_span: Span,
        span: Span,
    ) -> Value {
        use BinaryOp as B;
        match (&left, &right) {
            (Value::Unknown, _) | (_, Value::Unknown) => return Value::Unknown,
            _ => {}
        }
        match op {
            B::And | B::Or => {
                self.expect_bool(&left, left_span, "an operand of `&&` and `||`");
                self.expect_bool(&right, right_span, "an operand of `&&` and `||`");
                match (&left, &right) {
                    (Value::Bool(Known::Const(a)), Value::Bool(Known::Const(b))) => {
                        Value::Bool(Known::Const(if op == B::And { *a && *b } else { *a || *b }))
                    }
                    (Value::Bool(_), Value::Bool(_)) => {
                        Value::Bool(Known::Dyn(self.first_origin(&[&left, &right], span)))
                    }
                    _ => Value::Unknown,
                }
            }
            B::Equal | B::NotEqual | B::Less | B::LessEqual | B::Greater | B::GreaterEqual => {
                self.compare(op, &left, &right, span)
            }
            _ => self.arithmetic(op, left, right, span),
        }
    }

    fn first_origin(&self, values: &[&Value], span: Span) -> Origin {
        values
            .iter()
            .find_map(|value| self.dyn_origin(value))
            .unwrap_or(Origin {
                reason: "it is computed on the GPU".to_owned(),
                span: Some(span),
                term: None,
            })
    }

    fn compare(&mut self, op: BinaryOp, left: &Value, right: &Value, span: Span) -> Value {
        use BinaryOp as B;
        let ordering_only = !matches!(op, B::Equal | B::NotEqual);
        let result = match (left, right) {
            (Value::Int { ty: a, value: x }, Value::Int { ty: b, value: y }) => {
                self.unify_int_types(*a, *b, span);
                match (x.as_constant(), y.as_constant()) {
                    (Some(x), Some(y)) => Some(compare_ordered(op, x.cmp(&y))),
                    _ => None,
                }
            }
            (Value::Float { dtype: a, value: x }, Value::Float { dtype: b, value: y }) => {
                self.unify_float_types(*a, *b, span);
                match (x.as_const(), y.as_const()) {
                    (Some(x), Some(y)) => x
                        .partial_cmp(&y)
                        .map(|ordering| compare_ordered(op, ordering)),
                    _ => None,
                }
            }
            (Value::Bool(x), Value::Bool(y)) if !ordering_only => {
                match (x.as_const(), y.as_const()) {
                    (Some(x), Some(y)) => Some((x == y) == (op == B::Equal)),
                    _ => None,
                }
            }
            (Value::Dtype(x), Value::Dtype(y)) if !ordering_only => {
                Some((x == y) == (op == B::Equal))
            }
            _ => {
                return self.error(
                    "E0216",
                    span,
                    format!(
                        "`{}` cannot compare a {} with a {}",
                        op.symbol(),
                        left.type_name(),
                        right.type_name()
                    ),
                    "incomparable operands",
                );
            }
        };
        match result {
            Some(result) => Value::Bool(Known::Const(result)),
            None => Value::Bool(Known::Dyn(self.first_origin(&[left, right], span))),
        }
    }

    pub(crate) fn unify_float_types(
        &mut self,
        left: Option<Dtype>,
        right: Option<Dtype>,
        span: Span,
    ) -> Option<Dtype> {
        match (left, right) {
            (None, other) | (other, None) => other,
            (Some(a), Some(b)) if a == b => Some(a),
            (Some(a), Some(b)) => {
                self.report(
                    Diagnostic::error(
                        "E0214",
                        format!("this mixes {a} and {b} without a conversion"),
                    )
                    .with_primary(span, format!("{a} and {b}"))
                    .with_help(format!(
                        "convert one side first, for example with `.to({a})`"
                    )),
                );
                None
            }
        }
    }

    fn arithmetic(&mut self, op: BinaryOp, left: Value, right: Value, span: Span) -> Value {
        use BinaryOp as B;
        match (&left, &right) {
            (Value::Int { ty: a, value: x }, Value::Int { ty: b, value: y }) => {
                let ty = self.unify_int_types(*a, *b, span).unwrap_or(*a);
                self.integer_arithmetic(op, ty, x, y, span)
            }
            (Value::Float { .. } | Value::Int { .. }, Value::Float { .. } | Value::Int { .. })
                if matches!(op, B::Add | B::Subtract | B::Multiply | B::Divide) =>
            {
                let (Some((a, x)), Some((b, y))) =
                    (self.as_float(&left, span), self.as_float(&right, span))
                else {
                    return Value::Unknown;
                };
                let dtype = self.unify_float_types(a, b, span);
                let value = match (x, y) {
                    (Known::Const(x), Known::Const(y)) => Known::Const(match op {
                        B::Add => x + y,
                        B::Subtract => x - y,
                        B::Multiply => x * y,
                        _ => x / y,
                    }),
                    _ => Known::Dyn(self.first_origin(&[&left, &right], span)),
                };
                Value::Float { dtype, value }
            }
            (Value::Vector { .. } | Value::HostTensor { .. }, _)
            | (_, Value::Vector { .. } | Value::HostTensor { .. }) => {
                self.elementwise(op, &left, &right, span)
            }
            (Value::Tuple(_), Value::Tuple(_))
            | (Value::Tuple(_), Value::Int { .. })
            | (Value::Int { .. }, Value::Tuple(_))
                if left.as_int_tuple().is_some() && right.as_int_tuple().is_some() =>
            {
                self.tuple_arithmetic(op, &left, &right, span)
            }
            _ => self.error(
                "E0216",
                span,
                format!(
                    "`{}` does not apply to a {} and a {}",
                    op.symbol(),
                    left.type_name(),
                    right.type_name()
                ),
                "unsupported operands",
            ),
        }
    }

    /// A number as a float: floats, and `int`-kind integers (which adapt). A sized
    /// integer mixed with a float needs a conversion.
    fn as_float(&mut self, value: &Value, span: Span) -> Option<(Option<Dtype>, Known<f64>)> {
        match value {
            Value::Float { dtype, value } => Some((*dtype, value.clone())),
            Value::Int {
                ty: IntType::Int,
                value,
            } => {
                #[allow(clippy::cast_precision_loss)]
                let known = match value.as_constant() {
                    Some(constant) => Known::Const(constant as f64),
                    None => Known::Dyn(self.symbolic_origin(value).unwrap_or(Origin {
                        reason: "it is computed on the GPU".to_owned(),
                        span: Some(span),
                        term: None,
                    })),
                };
                Some((None, known))
            }
            Value::Int {
                ty: IntType::Sized(dtype),
                ..
            } => {
                self.report(
                    Diagnostic::error(
                        "E0214",
                        format!("this mixes {dtype} with a float without a conversion"),
                    )
                    .with_primary(span, format!("{dtype} and a float"))
                    .with_help("convert the integer first, for example with `.to(f32)`"),
                );
                None
            }
            _ => None,
        }
    }

    fn integer_arithmetic(
        &mut self,
        op: BinaryOp,
        ty: IntType,
        x: &SymInt,
        y: &SymInt,
        span: Span,
    ) -> Value {
        use BinaryOp as B;
        let folded: Option<Result<SymInt, LayoutError>> = match op {
            B::Add => Some(x.add(y)),
            B::Subtract => Some(x.sub(y)),
            B::Multiply => Some(x.mul(y)),
            B::Divide => Some(Int::div(x, y)),
            B::Remainder => Some(Int::rem(x, y)),
            _ => match (x.as_constant(), y.as_constant()) {
                (Some(a), Some(b)) => Some(bitwise(op, a, b)),
                _ => None,
            },
        };
        match folded {
            Some(Ok(value)) => {
                if let (IntType::Sized(dtype), Some(constant)) = (ty, value.as_constant())
                    && let Some((low, high)) = dtype.integer_range()
                    && !(low..=high).contains(&i128::from(constant))
                {
                    return self.error(
                        "E0223",
                        span,
                        format!("{constant} does not fit in {dtype}"),
                        "overflows",
                    );
                }
                Value::Int { ty, value }
            }
            Some(Err(error @ LayoutError::TooManyTerms { .. })) => self.error(
                "E0222",
                span,
                format!("this arithmetic is too large to track while compiling: {error}"),
                "expands too far",
            ),
            Some(Err(error)) => self.error(
                "E0223",
                span,
                format!("this arithmetic fails: {error}"),
                "fails",
            ),
            None => {
                let origin = self
                    .symbolic_origin(x)
                    .or_else(|| self.symbolic_origin(y))
                    .unwrap_or(Origin {
                        reason: "it is computed on the GPU".to_owned(),
                        span: Some(span),
                        term: None,
                    });
                Value::Int {
                    ty,
                    value: self.fresh_variable(&format!("({x}{}{y})", op.symbol()), origin),
                }
            }
        }
    }

    fn tuple_arithmetic(&mut self, op: BinaryOp, left: &Value, right: &Value, span: Span) -> Value {
        let (Some(x), Some(y)) = (left.as_int_tuple(), right.as_int_tuple()) else {
            return Value::Unknown;
        };
        let operation: fn(&SymInt, &SymInt) -> Result<SymInt, LayoutError> = match op {
            BinaryOp::Add => |a, b| a.add(b),
            BinaryOp::Subtract => |a, b| a.sub(b),
            BinaryOp::Multiply => |a, b| a.mul(b),
            _ => {
                return self.error(
                    "E0216",
                    span,
                    format!(
                        "`{}` does not apply to int-tuples; use shape_div or ceil_div",
                        op.symbol()
                    ),
                    "unsupported on tuples",
                );
            }
        };
        let result = zip_tuples(&x, &y, operation);
        match result {
            Ok(tuple) => Value::from_int_tuple(&tuple),
            Err(error) => self.layout_error(span, "this tuple arithmetic", &error),
        }
    }

    fn unary(&mut self, op: UnaryOp, value: Value, span: Span) -> Value {
        if !self.tracing_kernel() {
            return self.unary_value(op, value, span);
        }
        let term = term_of(&value).map(|operand| Term::Unary(op, operand));
        let result = self.unary_value(op, value, span);
        with_term(result, term)
    }

    fn unary_value(&mut self, op: UnaryOp, value: Value, span: Span) -> Value {
        match (op, value) {
            (_, Value::Unknown) => Value::Unknown,
            (UnaryOp::Negate, Value::Int { ty, value }) => match value.mul(&SymInt::constant(-1)) {
                Ok(value) => Value::Int { ty, value },
                Err(error) => self.error(
                    "E0223",
                    span,
                    format!("this negation fails: {error}"),
                    "fails",
                ),
            },
            (UnaryOp::Negate, Value::Float { dtype, value }) => Value::Float {
                dtype,
                value: match value {
                    Known::Const(value) => Known::Const(-value),
                    dynamic => dynamic,
                },
            },
            (UnaryOp::Negate, value @ (Value::Vector { .. } | Value::HostTensor { .. })) => value,
            (UnaryOp::Not, Value::Bool(known)) => Value::Bool(match known {
                Known::Const(value) => Known::Const(!value),
                dynamic => dynamic,
            }),
            (op, value) => self.error(
                "E0216",
                span,
                format!(
                    "unary `{}` does not apply to a {}",
                    op.symbol(),
                    value.type_name()
                ),
                "unsupported operand",
            ),
        }
    }

    fn field(&mut self, value: Value, field: &Name) -> Value {
        match (&value, field.text.as_str()) {
            (Value::Unknown, _) => Value::Unknown,
            (Value::Index3(base), axis @ ("x" | "y" | "z")) => {
                let name = format!("{base}.{axis}");
                let reason = match *base {
                    "thread_idx" => format!("`{name}` is the thread's index in its block"),
                    "block_idx" => format!("`{name}` is the block's index in the grid"),
                    _ => format!("`{name}` is set at launch"),
                };
                let origin = Origin { reason, span: None, term: None };
                self.origins.insert(name.clone(), origin);
                Value::Int {
                    ty: IntType::Sized(Dtype::I32),
                    value: SymInt::variable(&name),
                }
            }
            (Value::Tensor(tensor), "layout") => match &tensor.layout.codomain {
                Codomain::Offsets | Codomain::Swizzled(_) => Value::Layout(tensor.layout.layout.clone()),
                Codomain::Coordinates(_) => self.error(
                    "E0217",
                    field.span,
                    "a coordinate tensor's layout has basis strides, which have no value of their own".to_owned(),
                    "no plain layout",
                ),
            },
            (Value::Tensor(tensor), "iterator" | "ptr") => Value::Pointer(tensor.clone()),
            (Value::Tensor(tensor), "shape") => Value::from_int_tuple(tensor.shape()),
            (Value::Layout(layout), "shape") => Value::from_int_tuple(layout.shape()),
            (Value::Layout(layout), "stride") => Value::from_int_tuple(layout.stride()),
            _ => {
                let fields: &[&str] = match &value {
                    Value::Index3(_) => &["x", "y", "z"],
                    Value::Tensor(_) => &["layout", "iterator", "ptr", "shape"],
                    Value::Layout(_) => &["shape", "stride"],
                    _ => &[],
                };
                let mut diagnostic = Diagnostic::error(
                    "E0217",
                    format!("a {} has no field `{}`", value.type_name(), field.text),
                )
                .with_primary(field.span, "unknown field");
                if let Some(best) = closest(&field.text, fields.iter().copied()) {
                    diagnostic = diagnostic.with_help(format!("did you mean `{best}`?"));
                } else if !fields.is_empty() {
                    diagnostic = diagnostic.with_note(format!("its fields are {}", fields.join(", ")));
                }
                self.report(diagnostic);
                Value::Unknown
            }
        }
    }

    /// The coordinate written between brackets: one index is itself, several are a tuple.
    fn index_coordinate(&mut self, indices: &'a [Expr]) -> (Value, Span) {
        let span = match (indices.first(), indices.last()) {
            (Some(first), Some(last)) => first.span.cover(last.span),
            _ => Span::empty(0),
        };
        match indices {
            [single] => (self.eval(single), span),
            _ => (
                Value::Tuple(indices.iter().map(|index| self.eval(index)).collect()),
                span,
            ),
        }
    }

    /// `base[coordinate]`: an element, or a slice when the coordinate has `_`.
    pub(crate) fn index(
        &mut self,
        base: Value,
        (coordinate, coordinate_span): (Value, Span),
        base_span: Span,
        span: Span,
    ) -> Value {
        let Some(coord) = self.coordinate(&coordinate, coordinate_span) else {
            return Value::Unknown;
        };
        match base {
            Value::Unknown => Value::Unknown,
            Value::Tensor(tensor) => self.index_tensor(&tensor, &coord, coordinate_span, span),
            Value::HostTensor { .. } => self.error(
                "E0220",
                span,
                "host tensors are compared with assert_close, not indexed".to_owned(),
                "not indexable on the host",
            ),
            other => self.error(
                "E0216",
                base_span,
                format!(
                    "a {} cannot be indexed; only tensors can",
                    other.type_name()
                ),
                "not a tensor",
            ),
        }
    }

    /// A coordinate from a value: integers, `_` and tuples of them.
    pub(crate) fn coordinate(&mut self, value: &Value, span: Span) -> Option<Coord<SymInt>> {
        match value {
            Value::Int { value, .. } => Some(Coord::Int(value.clone())),
            Value::Wildcard => Some(Coord::Free),
            Value::Tuple(items) => items
                .iter()
                .map(|item| self.coordinate(item, span))
                .collect::<Option<Vec<_>>>()
                .map(Coord::Tuple),
            Value::Unknown => None,
            other => {
                self.error(
                    "E0216",
                    span,
                    format!(
                        "a coordinate is made of integers and `_`, not a {}",
                        other.type_name()
                    ),
                    "not a coordinate",
                );
                None
            }
        }
    }

    fn index_tensor(
        &mut self,
        tensor: &Rc<Tensor>,
        coord: &Coord<SymInt>,
        coordinate_span: Span,
        span: Span,
    ) -> Value {
        let shape = tensor.shape().clone();
        if !self.check_coordinate(coord, &shape, coordinate_span) {
            return Value::Unknown;
        }
        let layout = &tensor.layout.layout;
        if coord.has_free() {
            let (sliced, offset) = match layout.slice(coord) {
                Ok(result) => result,
                Err(error) => return self.layout_error(span, "this slice", &error),
            };
            return match tensor.layout.offset.add(&offset) {
                Ok(offset) => Value::Tensor(Rc::new(Tensor {
                    layout: TensorLayout {
                        layout: sliced,
                        offset,
                        codomain: tensor.layout.codomain.clone(),
                    },
                    ..(**tensor).clone()
                })),
                Err(error) => self.layout_error(span, "this slice", &error),
            };
        }
        let index = coord.with_free_as_zero();
        let value = match layout
            .evaluate(&index)
            .and_then(|value| value.add(&tensor.layout.offset))
        {
            Ok(value) => value,
            Err(error) => return self.layout_error(span, "this element access", &error),
        };
        match (&tensor.layout.codomain, tensor.dtype) {
            (Codomain::Coordinates(identity), _) => match identity.coordinate_of(&value) {
                Ok(coordinate) => Value::from_int_tuple(&coordinate),
                Err(error) => self.layout_error(span, "this coordinate access", &error),
            },
            (_, Some(dtype)) => {
                let loaded = self.element_value(dtype, span);
                if !self.tracing_kernel() {
                    return loaded;
                }
                with_term(
                    loaded,
                    Some(Term::Element {
                        tensor: tensor.clone(),
                        index: value,
                    }),
                )
            }
            (_, None) => Value::Unknown,
        }
    }

    /// A value loaded from memory: dyn, of the element type.
    pub(crate) fn element_value(&mut self, dtype: Dtype, span: Span) -> Value {
        let origin = Origin {
            reason: "it is loaded from memory".to_owned(),
            span: Some(span),
            term: None,
        };
        if dtype == Dtype::Bool {
            Value::Bool(Known::Dyn(origin))
        } else if dtype.is_integer() {
            Value::Int {
                ty: IntType::Sized(dtype),
                value: self.fresh_variable("loaded", origin),
            }
        } else {
            Value::Float {
                dtype: Some(dtype),
                value: Known::Dyn(origin),
            }
        }
    }

    /// Checks a coordinate against a shape: its rank (E0209) and, where both are
    /// const, its range (E0208). A single integer is a 1-D index over the whole shape.
    pub(crate) fn check_coordinate(
        &mut self,
        coord: &Coord<SymInt>,
        shape: &IntTuple<SymInt>,
        span: Span,
    ) -> bool {
        match (coord, shape) {
            (Coord::Free, _) => true,
            (Coord::Int(index), _) => {
                let size = shape.product().ok().and_then(|size| size.as_constant());
                if let (Some(index), Some(size)) = (index.as_constant(), size)
                    && !(0..size).contains(&index)
                {
                    self.error(
                        "E0208",
                        span,
                        format!(
                            "index {index} is out of range for shape {shape} ({size} elements)"
                        ),
                        &format!("must be in 0..{size}"),
                    );
                    return false;
                }
                true
            }
            (Coord::Tuple(items), IntTuple::Tuple(modes)) if items.len() == modes.len() => items
                .iter()
                .zip(modes)
                .all(|(item, mode)| self.check_coordinate(item, mode, span)),
            (Coord::Tuple(items), _) => {
                let rank = match shape {
                    IntTuple::Int(_) => 1,
                    IntTuple::Tuple(modes) => modes.len(),
                };
                self.report(
                    Diagnostic::error(
                        "E0209",
                        format!("a coordinate of rank {} does not fit shape {shape} of rank {rank}", items.len()),
                    )
                    .with_primary(span, format!("{} coordinates", items.len()))
                    .with_help(format!(
                        "give {rank} coordinate(s), one per mode, or a single index over all {} elements",
                        shape.product().map_or("?".to_owned(), |size| size.to_string())
                    )),
                );
                false
            }
        }
    }

    fn alloc(
        &mut self,
        space: MemorySpace,
        element: &Name,
        layout_expr: &'a Expr,
        span: Span,
    ) -> Value {
        let Some(dtype) = self.resolve_dtype(element) else {
            self.eval(layout_expr);
            return Value::Unknown;
        };
        if self.frame.context != Context::Device {
            self.eval(layout_expr);
            return self.error(
                "E0220",
                span,
                format!("`{}` memory is allocated in device code; tests create tensors with randn, zeros, empty, ...", space.keyword()),
                "not in device code",
            );
        }
        let what = match space {
            MemorySpace::Global => {
                self.eval(layout_expr);
                return self.error(
                    "E0216",
                    span,
                    "global memory is not allocated in a kernel; pass it as a tensor parameter"
                        .to_owned(),
                    "cannot allocate gmem here",
                );
            }
            MemorySpace::Shared => "a shared-memory layout",
            MemorySpace::Register => "a register layout",
            MemorySpace::Tensor => "a tensor-memory layout",
        };
        let value = self.eval(layout_expr);
        let (layout, codomain, cosize) = match value {
            Value::Unknown => return Value::Unknown,
            Value::Composed(composed) => {
                let domain = match Layout::column_major(composed.shape().clone()) {
                    Ok(domain) => domain,
                    Err(error) => return self.layout_error(layout_expr.span, what, &error),
                };
                let cosize = composed_cosize(&composed);
                (domain.to_symbolic(), Codomain::Swizzled(composed), cosize)
            }
            Value::Layout(layout) => {
                if let Some(origin) = self.dyn_origin(&Value::Layout(layout.clone())) {
                    self.require_const_failed(what, layout_expr.span, &origin);
                    return Value::Unknown;
                }
                let cosize = layout.cosize().ok().and_then(|cosize| cosize.as_constant());
                (layout, Codomain::Offsets, cosize)
            }
            other => {
                return self.error(
                    "E0216",
                    layout_expr.span,
                    format!("{what} must be a layout, not a {}", other.type_name()),
                    "not a layout",
                );
            }
        };
        let mut base = Base::Unknown;
        if space == MemorySpace::Shared
            && let Some(cosize) = cosize
        {
            self.frame.shared.push(crate::check::SharedBuffer {
                name: "buffer".to_owned(),
                span,
                bytes: cosize.saturating_mul(dtype.bits()) / 8,
            });
            base = Base::Shared(self.frame.shared.len() - 1);
        }
        if space == MemorySpace::Register {
            base = Base::Registers(self.next_fragment());
        }
        if space == MemorySpace::Tensor && self.target < crate::target::Target::Sm100a {
            self.error(
                "E0212",
                span,
                format!(
                    "tensor memory exists from sm_100a on; this build is for {}",
                    self.target
                ),
                "needs sm_100a",
            );
        }
        Value::Tensor(Rc::new(Tensor {
            space,
            dtype: Some(dtype),
            layout: TensorLayout {
                layout,
                offset: SymInt::constant(0),
                codomain,
            },
            read_only: false,
            base,
        }))
    }

    /// `target op= value` and `target = value`.
    pub(crate) fn assign(
        &mut self,
        op: AssignOp,
        target: &'a Expr,
        value_expr: &'a Expr,
        span: Span,
    ) {
        let value = self.eval(value_expr);
        match &target.kind {
            ExprKind::Path(path) if path.segments.len() == 1 => {
                let name = &path.segments[0];
                let Some(local) = self.lookup_local(&name.text).cloned() else {
                    self.resolve_name(name);
                    return;
                };
                if !local.mutable {
                    self.report(
                        Diagnostic::error(
                            "E0219",
                            format!("cannot assign to `{}`: it is not `mut`", name.text),
                        )
                        .with_primary(target.span, "assigned here")
                        .with_secondary(local.span, "declared without `mut` here")
                        .with_help(format!("declare it with `let mut {}`", name.text)),
                    );
                    return;
                }
                let new_value = match op.binary() {
                    Some(binary) => self.binary(
                        binary,
                        local.value.clone(),
                        value,
                        target.span,
                        value_expr.span,
                        span,
                    ),
                    None => {
                        self.check_same_type(&local.value, &value, value_expr.span);
                        value
                    }
                };
                let new_value = if self.frame.dyn_control > 0 {
                    let origin = Origin {
                        reason: format!("`{}` changes in run-time control flow", name.text),
                        span: Some(span),
                        term: None,
                    };
                    self.dyn_like(&new_value, &name.text, origin)
                } else {
                    new_value
                };
                if let Some(scope) = self
                    .scopes
                    .iter_mut()
                    .rev()
                    .find(|scope| scope.contains_key(&name.text))
                    && let Some(entry) = scope.get_mut(&name.text)
                {
                    entry.value = new_value;
                }
            }
            ExprKind::Index { base, indices } => {
                let base_value = self.eval(base);
                let coordinate = self.index_coordinate(indices);
                if let Value::Tensor(tensor) = &base_value {
                    if tensor.read_only {
                        self.read_only_error(tensor, target.span);
                        return;
                    }
                    let element = self.index(
                        base_value.clone(),
                        coordinate.clone(),
                        base.span,
                        target.span,
                    );
                    if let Value::Tensor(_) = element {
                        self.error(
                            "E0216",
                            target.span,
                            "this is a slice; store a whole fragment with `.store(...)` or use `copy`".to_owned(),
                            "not one element",
                        );
                        return;
                    }
                    let stored = match op.binary() {
                        Some(binary) => self.binary(
                            binary,
                            element.clone(),
                            value,
                            target.span,
                            value_expr.span,
                            span,
                        ),
                        None => value,
                    };
                    self.check_element_store(&element, &stored, value_expr.span);
                    let index = self
                        .coordinate(&coordinate.0, coordinate.1)
                        .and_then(|coord| {
                            tensor
                                .layout
                                .layout
                                .evaluate(&coord.with_free_as_zero())
                                .and_then(|index| index.add(&tensor.layout.offset))
                                .ok()
                        });
                    self.emit(match (index, term_of(&stored)) {
                        (Some(index), Some(value)) => Effect::StoreElement {
                            tensor: tensor.clone(),
                            index,
                            value,
                            span,
                        },
                        _ => Effect::Unsupported("storing this value".to_owned(), span),
                    });
                } else {
                    self.index(base_value, coordinate, base.span, target.span);
                }
            }
            _ => {
                self.eval(target);
                self.error(
                    "E0216",
                    target.span,
                    "only a `let mut` name or a tensor element can be assigned".to_owned(),
                    "cannot assign to this",
                );
            }
        }
    }

    fn check_same_type(&mut self, old: &Value, new: &Value, span: Span) {
        let compatible = match (old, new) {
            (Value::Unknown, _) | (_, Value::Unknown) => true,
            (Value::Int { ty: a, .. }, Value::Int { ty: b, .. }) => {
                self.unify_int_types(*a, *b, span);
                true
            }
            (Value::Float { dtype: a, .. }, Value::Float { dtype: b, .. }) => {
                self.unify_float_types(*a, *b, span);
                true
            }
            (old, new) => old.type_name() == new.type_name(),
        };
        if !compatible {
            self.error(
                "E0216",
                span,
                format!(
                    "expected a {}, found a {}",
                    old.type_name(),
                    new.type_name()
                ),
                "type changes",
            );
        }
    }

    fn check_element_store(&mut self, element: &Value, stored: &Value, span: Span) {
        match (element, stored) {
            (Value::Float { dtype: a, .. }, Value::Float { dtype: b, .. }) => {
                self.unify_float_types(*a, *b, span);
            }
            (Value::Int { ty: a, .. }, Value::Int { ty: b, .. }) => {
                self.unify_int_types(*a, *b, span);
            }
            (Value::Bool(_), Value::Bool(_)) | (Value::Unknown, _) | (_, Value::Unknown) => {}
            (
                Value::Float {
                    dtype: Some(dtype), ..
                },
                Value::Int {
                    ty: IntType::Int, ..
                },
            ) if dtype.is_float() => {}
            (element, stored) => {
                self.report(
                    Diagnostic::error(
                        "E0214",
                        format!(
                            "this stores a {} into a {} element",
                            stored.type_name(),
                            element.type_name()
                        ),
                    )
                    .with_primary(span, format!("a {}", stored.type_name()))
                    .with_help(format!(
                        "convert it first with `.to({})`",
                        element.type_name()
                    )),
                );
            }
        }
    }

    pub(crate) fn read_only_error(&mut self, tensor: &Tensor, span: Span) {
        let why = match tensor.layout.codomain {
            Codomain::Coordinates(_) => {
                "its elements are coordinates computed from its layout (an identity tensor)"
            }
            _ => "it is read-only",
        };
        self.report(
            Diagnostic::error(
                "E0213",
                format!("cannot write through this {}: {why}", tensor.type_name()),
            )
            .with_primary(span, "written here"),
        );
    }
}

trait AssignBinary {
    fn binary(self) -> Option<BinaryOp>;
}

impl AssignBinary for AssignOp {
    fn binary(self) -> Option<BinaryOp> {
        match self {
            AssignOp::Assign => None,
            AssignOp::Add => Some(BinaryOp::Add),
            AssignOp::Subtract => Some(BinaryOp::Subtract),
            AssignOp::Multiply => Some(BinaryOp::Multiply),
            AssignOp::Divide => Some(BinaryOp::Divide),
            AssignOp::Remainder => Some(BinaryOp::Remainder),
        }
    }
}

/// `x op y` leaf by leaf for congruent int-tuples; an integer operand meets every leaf.
fn zip_tuples(
    x: &IntTuple<SymInt>,
    y: &IntTuple<SymInt>,
    operation: fn(&SymInt, &SymInt) -> Result<SymInt, LayoutError>,
) -> Result<IntTuple<SymInt>, LayoutError> {
    match (x, y) {
        (IntTuple::Int(a), IntTuple::Int(b)) => Ok(IntTuple::Int(operation(a, b)?)),
        (IntTuple::Tuple(items), IntTuple::Int(_)) => Ok(IntTuple::Tuple(
            items
                .iter()
                .map(|item| zip_tuples(item, y, operation))
                .collect::<Result<_, _>>()?,
        )),
        (IntTuple::Int(_), IntTuple::Tuple(items)) => Ok(IntTuple::Tuple(
            items
                .iter()
                .map(|item| zip_tuples(x, item, operation))
                .collect::<Result<_, _>>()?,
        )),
        (IntTuple::Tuple(left), IntTuple::Tuple(right)) if left.len() == right.len() => {
            Ok(IntTuple::Tuple(
                left.iter()
                    .zip(right)
                    .map(|(a, b)| zip_tuples(a, b, operation))
                    .collect::<Result<_, _>>()?,
            ))
        }
        _ => Err(LayoutError::Incongruent {
            operation: "tuple arithmetic",
            left: x.to_string(),
            right: y.to_string(),
        }),
    }
}

fn compare_ordered(op: BinaryOp, ordering: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match op {
        BinaryOp::Equal => ordering == Equal,
        BinaryOp::NotEqual => ordering != Equal,
        BinaryOp::Less => ordering == Less,
        BinaryOp::LessEqual => ordering != Greater,
        BinaryOp::Greater => ordering == Greater,
        _ => ordering != Less,
    }
}

fn bitwise(op: BinaryOp, a: i64, b: i64) -> Result<SymInt, LayoutError> {
    let shift = |b: i64| {
        u32::try_from(b)
            .ok()
            .filter(|shift| *shift < 64)
            .ok_or_else(|| LayoutError::Unsupported {
                operation: "shift",
                reason: format!("a shift by {b} is outside 0..64"),
            })
    };
    let value = match op {
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::ShiftLeft => {
            i64::try_from(i128::from(a) << shift(b)?).map_err(|_| LayoutError::Overflow {
                operation: "shift",
                expression: format!("{a} << {b}"),
            })?
        }
        _ => a >> shift(b)?,
    };
    Ok(SymInt::constant(value))
}

fn contains_unknown(value: &Value) -> bool {
    match value {
        Value::Unknown => true,
        Value::Tuple(items) => items.iter().any(contains_unknown),
        _ => false,
    }
}

fn item_has_name(item: &lang::ast::Item, name: &str) -> bool {
    match &item.kind {
        lang::ast::ItemKind::Atom(atom) => atom.name.text == name,
        lang::ast::ItemKind::Function(function) => function.name.text == name,
        _ => false,
    }
}

/// The extent of memory a swizzled layout touches: one past its largest offset.
fn composed_cosize(composed: &layout::ComposedLayout) -> Option<i64> {
    let table = composed.table(1 << 20).ok()?;
    table.iter().max().map(|max| max + 1)
}
