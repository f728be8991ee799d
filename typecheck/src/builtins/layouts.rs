//! Layout built-ins: constructors (`make_layout`, `row_major`, ...), measures (`size`,
//! `rank`, `cosize`, ...), modes (`get`, `select`, `group_modes`, ...) and the
//! rearrangements (`flatten`, `coalesce`, `filter`).

use lang::Span;
use layout::{Layout, LayoutError, SymInt, coalesce, coalesce_by, filter, filter_zeros};

use crate::builtins::Args;
use crate::check::Checker;
use crate::value::{IntType, Value};

impl<'a> Checker<'a> {
    /// `make_layout(shape, stride?)`, once its row of the table has checked the arguments.
    pub(crate) fn make_layout(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        let Some(shape) = self.int_tuple(&p[0].value, p[0].span, "a shape") else {
            return Value::Unknown;
        };
        let result = match p.get(1) {
            Some(stride_arg) => {
                let Some(stride) = self.int_tuple(&stride_arg.value, stride_arg.span, "a stride")
                else {
                    return Value::Unknown;
                };
                Layout::new(shape, stride)
            }
            None => Layout::column_major(shape),
        };
        self.layout_result(result, span, "make_layout")
    }

    /// `row_major`, `col_major`, once its row of the table has checked the arguments.
    pub(crate) fn major_layout(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        let shape_value = match p.as_slice() {
            [single] => single.value.clone(),
            _ => Value::Tuple(p.iter().map(|arg| arg.value.clone()).collect()),
        };
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

    /// `make_ordered_layout(shape, order)`, once its row of the table has checked the
    /// arguments.
    pub(crate) fn make_ordered_layout(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        let Some(shape) = self.int_tuple(&p[0].value, p[0].span, "a shape") else {
            return Value::Unknown;
        };
        let Some(order) = self.static_tuple_arg(p[1], "an order") else {
            return Value::Unknown;
        };
        self.layout_result(Layout::ordered(shape, &order), span, name)
    }

    /// `size`, `rank`, `depth`, `cosize`, once its row of the table has checked the
    /// arguments.
    pub(crate) fn measure_call(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        self.measure(name, &p[0].value, p[0].span)
    }

    /// `shape`, `stride`, once its row of the table has checked the arguments.
    pub(crate) fn shape_or_stride(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
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
            (other, _) => self.wrong_type(
                p[0].span,
                other,
                &format!("`{name}` takes a layout or tensor"),
                "wrong argument",
            ),
        }
    }

    /// `get`, `mode`, once its row of the table has checked the arguments.
    pub(crate) fn get_mode(&mut self, args: &Args) -> Value {
        let p = args.positional();
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

    /// `select(layout, indices)`, once its row of the table has checked the arguments.
    pub(crate) fn select(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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

    /// `group_modes(layout, begin, end)`, once its row of the table has checked the
    /// arguments.
    pub(crate) fn group_modes(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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

    /// `append`, `prepend`, once its row of the table has checked the arguments.
    pub(crate) fn append_prepend(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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

    /// `flatten(x)`, once its row of the table has checked the arguments.
    pub(crate) fn flatten(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        if let Some(tuple) = p[0].value.as_int_tuple() {
            return Value::from_int_tuple(&tuple.flatten());
        }
        self.apply_op(name, &p[0].value, p[0].span, span, &|layout| {
            Ok(layout.flatten())
        })
    }

    /// `coalesce(layout, profile?)`, once its row of the table has checked the arguments.
    pub(crate) fn coalesce(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
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

    /// `filter_zeros`, `filter`, once its row of the table has checked the arguments.
    pub(crate) fn filter(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let span = args.call_span;
        let op: LayoutOp = if name == "filter" {
            &|layout| filter(layout)
        } else {
            &|layout| filter_zeros(layout)
        };
        self.apply_op(name, &p[0].value, p[0].span, span, op)
    }

    /// `size`, `rank`, `depth`, `cosize` of a layout, tensor, tuple or composed layout.
    pub(crate) fn measure(&mut self, name: &str, value: &Value, span: Span) -> Value {
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
                    return self.wrong_type(
                        span,
                        other,
                        &format!("`{name}` takes a layout, tensor or int-tuple"),
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
    pub(crate) fn mode_of(
        &mut self,
        value: &Value,
        index: i64,
        index_span: Span,
        span: Span,
    ) -> Value {
        let rank = match value {
            Value::Layout(layout) => layout.rank(),
            Value::Tensor(tensor) => tensor.layout.layout.rank(),
            Value::Composed(composed) => composed.rank(),
            Value::Tuple(items) => items.len(),
            Value::Int { .. } => 1,
            Value::Unknown => return Value::Unknown,
            other => {
                return self.wrong_type(
                    span,
                    other,
                    "`get` takes a layout, tensor or tuple",
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
}

pub(crate) type LayoutOp<'f> = &'f dyn Fn(&Layout<SymInt>) -> Result<Layout<SymInt>, LayoutError>;
