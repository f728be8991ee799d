//! The attention reference: `softmax(q kᵀ / sqrt(d)) v` for each index of the leading
//! dimensions (batch, heads), in f64, rounded to q's element type once at the end. With
//! `causal`, query i sees keys up to i + (keys - queries), the bottom-right alignment
//! FlashAttention uses when the lengths differ. Grouped-query attention: k and v may
//! have fewer heads (their last leading extent) than q, dividing them; query head h
//! then reads key head h / (heads / kv_heads), as torch's `enable_gqa` does.

use kir::Element;
use rayon::prelude::*;

use super::OperandError;
use crate::element::round_to;
use crate::tensor::Dense;

/// q (..., heads, queries, d) and k (..., kv_heads, keys, d) with the same leading
/// dimensions but the heads, kv_heads dividing heads.
pub(super) struct Problem {
    pub(super) batch: Vec<usize>,
    /// k's leading dimensions (q's, with kv_heads for heads).
    pub(super) kv_batch: Vec<usize>,
    pub(super) queries: usize,
    pub(super) keys: usize,
    pub(super) d: usize,
    /// The query heads that share a key head (heads / kv_heads; 1 without heads).
    pub(super) group: usize,
}

impl Problem {
    /// The key head (an index over k's leading dimensions) of query head `head` (over
    /// q's): with heads the last leading dimension, `head / group`.
    pub(super) fn kv_head(&self, head: usize) -> usize {
        head / self.group
    }
}

/// The leading dimensions, rows and columns of `tensor`, of rank 2 or more.
pub(super) fn split(
    tensor: &Dense,
    operand: &'static str,
) -> Result<(Vec<usize>, usize, usize), OperandError> {
    match tensor.shape.as_slice() {
        [leading @ .., rows, columns] => Ok((leading.to_vec(), *rows, *columns)),
        _ => Err(OperandError::AttentionRank {
            operand,
            shape: tensor.shape.clone(),
        }),
    }
}

pub(super) fn problem(q: &Dense, k: &Dense) -> Result<Problem, OperandError> {
    let (batch, queries, d) = split(q, "q")?;
    let (k_batch, keys, k_d) = split(k, "k")?;
    let group = match (batch.split_last(), k_batch.split_last()) {
        (Some((heads, outer)), Some((kv_heads, k_outer)))
            if outer == k_outer && *kv_heads > 0 && heads % kv_heads == 0 =>
        {
            heads / kv_heads
        }
        (None, None) => 1,
        _ => 0,
    };
    if group == 0 || k_d != d {
        return Err(OperandError::AttentionKeys {
            q: q.shape.clone(),
            k: k.shape.clone(),
        });
    }
    Ok(Problem {
        batch,
        kv_batch: k_batch,
        queries,
        keys,
        d,
        group,
    })
}

/// How many keys query `i` sees: all of them, or with `causal` those up to
/// `i + keys - queries` (none when that is negative: more queries than keys leave the
/// first ones nothing).
pub(super) fn visible_keys(i: usize, problem: &Problem, causal: bool) -> usize {
    let Problem { queries, keys, .. } = *problem;
    if causal {
        (i + keys + 1).saturating_sub(queries).min(keys)
    } else {
        keys
    }
}

/// Fills `out`, one chunk of `width` per query of each head in order, with
/// `row(head, i, weights, high, total, chunk)`: the softmax numerators `exp(s - high)` of
/// query `i`'s visible keys' scores `s = q kᵀ / sqrt(d)`, their maximum and their sum.
/// Rows run in parallel on every core (seqlen 8192 is 67 M scores a head).
pub(super) fn each_row(
    (q, k): (&Dense, &Dense),
    problem: &Problem,
    causal: bool,
    (out, width): (&mut [f64], usize),
    row: impl Fn(usize, usize, &[f64], f64, f64, &mut [f64]) + Sync,
) {
    let Problem {
        queries, keys, d, ..
    } = *problem;
    let scale = 1.0 / (d as f64).sqrt();
    out.par_chunks_mut(width).enumerate().for_each_init(
        || vec![0.0; keys],
        |scores, (index, chunk)| {
            let (head, i) = (index / queries, index % queries);
            let (q0, k0) = (head * queries * d, problem.kv_head(head) * keys * d);
            let visible = visible_keys(i, problem, causal);
            let query = &q.values[q0 + i * d..][..d];
            let mut high = f64::NEG_INFINITY;
            for (j, score) in scores.iter_mut().enumerate().take(visible) {
                let key = &k.values[k0 + j * d..][..d];
                let dot: f64 = query.iter().zip(key).map(|(a, b)| a * b).sum();
                *score = dot * scale;
                high = high.max(*score);
            }
            let mut total = 0.0;
            for score in scores.iter_mut().take(visible) {
                *score = (*score - high).exp();
                total += *score;
            }
            row(head, i, &scores[..visible], high, total, chunk);
        },
    );
}

/// `softmax(q kᵀ / sqrt(d)) v` over the last two dimensions of q (queries, d), k
/// (keys, d) and v (keys, dv), k's and v's leading dimensions agreeing and q's as the
/// module says.
pub fn attention(q: &Dense, k: &Dense, v: &Dense, causal: bool) -> Result<Dense, OperandError> {
    let problem = problem(q, k)?;
    let (v_batch, v_keys, dv) = split(v, "v")?;
    if v_batch != problem.kv_batch || v_keys != problem.keys {
        return Err(OperandError::AttentionValues {
            q: q.shape.clone(),
            k: k.shape.clone(),
            v: v.shape.clone(),
        });
    }
    let (queries, keys) = (problem.queries, problem.keys);
    let heads: usize = problem.batch.iter().product();
    let mut values = vec![0.0; heads * queries * dv];
    let rows = (values.as_mut_slice(), dv);
    each_row(
        (q, k),
        &problem,
        causal,
        rows,
        |head, _, weights, _, total, out| {
            let v0 = problem.kv_head(head) * keys * dv;
            for (j, weight) in weights.iter().enumerate() {
                let value = &v.values[v0 + j * dv..][..dv];
                for (slot, x) in out.iter_mut().zip(value) {
                    *slot += weight / total * x;
                }
            }
        },
    );
    for value in &mut values {
        *value = round_to(q.dtype, *value);
    }
    let mut shape = problem.batch;
    shape.extend([queries, dv]);
    Ok(Dense {
        dtype: q.dtype,
        shape,
        values,
    })
}

/// The log-sum-exp of each row of attention's scores, `ln(sum_j exp(q kᵀ / sqrt(d)))`
/// over the keys each query sees: f32 of shape (..., queries).
pub fn attention_lse(q: &Dense, k: &Dense, causal: bool) -> Result<Dense, OperandError> {
    let problem = problem(q, k)?;
    let heads: usize = problem.batch.iter().product();
    let mut values = vec![0.0; heads * problem.queries];
    let rows = (values.as_mut_slice(), 1);
    each_row(
        (q, k),
        &problem,
        causal,
        rows,
        |_, _, _, high, total, out| {
            out[0] = round_to(Element::F32, high + total.ln());
        },
    );
    let mut shape = problem.batch.clone();
    shape.push(problem.queries);
    Ok(Dense {
        dtype: Element::F32,
        shape,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(shape: &[usize], values: &[f64]) -> Dense {
        Dense {
            dtype: Element::F32,
            shape: shape.to_vec(),
            values: values.to_vec(),
        }
    }

    #[test]
    fn each_query_averages_the_values_its_scores_weigh() {
        // Two keys, d = 1 (scale 1): scores 0 and 1, weights 1 / (1 + e) and e / (1 + e).
        let q = dense(&[2, 1], &[1.0, 1.0]);
        let k = dense(&[2, 1], &[0.0, 1.0]);
        let v = dense(&[2, 1], &[10.0, 20.0]);
        let e = std::f64::consts::E;
        let full = attention(&q, &k, &v, false).unwrap();
        let mixed = round_to(Element::F32, (10.0 + 20.0 * e) / (1.0 + e));
        assert_eq!(full.values, vec![mixed, mixed]);
        // Causal: query 0 sees key 0 only.
        let causal = attention(&q, &k, &v, true).unwrap();
        assert_eq!(causal.values, vec![10.0, mixed]);
        assert!(attention(&q, &dense(&[2, 2], &[0.0; 4]), &v, false).is_err());
    }

    #[test]
    fn query_heads_of_a_group_share_their_key_head() {
        // Four query heads over two key heads: heads 0 and 1 read key head 0, 2 and 3
        // key head 1, as with k and v repeated head by head.
        let value = |i: usize, salt: usize| ((i * 5 + salt * 3) % 7) as f64 - 3.0;
        let make = |shape: &[usize], salt: usize| {
            let count: usize = shape.iter().product();
            let values: Vec<f64> = (0..count).map(|i| value(i, salt)).collect();
            dense(shape, &values)
        };
        let (q, k, v) = (
            make(&[4, 3, 2], 1),
            make(&[2, 5, 2], 2),
            make(&[2, 5, 3], 3),
        );
        let repeated = |t: &Dense| {
            let per_head = t.values.len() / 2;
            let mut values = Vec::new();
            for head in [0, 0, 1, 1] {
                values.extend_from_slice(&t.values[head * per_head..][..per_head]);
            }
            dense(&[4, t.shape[1], t.shape[2]], &values)
        };
        for causal in [false, true] {
            let grouped = attention(&q, &k, &v, causal).unwrap();
            let expanded = attention(&q, &repeated(&k), &repeated(&v), causal).unwrap();
            assert_eq!(grouped.values, expanded.values);
        }
        // Three key heads do not divide four query heads.
        assert!(attention(&q, &make(&[3, 5, 2], 2), &make(&[3, 5, 3], 3), false).is_err());
    }

    #[test]
    fn each_row_s_log_sum_exp_is_over_the_keys_it_sees() {
        // Scores 0 and 1: ln(1 + e); causal query 0 sees score 0 alone: ln(1) = 0.
        let q = dense(&[2, 1], &[1.0, 1.0]);
        let k = dense(&[2, 1], &[0.0, 1.0]);
        let both = round_to(Element::F32, (1.0 + std::f64::consts::E).ln());
        assert_eq!(
            attention_lse(&q, &k, false).unwrap().values,
            vec![both, both]
        );
        assert_eq!(attention_lse(&q, &k, true).unwrap().values, vec![0.0, both]);
        assert_eq!(attention_lse(&q, &k, true).unwrap().shape, vec![2]);
    }

    #[test]
    fn causal_queries_before_the_first_key_s_diagonal_see_nothing() {
        // Three queries over one key, aligned to the bottom right: only query 2 sees
        // key 0 (j <= i + 1 - 3); the others get o = 0 and lse = -inf.
        let q = dense(&[3, 1], &[1.0, 1.0, 1.0]);
        let k = dense(&[1, 1], &[0.5]);
        let v = dense(&[1, 1], &[7.0]);
        assert_eq!(
            attention(&q, &k, &v, true).unwrap().values,
            vec![0.0, 0.0, 7.0]
        );
        let lse = attention_lse(&q, &k, true).unwrap().values;
        assert_eq!(lse[..2], [f64::NEG_INFINITY; 2]);
        assert_eq!(lse[2], 0.5);
    }
}
