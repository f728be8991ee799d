//! The packed (variable-length) attention references' types: `attention_varlen(q, k,
//! v, cu_seqlens_q, cu_seqlens_k, causal = flag)` is shaped as q (total_q, heads, d)
//! with v's last extent, `attention_varlen_lse(q, k, cu_seqlens_q, cu_seqlens_k)` is
//! f32 (heads, total_q), and `attention_varlen_backward(q, k, v, do, cu_seqlens_q,
//! cu_seqlens_k)` gives `(dq, dk, dv)` shaped as q, k and v. The offsets are integer
//! tensors; the runtime checks their values (`runtime/src/ops/attention_varlen.rs`).
//! And `tensor(dtype, (v0, v1, ...))`, a host tensor written out.

use cute::Dtype;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::value::Value;

impl<'a> Checker<'a> {
    pub(crate) fn attention_varlen_reference(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        if let Some(refused) = self.refused_causal_flag(args) {
            return refused;
        }
        let tensors = p.len() - 2;
        let mut shapes = Vec::with_capacity(tensors);
        for arg in &p[..tensors] {
            let Some((_, shape)) = self.host_tensor(arg) else {
                return Value::Unknown;
            };
            if shape.len() != 3 {
                return self.error(
                    "E0209",
                    arg.span,
                    format!(
                        "`{name}` takes tensors packed as (tokens, heads, d), not of rank {}",
                        shape.len()
                    ),
                    "not (tokens, heads, d)",
                );
            }
            shapes.push(shape);
        }
        for arg in &p[tensors..] {
            let Some((dtype, shape)) = self.host_tensor(arg) else {
                return Value::Unknown;
            };
            if !matches!(dtype, Dtype::I32 | Dtype::I64) || shape.len() != 1 {
                return self.error(
                    "E0216",
                    arg.span,
                    format!(
                        "`{name}` takes each cu_seqlens as batch + 1 offsets, an i32 or i64 vector; this is {} of rank {}",
                        dtype.name(),
                        shape.len()
                    ),
                    "not offsets",
                );
            }
        }
        let Some((dtype, _)) = self.host_tensor(p[0]) else {
            return Value::Unknown;
        };
        let tensor = |shape: &Vec<Option<i64>>| Value::HostTensor {
            dtype,
            shape: shape.clone(),
        };
        match name {
            "attention_varlen_lse" => Value::HostTensor {
                dtype: Dtype::F32,
                shape: vec![shapes[0][1], shapes[0][0]],
            },
            "attention_varlen" => {
                let mut shape = shapes[0].clone();
                shape[2] = shapes[2][2];
                tensor(&shape)
            }
            _ => Value::Tuple(shapes[..3].iter().map(tensor).collect()),
        }
    }

    /// `tensor(dtype, (v0, v1, ...))`: a vector of the listed constants.
    pub(crate) fn listed_tensor(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Value::Dtype(dtype) = p[0].value else {
            return self.wrong_arg(p[0], "`tensor` takes a dtype first", "not a dtype");
        };
        let items = match &p[1].value {
            Value::Tuple(items) => items.clone(),
            Value::Unknown => return Value::Unknown,
            single => vec![single.clone()],
        };
        for item in &items {
            let arg = Arg {
                name: None,
                value: item.clone(),
                span: p[1].span,
            };
            self.check_scalar_for(dtype, &arg);
        }
        Value::HostTensor {
            dtype,
            shape: vec![Some(items.len() as i64)],
        }
    }
}
