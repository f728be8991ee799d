//! Variable-length (packed) attention references, as FlashAttention's `varlen`
//! functions take their operands: q (total_q, heads, d), k (total_k, kv_heads, d) and v
//! (total_k, kv_heads, dv), every sequence's tokens one after the other, and
//! `cu_seqlens_q` / `cu_seqlens_k` of batch + 1 offsets (0, then each sequence's end).
//! Each sequence is its own dense attention problem (`attention.rs`, with its causal
//! alignment to the bottom right and its grouped heads): its rows are gathered into
//! (heads, tokens, d), the dense reference runs, and the results go back to their
//! rows. o and the gradients are packed as q, k and v; lse is (heads, total_q). A query
//! that sees no key gets o = 0 and lse = -inf, as the dense reference gives them.

use std::fmt;
use std::ops::Range;

use super::OperandError;
use super::attention::{attention, attention_lse};
use super::attention_backward::attention_backward;
use crate::tensor::{Dense, shape_text};

/// What a packed batch's operands got wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum VarlenError {
    /// A tensor that is not packed as (tokens, heads, d).
    Packed {
        what: &'static str,
        shape: Vec<usize>,
    },
    /// Offsets that do not describe the tokens.
    Offsets {
        name: &'static str,
        problem: OffsetProblem,
    },
    /// Offsets of q and of k for batches of different sizes (their counts).
    Batches { q: usize, k: usize },
    /// A sequence's dense problem, refused by the dense reference.
    Sequence(OperandError),
}

/// How offsets fail to describe a batch's tokens.
#[derive(Clone, Debug, PartialEq)]
pub enum OffsetProblem {
    /// Not a vector of at least one offset.
    Shape(Vec<usize>),
    /// The first offset, not 0.
    Start(f64),
    /// The last offset, not the token count.
    End { tokens: usize, last: f64 },
    /// Offset `sequence + 1` below offset `sequence`.
    Decreasing { sequence: usize, from: f64, to: f64 },
}

impl fmt::Display for VarlenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VarlenError::Packed { what, shape } => write!(
                f,
                "`attention_varlen` takes {what} packed as (tokens, heads, d), not shape {}",
                shape_text(shape)
            ),
            VarlenError::Offsets { name, problem } => match problem {
                OffsetProblem::Shape(shape) => write!(
                    f,
                    "`{name}` holds batch + 1 offsets in one dimension, not shape {}",
                    shape_text(shape)
                ),
                OffsetProblem::Start(first) => write!(f, "`{name}` starts at 0, not {first}"),
                OffsetProblem::End { tokens, last } => write!(
                    f,
                    "`{name}` ends at the number of tokens, {tokens}, not {last}"
                ),
                OffsetProblem::Decreasing { sequence, from, to } => write!(
                    f,
                    "`{name}` never decreases; it goes from {from} to {to} at sequence {sequence}"
                ),
            },
            VarlenError::Batches { q, k } => write!(
                f,
                "`cu_seqlens_q` and `cu_seqlens_k` describe one batch: {q} and {k} offsets"
            ),
            VarlenError::Sequence(why) => write!(f, "{why}"),
        }
    }
}

/// Each sequence's rows, from a cu_seqlens tensor of integers that starts at 0, never
/// decreases and ends at `tokens`.
pub fn sequence_rows(
    cu_seqlens: &Dense,
    tokens: usize,
    name: &'static str,
) -> Result<Vec<Range<usize>>, VarlenError> {
    let refuse = |problem| VarlenError::Offsets { name, problem };
    let offsets = &cu_seqlens.values;
    if cu_seqlens.shape.len() != 1 || offsets.is_empty() {
        return Err(refuse(OffsetProblem::Shape(cu_seqlens.shape.clone())));
    }
    if offsets[0] != 0.0 {
        return Err(refuse(OffsetProblem::Start(offsets[0])));
    }
    let last = offsets[offsets.len() - 1];
    if last != tokens as f64 {
        return Err(refuse(OffsetProblem::End { tokens, last }));
    }
    offsets
        .windows(2)
        .enumerate()
        .map(|(sequence, pair)| match pair[1] < pair[0] {
            true => Err(refuse(OffsetProblem::Decreasing {
                sequence,
                from: pair[0],
                to: pair[1],
            })),
            false => Ok(pair[0] as usize..pair[1] as usize),
        })
        .collect()
}

/// (total, heads, d) and its extents, or an error naming `what`.
fn packed(tensor: &Dense, what: &'static str) -> Result<(usize, usize, usize), VarlenError> {
    match tensor.shape.as_slice() {
        [tokens, heads, d] => Ok((*tokens, *heads, *d)),
        _ => Err(VarlenError::Packed {
            what,
            shape: tensor.shape.clone(),
        }),
    }
}

/// Rows `rows` of a packed (tokens, heads, d) tensor, as (heads, rows, d).
fn gather(tensor: &Dense, rows: &Range<usize>) -> Dense {
    let (heads, d) = (tensor.shape[1], tensor.shape[2]);
    let mut values = Vec::with_capacity(heads * rows.len() * d);
    for head in 0..heads {
        for row in rows.clone() {
            values.extend_from_slice(&tensor.values[(row * heads + head) * d..][..d]);
        }
    }
    Dense {
        dtype: tensor.dtype,
        shape: vec![heads, rows.len(), d],
        values,
    }
}

/// Puts `part` (heads, rows, d) back at rows `rows` of the packed `out`.
fn scatter(out: &mut Dense, part: &Dense, rows: &Range<usize>) {
    let (heads, d) = (out.shape[1], out.shape[2]);
    for head in 0..heads {
        for (at, row) in rows.clone().enumerate() {
            let from = &part.values[(head * rows.len() + at) * d..][..d];
            out.values[(row * heads + head) * d..][..d].copy_from_slice(from);
        }
    }
}

/// One sequence's rows of q and of k.
type Sequence = (Range<usize>, Range<usize>);

/// The sequences' rows of q and of k, checked against the tensors.
fn sequences(
    (q, k): (&Dense, &Dense),
    (cu_seqlens_q, cu_seqlens_k): (&Dense, &Dense),
) -> Result<Vec<Sequence>, VarlenError> {
    let (total_q, _, _) = packed(q, "q")?;
    let (total_k, _, _) = packed(k, "k")?;
    let queries = sequence_rows(cu_seqlens_q, total_q, "cu_seqlens_q")?;
    let keys = sequence_rows(cu_seqlens_k, total_k, "cu_seqlens_k")?;
    if queries.len() != keys.len() {
        return Err(VarlenError::Batches {
            q: queries.len() + 1,
            k: keys.len() + 1,
        });
    }
    Ok(queries.into_iter().zip(keys).collect())
}

fn empty_like(like: &Dense, shape: Vec<usize>) -> Dense {
    let count = shape.iter().product();
    Dense {
        dtype: like.dtype,
        shape,
        values: vec![0.0; count],
    }
}

/// o (total_q, heads, dv): each sequence's `attention`.
pub fn attention_varlen(
    (q, k, v): (&Dense, &Dense, &Dense),
    cu_seqlens: (&Dense, &Dense),
    causal: bool,
) -> Result<Dense, VarlenError> {
    let sequences = sequences((q, k), cu_seqlens)?;
    let (_, _, dv) = packed(v, "v")?;
    let mut out = empty_like(q, vec![q.shape[0], q.shape[1], dv]);
    for (queries, keys) in &sequences {
        let operands = (&gather(q, queries), &gather(k, keys), &gather(v, keys));
        let part =
            attention(operands.0, operands.1, operands.2, causal).map_err(VarlenError::Sequence)?;
        scatter(&mut out, &part, queries);
    }
    Ok(out)
}

/// lse (heads, total_q), f32: each sequence's `attention_lse`.
pub fn attention_varlen_lse(
    (q, k): (&Dense, &Dense),
    cu_seqlens: (&Dense, &Dense),
    causal: bool,
) -> Result<Dense, VarlenError> {
    let sequences = sequences((q, k), cu_seqlens)?;
    let (total_q, heads, _) = packed(q, "q")?;
    let mut out = Dense {
        dtype: kir::Element::F32,
        shape: vec![heads, total_q],
        values: vec![0.0; heads * total_q],
    };
    for (queries, keys) in &sequences {
        let part = attention_lse(&gather(q, queries), &gather(k, keys), causal)
            .map_err(VarlenError::Sequence)?;
        for head in 0..heads {
            let from = &part.values[head * queries.len()..][..queries.len()];
            out.values[head * total_q + queries.start..][..queries.len()].copy_from_slice(from);
        }
    }
    Ok(out)
}

/// (dq, dk, dv), packed as q, k and v: each sequence's `attention_backward`.
pub fn attention_varlen_backward(
    (q, k, v): (&Dense, &Dense, &Dense),
    d_out: &Dense,
    cu_seqlens: (&Dense, &Dense),
    causal: bool,
) -> Result<(Dense, Dense, Dense), VarlenError> {
    let sequences = sequences((q, k), cu_seqlens)?;
    packed(v, "v")?;
    packed(d_out, "do")?;
    let (mut dq, mut dk, mut dv) = (
        empty_like(q, q.shape.clone()),
        empty_like(q, k.shape.clone()),
        empty_like(q, v.shape.clone()),
    );
    for (queries, keys) in &sequences {
        let operands = (&gather(q, queries), &gather(k, keys), &gather(v, keys));
        let (part_q, part_k, part_v) =
            attention_backward(operands, &gather(d_out, queries), causal)
                .map_err(VarlenError::Sequence)?;
        scatter(&mut dq, &part_q, queries);
        scatter(&mut dk, &part_k, keys);
        scatter(&mut dv, &part_v, keys);
    }
    Ok((dq, dk, dv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::dense;

    /// A packed tensor of `shape` with distinct small values.
    fn values(shape: &[usize], salt: usize) -> Dense {
        let count: usize = shape.iter().product();
        let values: Vec<f64> = (0..count)
            .map(|i| ((i * 7 + salt * 5) % 11) as f64 / 4.0 - 1.0)
            .collect();
        dense(shape, &values)
    }

    #[test]
    fn each_sequence_is_its_own_dense_problem() {
        // Two sequences: 3 queries over 2 keys, then 2 queries over 4 keys; two query
        // heads over one key head.
        let (q, k, v) = (
            values(&[5, 2, 3], 1),
            values(&[6, 1, 3], 2),
            values(&[6, 1, 2], 3),
        );
        let (cu_q, cu_k) = (dense(&[3], &[0.0, 3.0, 5.0]), dense(&[3], &[0.0, 2.0, 6.0]));
        for causal in [false, true] {
            let o = attention_varlen((&q, &k, &v), (&cu_q, &cu_k), causal).unwrap();
            let lse = attention_varlen_lse((&q, &k), (&cu_q, &cu_k), causal).unwrap();
            assert_eq!(
                (o.shape.as_slice(), lse.shape.as_slice()),
                ([5, 2, 2].as_slice(), [2, 5].as_slice())
            );
            for (queries, keys) in [(0..3, 0..2), (3..5, 2..6)] {
                let dense_o = attention(
                    &gather(&q, &queries),
                    &gather(&k, &keys),
                    &gather(&v, &keys),
                    causal,
                )
                .unwrap();
                assert_eq!(gather(&o, &queries).values, dense_o.values);
                let dense_lse =
                    attention_lse(&gather(&q, &queries), &gather(&k, &keys), causal).unwrap();
                for head in 0..2 {
                    assert_eq!(
                        lse.values[head * 5 + queries.start..][..queries.len()],
                        dense_lse.values[head * queries.len()..][..queries.len()]
                    );
                }
            }
        }
    }

    #[test]
    fn a_query_that_sees_no_key_gives_zero_and_minus_infinity() {
        // Causal, 3 queries over 1 key (bottom right): queries 0 and 1 see nothing; and
        // a sequence with no keys at all.
        let (q, k, v) = (
            values(&[4, 1, 2], 1),
            values(&[1, 1, 2], 2),
            values(&[1, 1, 2], 3),
        );
        let (cu_q, cu_k) = (dense(&[3], &[0.0, 3.0, 4.0]), dense(&[3], &[0.0, 1.0, 1.0]));
        let o = attention_varlen((&q, &k, &v), (&cu_q, &cu_k), true).unwrap();
        let lse = attention_varlen_lse((&q, &k), (&cu_q, &cu_k), true).unwrap();
        assert_eq!(o.values[..4], [0.0; 4]);
        assert_eq!(o.values[4..6], v.values[..2]);
        assert_eq!(o.values[6..], [0.0; 2]);
        assert_eq!(lse.values[0], f64::NEG_INFINITY);
        assert_eq!(lse.values[1], f64::NEG_INFINITY);
        assert!(lse.values[2].is_finite());
        assert_eq!(lse.values[3], f64::NEG_INFINITY);
    }

    #[test]
    fn gradients_are_each_sequence_s_and_zero_where_nothing_is_seen() {
        let (q, k, v) = (
            values(&[5, 2, 3], 1),
            values(&[6, 1, 3], 2),
            values(&[6, 1, 3], 3),
        );
        let d_out = values(&[5, 2, 3], 4);
        let (cu_q, cu_k) = (dense(&[3], &[0.0, 3.0, 5.0]), dense(&[3], &[0.0, 2.0, 6.0]));
        let (dq, dk, dv) =
            attention_varlen_backward((&q, &k, &v), &d_out, (&cu_q, &cu_k), true).unwrap();
        let (queries, keys) = (3..5, 2..6);
        let operands = (
            &gather(&q, &queries),
            &gather(&k, &keys),
            &gather(&v, &keys),
        );
        let (dense_q, dense_k, dense_v) =
            attention_backward(operands, &gather(&d_out, &queries), true).unwrap();
        assert_eq!(gather(&dq, &queries).values, dense_q.values);
        assert_eq!(gather(&dk, &keys).values, dense_k.values);
        assert_eq!(gather(&dv, &keys).values, dense_v.values);
        // Sequence 0, causal with 3 queries over 2 keys: query 0 sees nothing, so its dq
        // is 0.
        assert_eq!(dq.values[..6], [0.0; 6]);
    }

    #[test]
    fn offsets_that_do_not_describe_the_tokens_are_refused() {
        let rows = |offsets: &[f64]| {
            sequence_rows(&dense(&[offsets.len()], offsets), 5, "cu_seqlens_q")
                .map_err(|error| error.to_string())
        };
        assert_eq!(rows(&[0.0, 2.0, 5.0]).unwrap(), vec![0..2, 2..5]);
        assert!(rows(&[1.0, 5.0]).unwrap_err().contains("starts at 0"));
        let short = rows(&[0.0, 4.0]).unwrap_err();
        assert!(short.contains("ends at the number of tokens, 5"), "{short}");
        let decreasing = rows(&[0.0, 3.0, 2.0, 5.0]).unwrap_err();
        assert!(decreasing.contains("never decreases"), "{decreasing}");
        let (q, k) = (values(&[5, 1, 2], 1), values(&[5, 1, 2], 2));
        let batch_of_two = dense(&[3], &[0.0, 2.0, 5.0]);
        let batch_of_one = dense(&[2], &[0.0, 5.0]);
        let error = attention_varlen_lse((&q, &k), (&batch_of_two, &batch_of_one), false);
        assert_eq!(error.unwrap_err(), VarlenError::Batches { q: 3, k: 2 });
    }
}
