//! The attention backward reference: the gradients dq, dk and dv of `sum(attention(q,
//! k, v) · do)`, in f64, each rounded once to q's element type. With the scores
//! `s = q kᵀ / sqrt(d)`, `p = softmax(s)` and `o = p v` of each head:
//! `dv = pᵀ do`, `dp = do vᵀ`, `ds = p ∘ (dp - rowsum(do ∘ o))`, `dq = ds k / sqrt(d)`
//! and `dk = dsᵀ q / sqrt(d)`. Query rows run in parallel for dq (and each row's
//! log-sum-exp and `rowsum(do ∘ o)`), then key rows for dk and dv. With grouped-query
//! attention (k and v with fewer heads, `attention.rs`), a key head's dk and dv sum
//! over the query heads that read it.

use rayon::prelude::*;

use super::OperandError;
use super::attention::{Problem, each_row, problem, split, visible_keys};
use crate::element::round_to;
use crate::tensor::Dense;

/// What the key pass needs of query row i: the log-sum-exp of its scores and
/// `rowsum(do ∘ o)`, with o in f64.
#[derive(Clone, Copy, Default)]
struct RowStatistics {
    lse: f64,
    delta: f64,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `(dq, dk, dv)` of attention over q (..., queries, d), k (..., keys, d), v (..., keys,
/// dv) and the output's gradient do (..., queries, dv), shaped as q, k and v.
pub fn attention_backward(
    (q, k, v): (&Dense, &Dense, &Dense),
    d_out: &Dense,
    causal: bool,
) -> Result<(Dense, Dense, Dense), OperandError> {
    let mismatch = || OperandError::Attention {
        q: q.shape.clone(),
        k: k.shape.clone(),
        v: v.shape.clone(),
        d_out: d_out.shape.clone(),
    };
    let problem = problem(q, k).map_err(|_| mismatch())?;
    let (v_batch, v_keys, dv) = split(v, "v").map_err(|_| mismatch())?;
    let (o_batch, o_queries, o_dv) = split(d_out, "do").map_err(|_| mismatch())?;
    if v_batch != problem.kv_batch
        || v_keys != problem.keys
        || o_batch != problem.batch
        || o_queries != problem.queries
        || o_dv != dv
    {
        return Err(mismatch());
    }
    let Problem {
        queries,
        keys,
        d,
        group,
        ..
    } = problem;
    let scale = 1.0 / (d as f64).sqrt();
    let heads: usize = problem.batch.iter().product();
    let kv_heads = heads / group;

    // Query rows: o and dp's row from the softmax weights, then ds's row, dq's row, the
    // log-sum-exp and rowsum(do ∘ o). A chunk is dq's row and the two statistics.
    let width = d + 2;
    let mut rows = vec![0.0; heads * queries * width];
    each_row(
        (q, k),
        &problem,
        causal,
        (rows.as_mut_slice(), width),
        |head, i, weights, high, total, chunk| {
            let grad = &d_out.values[(head * queries + i) * dv..][..dv];
            let kv_head = problem.kv_head(head);
            let v0 = kv_head * keys * dv;
            let mut o = vec![0.0; dv];
            let mut dp = Vec::with_capacity(weights.len());
            for (j, weight) in weights.iter().enumerate() {
                let value = &v.values[v0 + j * dv..][..dv];
                for (slot, x) in o.iter_mut().zip(value) {
                    *slot += weight / total * x;
                }
                dp.push(dot(grad, value));
            }
            let delta = dot(grad, &o);
            let (dq, statistics) = chunk.split_at_mut(d);
            for (j, (weight, dp)) in weights.iter().zip(dp).enumerate() {
                let ds = weight / total * (dp - delta);
                let key = &k.values[(kv_head * keys + j) * d..][..d];
                for (slot, x) in dq.iter_mut().zip(key) {
                    *slot += ds * x * scale;
                }
            }
            statistics[0] = high + total.ln();
            statistics[1] = delta;
        },
    );
    let statistics: Vec<RowStatistics> = rows
        .chunks(width)
        .map(|chunk| RowStatistics {
            lse: chunk[d],
            delta: chunk[d + 1],
        })
        .collect();

    // Key rows: each sees the queries of its group's heads that see it; a chunk is dk's
    // row then dv's.
    let mut columns = vec![0.0; kv_heads * keys * (d + dv)];
    columns
        .par_chunks_mut(d + dv)
        .enumerate()
        .for_each(|(index, chunk)| {
            let (kv_head, j) = (index / keys, index % keys);
            let key = &k.values[(kv_head * keys + j) * d..][..d];
            let value = &v.values[(kv_head * keys + j) * dv..][..dv];
            let (dk, dv_row) = chunk.split_at_mut(d);
            let group_rows = (kv_head * group..(kv_head + 1) * group)
                .flat_map(|head| (0..queries).map(move |i| (head, i)));
            for (head, i) in group_rows {
                if visible_keys(i, &problem, causal) <= j {
                    continue;
                }
                let row = head * queries + i;
                let query = &q.values[row * d..][..d];
                let grad = &d_out.values[row * dv..][..dv];
                let RowStatistics { lse, delta } = statistics[row];
                let p = (dot(query, key) * scale - lse).exp();
                let ds = p * (dot(grad, value) - delta);
                for (slot, x) in dv_row.iter_mut().zip(grad) {
                    *slot += p * x;
                }
                for (slot, x) in dk.iter_mut().zip(query) {
                    *slot += ds * x * scale;
                }
            }
        });

    let rounded = |values: Vec<f64>, shape: &[usize]| Dense {
        dtype: q.dtype,
        shape: shape.to_vec(),
        values: values.into_iter().map(|x| round_to(q.dtype, x)).collect(),
    };
    let dq: Vec<f64> = rows
        .chunks(width)
        .flat_map(|chunk| chunk[..d].iter().copied())
        .collect();
    let (dk, dv_values): (Vec<&[f64]>, Vec<&[f64]>) = columns
        .chunks(d + dv)
        .map(|chunk| chunk.split_at(d))
        .unzip();
    Ok((
        rounded(dq, &q.shape),
        rounded(dk.concat(), &k.shape),
        rounded(dv_values.concat(), &v.shape),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::dense;

    /// `sum(attention(q, k, v, causal) · do)` in f64.
    fn objective(q: &Dense, k: &Dense, v: &Dense, d_out: &Dense, causal: bool) -> f64 {
        let o = super::super::attention(q, k, v, causal).unwrap();
        dot(&o.values, &d_out.values)
    }

    /// Each gradient is the objective's central difference in each input element.
    fn check_against_finite_differences(causal: bool, (heads, kv_heads): (usize, usize)) {
        let value = |i: usize, salt: usize| ((i * 7 + salt * 13) % 11) as f64 / 5.0 - 1.0;
        let make = |shape: &[usize], salt: usize| {
            let count = shape.iter().product();
            dense(
                shape,
                &(0..count).map(|i| value(i, salt)).collect::<Vec<_>>(),
            )
        };
        // Three queries, four keys (the causal mask aligned bottom-right), d 2, dv 3.
        let (q, k, v) = (
            make(&[heads, 3, 2], 1),
            make(&[kv_heads, 4, 2], 2),
            make(&[kv_heads, 4, 3], 3),
        );
        let d_out = make(&[heads, 3, 3], 4);
        let (dq, dk, dv) = attention_backward((&q, &k, &v), &d_out, causal).unwrap();
        let h = 1e-6;
        for (which, gradient) in [(0, &dq), (1, &dk), (2, &dv)] {
            for index in 0..gradient.values.len() {
                let mut inputs = [q.clone(), k.clone(), v.clone()];
                inputs[which].values[index] += h;
                let up = objective(&inputs[0], &inputs[1], &inputs[2], &d_out, causal);
                inputs[which].values[index] -= 2.0 * h;
                let down = objective(&inputs[0], &inputs[1], &inputs[2], &d_out, causal);
                let expected = (up - down) / (2.0 * h);
                let got = gradient.values[index];
                assert!(
                    (got - expected).abs() < 1e-6,
                    "input {which} element {index}: {got} against {expected}"
                );
            }
        }
    }

    #[test]
    fn gradients_match_finite_differences() {
        check_against_finite_differences(false, (2, 2));
        check_against_finite_differences(false, (4, 2));
    }

    #[test]
    fn causal_gradients_match_finite_differences() {
        check_against_finite_differences(true, (2, 2));
        check_against_finite_differences(true, (3, 1));
    }

    #[test]
    fn mismatched_shapes_are_refused() {
        let q = dense(&[2, 2], &[0.0; 4]);
        let short = dense(&[1, 2], &[0.0; 2]);
        assert!(attention_backward((&q, &q, &q), &short, false).is_err());
        assert!(attention_backward((&q, &q, &short), &q, false).is_err());
    }
}
