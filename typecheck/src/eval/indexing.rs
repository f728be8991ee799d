//! Fields, indices and slices: `t.layout`, `l(i, j)`, `t[i, _]`, coordinates checked
//! against a shape, and a tensor's element read.

use std::sync::Arc;

use cute::{Codomain, Dtype, Tensor};
use lang::ast::{Expr, Name};
use lang::{Diagnostic, Span};
use layout::{Coord, Int, IntTuple, SymInt};

use crate::check::Checker;
use crate::check::reporting::closest;
use crate::value::{IntType, Known, Origin, Value};

impl<'a> Checker<'a> {
    pub(crate) fn field(&mut self, value: Value, field: &Name) -> Value {
        match (&value, field.text.as_str()) {
            (Value::Unknown, _) => Value::Unknown,
            (Value::Index3(base), axis @ ("x" | "y" | "z")) => {
                let name = format!("{base}.{axis}");
                let reason = match *base {
                    "thread_idx" => format!("`{name}` is the thread's index in its block"),
                    "block_idx" => format!("`{name}` is the block's index in the grid"),
                    "block_idx_in_cluster" => format!("`{name}` is the block's index in its cluster"),
                    "cluster_idx" => format!("`{name}` is the cluster's index in the grid"),
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
            (Value::Tma(tma), "bytes") => Value::from_int_tuple(&IntTuple::int(tma.boxed.bytes())),
            _ => {
                let fields: &[&str] = match &value {
                    Value::Index3(_) => &["x", "y", "z"],
                    Value::Tensor(_) => &["layout", "iterator", "ptr", "shape"],
                    Value::Layout(_) => &["shape", "stride"],
                    Value::Tma(_) => &["bytes"],
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
    pub(crate) fn index_coordinate(&mut self, indices: &'a [Expr]) -> (Value, Span) {
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
        coordinate: (Value, Span),
        base_span: Span,
        span: Span,
    ) -> Value {
        self.index_element(base, coordinate, base_span, span).0
    }

    /// [`Checker::index`], with the element's layout value plus the tensor's offset
    /// when the coordinate has no `_`: a store needs both, and evaluating the layout
    /// once instead of twice matters in unrolled epilogues.
    pub(crate) fn index_element(
        &mut self,
        base: Value,
        (coordinate, coordinate_span): (Value, Span),
        base_span: Span,
        span: Span,
    ) -> (Value, Option<SymInt>) {
        let Some(coord) = self.coordinate(&coordinate, coordinate_span) else {
            return (Value::Unknown, None);
        };
        let value = match base {
            Value::Unknown => Value::Unknown,
            Value::Tensor(tensor) => {
                return self.index_tensor(&tensor, &coord, coordinate_span, span);
            }
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
        };
        (value, None)
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
                self.wrong_type(
                    span,
                    other,
                    "a coordinate is made of integers and `_`",
                    "not a coordinate",
                );
                None
            }
        }
    }

    /// A tensor's element or slice, with the element's layout value (plus the
    /// tensor's offset) where the coordinate has no `_` and evaluates.
    fn index_tensor(
        &mut self,
        tensor: &Arc<Tensor>,
        coord: &Coord<SymInt>,
        coordinate_span: Span,
        span: Span,
    ) -> (Value, Option<SymInt>) {
        if !self.check_coordinate(coord, tensor.shape(), coordinate_span) {
            return (Value::Unknown, element_offset(tensor, coord).ok());
        }
        if coord.has_free() {
            return (self.slice_at(tensor, coord, span), None);
        }
        let value = match element_offset(tensor, coord) {
            Ok(value) => value,
            Err(error) => return (self.layout_error(span, "this element access", &error), None),
        };
        let element = match (&tensor.layout.codomain, tensor.dtype) {
            (Codomain::Coordinates(identity), _) => match identity.coordinate_of(&value) {
                Ok(coordinate) => Value::from_int_tuple(&coordinate),
                Err(error) => self.layout_error(span, "this coordinate access", &error),
            },
            (_, Some(dtype)) => self.load_element(tensor, value.clone(), dtype, span),
            (_, None) => Value::Unknown,
        };
        (element, Some(value))
    }

    /// The slice of `tensor` under the `_` of `coord`.
    fn slice_at(&mut self, tensor: &Tensor, coord: &Coord<SymInt>, span: Span) -> Value {
        let (sliced, offset) = match tensor.layout.layout.slice(coord) {
            Ok(result) => result,
            Err(error) => return self.layout_error(span, "this slice", &error),
        };
        match tensor.relaid(sliced, &offset) {
            Ok(sliced) => Value::Tensor(Arc::new(sliced)),
            Err(error) => self.layout_error(span, "this slice", &error),
        }
    }

    /// A value loaded from memory at layout value `index`: dyn, of the element type,
    /// with an identity of its own (two loads of one element are two values, since the
    /// memory may change between them), recorded as a load in program order.
    fn load_element(
        &mut self,
        tensor: &Arc<Tensor>,
        index: SymInt,
        dtype: Dtype,
        span: Span,
    ) -> Value {
        let origin = Origin {
            reason: "it is loaded from memory".to_owned(),
            span: Some(span),
            term: None,
        };
        if dtype.is_integer() && dtype != Dtype::Bool {
            let name = self.unique_variable("loaded", origin);
            self.record_load(tensor, Some(index), Some(name.clone()), span);
            return Value::Int {
                ty: IntType::Sized(dtype),
                value: SymInt::variable(&name),
            };
        }
        let term = self.record_load(tensor, Some(index), None, span);
        let origin = origin.computing(term);
        if dtype == Dtype::Bool {
            Value::Bool(Known::Dyn(origin))
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
                // Only a const index has a range to check; the shape's size is a
                // product worth skipping for the dyn indices of unrolled loops.
                let Some(index) = index.as_constant() else {
                    return true;
                };
                let size = constant_product(shape)
                    .or_else(|| shape.product().ok().and_then(|size| size.as_constant()));
                if let Some(size) = size
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
}

/// The product of a shape whose every extent is a constant, multiplied without
/// symbolic intermediates (`None` when an extent is symbolic or the product overflows).
fn constant_product(shape: &IntTuple<SymInt>) -> Option<i64> {
    match shape {
        IntTuple::Int(extent) => extent.as_constant(),
        IntTuple::Tuple(modes) => modes.iter().try_fold(1_i64, |product, mode| {
            product.checked_mul(constant_product(mode)?)
        }),
    }
}

/// The layout value of `tensor` at `coord` (`_` as zero) plus the tensor's offset.
fn element_offset(tensor: &Tensor, coord: &Coord<SymInt>) -> Result<SymInt, layout::LayoutError> {
    (tensor.layout.layout)
        .evaluate(&coord.with_free_as_zero())
        .and_then(|value| value.add(&tensor.layout.offset))
}
