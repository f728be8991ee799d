//! NumPy's array operations on host tensors in tests and benches: their dtypes and
//! shapes. `exp`, `log`, `sqrt` and `abs` are device math too (`scalars.rs` sends host
//! tensors here); `tanh`, `erf`, `gelu`, `maximum`, `minimum`, `if_else`, `sum`, `mean`,
//! `argmax`, `cumsum`, `softmax`, `permute`, `slice` and `concat` are host code only;
//! `max` and `min` of a host tensor reduce it (of two numbers, `scalars.rs` picks one).
//! The runtime computes them (`runtime/src/ops/arrays.rs`).

use cute::Dtype;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::host::broadcast_shape;
use crate::host_tensors::shape_text;
use crate::value::Value;

impl<'a> Checker<'a> {
    /// `exp`, `log`, `sqrt`, `tanh`, `erf`, `gelu` (floats) and `abs` of a host tensor:
    /// the tensor's dtype and shape.
    pub(crate) fn host_math(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let Some((dtype, shape)) = self.host_tensor(p[0]) else {
            return Value::Unknown;
        };
        if name != "abs" && !dtype.is_float() {
            return self.error(
                "E0216",
                p[0].span,
                format!("`{name}` of a host tensor takes floats, not {dtype}"),
                "not a float tensor",
            );
        }
        Value::HostTensor { dtype, shape }
    }

    /// `maximum(a, b)` and `minimum(a, b)`: one dtype, shapes that broadcast.
    pub(crate) fn host_extreme(&mut self, name: &'static str, args: &Args) -> Value {
        let Some((dtype, a, b)) = self.two_host_tensors(args) else {
            return Value::Unknown;
        };
        match broadcast_shape(&a, &b) {
            Some(shape) => Value::HostTensor { dtype, shape },
            None => self.error(
                "E0206",
                args.call_span,
                format!(
                    "`{name}` needs tensors whose shapes broadcast, not {} and {}",
                    shape_text(&a),
                    shape_text(&b)
                ),
                "shapes that do not broadcast",
            ),
        }
    }

    /// `if_else(mask, a, b)`: `a`'s or `b`'s dtype (one of them a host tensor, the other
    /// of its dtype or a number), the three shapes broadcast.
    pub(crate) fn host_select(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Some((_, mask)) = self.host_tensor(p[0]) else {
            return Value::Unknown;
        };
        let side = |arg: &Arg| match &arg.value {
            Value::HostTensor { dtype, shape } => Some(Some((*dtype, shape.clone()))),
            Value::Int { .. } | Value::Float { .. } => Some(None),
            _ => None,
        };
        let (Some(a), Some(b)) = (side(p[1]), side(p[2])) else {
            let wrong = if side(p[1]).is_none() { p[1] } else { p[2] };
            return self.wrong_arg(
                wrong,
                "`if_else` chooses between host tensors or numbers",
                "not a tensor or a number",
            );
        };
        let (dtype, mut shape) = match (&a, &b) {
            (Some((x, _)), Some((y, _))) if x != y => {
                return self.mixed_host(*x, *y, args.call_span);
            }
            (Some(tensor), _) | (None, Some(tensor)) => tensor.clone(),
            (None, None) => {
                return self.error(
                    "E0216",
                    args.call_span,
                    "`if_else` needs a host tensor among its two values".to_owned(),
                    "two numbers",
                );
            }
        };
        for other in [Some(mask), a.map(|(_, s)| s), b.map(|(_, s)| s)]
            .into_iter()
            .flatten()
        {
            let Some(joined) = broadcast_shape(&shape, &other) else {
                return self.error(
                    "E0206",
                    args.call_span,
                    format!(
                        "`if_else` needs a mask and values whose shapes broadcast, not {} and {}",
                        shape_text(&shape),
                        shape_text(&other)
                    ),
                    "shapes that do not broadcast",
                );
            };
            shape = joined;
        }
        Value::HostTensor { dtype, shape }
    }

    /// `sum`, `max`, `min`, `mean`, `argmax` (i64 indices) of a host tensor along a
    /// dimension, which disappears; `cumsum` and `softmax` keep it.
    pub(crate) fn host_reduction(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let Some((dtype, mut shape)) = self.host_tensor(p[0]) else {
            return Value::Unknown;
        };
        let Some(dimension) = self.host_dimension(&shape, p.get(1).copied(), args) else {
            return Value::Unknown;
        };
        let dtype = if name == "argmax" { Dtype::I64 } else { dtype };
        if !matches!(name, "cumsum" | "softmax") {
            shape.remove(dimension);
        }
        Value::HostTensor { dtype, shape }
    }

    /// `permute(a, order)`: dimension `d` of the result is `a`'s `order[d]`.
    pub(crate) fn permute(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Some((dtype, shape)) = self.host_tensor(p[0]) else {
            return Value::Unknown;
        };
        let order: Vec<Option<i64>> = match &p[1].value {
            Value::Tuple(items) => items.iter().map(const_int).collect(),
            single => vec![const_int(single)],
        };
        let mut seen = vec![false; shape.len()];
        let permuted: Option<Vec<Option<i64>>> = (order.len() == shape.len())
            .then(|| {
                (order.iter())
                    .map(|d| {
                        let d = usize::try_from((*d)?).ok().filter(|d| *d < shape.len())?;
                        (!std::mem::replace(&mut seen[d], true)).then_some(shape[d])
                    })
                    .collect()
            })
            .flatten();
        match permuted {
            Some(shape) => Value::HostTensor { dtype, shape },
            None => self.error(
                "E0208",
                p[1].span,
                format!(
                    "`permute` needs each of the {} dimensions of a tensor of shape {} once, as integers",
                    shape.len(),
                    shape_text(&shape)
                ),
                "not a permutation of the dimensions",
            ),
        }
    }

    /// `slice(a, dim, start, end)`: elements `start..end` along `dim`.
    pub(crate) fn slice(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Some((dtype, mut shape)) = self.host_tensor(p[0]) else {
            return Value::Unknown;
        };
        let Some(dimension) = self.host_dimension(&shape, Some(p[1]), args) else {
            return Value::Unknown;
        };
        let (start, end) = (const_int(&p[2].value), const_int(&p[3].value));
        for bound in [p[2], p[3]] {
            if !matches!(bound.value, Value::Int { .. }) {
                return self.wrong_arg(bound, "a slice's bounds are integers", "not an integer");
            }
        }
        shape[dimension] = match (start, end, shape[dimension]) {
            (Some(start), Some(end), extent)
                if start < 0 || end <= start || extent.is_some_and(|extent| end > extent) =>
            {
                return self.error(
                    "E0208",
                    args.call_span,
                    format!(
                        "`slice` {start}..{end} is not a non-empty range inside dimension {dimension} of a tensor of shape {}",
                        shape_text(&shape)
                    ),
                    "outside the tensor",
                );
            }
            (Some(start), Some(end), _) => Some(end - start),
            _ => None,
        };
        Value::HostTensor { dtype, shape }
    }

    /// `concat(a, b, dim)`: one dtype, extents equal but along `dim`.
    pub(crate) fn concat(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Some((dtype, a, b)) = self.two_host_tensors(args) else {
            return Value::Unknown;
        };
        let Some(dimension) = self.host_dimension(&a, p.get(2).copied(), args) else {
            return Value::Unknown;
        };
        let agree = |x: &Option<i64>, y: &Option<i64>| x.is_none() || y.is_none() || x == y;
        let fits = a.len() == b.len()
            && (a.iter().zip(&b).enumerate()).all(|(d, (x, y))| d == dimension || agree(x, y));
        if !fits {
            return self.error(
                "E0206",
                args.call_span,
                format!(
                    "`concat` along dimension {dimension} needs tensors that agree in every other extent, not {} and {}",
                    shape_text(&a),
                    shape_text(&b)
                ),
                "extents that differ",
            );
        }
        let mut shape = a.clone();
        shape[dimension] = a[dimension].zip(b[dimension]).map(|(x, y)| x + y);
        Value::HostTensor { dtype, shape }
    }

    /// The dimension `arg` names (a const integer), the last by default; an error
    /// (E0208) when the shape has no such dimension.
    fn host_dimension(
        &mut self,
        shape: &[Option<i64>],
        arg: Option<&Arg>,
        args: &Args,
    ) -> Option<usize> {
        let dimension = match arg {
            Some(arg) => self.expect_const_int(&arg.value, arg.span, "a dimension")?,
            None => shape.len() as i64 - 1,
        };
        let found = usize::try_from(dimension).ok().filter(|d| *d < shape.len());
        if found.is_none() {
            self.error(
                "E0208",
                arg.map_or(args.call_span, |arg| arg.span),
                format!(
                    "dimension {dimension} does not exist in a tensor of rank {}",
                    shape.len()
                ),
                "no such dimension",
            );
        }
        found
    }
}

/// An integer known at compile time.
fn const_int(value: &Value) -> Option<i64> {
    match value {
        Value::Int { value, .. } => value.as_constant(),
        _ => None,
    }
}
