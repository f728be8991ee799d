//! The CPU matrix product of host code: `f64` accumulation on every core (rayon), each
//! result rounded once to the dtype. It is the reference when there is no GPU or no
//! cuBLAS, so it must stay usable at real sizes: bands of rows of `C` run in parallel,
//! each walking `B` in panels that stay in cache, with a small tile of `C` held in
//! registers while the inner extent runs.

use std::ops::Range;

use rayon::prelude::*;

use super::OperandError;
use crate::element::round_to;
use crate::tensor::Dense;

/// Rows of `C` per parallel task.
const BAND_ROWS: usize = 64;
/// Inner extent per pass: a panel of `B` is this many rows ...
const PANEL_DEPTH: usize = 256;
/// ... by this many columns, 256 KiB of `f64`, which stays in a core's L2.
const PANEL_WIDTH: usize = 128;
/// The tile of `C` accumulated in registers: rows ...
const TILE_ROWS: usize = 4;
/// ... by columns.
const TILE_COLUMNS: usize = 8;
/// Multiply-adds per second one thread is assumed to manage, for [`cpu_seconds`]: on
/// the low side of what this code measures, so a slow estimate errs long.
const ASSUMED_RATE: f64 = 1.0e9;

/// `(m, k, n)` of `a (m, k) · b (k, n)`, or why the shapes do not multiply.
pub fn matmul_extents(a: &[usize], b: &[usize]) -> Result<[usize; 3], OperandError> {
    match (a, b) {
        ([m, k], [k2, n]) if k == k2 => Ok([*m, *k, *n]),
        ([_, _], [_, _]) => Err(OperandError::MatmulInner {
            a: a.to_vec(),
            b: b.to_vec(),
        }),
        _ => Err(OperandError::MatmulRank {
            a: a.to_vec(),
            b: b.to_vec(),
        }),
    }
}

/// About how long [`matmul`] takes on this machine's cores, in seconds.
pub fn cpu_seconds([m, k, n]: [usize; 3]) -> f64 {
    let threads = rayon::current_num_threads().max(1) as f64;
    m as f64 * k as f64 * n as f64 / (ASSUMED_RATE * threads)
}

/// The matrix product, accumulated in `f64`, rounded once to `a`'s dtype.
pub fn matmul(a: &Dense, b: &Dense) -> Result<Dense, OperandError> {
    let [m, k, n] = matmul_extents(&a.shape, &b.shape)?;
    if a.values.len() != m * k || b.values.len() != k * n {
        return Err(OperandError::MatmulData);
    }
    let mut values = product(&a.values, &b.values, [m, k, n]);
    values
        .par_iter_mut()
        .for_each(|value| *value = round_to(a.dtype, *value));
    Ok(Dense {
        dtype: a.dtype,
        shape: vec![m, n],
        values,
    })
}

/// Row-major `a (m, k) · b (k, n)` in `f64`.
fn product(a: &[f64], b: &[f64], [m, k, n]: [usize; 3]) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    if n == 0 {
        return c;
    }
    c.par_chunks_mut(BAND_ROWS * n)
        .enumerate()
        .for_each(|(band, c_band)| {
            let first_row = band * BAND_ROWS;
            let rows = c_band.len() / n;
            for column in (0..n).step_by(PANEL_WIDTH) {
                let columns = column..(column + PANEL_WIDTH).min(n);
                for inner in (0..k).step_by(PANEL_DEPTH) {
                    let depth = inner..(inner + PANEL_DEPTH).min(k);
                    for row in (0..rows).step_by(TILE_ROWS) {
                        let tile_rows = TILE_ROWS.min(rows - row);
                        for tile_column in columns.clone().step_by(TILE_COLUMNS) {
                            let tile_columns = TILE_COLUMNS.min(columns.end - tile_column);
                            let operands = Operands { a, b, k, n };
                            let place = Place {
                                a_row: first_row + row,
                                c_row: row,
                                column: tile_column,
                            };
                            if tile_rows == TILE_ROWS && tile_columns == TILE_COLUMNS {
                                tile(
                                    operands,
                                    place,
                                    depth.clone(),
                                    TILE_ROWS,
                                    TILE_COLUMNS,
                                    c_band,
                                );
                            } else {
                                tile(
                                    operands,
                                    place,
                                    depth.clone(),
                                    tile_rows,
                                    tile_columns,
                                    c_band,
                                );
                            }
                        }
                    }
                }
            }
        });
    c
}

/// The two operands of a product and their row lengths.
#[derive(Clone, Copy)]
struct Operands<'a> {
    a: &'a [f64],
    b: &'a [f64],
    k: usize,
    n: usize,
}

/// Where a tile sits: its first row in `A`, the same row in the band of `C`, its first
/// column.
#[derive(Clone, Copy)]
struct Place {
    a_row: usize,
    c_row: usize,
    column: usize,
}

/// Adds `A[rows, depth] · B[depth, columns]` into a `rows x columns` tile of `c_band`,
/// the sum held in registers. Inlined always, so the call with the full tile's constant
/// extents becomes straight-line, vectorized code; edge tiles take the same path with
/// run-time extents.
#[inline(always)]
fn tile(
    Operands { a, b, k, n }: Operands<'_>,
    place: Place,
    depth: Range<usize>,
    rows: usize,
    columns: usize,
    c_band: &mut [f64],
) {
    let mut sum = [[0.0f64; TILE_COLUMNS]; TILE_ROWS];
    for inner in depth {
        let b_row = &b[inner * n + place.column..][..columns];
        for (row, sum_row) in sum.iter_mut().enumerate().take(rows) {
            let x = a[(place.a_row + row) * k + inner];
            for (slot, y) in sum_row.iter_mut().zip(b_row) {
                *slot += x * y;
            }
        }
    }
    for (row, sum_row) in sum.iter().enumerate().take(rows) {
        let start = (place.c_row + row) * n + place.column;
        for (out, value) in c_band[start..start + columns].iter_mut().zip(sum_row) {
            *out += value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::mix;
    use kir::Element;

    /// The textbook triple loop, rounded once.
    fn naive(a: &Dense, b: &Dense) -> Vec<f64> {
        let [m, k, n] = matmul_extents(&a.shape, &b.shape).unwrap();
        let mut out = Vec::with_capacity(m * n);
        for row in 0..m {
            for column in 0..n {
                let mut sum = 0.0;
                for inner in 0..k {
                    sum += a.values[row * k + inner] * b.values[inner * n + column];
                }
                out.push(round_to(a.dtype, sum));
            }
        }
        out
    }

    /// Small integers, so every order of summation gives the same exact sum.
    fn dense(dtype: Element, shape: [usize; 2], seed: u64) -> Dense {
        let values = (0..shape[0] * shape[1])
            .map(|index| round_to(dtype, (mix(seed ^ index as u64) % 17) as f64 - 8.0))
            .collect();
        Dense {
            dtype,
            shape: shape.to_vec(),
            values,
        }
    }

    #[test]
    fn matches_the_naive_product_on_ragged_shapes_and_every_dtype() {
        let shapes = [
            [1, 1, 1],
            [3, 5, 2],
            [4, 8, 8],
            [65, 257, 129],
            [130, 9, 17],
            [7, 300, 1],
        ];
        let dtypes = [
            Element::BF16,
            Element::F16,
            Element::F32,
            Element::F64,
            Element::I32,
        ];
        for (case, [m, k, n]) in shapes.into_iter().enumerate() {
            for dtype in dtypes {
                let seed = case as u64 * 31 + dtype.bytes() as u64;
                let a = dense(dtype, [m, k], seed);
                let b = dense(dtype, [k, n], !seed);
                let product = matmul(&a, &b).unwrap();
                assert_eq!(product.shape, vec![m, n]);
                assert_eq!(product.dtype, dtype);
                assert_eq!(
                    product.values,
                    naive(&a, &b),
                    "{m}x{k}x{n} {}",
                    dtype.name()
                );
            }
        }
    }

    #[test]
    fn rounds_once_to_the_dtype() {
        // 1 + 2^-8 + 2^-8 = 1 + 2^-7 is a bf16, but 1 + 2^-8 alone is a tie that rounds to
        // 1: rounding each partial sum would give 1.
        let a = Dense {
            dtype: Element::BF16,
            shape: vec![1, 3],
            values: vec![1.0, 2f64.powi(-8), 2f64.powi(-8)],
        };
        let b = Dense {
            dtype: Element::BF16,
            shape: vec![3, 1],
            values: vec![1.0; 3],
        };
        assert_eq!(matmul(&a, &b).unwrap().values, vec![1.0 + 2f64.powi(-7)]);
    }

    #[test]
    fn shapes_that_do_not_multiply_are_errors() {
        assert!(
            matmul_extents(&[2, 3], &[2, 3])
                .unwrap_err()
                .to_string()
                .contains("columns")
        );
        assert!(
            matmul_extents(&[2, 3, 4], &[4, 2])
                .unwrap_err()
                .to_string()
                .contains("rank 2")
        );
        assert_eq!(matmul_extents(&[2, 3], &[3, 5]).unwrap(), [2, 3, 5]);
        assert!(cpu_seconds([4096, 4096, 4096]) > cpu_seconds([64, 64, 64]));
    }
}
