//! Host built-ins for tests and benches: tensor creation (`randn`, `zeros`, ...),
//! `matmul`, `transpose`, `reshape`, the attention references and `assert_close`, with
//! shape checks (reductions and NumPy's operations: `arrays.rs`).

use cute::Dtype;
use lang::{Diagnostic, Span};
use layout::IntTuple;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::host_tensors::shape_text;
use crate::value::Value;

/// A host tensor's extents, `None` where only run time knows one.
pub(crate) type HostShape = Vec<Option<i64>>;

impl<'a> Checker<'a> {
    /// `randn`, `rand`, `zeros`, `ones`, `empty`, `arange`, `full`, once its row of the
    /// table has checked the arguments.
    pub(crate) fn host_tensor_call(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let Value::Dtype(dtype) = p[0].value else {
            return self.wrong_arg(
                p[0],
                &format!("`{name}` takes a dtype first"),
                "not a dtype",
            );
        };
        let Some(shape) = self.host_shape(p[1]) else {
            return Value::Unknown;
        };
        if name == "full" {
            self.check_scalar_for(dtype, p[2]);
        }
        Value::HostTensor { dtype, shape }
    }

    /// `matmul(a, b)`, once its row of the table has checked the arguments.
    pub(crate) fn matmul(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Some((dtype, a, b)) = self.two_host_tensors(args) else {
            return Value::Unknown;
        };
        match (a.as_slice(), b.as_slice()) {
            ([m, k], [k2, n]) => {
                if k.is_some() && k2.is_some() && k != k2 {
                    return self.host_shape_error(
                        "matmul needs A's columns to equal B's rows",
                        p[0],
                        &a,
                        p[1],
                        &b,
                        args.call_span,
                    );
                }
                Value::HostTensor {
                    dtype,
                    shape: vec![*m, *n],
                }
            }
            _ => self.error(
                "E0209",
                args.call_span,
                format!(
                    "matmul multiplies matrices (rank 2), not ranks {} and {}",
                    a.len(),
                    b.len()
                ),
                "not matrices",
            ),
        }
    }

    /// `transpose(a)`, once its row of the table has checked the arguments.
    pub(crate) fn transpose(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Some((dtype, shape)) = self.host_tensor(p[0]) else {
            return Value::Unknown;
        };
        match shape.as_slice() {
            [m, n] => Value::HostTensor {
                dtype,
                shape: vec![*n, *m],
            },
            _ => self.error(
                "E0209",
                p[0].span,
                format!(
                    "transpose takes a matrix (rank 2), not rank {}",
                    shape.len()
                ),
                "not a matrix",
            ),
        }
    }

    /// `reshape(a, shape)`, once its row of the table has checked the arguments: `a`'s
    /// elements as `shape`, which must hold as many (where both counts are known).
    pub(crate) fn reshape(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let (Some((dtype, from)), Some(shape)) = (self.host_tensor(p[0]), self.host_shape(p[1]))
        else {
            return Value::Unknown;
        };
        let count = |shape: &[Option<i64>]| -> Option<i64> {
            shape
                .iter()
                .try_fold(1_i64, |count, extent| count.checked_mul((*extent)?))
        };
        match (count(&from), count(&shape)) {
            (Some(have), Some(want)) if have != want => self.error(
                "E0206",
                p[1].span,
                format!(
                    "reshape of a host tensor of shape {} ({have} elements) to {} ({want} elements)",
                    shape_text(&from),
                    shape_text(&shape)
                ),
                "another number of elements",
            ),
            _ => Value::HostTensor { dtype, shape },
        }
    }

    /// The error (E0216 at the flag) when a reference's `causal` is given something
    /// other than a bool.
    pub(crate) fn refused_causal_flag(&mut self, args: &Args) -> Option<Value> {
        let flag = args.named("causal")?;
        if matches!(flag.value, Value::Bool(_) | Value::Unknown) {
            return None;
        }
        Some(self.wrong_arg(flag, "`causal` is a bool", "not a bool"))
    }

    /// `attention(q, k, v, causal = flag)`: a host tensor shaped as q with v's last
    /// extent; `attention_lse(q, k, causal = flag)`: f32 shaped as q without its last;
    /// `attention_backward(q, k, v, do, causal = flag)`: `(dq, dk, dv)` shaped as q, k
    /// and v, of q's dtype.
    pub(crate) fn attention_reference(&mut self, args: &Args) -> Value {
        let p = args.positional();
        if let Some(refused) = self.refused_causal_flag(args) {
            return refused;
        }
        let (Some((dtype, mut shape)), Some(_)) = (self.host_tensor(p[0]), self.host_tensor(p[1]))
        else {
            return Value::Unknown;
        };
        // `attention_lse(q, k)`: one f32 a query.
        let Some(v) = p.get(2) else {
            shape.pop();
            return Value::HostTensor {
                dtype: Dtype::F32,
                shape,
            };
        };
        let Some((_, v_shape)) = self.host_tensor(v) else {
            return Value::Unknown;
        };
        if shape.len() < 2 || v_shape.len() != shape.len() {
            return self.error(
                "E0209",
                args.call_span,
                format!(
                    "`attention` takes q, k and v of one rank, at least 2 (..., tokens, d); these are of rank {} and {}",
                    shape.len(),
                    v_shape.len()
                ),
                "ranks differ",
            );
        }
        if let Some(d_out) = p.get(3) {
            let (Some((_, k_shape)), Some(_)) = (self.host_tensor(p[1]), self.host_tensor(d_out))
            else {
                return Value::Unknown;
            };
            return Value::Tuple(
                [shape, k_shape, v_shape]
                    .map(|shape| Value::HostTensor { dtype, shape })
                    .into(),
            );
        }
        if let (Some(last), Some(dv)) = (shape.last_mut(), v_shape.last()) {
            *last = *dv;
        }
        Value::HostTensor { dtype, shape }
    }

    /// `paged_attention(q, k_cache, v_cache, block_table, seqlens)`: shaped as q (batch,
    /// heads, d), with v_cache's last extent, of q's dtype.
    pub(crate) fn paged_attention_reference(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let (Some((dtype, mut shape)), Some((_, v_shape))) =
            (self.host_tensor(p[0]), self.host_tensor(p[2]))
        else {
            return Value::Unknown;
        };
        if shape.len() != 3 || v_shape.len() != 4 {
            return self.error(
                "E0209",
                args.call_span,
                format!(
                    "`paged_attention` takes q of rank 3 (batch, heads, d) and caches of rank 4 (num_pages, page_size, kv_heads, d); these are of rank {} and {}",
                    shape.len(),
                    v_shape.len()
                ),
                "ranks differ",
            );
        }
        shape[2] = v_shape[3];
        Value::HostTensor { dtype, shape }
    }

    /// `gpu_only()`: nothing to check; the harness skips the block off the GPU.
    pub(crate) fn gpu_only(&mut self, _: &Args) -> Value {
        Value::Unit
    }

    /// `assert_close(actual, expected, rtol = r, atol = a)`, once its row of the table has
    /// checked the arguments.
    pub(crate) fn assert_close(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let (Some((dtype, a)), Some((other, b))) = (self.host_tensor(p[0]), self.host_tensor(p[1]))
        else {
            return Value::Unit;
        };
        if dtype != other {
            self.mixed_host(dtype, other, args.call_span);
        } else if a.len() != b.len()
            || a.iter()
                .zip(&b)
                .any(|(x, y)| x.is_some() && y.is_some() && x != y)
        {
            self.host_shape_error(
                "assert_close compares tensors of one shape",
                p[0],
                &a,
                p[1],
                &b,
                args.call_span,
            );
        }
        for tolerance in ["rtol", "atol"] {
            if let Some(arg) = args.named(tolerance) {
                match &arg.value {
                    Value::Float { value, .. }
                        if value.as_const().is_some_and(|value| value >= 0.0) => {}
                    Value::Int { value, .. }
                        if value.as_constant().is_some_and(|value| value >= 0) => {}
                    other => {
                        self.error(
                            "E0216",
                            arg.span,
                            format!("`{tolerance}` is a const number at least 0, not {}", other),
                            "not a tolerance",
                        );
                    }
                }
            }
        }
        Value::Unit
    }

    pub(crate) fn host_shape(&mut self, arg: &Arg) -> Option<Vec<Option<i64>>> {
        let tuple = self.int_tuple(&arg.value, arg.span, "a shape")?;
        let extents = match &tuple {
            IntTuple::Int(_) => vec![tuple.clone()],
            IntTuple::Tuple(items) => items.clone(),
        };
        let mut shape = Vec::with_capacity(extents.len());
        for extent in extents {
            match extent {
                IntTuple::Int(value) => match value.as_constant() {
                    Some(value) if value < 1 => {
                        self.error(
                            "E0216",
                            arg.span,
                            format!("a tensor's extents are positive, not {value}"),
                            "not positive",
                        );
                        return None;
                    }
                    constant => shape.push(constant),
                },
                IntTuple::Tuple(_) => {
                    self.error(
                        "E0216",
                        arg.span,
                        "a host tensor's shape is flat: one extent per dimension".to_owned(),
                        "nested shape",
                    );
                    return None;
                }
            }
        }
        Some(shape)
    }

    pub(crate) fn host_tensor(&mut self, arg: &Arg) -> Option<(Dtype, Vec<Option<i64>>)> {
        match &arg.value {
            Value::HostTensor { dtype, shape } => Some((*dtype, shape.clone())),
            Value::Unknown => None,
            other => {
                self.error(
                    "E0216",
                    arg.span,
                    format!("expected a host tensor, found a {}", other.type_name()),
                    "not a tensor",
                );
                None
            }
        }
    }

    /// The first two positional arguments as host tensors of one dtype: the dtype and
    /// both shapes; `None` after reporting when they are not (E0214 for two dtypes).
    pub(crate) fn two_host_tensors(
        &mut self,
        args: &Args,
    ) -> Option<(Dtype, HostShape, HostShape)> {
        let p = args.positional();
        let (Some((dtype, a)), Some((other, b))) = (self.host_tensor(p[0]), self.host_tensor(p[1]))
        else {
            return None;
        };
        if dtype != other {
            self.mixed_host(dtype, other, args.call_span);
            return None;
        }
        Some((dtype, a, b))
    }

    pub(crate) fn mixed_host(&mut self, a: Dtype, b: Dtype, span: Span) -> Value {
        self.report(
            Diagnostic::error(
                "E0214",
                format!("this mixes {a} and {b} tensors without a conversion"),
            )
            .with_primary(span, format!("{a} and {b}")),
        );
        Value::Unknown
    }

    pub(crate) fn host_shape_error(
        &mut self,
        what: &str,
        first: &Arg,
        a: &[Option<i64>],
        second: &Arg,
        b: &[Option<i64>],
        span: Span,
    ) -> Value {
        self.report(
            Diagnostic::error(
                "E0206",
                format!("{what}: {} and {}", shape_text(a), shape_text(b)),
            )
            .with_primary(span, "shapes differ")
            .with_secondary(first.span, format!("shape {}", shape_text(a)))
            .with_secondary(second.span, format!("shape {}", shape_text(b))),
        );
        Value::Unknown
    }
}
