//! The row-normalization references, forward and backward, over the last dimension of
//! `x` (every leading index is one row): RMSNorm `y = x / sqrt(mean(x²) + eps) · w`
//! and LayerNorm `y = (x - mean(x)) / sqrt(var(x) + eps) · w + b`. Math in `f64`, each
//! result element rounded once: `y` and `dx` to `x`'s dtype, `dw` and `db` to `w`'s.

use super::OperandError;
use crate::element::round_to;
use crate::tensor::Dense;

/// `rms_norm(x, w, eps)`.
pub fn rms_norm(x: &Dense, w: &Dense, eps: f64) -> Result<Dense, OperandError> {
    let n = row_length(x, &[w], "rms_norm")?;
    let mut values = Vec::with_capacity(x.values.len());
    for row in x.values.chunks(n) {
        let rstd = rms_rstd(row, eps);
        values.extend(row.iter().zip(&w.values).map(|(x, w)| x * rstd * w));
    }
    Ok(rounded(x, values))
}

/// `rms_norm_backward(x, w, dy, eps)`: `(dx, dw)`, the gradients of `sum(y · dy)`.
pub fn rms_norm_backward(
    x: &Dense,
    w: &Dense,
    dy: &Dense,
    eps: f64,
) -> Result<(Dense, Dense), OperandError> {
    let n = row_length(x, &[w, dy], "rms_norm_backward")?;
    same_shape(x, dy, "rms_norm_backward")?;
    let mut dx = Vec::with_capacity(x.values.len());
    let mut dw = vec![0.0; n];
    for (row, dy_row) in x.values.chunks(n).zip(dy.values.chunks(n)) {
        let rstd = rms_rstd(row, eps);
        // dx = rstd (g - x̂ mean(g x̂)) with g = dy w and x̂ = x rstd.
        let mean_g_xhat = (0..n)
            .map(|j| dy_row[j] * w.values[j] * row[j] * rstd)
            .sum::<f64>()
            / n as f64;
        for j in 0..n {
            let xhat = row[j] * rstd;
            dx.push(rstd * (dy_row[j] * w.values[j] - xhat * mean_g_xhat));
            dw[j] += dy_row[j] * xhat;
        }
    }
    Ok((rounded(x, dx), rounded(w, dw)))
}

/// `layer_norm(x, w, b, eps)`.
pub fn layer_norm(x: &Dense, w: &Dense, b: &Dense, eps: f64) -> Result<Dense, OperandError> {
    let n = row_length(x, &[w, b], "layer_norm")?;
    let mut values = Vec::with_capacity(x.values.len());
    for row in x.values.chunks(n) {
        let (mean, rstd) = mean_rstd(row, eps);
        values.extend((0..n).map(|j| (row[j] - mean) * rstd * w.values[j] + b.values[j]));
    }
    Ok(rounded(x, values))
}

/// `layer_norm_backward(x, w, dy, eps)`: `(dx, dw, db)`, the gradients of `sum(y · dy)`.
pub fn layer_norm_backward(
    x: &Dense,
    w: &Dense,
    dy: &Dense,
    eps: f64,
) -> Result<(Dense, Dense, Dense), OperandError> {
    let n = row_length(x, &[w, dy], "layer_norm_backward")?;
    same_shape(x, dy, "layer_norm_backward")?;
    let mut dx = Vec::with_capacity(x.values.len());
    let (mut dw, mut db) = (vec![0.0; n], vec![0.0; n]);
    for (row, dy_row) in x.values.chunks(n).zip(dy.values.chunks(n)) {
        let (mean, rstd) = mean_rstd(row, eps);
        let xhat: Vec<f64> = row.iter().map(|x| (x - mean) * rstd).collect();
        let g: Vec<f64> = (0..n).map(|j| dy_row[j] * w.values[j]).collect();
        // dx = rstd (g - mean(g) - x̂ mean(g x̂)).
        let mean_g = g.iter().sum::<f64>() / n as f64;
        let mean_g_xhat = g.iter().zip(&xhat).map(|(g, x)| g * x).sum::<f64>() / n as f64;
        for j in 0..n {
            dx.push(rstd * (g[j] - mean_g - xhat[j] * mean_g_xhat));
            dw[j] += dy_row[j] * xhat[j];
            db[j] += dy_row[j];
        }
    }
    Ok((rounded(x, dx), rounded(w, dw), rounded(w, db)))
}

/// `1 / sqrt(mean(row²) + eps)`.
fn rms_rstd(row: &[f64], eps: f64) -> f64 {
    let mean_square = row.iter().map(|x| x * x).sum::<f64>() / row.len() as f64;
    1.0 / (mean_square + eps).sqrt()
}

/// The row's mean and `1 / sqrt(var + eps)`, the variance the biased one (over n).
fn mean_rstd(row: &[f64], eps: f64) -> (f64, f64) {
    let n = row.len() as f64;
    let mean = row.iter().sum::<f64>() / n;
    let variance = row.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, 1.0 / (variance + eps).sqrt())
}

/// `values` with `template`'s dtype and shape, each rounded to the dtype.
pub(super) fn rounded(template: &Dense, values: Vec<f64>) -> Dense {
    Dense {
        dtype: template.dtype,
        shape: template.shape.clone(),
        values: values
            .into_iter()
            .map(|value| round_to(template.dtype, value))
            .collect(),
    }
}

/// The length of `x`'s rows (its last extent), which each vector in `per_column` (the
/// weights, the bias) or matrix (`dy`) must end with.
fn row_length(
    x: &Dense,
    others: &[&Dense],
    operation: &'static str,
) -> Result<usize, OperandError> {
    let Some(&n) = x.shape.last() else {
        return Err(OperandError::Scalar { operation });
    };
    for other in others {
        if other.shape.last() != Some(&n) || other.values.len() % n != 0 {
            return Err(OperandError::RowLength {
                operation,
                x: x.shape.clone(),
                other: other.shape.clone(),
            });
        }
    }
    Ok(n)
}

pub(super) fn same_shape(
    a: &Dense,
    b: &Dense,
    operation: &'static str,
) -> Result<(), OperandError> {
    if a.shape == b.shape {
        return Ok(());
    }
    Err(OperandError::Shapes {
        operation,
        a: a.shape.clone(),
        b: b.shape.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::dense;
    /// `sum(f(x) · dy)`: the scalar whose gradients the backward references give.
    fn loss(y: &Dense, dy: &Dense) -> f64 {
        y.values.iter().zip(&dy.values).map(|(y, d)| y * d).sum()
    }

    /// The central difference of `f` at `values[index]`.
    fn slope(values: &[f64], index: usize, f: &dyn Fn(&[f64]) -> f64) -> f64 {
        let h = 1e-6;
        let (mut up, mut down) = (values.to_vec(), values.to_vec());
        up[index] += h;
        down[index] -= h;
        (f(&up) - f(&down)) / (2.0 * h)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * (1.0 + b.abs())
    }

    const X: [f64; 8] = [0.5, -1.25, 2.0, 0.75, 3.0, -0.5, 1.5, -2.0];
    const W: [f64; 4] = [1.5, -0.5, 0.25, 2.0];
    const B: [f64; 4] = [0.1, 0.2, -0.3, 0.4];
    const DY: [f64; 8] = [0.3, -0.7, 1.1, 0.2, -0.4, 0.9, -1.3, 0.6];

    #[test]
    fn rms_norm_scales_rows_to_unit_root_mean_square() {
        let x = dense(&[1, 2], &[3.0, 4.0]);
        let y = rms_norm(&x, &dense(&[2], &[1.0, 2.0]), 0.0).unwrap();
        let rms = 12.5f64.sqrt();
        assert_eq!(y.values, vec![3.0 / rms, 8.0 / rms]);
        assert!(rms_norm(&x, &dense(&[3], &[1.0; 3]), 0.0).is_err());
    }

    #[test]
    fn layer_norm_centres_and_scales_rows() {
        let x = dense(&[1, 2], &[1.0, 3.0]);
        let y = layer_norm(
            &x,
            &dense(&[2], &[2.0, 1.0]),
            &dense(&[2], &[0.5, 0.5]),
            0.0,
        );
        assert_eq!(y.unwrap().values, vec![-1.5, 1.5]);
    }

    #[test]
    fn rms_norm_gradients_match_central_differences() {
        let (x, w, dy) = (dense(&[2, 4], &X), dense(&[4], &W), dense(&[2, 4], &DY));
        let (dx, dw) = rms_norm_backward(&x, &w, &dy, 1e-3).unwrap();
        let of_x = |v: &[f64]| loss(&rms_norm(&dense(&[2, 4], v), &w, 1e-3).unwrap(), &dy);
        let of_w = |v: &[f64]| loss(&rms_norm(&x, &dense(&[4], v), 1e-3).unwrap(), &dy);
        for i in 0..8 {
            assert!(close(dx.values[i], slope(&X, i, &of_x)), "dx[{i}]");
        }
        for j in 0..4 {
            assert!(close(dw.values[j], slope(&W, j, &of_w)), "dw[{j}]");
        }
    }

    #[test]
    fn layer_norm_gradients_match_central_differences() {
        let (x, w, b, dy) = (
            dense(&[2, 4], &X),
            dense(&[4], &W),
            dense(&[4], &B),
            dense(&[2, 4], &DY),
        );
        let (dx, dw, db) = layer_norm_backward(&x, &w, &dy, 1e-3).unwrap();
        let of_x = |v: &[f64]| loss(&layer_norm(&dense(&[2, 4], v), &w, &b, 1e-3).unwrap(), &dy);
        let of_w = |v: &[f64]| loss(&layer_norm(&x, &dense(&[4], v), &b, 1e-3).unwrap(), &dy);
        let of_b = |v: &[f64]| loss(&layer_norm(&x, &w, &dense(&[4], v), 1e-3).unwrap(), &dy);
        for i in 0..8 {
            assert!(close(dx.values[i], slope(&X, i, &of_x)), "dx[{i}]");
        }
        for j in 0..4 {
            assert!(close(dw.values[j], slope(&W, j, &of_w)), "dw[{j}]");
            assert!(close(db.values[j], slope(&B, j, &of_b)), "db[{j}]");
        }
    }
}
