//! The references of softmax's backward and of the cross-entropy loss over rows of
//! logits (the last dimension), in `f64`, each result element rounded once.

use kir::Element;

use super::OperandError;
use super::norms::{rounded, same_shape};
use crate::tensor::Dense;

/// `softmax_backward(y, dy)`: `dx = y (dy - sum(dy y))` along the last dimension, the
/// gradient of `sum(softmax(x) · dy)` given `y = softmax(x)`; `dx` has `y`'s dtype.
pub fn softmax_backward(y: &Dense, dy: &Dense) -> Result<Dense, OperandError> {
    same_shape(y, dy, "softmax_backward")?;
    let n = *y.shape.last().unwrap_or(&1);
    let mut dx = Vec::with_capacity(y.values.len());
    for (y_row, dy_row) in y.values.chunks(n).zip(dy.values.chunks(n)) {
        let dot: f64 = y_row.iter().zip(dy_row).map(|(y, d)| y * d).sum();
        dx.extend(y_row.iter().zip(dy_row).map(|(y, d)| y * (d - dot)));
    }
    Ok(rounded(y, dx))
}

/// `cross_entropy(logits, labels, ignore_index, smoothing)`: per row of `logits` (m, c)
/// and its class `labels[r]`, `(loss, dlogits)`. The target distribution is
/// `(1 - smoothing)` on the label plus `smoothing / c` on every class, so the loss is
/// `lse - (1 - smoothing) x[label] - smoothing mean(x)` with `lse` the row's
/// log-sum-exp, and `dlogits = softmax(x) - target` (the gradient of the loss's sum).
/// A row whose label is `ignore_index` has loss 0 and dlogits 0. `loss` is f32 (m),
/// `dlogits` has the logits' dtype.
pub fn cross_entropy(
    logits: &Dense,
    labels: &Dense,
    ignore_index: i64,
    smoothing: f64,
) -> Result<(Dense, Dense), OperandError> {
    let (&[rows, classes], true) = (logits.shape.as_slice(), labels.shape.len() == 1) else {
        return Err(OperandError::Logits {
            logits: logits.shape.clone(),
            labels: labels.shape.clone(),
        });
    };
    if labels.shape != [rows] {
        return Err(OperandError::Logits {
            logits: logits.shape.clone(),
            labels: labels.shape.clone(),
        });
    }
    let mut loss = Vec::with_capacity(rows);
    let mut dlogits = Vec::with_capacity(logits.values.len());
    for (row, &label) in logits.values.chunks(classes).zip(&labels.values) {
        if label == ignore_index as f64 {
            loss.push(0.0);
            dlogits.extend(std::iter::repeat_n(0.0, classes));
            continue;
        }
        if !(0.0..classes as f64).contains(&label) {
            return Err(OperandError::Label {
                label,
                classes,
                ignore_index,
            });
        }
        let (row_loss, row_gradient) = row_cross_entropy(row, label as usize, smoothing);
        loss.push(row_loss);
        dlogits.extend(row_gradient);
    }
    let loss_template = Dense {
        dtype: Element::F32,
        shape: vec![rows],
        values: Vec::new(),
    };
    Ok((rounded(&loss_template, loss), rounded(logits, dlogits)))
}

/// One row's loss and gradient for the class `label`, unrounded.
fn row_cross_entropy(row: &[f64], label: usize, smoothing: f64) -> (f64, Vec<f64>) {
    let classes = row.len() as f64;
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lse = max + row.iter().map(|x| (x - max).exp()).sum::<f64>().ln();
    let mean = row.iter().sum::<f64>() / classes;
    let loss = lse - (1.0 - smoothing) * row[label] - smoothing * mean;
    let gradient = row.iter().enumerate().map(|(j, x)| {
        let target = smoothing / classes + if j == label { 1.0 - smoothing } else { 0.0 };
        (x - lse).exp() - target
    });
    (loss, gradient.collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::softmax;
    use crate::ops::testing::dense;

    const X: [f64; 6] = [0.5, -1.0, 2.0, 1.5, 0.0, -0.5];

    /// The central difference of `f` at `values[index]`.
    fn slope(index: usize, f: &dyn Fn(&[f64]) -> f64) -> f64 {
        let h = 1e-6;
        let (mut up, mut down) = (X.to_vec(), X.to_vec());
        up[index] += h;
        down[index] -= h;
        (f(&up) - f(&down)) / (2.0 * h)
    }

    #[test]
    fn softmax_gradient_matches_central_differences() {
        let dy = dense(&[2, 3], &[0.3, -0.7, 1.1, 0.2, -0.4, 0.9]);
        let y = softmax(&dense(&[2, 3], &X), 1).unwrap();
        let dx = softmax_backward(&y, &dy).unwrap();
        let of_x = |v: &[f64]| {
            let y = softmax(&dense(&[2, 3], v), 1).unwrap();
            y.values.iter().zip(&dy.values).map(|(y, d)| y * d).sum()
        };
        for i in 0..6 {
            assert!((dx.values[i] - slope(i, &of_x)).abs() < 1e-6, "dx[{i}]");
        }
    }

    #[test]
    fn cross_entropy_loss_and_gradient_with_smoothing_and_ignored_rows() {
        let labels = dense(&[2], &[2.0, -100.0]);
        let logits = dense(&[2, 3], &X);
        let (loss, dlogits) = cross_entropy(&logits, &labels, -100, 0.1).unwrap();
        assert_eq!(loss.dtype, Element::F32);
        // The first row by hand: lse - 0.9 x[2] - 0.1 mean(x).
        let lse = (0.5f64.exp() + (-1.0f64).exp() + 2.0f64.exp()).ln();
        let want = lse - 0.9 * 2.0 - 0.1 * (1.5 / 3.0);
        assert_eq!(loss.values, vec![f64::from(want as f32), 0.0]);
        assert_eq!(&dlogits.values[3..], &[0.0; 3]);
        let of_x = |v: &[f64]| row_cross_entropy(&v[..3], 2, 0.1).0;
        for i in 0..3 {
            assert!(
                (dlogits.values[i] - slope(i, &of_x)).abs() < 1e-6,
                "dlogits[{i}]"
            );
        }
        assert!(cross_entropy(&logits, &dense(&[2], &[3.0, 0.0]), -100, 0.0).is_err());
    }
}
