//! CuTe's layout algebra as built-ins: composition, complement, inverses, the divides
//! and products, `make_layout_tv`, shape division, swizzles, recasts and `elem_less`.

use std::sync::Arc;

use cute::Dtype;
use layout::{
    Int, IntTuple, LayoutError, Swizzle, SymInt, Tiler, blocked_product, complement, flat_divide,
    left_inverse, logical_divide, logical_product, raked_product, right_inverse, tiled_divide,
    tiled_product, zipped_divide, zipped_product,
};

use crate::builtins::Args;
use crate::builtins::layouts::LayoutOp;
use crate::builtins::operands::static_tuple;
use crate::check::Checker;
use crate::trace::Term;
use crate::value::{Known, Value};

impl<'a> Checker<'a> {
    /// `composition(a, b)`, once its row of the table has checked the arguments.
    pub(crate) fn composition_call(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        self.composition(p[0], p[1], span)
    }

    /// `complement(layout, cotarget?)`, once its row of the table has checked the
    /// arguments.
    pub(crate) fn complement(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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

    /// `right_inverse`, `left_inverse`, once its row of the table has checked the
    /// arguments.
    pub(crate) fn inverse(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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

    /// `logical_divide`, `zipped_divide`, `tiled_divide`, `flat_divide`, once its row of
    /// the table has checked the arguments.
    pub(crate) fn divide(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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

    /// `logical_product`, `blocked_product`, `raked_product`, `zipped_product`,
    /// `tiled_product`, once its row of the table has checked the arguments.
    pub(crate) fn product(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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
                Tiler::Layout(tiler) if name == "blocked_product" => blocked_product(&block, tiler),
                Tiler::Layout(tiler) => raked_product(&block, tiler),
                _ => Err(LayoutError::Unsupported {
                    operation: name,
                    reason: "the second operand must be a layout".to_owned(),
                }),
            },
        };
        self.layout_result(result, span, name)
    }

    /// `make_layout_tv(threads, values)`, once its row of the table has checked the
    /// arguments.
    pub(crate) fn make_layout_tv(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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

    /// `ceil_div`, `shape_div`, once its row of the table has checked the arguments.
    pub(crate) fn divide_shapes(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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

    /// `swizzle(bits, base, shift)`, once its row of the table has checked the arguments.
    pub(crate) fn swizzle(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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

    /// `upcast`, `downcast`, once its row of the table has checked the arguments.
    pub(crate) fn recast(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        let Some(factor) = self.expect_const_int(&p[1].value, p[1].span, "a recast factor") else {
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

    /// `elem_less(coord, shape)`, once its row of the table has checked the arguments.
    pub(crate) fn elem_less(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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
            let origin = self.first_origin(&[&p[0].value, &p[1].value], span);
            return Value::Bool(Known::Dyn(origin.computing(elem_less_term(&x, &y))));
        };
        match layout::elem_less(&xs, &ys) {
            Ok(result) => Value::Bool(Known::Const(result)),
            Err(error) => self.layout_error(span, name, &error),
        }
    }
}

/// `elem_less(x, y)` on the GPU: every leaf of `x` below the same leaf of `y`.
pub(crate) fn elem_less_term(x: &IntTuple<SymInt>, y: &IntTuple<SymInt>) -> Option<Term> {
    x.leaves()
        .into_iter()
        .zip(y.leaves())
        .map(|(a, b)| Term::Binary {
            op: lang::ast::BinaryOp::Less,
            dtype: Dtype::I64,
            left: Arc::new(Term::Int(a, Dtype::I64)),
            right: Arc::new(Term::Int(b, Dtype::I64)),
        })
        .reduce(|all, next| Term::Binary {
            op: lang::ast::BinaryOp::And,
            dtype: Dtype::Bool,
            left: Arc::new(all),
            right: Arc::new(next),
        })
}
