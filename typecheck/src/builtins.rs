//! Calls: the built-in functions (layout algebra, tensor views, copies, sync,
//! host-side tensors), methods, and the dispatch to functions, kernels and atoms.

use std::rc::Rc;

use cute::Dtype;
use lang::ast::{Argument, Expr, Name};
use lang::{Diagnostic, Span};
use layout::{
    ComposedLayout, Coord, Int, IntTuple, Layout, LayoutError, Swizzle, SymInt, Tiler,
    blocked_product, coalesce, coalesce_by, complement, composition, filter, filter_zeros,
    flat_divide, left_inverse, logical_divide, logical_product, raked_product, right_inverse,
    tiled_divide, tiled_product, zipped_divide, zipped_product,
};

use crate::callee::Callee;
use crate::check::{Checker, Context, closest};
use crate::trace::{Effect, Term, term_of};
use crate::value::{IntType, Known, Origin, Value};

/// Every built-in function name.
pub(crate) const BUILTIN_FUNCTIONS: &[&str] = &[
    // layout algebra
    "make_layout",
    "row_major",
    "col_major",
    "make_ordered_layout",
    "size",
    "rank",
    "depth",
    "cosize",
    "shape",
    "stride",
    "get",
    "mode",
    "select",
    "group_modes",
    "append",
    "prepend",
    "flatten",
    "coalesce",
    "filter_zeros",
    "filter",
    "composition",
    "complement",
    "right_inverse",
    "left_inverse",
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "blocked_product",
    "raked_product",
    "zipped_product",
    "tiled_product",
    "make_layout_tv",
    "ceil_div",
    "shape_div",
    "swizzle",
    "upcast",
    "downcast",
    "elem_less",
    "bits",
    "min",
    "max",
    "const_print",
    // tensors
    "make_tensor",
    "make_identity_tensor",
    "local_tile",
    "local_partition",
    "fragment_like",
    "make_fragment_like",
    // atoms and algorithms
    "make_tiled_copy",
    "make_tiled_copy_tv",
    "make_tiled_copy_A",
    "make_tiled_copy_B",
    "make_tiled_mma",
    "copy",
    "gemm",
    // synchronization
    "syncthreads",
    "syncwarp",
    "cp_async_commit_group",
    "cp_async_wait_group",
    // math
    "exp",
    "exp2",
    "log",
    "log2",
    "sqrt",
    "rsqrt",
    "abs",
    // host side
    "randn",
    "rand",
    "zeros",
    "ones",
    "empty",
    "arange",
    "full",
    "matmul",
    "transpose",
    "softmax",
    "sum",
    "assert_close",
];

/// Built-ins that only exist in device code.
const DEVICE_ONLY: &[&str] = &[
    "copy",
    "gemm",
    "syncthreads",
    "syncwarp",
    "cp_async_commit_group",
    "cp_async_wait_group",
    "fragment_like",
    "make_fragment_like",
    "exp",
    "exp2",
    "log",
    "log2",
    "sqrt",
    "rsqrt",
    "abs",
];

/// Built-ins that only exist in tests and benches.
const HOST_ONLY: &[&str] = &[
    "randn",
    "rand",
    "zeros",
    "ones",
    "empty",
    "arange",
    "full",
    "matmul",
    "transpose",
    "softmax",
    "sum",
    "assert_close",
];

/// The static name of a built-in, if `name` is one.
pub(crate) fn builtin(name: &str) -> Option<&'static str> {
    BUILTIN_FUNCTIONS
        .iter()
        .copied()
        .find(|builtin| *builtin == name)
}

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
}

type LayoutOp<'f> = &'f dyn Fn(&Layout<SymInt>) -> Result<Layout<SymInt>, LayoutError>;

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
        let evaluated = self.eval_args(args, span);
        match callee_value {
            Value::Unknown => Value::Unknown,
            Value::Callable(Callee::Builtin(name)) => {
                self.call_builtin(name, callee.span, &evaluated)
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
            other => self.error(
                "E0216",
                callee.span,
                format!("a {} cannot be called", other.type_name()),
                "not callable",
            ),
        }
    }

    fn single_coordinate(&mut self, args: &Args) -> Option<Coord<SymInt>> {
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
    fn call_layout(&mut self, layout: &Layout<SymInt>, args: &Args) -> Value {
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
                if allowed_named.is_empty() {
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
            self.report(
                Diagnostic::error(
                    "E0215",
                    format!("`{name}` takes {wanted} argument(s), but {count} were given"),
                )
                .with_primary(args.call_span, format!("{count} argument(s)")),
            );
            ok = false;
        }
        ok
    }

    fn call_builtin(&mut self, name: &'static str, callee_span: Span, args: &Args) -> Value {
        if args
            .items
            .iter()
            .any(|arg| matches!(arg.value, Value::Unknown))
            && name != "const_print"
        {
            return Value::Unknown;
        }
        let context = self.frame.context;
        if DEVICE_ONLY.contains(&name) && context != Context::Device {
            return self.error(
                "E0220",
                callee_span,
                format!("`{name}` runs on the GPU: it belongs in a kernel or device function"),
                "device code only",
            );
        }
        if HOST_ONLY.contains(&name) && context != Context::Host {
            return self.error(
                "E0220",
                callee_span,
                format!("`{name}` belongs in a `test` or `bench` block"),
                "host code only",
            );
        }
        let p = args.positional();
        let span = args.call_span;
        match name {
            "make_layout" => {
                if !self.arity(name, args, 1..=2, &[]) {
                    return Value::Unknown;
                }
                let Some(shape) = self.int_tuple(&p[0].value, p[0].span, "a shape") else {
                    return Value::Unknown;
                };
                let result = match p.get(1) {
                    Some(stride_arg) => {
                        let Some(stride) =
                            self.int_tuple(&stride_arg.value, stride_arg.span, "a stride")
                        else {
                            return Value::Unknown;
                        };
                        Layout::new(shape, stride)
                    }
                    None => Layout::column_major(shape),
                };
                self.layout_result(result, span, "make_layout")
            }
            "row_major" | "col_major" => {
                let shape_value = match p.as_slice() {
                    [single] => single.value.clone(),
                    _ => Value::Tuple(p.iter().map(|arg| arg.value.clone()).collect()),
                };
                if !self.arity(name, args, 1..=8, &[]) {
                    return Value::Unknown;
                }
                let Some(shape) = self.int_tuple(&shape_value, span, "a shape") else {
                    return Value::Unknown;
                };
                let result = if name == "row_major" {
                    Layout::row_major(shape)
                } else {
                    Layout::column_major(shape)
                };
                self.layout_result(result, span, name)
            }
            "make_ordered_layout" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                let Some(shape) = self.int_tuple(&p[0].value, p[0].span, "a shape") else {
                    return Value::Unknown;
                };
                let Some(order) = self.static_tuple_arg(p[1], "an order") else {
                    return Value::Unknown;
                };
                self.layout_result(Layout::ordered(shape, &order), span, name)
            }
            "size" | "rank" | "depth" | "cosize" => {
                if !self.arity(name, args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                self.measure(name, &p[0].value, p[0].span)
            }
            "shape" | "stride" => {
                if !self.arity(name, args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                match (&p[0].value, name) {
                    (Value::Layout(layout), "shape") => Value::from_int_tuple(layout.shape()),
                    (Value::Layout(layout), _) => Value::from_int_tuple(layout.stride()),
                    (Value::Tensor(tensor), "shape") => Value::from_int_tuple(tensor.shape()),
                    (Value::Composed(composed), "shape") => {
                        Value::from_int_tuple(&composed.shape().to_symbolic())
                    }
                    (Value::HostTensor { shape, .. }, "shape") => Value::Tuple(
                        shape
                            .iter()
                            .map(|extent| extent.map_or(Value::Unknown, Value::int))
                            .collect(),
                    ),
                    (other, _) => self.error(
                        "E0216",
                        p[0].span,
                        format!(
                            "`{name}` takes a layout or tensor, not a {}",
                            other.type_name()
                        ),
                        "wrong argument",
                    ),
                }
            }
            "get" | "mode" => {
                if !self.arity(name, args, 2..=8, &[]) {
                    return Value::Unknown;
                }
                let mut value = p[0].value.clone();
                for index_arg in &p[1..] {
                    let Some(index) =
                        self.expect_const_int(&index_arg.value, index_arg.span, "a mode index")
                    else {
                        return Value::Unknown;
                    };
                    value = self.mode_of(&value, index, index_arg.span, p[0].span);
                }
                value
            }
            "select" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                let Some(indices) = self.static_tuple_arg(p[1], "mode indices") else {
                    return Value::Unknown;
                };
                let Some(indices) = indices
                    .leaves()
                    .iter()
                    .map(|index| usize::try_from(*index).ok())
                    .collect::<Option<Vec<_>>>()
                else {
                    return self.error(
                        "E0208",
                        p[1].span,
                        "a mode index is not negative".to_owned(),
                        "negative index",
                    );
                };
                self.apply_op(name, &p[0].value, p[0].span, span, &|layout| {
                    layout.select(&indices)
                })
            }
            "group_modes" => {
                if !self.arity(name, args, 3..=3, &[]) {
                    return Value::Unknown;
                }
                let (Some(begin), Some(end)) = (
                    self.expect_const_int(&p[1].value, p[1].span, "a mode index"),
                    self.expect_const_int(&p[2].value, p[2].span, "a mode index"),
                ) else {
                    return Value::Unknown;
                };
                let (Ok(begin), Ok(end)) = (usize::try_from(begin), usize::try_from(end)) else {
                    return self.error(
                        "E0208",
                        span,
                        "mode indices are not negative".to_owned(),
                        "negative index",
                    );
                };
                self.apply_op(name, &p[0].value, p[0].span, span, &|layout| {
                    layout.group_modes(begin, end)
                })
            }
            "append" | "prepend" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                let Some(other) = self.expect_layout(&p[1].value, p[1].span) else {
                    return Value::Unknown;
                };
                if name == "append" {
                    self.apply_op(name, &p[0].value, p[0].span, span, &|layout| {
                        layout.append(&other)
                    })
                } else {
                    self.apply_op(name, &p[0].value, p[0].span, span, &|layout| {
                        layout.prepend(&other)
                    })
                }
            }
            "flatten" => {
                if !self.arity(name, args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                if let Some(tuple) = p[0].value.as_int_tuple() {
                    return Value::from_int_tuple(&tuple.flatten());
                }
                self.apply_op(name, &p[0].value, p[0].span, span, &|layout| {
                    Ok(layout.flatten())
                })
            }
            "coalesce" => {
                if !self.arity(name, args, 1..=2, &[]) {
                    return Value::Unknown;
                }
                match p.get(1) {
                    Some(profile_arg) => {
                        let Some(profile) =
                            self.int_tuple(&profile_arg.value, profile_arg.span, "a profile")
                        else {
                            return Value::Unknown;
                        };
                        self.apply_op(name, &p[0].value, p[0].span, span, &|layout| {
                            coalesce_by(layout, &profile)
                        })
                    }
                    None => self.apply_op(name, &p[0].value, p[0].span, span, &|layout| {
                        coalesce(layout)
                    }),
                }
            }
            "filter_zeros" | "filter" => {
                if !self.arity(name, args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                let op: LayoutOp = if name == "filter" {
                    &|layout| filter(layout)
                } else {
                    &|layout| filter_zeros(layout)
                };
                self.apply_op(name, &p[0].value, p[0].span, span, op)
            }
            "composition" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                self.composition(p[0], p[1], span)
            }
            "complement" => {
                if !self.arity(name, args, 1..=2, &[]) {
                    return Value::Unknown;
                }
                let Some(layout) = self.expect_layout(&p[0].value, p[0].span) else {
                    return Value::Unknown;
                };
                let cotarget = match p.get(1) {
                    Some(arg) => match self.int_tuple(&arg.value, arg.span, "a cotarget") {
                        Some(cotarget) => Some(cotarget),
                        None => return Value::Unknown,
                    },
                    None => None,
                };
                self.layout_result(complement(&layout, cotarget.as_ref()), span, name)
            }
            "right_inverse" | "left_inverse" => {
                if !self.arity(name, args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                let Some(layout) = self.expect_layout(&p[0].value, p[0].span) else {
                    return Value::Unknown;
                };
                let result = if name == "right_inverse" {
                    right_inverse(&layout)
                } else {
                    left_inverse(&layout)
                };
                self.layout_result(result, span, name)
            }
            "logical_divide" | "zipped_divide" | "tiled_divide" | "flat_divide" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                let Some(tiler) = self.tiler(p[1], matches!(p[0].value, Value::Tensor(_))) else {
                    return Value::Unknown;
                };
                let op: LayoutOp = match name {
                    "logical_divide" => &|layout| logical_divide(layout, &tiler),
                    "zipped_divide" => &|layout| zipped_divide(layout, &tiler),
                    "tiled_divide" => &|layout| tiled_divide(layout, &tiler),
                    _ => &|layout| flat_divide(layout, &tiler),
                };
                self.apply_op_with(
                    name,
                    Some(p[1].value.to_string()),
                    &p[0].value,
                    p[0].span,
                    span,
                    op,
                )
            }
            "logical_product" | "blocked_product" | "raked_product" | "zipped_product"
            | "tiled_product" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                let Some(block) = self.expect_layout(&p[0].value, p[0].span) else {
                    return Value::Unknown;
                };
                let Some(tiler) = self.tiler(p[1], false) else {
                    return Value::Unknown;
                };
                let result = match name {
                    "logical_product" => logical_product(&block, &tiler),
                    "zipped_product" => zipped_product(&block, &tiler),
                    "tiled_product" => tiled_product(&block, &tiler),
                    _ => match &tiler {
                        Tiler::Layout(tiler) if name == "blocked_product" => {
                            blocked_product(&block, tiler)
                        }
                        Tiler::Layout(tiler) => raked_product(&block, tiler),
                        _ => Err(LayoutError::Unsupported {
                            operation: name,
                            reason: "the second operand must be a layout".to_owned(),
                        }),
                    },
                };
                self.layout_result(result, span, name)
            }
            "make_layout_tv" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                let (Some(threads), Some(values)) = (
                    self.expect_layout(&p[0].value, p[0].span),
                    self.expect_layout(&p[1].value, p[1].span),
                ) else {
                    return Value::Unknown;
                };
                match layout::make_layout_tv(&threads, &values) {
                    Ok((tiler, layout_tv)) => Value::Tuple(vec![
                        Value::from_int_tuple(&tiler),
                        Value::Layout(layout_tv),
                    ]),
                    Err(error) => self.layout_error(span, "make_layout_tv", &error),
                }
            }
            "ceil_div" | "shape_div" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                if let (Value::Int { ty: a, value: x }, Value::Int { ty: b, value: y }) =
                    (&p[0].value, &p[1].value)
                {
                    let ty = self.unify_int_types(*a, *b, span).unwrap_or(*a);
                    let result = if name == "ceil_div" {
                        x.ceil_div(y)
                    } else {
                        layout::shape_div(&IntTuple::Int(x.clone()), &IntTuple::Int(y.clone())).map(
                            |tuple| {
                                tuple
                                    .as_int()
                                    .cloned()
                                    .unwrap_or_else(|| SymInt::constant(0))
                            },
                        )
                    };
                    return match result {
                        Ok(value) => Value::Int { ty, value },
                        Err(error) => self.layout_error(span, name, &error),
                    };
                }
                let (Some(x), Some(y)) = (
                    self.int_tuple(&p[0].value, p[0].span, "an operand"),
                    self.int_tuple(&p[1].value, p[1].span, "an operand"),
                ) else {
                    return Value::Unknown;
                };
                let result = if name == "ceil_div" {
                    layout::ceil_div(&x, &y)
                } else {
                    layout::shape_div(&x, &y)
                };
                match result {
                    Ok(tuple) => Value::from_int_tuple(&tuple),
                    Err(error) => self.layout_error(span, name, &error),
                }
            }
            "swizzle" => {
                if !self.arity(name, args, 3..=3, &[]) {
                    return Value::Unknown;
                }
                let mut parts = [0i64; 3];
                for (part, arg) in parts.iter_mut().zip(&p) {
                    match self.expect_const_int(&arg.value, arg.span, "a swizzle parameter") {
                        Some(value) => *part = value,
                        None => return Value::Unknown,
                    }
                }
                match Swizzle::new(parts[0], parts[1], parts[2]) {
                    Ok(swizzle) => Value::Swizzle(swizzle),
                    Err(error) => self.error(
                        "E0205",
                        span,
                        format!("`swizzle` is not valid: {error}"),
                        "rejected here",
                    ),
                }
            }
            "upcast" | "downcast" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                let Some(factor) = self.expect_const_int(&p[1].value, p[1].span, "a recast factor")
                else {
                    return Value::Unknown;
                };
                match &p[0].value {
                    Value::Composed(composed) => {
                        let result = if name == "upcast" {
                            composed.upcast(factor)
                        } else {
                            composed.downcast(factor)
                        };
                        match result {
                            Ok(composed) => Value::Composed(composed),
                            Err(error) => self.layout_error(span, name, &error),
                        }
                    }
                    _ => {
                        let Some(layout) = self.expect_layout(&p[0].value, p[0].span) else {
                            return Value::Unknown;
                        };
                        let result = if name == "upcast" {
                            layout::upcast(&layout, factor)
                        } else {
                            layout::downcast(&layout, factor)
                        };
                        self.layout_result(result, span, name)
                    }
                }
            }
            "elem_less" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                let (Some(x), Some(y)) = (
                    self.int_tuple(&p[0].value, p[0].span, "a coordinate"),
                    self.int_tuple(&p[1].value, p[1].span, "a shape"),
                ) else {
                    return Value::Unknown;
                };
                if !x.congruent(&y) {
                    return self.error(
                        "E0209",
                        span,
                        format!("elem_less compares congruent tuples; {x} and {y} are not"),
                        "incongruent",
                    );
                }
                let (Some(xs), Some(ys)) = (static_tuple(&x), static_tuple(&y)) else {
                    let origin = self
                        .dyn_origin(&p[0].value)
                        .or_else(|| self.dyn_origin(&p[1].value))
                        .unwrap_or(Origin {
                            reason: "it is computed on the GPU".to_owned(),
                            span: Some(span),
                            term: None,
                        });
                    return Value::Bool(Known::Dyn(origin.computing(elem_less_term(&x, &y))));
                };
                match layout::elem_less(&xs, &ys) {
                    Ok(result) => Value::Bool(Known::Const(result)),
                    Err(error) => self.layout_error(span, name, &error),
                }
            }
            "bits" => {
                if !self.arity(name, args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                match &p[0].value {
                    Value::Dtype(dtype) => Value::int(dtype.bits()),
                    other => self.error(
                        "E0216",
                        p[0].span,
                        format!("`bits` takes a dtype, not a {}", other.type_name()),
                        "not a dtype",
                    ),
                }
            }
            "min" | "max" => {
                if !self.arity(name, args, 2..=2, &[]) {
                    return Value::Unknown;
                }
                self.min_max(name, p[0], p[1], span)
            }
            "const_print" => {
                let mut parts = Vec::new();
                for arg in &args.items {
                    if let Some(origin) = self.dyn_origin(&arg.value) {
                        self.require_const_failed(
                            "the argument of `const_print`",
                            arg.span,
                            &origin,
                        );
                        return Value::Unit;
                    }
                    parts.push(format!("{}: {}", arg.value.type_name(), arg.value));
                }
                self.report(
                    Diagnostic::note("N0201", parts.join(", ")).with_primary(span, "const_print"),
                );
                Value::Unit
            }
            "syncthreads" | "syncwarp" | "cp_async_commit_group" => {
                if self.arity(name, args, 0..=0, &[]) {
                    self.emit(match name {
                        "syncthreads" => Effect::Barrier(span),
                        "syncwarp" => Effect::WarpBarrier(span),
                        _ => Effect::CpAsyncCommit(span),
                    });
                }
                Value::Unit
            }
            "cp_async_wait_group" => {
                if self.arity(name, args, 1..=1, &[])
                    && let Some(groups) = self.expect_const_int(
                        &p[0].value,
                        p[0].span,
                        "the number of groups `cp_async_wait_group` leaves in flight",
                    )
                {
                    self.emit(Effect::CpAsyncWait(groups, span));
                }
                Value::Unit
            }
            "exp" | "exp2" | "log" | "log2" | "sqrt" | "rsqrt" | "abs" => {
                if !self.arity(name, args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                match &p[0].value {
                    Value::Float { dtype, value } => Value::Float {
                        dtype: *dtype,
                        value: match value {
                            Known::Const(_) => Known::Dyn(Origin {
                                reason: format!("`{name}` is evaluated on the GPU"),
                                span: Some(span),
                                term: None,
                            }),
                            other => other.clone(),
                        },
                    },
                    vector @ Value::Vector { .. } => vector.clone(),
                    other => self.error(
                        "E0216",
                        p[0].span,
                        format!("`{name}` takes a float, not a {}", other.type_name()),
                        "not a float",
                    ),
                }
            }
            "make_tensor" => self.make_tensor(args),
            "make_identity_tensor" => self.make_identity_tensor(args),
            "local_tile" => self.local_tile(args),
            "local_partition" => self.local_partition(args),
            "fragment_like" | "make_fragment_like" => {
                if !self.arity(name, args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                self.fragment_like(&p[0].value, p[0].span, None)
            }
            "make_tiled_copy" | "make_tiled_copy_tv" | "make_tiled_copy_A"
            | "make_tiled_copy_B" => self.make_tiled_copy(name, args),
            "make_tiled_mma" => self.make_tiled_mma(args),
            "copy" => self.copy(args),
            "gemm" => self.gemm(args),
            _ => self.host_builtin(name, args),
        }
    }

    fn min_max(&mut self, name: &str, a: &Arg, b: &Arg, span: Span) -> Value {
        match (&a.value, &b.value) {
            (Value::Int { ty: x_ty, value: x }, Value::Int { ty: y_ty, value: y }) => {
                let ty = self.unify_int_types(*x_ty, *y_ty, span).unwrap_or(*x_ty);
                match (x.as_constant(), y.as_constant()) {
                    (Some(x), Some(y)) => Value::Int {
                        ty,
                        value: SymInt::constant(if name == "min" { x.min(y) } else { x.max(y) }),
                    },
                    _ => {
                        let origin = self
                            .dyn_origin(&a.value)
                            .or_else(|| self.dyn_origin(&b.value))
                            .unwrap_or(Origin {
                                reason: "it is computed on the GPU".to_owned(),
                                span: Some(span),
                                term: None,
                            });
                        Value::Int {
                            ty,
                            value: self.fresh_variable(&format!("{name}({x},{y})"), origin),
                        }
                    }
                }
            }
            (
                Value::Float {
                    dtype: x_ty,
                    value: x,
                },
                Value::Float {
                    dtype: y_ty,
                    value: y,
                },
            ) => {
                let dtype = self.unify_float_types(*x_ty, *y_ty, span);
                let value = match (x.as_const(), y.as_const()) {
                    (Some(x), Some(y)) => {
                        Known::Const(if name == "min" { x.min(y) } else { x.max(y) })
                    }
                    _ => Known::Dyn(
                        self.dyn_origin(&a.value)
                            .or_else(|| self.dyn_origin(&b.value))
                            .unwrap_or(Origin {
                                reason: "it is computed on the GPU".to_owned(),
                                span: Some(span),
                                term: None,
                            }),
                    ),
                };
                Value::Float { dtype, value }
            }
            (x, y) => self.error(
                "E0216",
                span,
                format!(
                    "`{name}` takes two integers or two floats, not a {} and a {}",
                    x.type_name(),
                    y.type_name()
                ),
                "wrong arguments",
            ),
        }
    }

    /// `size`, `rank`, `depth`, `cosize` of a layout, tensor, tuple or composed layout.
    fn measure(&mut self, name: &str, value: &Value, span: Span) -> Value {
        let layout = match value {
            Value::Layout(layout) => layout.clone(),
            Value::Tensor(tensor) => tensor.layout.layout.clone(),
            Value::Composed(composed) => match name {
                "size" => return composed.size().map_or(Value::Unknown, Value::int),
                "rank" => return Value::int(i64::try_from(composed.rank()).unwrap_or(0)),
                _ => composed.inner().to_symbolic(),
            },
            Value::Vector { shape, .. } if name == "size" => {
                return shape.product().map_or(Value::Unknown, |size| Value::Int {
                    ty: IntType::Int,
                    value: size,
                });
            }
            Value::HostTensor { shape, .. } if name == "size" => {
                return shape
                    .iter()
                    .try_fold(1i64, |size, extent| size.checked_mul((*extent)?))
                    .map_or(Value::Unknown, Value::int);
            }
            other => match other.as_int_tuple() {
                Some(tuple) if name != "cosize" => {
                    let result = match name {
                        "size" => tuple.product(),
                        "rank" => Ok(SymInt::constant(i64::try_from(tuple.rank()).unwrap_or(0))),
                        _ => Ok(SymInt::constant(i64::try_from(tuple.depth()).unwrap_or(0))),
                    };
                    return match result {
                        Ok(value) => Value::Int {
                            ty: IntType::Int,
                            value,
                        },
                        Err(error) => self.layout_error(span, name, &error),
                    };
                }
                _ => {
                    return self.error(
                        "E0216",
                        span,
                        format!(
                            "`{name}` takes a layout, tensor or int-tuple, not a {}",
                            other.type_name()
                        ),
                        "wrong argument",
                    );
                }
            },
        };
        let result = match name {
            "size" => layout.size(),
            "cosize" => layout.cosize(),
            "rank" => Ok(SymInt::constant(i64::try_from(layout.rank()).unwrap_or(0))),
            _ => Ok(SymInt::constant(i64::try_from(layout.depth()).unwrap_or(0))),
        };
        match result {
            Ok(value) => Value::Int {
                ty: IntType::Int,
                value,
            },
            Err(error) => self.layout_error(span, name, &error),
        }
    }

    /// Mode `index` of a layout, tensor, tuple or composed layout.
    fn mode_of(&mut self, value: &Value, index: i64, index_span: Span, span: Span) -> Value {
        let rank = match value {
            Value::Layout(layout) => layout.rank(),
            Value::Tensor(tensor) => tensor.layout.layout.rank(),
            Value::Composed(composed) => composed.rank(),
            Value::Tuple(items) => items.len(),
            Value::Int { .. } => 1,
            Value::Unknown => return Value::Unknown,
            other => {
                return self.error(
                    "E0216",
                    span,
                    format!(
                        "`get` takes a layout, tensor or tuple, not a {}",
                        other.type_name()
                    ),
                    "wrong argument",
                );
            }
        };
        let Some(position) = usize::try_from(index)
            .ok()
            .filter(|position| *position < rank)
        else {
            return self.error(
                "E0208",
                index_span,
                format!("mode {index} does not exist: this has {rank} mode(s)"),
                &format!("must be in 0..{rank}"),
            );
        };
        match value {
            Value::Tuple(items) => items[position].clone(),
            Value::Int { .. } => value.clone(),
            Value::Composed(composed) => composed
                .mode(position)
                .map_or(Value::Unknown, Value::Composed),
            _ => self.apply_op("mode", value, span, span, &|layout| layout.mode(position)),
        }
    }

    /// Applies a layout operation to a layout, a tensor's layout or a swizzled layout's
    /// domain.
    pub(crate) fn apply_op(
        &mut self,
        name: &str,
        target: &Value,
        target_span: Span,
        span: Span,
        op: LayoutOp,
    ) -> Value {
        self.apply_op_with(name, None, target, target_span, span, op)
    }

    /// [`Checker::apply_op`] for a call with a second operand, which errors name.
    pub(crate) fn apply_op_with(
        &mut self,
        name: &str,
        second: Option<String>,
        target: &Value,
        target_span: Span,
        span: Span,
        op: LayoutOp,
    ) -> Value {
        let call = |first: &dyn std::fmt::Display| match &second {
            Some(second) => format!("`{name}({first}, {second})`"),
            None => format!("`{name}({first})`"),
        };
        match target {
            Value::Unknown => Value::Unknown,
            Value::Layout(layout) => match op(layout) {
                Ok(result) => Value::Layout(result),
                Err(error) => self.layout_error(span, &call(layout), &error),
            },
            Value::Tensor(tensor) => match op(&tensor.layout.layout) {
                Ok(result) => Value::Tensor(Rc::new(cute::Tensor {
                    layout: cute::TensorLayout {
                        layout: result,
                        ..tensor.layout.clone()
                    },
                    ..(**tensor).clone()
                })),
                Err(error) => self.layout_error(
                    span,
                    &format!("{} on a tensor", call(&tensor.layout.layout)),
                    &error,
                ),
            },
            Value::Composed(composed) => {
                let domain = Layout::column_major(composed.shape().to_symbolic())
                    .and_then(|domain| op(&domain))
                    .and_then(|result| result.to_static())
                    .and_then(|result| composed.compose(&result));
                match domain {
                    Ok(result) => Value::Composed(result),
                    Err(error) => self.layout_error(span, &call(composed), &error),
                }
            }
            other => self.error(
                "E0216",
                target_span,
                format!(
                    "`{name}` takes a layout or tensor, not a {}",
                    other.type_name()
                ),
                "wrong argument",
            ),
        }
    }

    fn layout_result(
        &mut self,
        result: Result<Layout<SymInt>, LayoutError>,
        span: Span,
        name: &str,
    ) -> Value {
        match result {
            Ok(layout) => Value::Layout(layout),
            Err(error) => self.layout_error(span, &format!("`{name}`"), &error),
        }
    }

    /// A tiler from a value: a layout, an integer, `_` or a tuple of them. A tensor's
    /// tiler must be const.
    pub(crate) fn tiler(&mut self, arg: &Arg, must_be_const: bool) -> Option<Tiler<SymInt>> {
        if must_be_const && let Some(origin) = self.dyn_origin(&arg.value) {
            self.require_const_failed("a tiler of a tensor", arg.span, &origin);
            return None;
        }
        self.tiler_of(&arg.value, arg.span)
    }

    fn tiler_of(&mut self, value: &Value, span: Span) -> Option<Tiler<SymInt>> {
        match value {
            Value::Layout(layout) => Some(Tiler::Layout(layout.clone())),
            Value::Int { value, .. } => match Tiler::extent(value.clone()) {
                Ok(tiler) => Some(tiler),
                Err(error) => {
                    self.layout_error(span, "this tiler", &error);
                    None
                }
            },
            Value::Wildcard => Some(Tiler::Keep),
            Value::Tuple(items) => items
                .iter()
                .map(|item| self.tiler_of(item, span))
                .collect::<Option<Vec<_>>>()
                .map(Tiler::Modes),
            Value::Unknown => None,
            other => {
                self.error(
                    "E0216",
                    span,
                    format!(
                        "a tiler is a layout, an extent, `_` or a tuple of them, not a {}",
                        other.type_name()
                    ),
                    "not a tiler",
                );
                None
            }
        }
    }

    fn static_tuple_arg(&mut self, arg: &Arg, what: &str) -> Option<IntTuple<i64>> {
        let tuple = self.int_tuple(&arg.value, arg.span, what)?;
        match static_tuple(&tuple) {
            Some(tuple) => Some(tuple),
            None => {
                let origin = self.dyn_origin(&arg.value)?;
                self.require_const_failed(what, arg.span, &origin);
                None
            }
        }
    }

    fn composition(&mut self, left: &Arg, right: &Arg, span: Span) -> Value {
        match (&left.value, &right.value) {
            (Value::Swizzle(swizzle), Value::Layout(layout)) => match layout.to_static() {
                Ok(layout) => Value::Composed(ComposedLayout::swizzled(*swizzle, layout)),
                Err(_) => {
                    let origin = self.dyn_origin(&right.value);
                    if let Some(origin) = origin {
                        self.require_const_failed("a swizzled layout", right.span, &origin);
                    }
                    Value::Unknown
                }
            },
            (Value::Swizzle(swizzle), Value::Composed(inner)) if inner.swizzle().is_identity() => {
                Value::Composed(ComposedLayout::new(
                    *swizzle,
                    inner.offset(),
                    inner.inner().clone(),
                ))
            }
            (Value::Composed(composed), _) => {
                let Some(tiler) = self.tiler(right, true) else {
                    return Value::Unknown;
                };
                let Ok(tiler) = static_tiler(&tiler) else {
                    return self.error(
                        "E0204",
                        right.span,
                        "a swizzled layout is composed with a const layout".to_owned(),
                        "not const",
                    );
                };
                match composed.compose(&tiler) {
                    Ok(result) => Value::Composed(result),
                    Err(error) => self.layout_error(
                        span,
                        &format!("composition of {composed} with {tiler}"),
                        &error,
                    ),
                }
            }
            (target @ (Value::Layout(_) | Value::Tensor(_)), _) => {
                let Some(tiler) = self.tiler(right, matches!(target, Value::Tensor(_))) else {
                    return Value::Unknown;
                };
                let target = target.clone();
                self.apply_op_with(
                    "composition",
                    Some(right.value.to_string()),
                    &target,
                    left.span,
                    span,
                    &|layout| composition(layout, &tiler),
                )
            }
            (other, _) => self.error(
                "E0216",
                left.span,
                format!(
                    "composition takes a layout, swizzle or tensor first, not a {}",
                    other.type_name()
                ),
                "wrong argument",
            ),
        }
    }

    /// A method call `receiver.method(args)`.
    pub(crate) fn method_call(
        &mut self,
        receiver: Value,
        receiver_span: Span,
        method: &Name,
        args: &'a [Argument],
        span: Span,
    ) -> Value {
        let args = self.eval_args(args, span);
        if matches!(receiver, Value::Unknown)
            || args
                .items
                .iter()
                .any(|arg| matches!(arg.value, Value::Unknown))
        {
            return Value::Unknown;
        }
        let name = method.text.as_str();
        match (&receiver, name) {
            (Value::Tensor(tensor), "load") => {
                self.arity(name, &args, 0..=0, &[]);
                match tensor.dtype {
                    Some(dtype) => Value::Vector {
                        dtype,
                        shape: tensor.shape().clone(),
                        term: Some(Rc::new(Term::Fragment(tensor.clone()))),
                    },
                    None => self.error(
                        "E0216",
                        receiver_span,
                        "a coordinate tensor has no values to load; index it instead".to_owned(),
                        "coordinates",
                    ),
                }
            }
            (Value::Tensor(tensor), "store") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unit;
                }
                if tensor.read_only {
                    self.read_only_error(tensor, receiver_span);
                    return Value::Unit;
                }
                self.store_vector(tensor, &args.items[0], span);
                Value::Unit
            }
            (Value::Tensor(tensor), "fill") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unit;
                }
                if tensor.read_only {
                    self.read_only_error(tensor, receiver_span);
                    return Value::Unit;
                }
                if let Some(dtype) = tensor.dtype {
                    self.check_scalar_for(dtype, &args.items[0]);
                }
                self.emit(match term_of(&args.items[0].value) {
                    Some(value) => Effect::StoreFragment {
                        tensor: tensor.clone(),
                        value,
                        span,
                    },
                    None => Effect::Unsupported("filling with this value".to_owned(), span),
                });
                Value::Unit
            }
            (Value::Vector { shape, term, .. }, "to") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                match &args.items[0].value {
                    Value::Dtype(dtype) => Value::Vector {
                        dtype: *dtype,
                        shape: shape.clone(),
                        term: term
                            .clone()
                            .map(|term| Rc::new(Term::Convert(*dtype, term))),
                    },
                    other => self.error(
                        "E0216",
                        args.items[0].span,
                        format!("`to` takes a dtype, not a {}", other.type_name()),
                        "not a dtype",
                    ),
                }
            }
            (Value::Int { .. } | Value::Float { .. }, "to") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                self.convert_scalar(&receiver, &args.items[0], span)
            }
            (Value::TiledCopy(copy), "slice" | "get_slice") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                self.expect_int(&args.items[0].value, args.items[0].span, "a thread index")
                    .map_or(Value::Unknown, |thread| Value::ThreadCopy {
                        copy: copy.clone(),
                        thread,
                    })
            }
            (Value::TiledMma(mma), "slice" | "get_slice") => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                self.expect_int(&args.items[0].value, args.items[0].span, "a thread index")
                    .map_or(Value::Unknown, |thread| Value::ThreadMma {
                        mma: mma.clone(),
                        thread,
                    })
            }
            (
                Value::ThreadCopy { copy, thread },
                "partition_S" | "partition_D" | "retile_S" | "retile_D",
            ) => {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                let (copy, thread) = (copy.clone(), thread.clone());
                self.thread_copy_method(&copy, &thread, name, &args.items[0], span)
            }
            (Value::ThreadMma { mma, thread }, _)
                if name.starts_with("partition_") || name.starts_with("make_fragment_") =>
            {
                if !self.arity(name, &args, 1..=1, &[]) {
                    return Value::Unknown;
                }
                let (mma, thread) = (mma.clone(), thread.clone());
                self.thread_mma_method(&mma, &thread, method, &args.items[0], span)
            }
            _ => {
                let methods: &[&str] = match &receiver {
                    Value::Tensor(_) => &["load", "store", "fill"],
                    Value::Vector { .. } | Value::Int { .. } | Value::Float { .. } => &["to"],
                    Value::TiledCopy(_) | Value::TiledMma(_) => &["slice", "get_slice"],
                    Value::ThreadCopy { .. } => {
                        &["partition_S", "partition_D", "retile_S", "retile_D"]
                    }
                    Value::ThreadMma { .. } => &[
                        "partition_A",
                        "partition_B",
                        "partition_C",
                        "partition_fragment_A",
                        "partition_fragment_B",
                        "partition_fragment_C",
                        "make_fragment_A",
                        "make_fragment_B",
                        "make_fragment_C",
                    ],
                    _ => &[],
                };
                let mut diagnostic = Diagnostic::error(
                    "E0217",
                    format!("a {} has no method `{name}`", receiver.type_name()),
                )
                .with_primary(method.span, "unknown method");
                if let Some(best) = closest(name, methods.iter().copied()) {
                    diagnostic = diagnostic.with_help(format!("did you mean `{best}`?"));
                } else if !methods.is_empty() {
                    diagnostic =
                        diagnostic.with_note(format!("its methods are {}", methods.join(", ")));
                }
                self.report(diagnostic);
                Value::Unknown
            }
        }
    }

    fn convert_scalar(&mut self, value: &Value, target: &Arg, span: Span) -> Value {
        let Value::Dtype(dtype) = target.value else {
            return self.error(
                "E0216",
                target.span,
                format!("`to` takes a dtype, not a {}", target.value.type_name()),
                "not a dtype",
            );
        };
        let origin = self.dyn_origin(value);
        match (dtype, origin) {
            (Dtype::Bool, _) => self.error(
                "E0216",
                span,
                "compare with `!= 0` to get a bool".to_owned(),
                "no conversion to bool",
            ),
            (dtype, Some(origin)) if dtype.is_float() => Value::Float {
                dtype: Some(dtype),
                value: Known::Dyn(
                    origin.computing(term_of(value).map(|term| Term::Convert(dtype, term))),
                ),
            },
            (dtype, None) if dtype.is_float() => {
                #[allow(clippy::cast_precision_loss)]
                let constant = match value {
                    Value::Int { value, .. } => {
                        value.as_constant().map_or(0.0, |value| value as f64)
                    }
                    Value::Float { value, .. } => value.as_const().unwrap_or(0.0),
                    _ => 0.0,
                };
                Value::Float {
                    dtype: Some(dtype),
                    value: Known::Const(constant),
                }
            }
            (dtype, _) => match value {
                Value::Int { value, .. } => Value::Int {
                    ty: IntType::Sized(dtype),
                    value: value.clone(),
                },
                _ => {
                    let origin = Origin {
                        reason: "it is converted on the GPU".to_owned(),
                        span: Some(span),
                        term: None,
                    };
                    Value::Int {
                        ty: IntType::Sized(dtype),
                        value: self.fresh_variable("converted", origin),
                    }
                }
            },
        }
    }

    pub(crate) fn check_scalar_for(&mut self, dtype: Dtype, arg: &Arg) {
        let fits = match &arg.value {
            Value::Float {
                dtype: value_type, ..
            } => dtype.is_float() && value_type.is_none_or(|value_type| value_type == dtype),
            Value::Int {
                ty: IntType::Int, ..
            } => dtype != Dtype::Bool,
            Value::Int {
                ty: IntType::Sized(value_type),
                ..
            } => *value_type == dtype,
            Value::Bool(_) => dtype == Dtype::Bool,
            Value::Unknown => true,
            _ => false,
        };
        if !fits {
            self.report(
                Diagnostic::error(
                    "E0214",
                    format!(
                        "a {} cannot fill a tensor of {dtype} without a conversion",
                        arg.value.type_name()
                    ),
                )
                .with_primary(arg.span, format!("a {}", arg.value.type_name())),
            );
        }
    }

    /// Calls a device function: binds its parameters and evaluates its body inline.
    fn call_function(&mut self, id: &crate::callee::ItemId, args: &Args, span: Span) -> Value {
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
        let generic_names: Vec<&str> = function
            .generics
            .iter()
            .map(|generic| generic.name.text.as_str())
            .collect();
        if !self.arity(
            &id.name,
            args,
            function.params.len()..=function.params.len(),
            &generic_names,
        ) {
            return Value::Unknown;
        }
        if !self.enter_call(id, span) {
            return Value::Unknown;
        }
        let given: Vec<(String, Value)> = args
            .items
            .iter()
            .filter_map(|arg| Some((arg.name.as_ref()?.text.clone(), arg.value.clone())))
            .collect();
        let positional: Vec<Arg> = args.positional().into_iter().cloned().collect();
        let mut frame = self.frame_for(Context::Device, format!("fn {}", function.name.text));
        frame.is_function = true;
        frame.shared = std::mem::take(&mut self.frame.shared);
        frame.dyn_control = self.frame.dyn_control;
        let anchor = if self.current_module == 0 {
            Some(span)
        } else {
            self.anchor
        };
        let saved_anchor = std::mem::replace(&mut self.anchor, anchor);
        let (result, frame) = self.isolated(id.module, frame, |checker| {
            for generic in &function.generics {
                let value = match checker.const_argument(generic, &given) {
                    Some(value) => value,
                    None => checker.error(
                        "E0215",
                        span,
                        format!(
                            "the const parameter `{}` has no default and is not given",
                            generic.name.text
                        ),
                        "missing a const argument",
                    ),
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
        self.anchor = saved_anchor;
        self.call_stack.pop();
        result
    }

    /// Checks an argument against a function parameter's declared type.
    fn check_argument(&mut self, param: &'a lang::ast::Param, arg: &Arg) -> Value {
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

/// A tuple's static values, if every leaf is const.
pub(crate) fn static_tuple(tuple: &IntTuple<SymInt>) -> Option<IntTuple<i64>> {
    tuple
        .try_map(&mut |leaf: &SymInt| {
            leaf.as_constant()
                .ok_or(LayoutError::DivisionByZero { operation: "" })
        })
        .ok()
}

fn static_tiler(tiler: &Tiler<SymInt>) -> Result<Tiler<i64>, LayoutError> {
    Ok(match tiler {
        Tiler::Layout(layout) => Tiler::Layout(layout.to_static()?),
        Tiler::Extent(extent) => Tiler::Extent(extent.static_value("composition")?),
        Tiler::Keep => Tiler::Keep,
        Tiler::Modes(modes) => {
            Tiler::Modes(modes.iter().map(static_tiler).collect::<Result<_, _>>()?)
        }
    })
}

/// `elem_less(x, y)` on the GPU: every leaf of `x` below the same leaf of `y`.
fn elem_less_term(x: &IntTuple<SymInt>, y: &IntTuple<SymInt>) -> Option<Term> {
    x.leaves()
        .into_iter()
        .zip(y.leaves())
        .map(|(a, b)| Term::Binary {
            op: lang::ast::BinaryOp::Less,
            dtype: Dtype::I64,
            left: Rc::new(Term::Int(a.clone(), Dtype::I64)),
            right: Rc::new(Term::Int(b.clone(), Dtype::I64)),
        })
        .reduce(|all, next| Term::Binary {
            op: lang::ast::BinaryOp::And,
            dtype: Dtype::Bool,
            left: Rc::new(all),
            right: Rc::new(next),
        })
}
