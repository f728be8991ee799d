//! The decode-attention reference over a paged KV cache: each sequence's keys and values
//! gathered from its pages into dense (kv_heads, seqlen, d) tensors, then [`attention`]
//! of its one query per head against them (grouped-query heads as `attention` takes
//! them). A sequence of no tokens attends to nothing and gives zeros.

use crate::tensor::Dense;

use super::OperandError;
use super::attention::attention;

/// The extents of a paged cache, (num_pages, page, kv_heads, d).
#[derive(Clone, Copy, PartialEq)]
struct Cache {
    pages: usize,
    page: usize,
    kv_heads: usize,
    d: usize,
}

impl Cache {
    fn of(tensor: &Dense) -> Option<Cache> {
        match tensor.shape[..] {
            [pages, page, kv_heads, d] => Some(Cache {
                pages,
                page,
                kv_heads,
                d,
            }),
            _ => None,
        }
    }
}

/// A whole number in `0..limit` read from an integer tensor, or which one is not.
fn index(value: f64, limit: usize, what: impl Fn() -> String) -> Result<usize, OperandError> {
    if value.fract() == 0.0 && value >= 0.0 && value < limit as f64 {
        Ok(value as usize)
    } else {
        Err(OperandError::PageIndex {
            what: what(),
            value,
            limit,
        })
    }
}

/// The first `tokens` rows of `cache` (one of the paged caches) through `pages`, as a
/// dense (kv_heads, tokens, d) tensor.
fn gather(cache: &Dense, shape: Cache, pages: &[usize], tokens: usize) -> Dense {
    let Cache {
        page, kv_heads, d, ..
    } = shape;
    let mut values = Vec::with_capacity(kv_heads * tokens * d);
    for head in 0..kv_heads {
        for token in 0..tokens {
            let at = ((pages[token / page] * page + token % page) * kv_heads + head) * d;
            values.extend_from_slice(&cache.values[at..at + d]);
        }
    }
    Dense {
        dtype: cache.dtype,
        shape: vec![kv_heads, tokens, d],
        values,
    }
}

/// `softmax(q kᵀ / sqrt(d)) v` of each sequence's one query per head (q of shape
/// (batch, heads, d)) against the first `seqlens[b]` tokens of its pages: token t of
/// sequence b is slot `t % page` of page `block_table[b, t / page]` of k_cache and
/// v_cache (num_pages, page, kv_heads, d and dv). The result is (batch, heads, dv) of q's
/// dtype.
pub fn paged_attention(
    q: &Dense,
    (k_cache, v_cache): (&Dense, &Dense),
    block_table: &Dense,
    seqlens: &Dense,
) -> Result<Dense, OperandError> {
    let misfit = || OperandError::Paged {
        shapes: [q, k_cache, v_cache, block_table, seqlens].map(|tensor| tensor.shape.clone()),
    };
    let (Some(k), Some(v)) = (Cache::of(k_cache), Cache::of(v_cache)) else {
        return Err(misfit());
    };
    let (&[batch, heads, d], &[table_batch, max_pages]) =
        (q.shape.as_slice(), block_table.shape.as_slice())
    else {
        return Err(misfit());
    };
    let fits = (k.pages, k.page, k.kv_heads) == (v.pages, v.page, v.kv_heads)
        && k.d == d
        && k.kv_heads > 0
        && heads % k.kv_heads == 0
        && table_batch == batch
        && seqlens.shape == [batch];
    if !fits {
        return Err(misfit());
    }
    let dv = v.d;
    let mut values = vec![0.0; batch * heads * dv];
    for (b, out) in values.chunks_mut(heads * dv).enumerate() {
        let tokens = index(seqlens.values[b], max_pages * k.page + 1, || {
            format!("seqlens[{b}]")
        })?;
        if tokens == 0 {
            continue;
        }
        let pages = (0..tokens.div_ceil(k.page))
            .map(|p| {
                index(block_table.values[b * max_pages + p], k.pages, || {
                    format!("block_table[{b}, {p}]")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let query = Dense {
            dtype: q.dtype,
            shape: vec![heads, 1, d],
            values: q.values[b * heads * d..][..heads * d].to_vec(),
        };
        let keys = gather(k_cache, k, &pages, tokens);
        let vals = gather(v_cache, v, &pages, tokens);
        let attended = attention(&query, &keys, &vals, false).map_err(|_| misfit())?;
        out.copy_from_slice(&attended.values);
    }
    Ok(Dense {
        dtype: q.dtype,
        shape: vec![batch, heads, dv],
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::dense;

    /// One sequence of 3 tokens over pages of 2, stored in pages 1 then 0 of 2, one head
    /// of d = 1: the reference must read tokens 0 and 1 from page 1, token 2 from page 0
    /// slot 0, and nothing from page 0 slot 1.
    #[test]
    fn tokens_are_read_through_the_block_table() {
        let q = dense(&[1, 1, 1], &[1.0]);
        let k = dense(&[2, 2, 1, 1], &[0.5, 99.0, 0.0, 1.0]);
        let v = dense(&[2, 2, 1, 1], &[30.0, f64::NAN, 10.0, 20.0]);
        let table = dense(&[1, 2], &[1.0, 0.0]);
        let seqlens = dense(&[1], &[3.0]);
        let got = paged_attention(&q, (&k, &v), &table, &seqlens).expect("valid");
        let weights = [0.0_f64, 1.0, 0.5].map(f64::exp);
        let expected = (10.0 * weights[0] + 20.0 * weights[1] + 30.0 * weights[2])
            / weights.iter().sum::<f64>();
        assert!(
            (got.values[0] - expected).abs() < 1e-12,
            "{got:?} against {expected}"
        );
    }

    #[test]
    fn an_empty_sequence_gives_zeros_and_bad_entries_are_named() {
        let q = dense(&[1, 1, 1], &[1.0]);
        let k = dense(&[1, 2, 1, 1], &[1.0, 2.0]);
        let empty = paged_attention(&q, (&k, &k), &dense(&[1, 1], &[0.0]), &dense(&[1], &[0.0]));
        assert_eq!(empty.expect("valid").values, vec![0.0]);
        let past = paged_attention(&q, (&k, &k), &dense(&[1, 1], &[1.0]), &dense(&[1], &[1.0]));
        assert_eq!(
            past.unwrap_err().to_string(),
            "block_table[0, 0] = 1 is outside 0..1"
        );
        let long = paged_attention(&q, (&k, &k), &dense(&[1, 1], &[0.0]), &dense(&[1], &[3.0]));
        assert_eq!(
            long.unwrap_err().to_string(),
            "seqlens[0] = 3 is outside 0..3"
        );
    }
}
