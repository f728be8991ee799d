//! NumPy's array operations on host tensors, for references that read like NumPy:
//! elementwise math ([`Math`]: `exp`, `log`, `sqrt`, `abs`, `tanh`, `erf`, `gelu`),
//! `maximum` and `minimum` with broadcasting, reductions along a dimension ([`Reduce`]:
//! `max`, `min`, `mean`, `argmax`; `cumsum` keeps it), and copies that rearrange
//! (`permute`, `slice`, `concat`). Math is in `f64`, each result rounded once to the
//! operand's dtype (`argmax` gives `i64` indices).

use kir::Element;

use super::OperandError;
use crate::element::round_to;
use crate::tensor::Dense;

/// An elementwise function of one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Math {
    /// `e^x`.
    Exp,
    /// The natural logarithm.
    Log,
    /// The square root.
    Sqrt,
    /// The absolute value.
    Abs,
    /// The hyperbolic tangent.
    Tanh,
    /// The error function.
    Erf,
    /// GELU, exactly: `x Φ(x) = x (1 + erf(x / √2)) / 2` (torch's default, not its tanh
    /// approximation).
    Gelu,
}

impl Math {
    /// The function a host built-in names.
    pub fn named(name: &str) -> Option<Math> {
        Some(match name {
            "exp" => Math::Exp,
            "log" => Math::Log,
            "sqrt" => Math::Sqrt,
            "abs" => Math::Abs,
            "tanh" => Math::Tanh,
            "erf" => Math::Erf,
            "gelu" => Math::Gelu,
            _ => return None,
        })
    }

    fn apply(self, x: f64) -> f64 {
        match self {
            Math::Exp => x.exp(),
            Math::Log => x.ln(),
            Math::Sqrt => x.sqrt(),
            Math::Abs => x.abs(),
            Math::Tanh => x.tanh(),
            Math::Erf => libm::erf(x),
            Math::Gelu => 0.5 * x * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2)),
        }
    }
}

/// `function` of each element of `a`.
pub fn math(a: &Dense, function: Math) -> Dense {
    let values = (a.values.iter())
        .map(|x| round_to(a.dtype, function.apply(*x)))
        .collect();
    Dense {
        dtype: a.dtype,
        shape: a.shape.clone(),
        values,
    }
}

/// The larger (`larger`) or smaller of each pair of `a`'s and `b`'s broadcast elements;
/// NaN where either is NaN, as NumPy's `maximum` and `minimum`.
pub fn extreme(a: &Dense, b: &Dense, larger: bool) -> Result<Dense, OperandError> {
    let operation = if larger { "maximum" } else { "minimum" };
    super::broadcast_pairs(a, b, |x, y| {
        if x.is_nan() || y.is_nan() {
            f64::NAN
        } else if (x > y) == larger {
            x
        } else {
            y
        }
    })
    .ok_or_else(|| OperandError::Broadcast {
        operation,
        a: a.shape.clone(),
        b: b.shape.clone(),
    })
}

/// `a` where `mask` is not 0, else `b`: the three broadcast together, in `a`'s dtype
/// (NumPy's `where`).
pub fn select(mask: &Dense, a: &Dense, b: &Dense) -> Result<Dense, OperandError> {
    let unbroadcast = |x: &Dense, y: &Dense| OperandError::Broadcast {
        operation: "where",
        a: x.shape.clone(),
        b: y.shape.clone(),
    };
    let shape =
        super::broadcast_shape(&mask.shape, &a.shape).ok_or_else(|| unbroadcast(mask, a))?;
    let shape = super::broadcast_shape(&shape, &b.shape).ok_or_else(|| unbroadcast(a, b))?;
    let count: usize = shape.iter().product();
    let [from_mask, from_a, from_b] =
        [mask, a, b].map(|x| super::Broadcast::of(super::Operand::Tensor(x), &shape));
    let at = |x: &Dense, index: usize| x.values.get(index).copied().unwrap_or(f64::NAN);
    let values = (0..count)
        .map(|index| {
            let chosen = if at(mask, from_mask.source(index)) != 0.0 {
                at(a, from_a.source(index))
            } else {
                at(b, from_b.source(index))
            };
            round_to(a.dtype, chosen)
        })
        .collect();
    Ok(Dense {
        dtype: a.dtype,
        shape,
        values,
    })
}

/// A reduction along a dimension, which disappears from the shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// The largest value (NaN if any is).
    Max,
    /// The smallest value (NaN if any is).
    Min,
    /// The mean.
    Mean,
    /// The index of the first largest value (of the first NaN if any), as `i64`.
    Argmax,
}

impl Reduce {
    /// The reduction a host built-in names.
    pub fn named(name: &str) -> Option<Reduce> {
        Some(match name {
            "max" => Reduce::Max,
            "min" => Reduce::Min,
            "mean" => Reduce::Mean,
            "argmax" => Reduce::Argmax,
            _ => return None,
        })
    }

    fn apply(self, values: impl Iterator<Item = f64>) -> f64 {
        let mut best: Option<(usize, f64)> = None;
        let mut total = 0.0;
        let mut count = 0;
        for (index, value) in values.enumerate() {
            total += value;
            count += 1;
            let better = match (best, self) {
                (None, _) => true,
                (Some((_, held)), _) if held.is_nan() => false,
                (Some(_), _) if value.is_nan() => true,
                (Some((_, held)), Reduce::Min) => value < held,
                (Some((_, held)), _) => value > held,
            };
            if better {
                best = Some((index, value));
            }
        }
        match (self, best) {
            (Reduce::Mean, _) => total / count as f64,
            (Reduce::Argmax, Some((index, _))) => index as f64,
            (_, Some((_, value))) => value,
            (_, None) => f64::NAN,
        }
    }
}

/// `reduction` of `a` along `dimension`.
pub fn reduce(a: &Dense, dimension: usize, reduction: Reduce) -> Result<Dense, OperandError> {
    let (outer, extent, inner) = axes(a, dimension, "a reduction")?;
    let dtype = match reduction {
        Reduce::Argmax => Element::I64,
        _ => a.dtype,
    };
    let mut values = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let along = (0..extent).map(|e| a.values[(o * extent + e) * inner + i]);
            values.push(round_to(dtype, reduction.apply(along)));
        }
    }
    let mut shape = a.shape.clone();
    shape.remove(dimension);
    Ok(Dense {
        dtype,
        shape,
        values,
    })
}

/// The running sums along `dimension` (in `f64`, each rounded once).
pub fn cumsum(a: &Dense, dimension: usize) -> Result<Dense, OperandError> {
    let (outer, extent, inner) = axes(a, dimension, "cumsum")?;
    let mut values = a.values.clone();
    for o in 0..outer {
        for i in 0..inner {
            let mut total = 0.0;
            for e in 0..extent {
                let index = (o * extent + e) * inner + i;
                total += a.values[index];
                values[index] = round_to(a.dtype, total);
            }
        }
    }
    Ok(Dense {
        dtype: a.dtype,
        shape: a.shape.clone(),
        values,
    })
}

/// `a` with its dimensions reordered: dimension `d` of the result is `a`'s
/// `order[d]` (NumPy's `transpose(a, axes)`, torch's `permute`).
pub fn permute(a: &Dense, order: &[usize]) -> Result<Dense, OperandError> {
    let rank = a.shape.len();
    let mut seen = vec![false; rank];
    let valid = order.len() == rank
        && order
            .iter()
            .all(|&d| d < rank && !std::mem::replace(&mut seen[d], true));
    if !valid {
        return Err(OperandError::Permutation {
            order: order.to_vec(),
            shape: a.shape.clone(),
        });
    }
    let shape: Vec<usize> = order.iter().map(|&d| a.shape[d]).collect();
    let mut strides = vec![1; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * a.shape[d + 1];
    }
    let count = a.values.len();
    let mut values = Vec::with_capacity(count);
    for mut index in 0..count {
        let mut source = 0;
        for d in (0..rank).rev() {
            source += index % shape[d] * strides[order[d]];
            index /= shape[d];
        }
        values.push(a.values[source]);
    }
    Ok(Dense {
        dtype: a.dtype,
        shape,
        values,
    })
}

/// Elements `start..end` of `a` along `dimension` (NumPy's `a[..., start:end, ...]`).
pub fn slice(a: &Dense, dimension: usize, start: usize, end: usize) -> Result<Dense, OperandError> {
    let (outer, extent, inner) = axes(a, dimension, "slice")?;
    if start >= end || end > extent {
        return Err(OperandError::Range { start, end, extent });
    }
    let mut values = Vec::with_capacity(outer * (end - start) * inner);
    for o in 0..outer {
        let from = (o * extent + start) * inner;
        values.extend_from_slice(&a.values[from..from + (end - start) * inner]);
    }
    let mut shape = a.shape.clone();
    shape[dimension] = end - start;
    Ok(Dense {
        dtype: a.dtype,
        shape,
        values,
    })
}

/// `a` and then `b` along `dimension`; their other extents must agree.
pub fn concat(a: &Dense, b: &Dense, dimension: usize) -> Result<Dense, OperandError> {
    let (outer, first, inner) = axes(a, dimension, "concat")?;
    let fits = a.shape.len() == b.shape.len()
        && (a.shape.iter().zip(&b.shape).enumerate()).all(|(d, (x, y))| d == dimension || x == y);
    if !fits {
        return Err(OperandError::Concat {
            a: a.shape.clone(),
            b: b.shape.clone(),
            dimension,
        });
    }
    let second = b.shape[dimension];
    let mut values = Vec::with_capacity(a.values.len() + b.values.len());
    for o in 0..outer {
        values.extend_from_slice(&a.values[o * first * inner..(o + 1) * first * inner]);
        values.extend_from_slice(&b.values[o * second * inner..(o + 1) * second * inner]);
    }
    let mut shape = a.shape.clone();
    shape[dimension] = first + second;
    Ok(Dense {
        dtype: a.dtype,
        shape,
        values,
    })
}

/// (product of extents before, extent of, product after) `dimension`.
fn axes(
    a: &Dense,
    dimension: usize,
    operation: &'static str,
) -> Result<(usize, usize, usize), OperandError> {
    let Some(&extent) = a.shape.get(dimension) else {
        return Err(OperandError::Dimension {
            operation,
            dimension,
            shape: a.shape.clone(),
        });
    };
    let outer = a.shape[..dimension].iter().product();
    let inner = a.shape[dimension + 1..].iter().product();
    Ok((outer, extent, inner))
}

#[cfg(test)]
mod tests {
    //! Expected values from NumPy 2 and SciPy (`scipy.special.erf`) on the same inputs.

    use super::*;
    use crate::ops::testing::dense;

    /// x = [[-1.5, 0.25, 2.0], [0.5, -3.0, 1.0]].
    fn x() -> Dense {
        dense(&[2, 3], &[-1.5, 0.25, 2.0, 0.5, -3.0, 1.0])
    }

    fn close(actual: &[f64], expected: &[f64]) {
        assert_eq!(actual.len(), expected.len());
        for (a, e) in actual.iter().zip(expected) {
            assert!(
                (a - e).abs() <= 1e-15 * e.abs().max(1.0),
                "{actual:?} vs {expected:?}"
            );
        }
    }

    #[test]
    fn elementwise_math_matches_numpy_and_scipy() {
        let x = x();
        let cases = [
            (
                Math::Exp,
                [
                    0.22313016014842982,
                    1.2840254166877414,
                    7.38905609893065,
                    1.6487212707001282,
                    0.049787068367863944,
                    std::f64::consts::E,
                ],
            ),
            (
                Math::Tanh,
                [
                    -0.9051482536448665,
                    0.24491866240370913,
                    0.9640275800758169,
                    0.46211715726000974,
                    -0.9950547536867305,
                    0.7615941559557649,
                ],
            ),
            (
                Math::Erf,
                [
                    -0.9661051464753108,
                    0.2763263901682369,
                    0.9953222650189527,
                    0.5204998778130465,
                    -0.9999779095030014,
                    0.8427007929497148,
                ],
            ),
            (
                Math::Gelu,
                [
                    -0.10021080190328713,
                    0.14967658142073093,
                    1.9544997361036416,
                    0.3457312306370065,
                    -0.00404969409489031,
                    0.8413447460685429,
                ],
            ),
            (Math::Abs, [1.5, 0.25, 2.0, 0.5, 3.0, 1.0]),
        ];
        for (function, expected) in cases {
            let result = math(&x, function);
            assert_eq!(result.shape, [2, 3]);
            close(&result.values, &expected);
        }
        // Rounded once to the dtype: e^1 in bf16 is 2.71875.
        let one = Dense {
            dtype: Element::BF16,
            shape: vec![1],
            values: vec![1.0],
        };
        assert_eq!(math(&one, Math::Exp).values, [2.71875]);
        assert!(math(&dense(&[1], &[-1.0]), Math::Log).values[0].is_nan());
    }

    #[test]
    fn reductions_match_numpy() {
        let x = x();
        let max0 = reduce(&x, 0, Reduce::Max).unwrap();
        assert_eq!(
            (max0.shape.as_slice(), max0.values.as_slice()),
            (&[3][..], &[0.5, 0.25, 2.0][..])
        );
        assert_eq!(reduce(&x, 1, Reduce::Min).unwrap().values, [-1.5, -3.0]);
        assert_eq!(reduce(&x, 1, Reduce::Mean).unwrap().values, [0.25, -0.5]);
        let argmax = reduce(&x, 0, Reduce::Argmax).unwrap();
        assert_eq!(
            (argmax.dtype, argmax.values.as_slice()),
            (Element::I64, &[1.0, 0.0, 0.0][..])
        );
        assert_eq!(reduce(&x, 1, Reduce::Argmax).unwrap().values, [2.0, 2.0]);
        assert_eq!(
            cumsum(&x, 0).unwrap().values,
            [-1.5, 0.25, 2.0, -1.0, -2.75, 3.0]
        );
        assert_eq!(
            cumsum(&x, 1).unwrap().values,
            [-1.5, -1.25, 0.75, 0.5, -2.5, -1.5]
        );
        // NaN wins max and argmax, as in NumPy; ties go to the first.
        let nan = dense(&[4], &[1.0, f64::NAN, 3.0, f64::NAN]);
        assert!(reduce(&nan, 0, Reduce::Max).unwrap().values[0].is_nan());
        assert_eq!(reduce(&nan, 0, Reduce::Argmax).unwrap().values, [1.0]);
        let ties = dense(&[3], &[2.0, 5.0, 5.0]);
        assert_eq!(reduce(&ties, 0, Reduce::Argmax).unwrap().values, [1.0]);
        assert_eq!(
            reduce(&x, 2, Reduce::Max).unwrap_err().to_string(),
            "a reduction along dimension 2, which a tensor of shape (2, 3) does not have"
        );
    }

    #[test]
    fn rearrangements_match_numpy() {
        let y = dense(&[2, 3, 4], &(0..24).map(f64::from).collect::<Vec<_>>());
        let permuted = permute(&y, &[2, 0, 1]).unwrap();
        assert_eq!(permuted.shape, [4, 2, 3]);
        assert_eq!(
            permuted.values,
            [
                0., 4., 8., 12., 16., 20., 1., 5., 9., 13., 17., 21., 2., 6., 10., 14., 18., 22.,
                3., 7., 11., 15., 19., 23.
            ]
        );
        assert_eq!(permute(&permuted, &[1, 2, 0]).unwrap(), y);
        for bad in [&[0, 0, 1][..], &[0, 1], &[0, 1, 3]] {
            assert!(matches!(
                permute(&y, bad),
                Err(OperandError::Permutation { .. })
            ));
        }
        let middle = slice(&y, 1, 1, 3).unwrap();
        assert_eq!(middle.shape, [2, 2, 4]);
        assert_eq!(
            middle.values,
            [
                4., 5., 6., 7., 8., 9., 10., 11., 16., 17., 18., 19., 20., 21., 22., 23.
            ]
        );
        assert!(matches!(
            slice(&y, 1, 2, 2),
            Err(OperandError::Range { extent: 3, .. })
        ));
        assert!(matches!(
            slice(&y, 1, 1, 4),
            Err(OperandError::Range { .. })
        ));
        let x = x();
        let first_column = slice(&x, 1, 0, 1).unwrap();
        let joined = concat(&x, &math(&first_column, Math::Abs), 1).unwrap();
        assert_eq!(joined.shape, [2, 4]);
        assert_eq!(joined.values, [-1.5, 0.25, 2.0, 1.5, 0.5, -3.0, 1.0, 0.5]);
        let rows = concat(&x, &x, 0).unwrap();
        assert_eq!(
            (rows.shape.as_slice(), &rows.values[6..]),
            (&[4, 3][..], &x.values[..])
        );
        assert!(matches!(
            concat(&x, &first_column, 0),
            Err(OperandError::Concat { .. })
        ));
    }

    #[test]
    fn select_chooses_as_numpys_where_and_comparisons_give_masks() {
        use lang::ast::BinaryOp;
        let x = x();
        let zero = dense(&[], &[0.0]);
        let positive = super::super::elementwise(
            BinaryOp::Greater,
            super::super::Operand::Tensor(&x),
            super::super::Operand::Scalar(0.0),
        )
        .unwrap();
        assert_eq!(
            (positive.dtype, positive.values.as_slice()),
            (Element::U8, &[0.0, 1.0, 1.0, 1.0, 0.0, 1.0][..])
        );
        // np.where(x > 0, x, 0): a ReLU.
        let relu = select(&positive, &x, &zero).unwrap();
        assert_eq!(relu.values, [0.0, 0.25, 2.0, 0.5, 0.0, 1.0]);
        // A row mask broadcast over both rows, choosing between x and -x.
        let row = dense(&[3], &[1.0, 0.0, 1.0]);
        let negated = math(&x, Math::Abs);
        let chosen = select(&row, &x, &negated).unwrap();
        assert_eq!(chosen.values, [-1.5, 0.25, 2.0, 0.5, 3.0, 1.0]);
        let column = dense(&[2], &[1.0, 0.0]);
        assert!(matches!(
            select(&column, &x, &zero),
            Err(OperandError::Broadcast { .. })
        ));
    }

    #[test]
    fn maximum_and_minimum_broadcast_as_numpy() {
        let x = x();
        let row = dense(&[3], &[0.0, 0.3, 1.5]);
        assert_eq!(
            extreme(&x, &row, true).unwrap().values,
            [0.0, 0.3, 2.0, 0.5, 0.3, 1.5]
        );
        assert_eq!(
            extreme(&row, &x, false).unwrap().values,
            [-1.5, 0.25, 1.5, 0.0, -3.0, 1.0]
        );
        let nan = dense(&[1], &[f64::NAN]);
        assert!(
            extreme(&x, &nan, true)
                .unwrap()
                .values
                .iter()
                .all(|v| v.is_nan())
        );
        let column = dense(&[2], &[0.0, 0.0]);
        assert!(matches!(
            extreme(&x, &column, true),
            Err(OperandError::Broadcast { .. })
        ));
    }
}
