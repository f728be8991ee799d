//! Host reference operations on [`Dense`] values: elementwise arithmetic, `transpose`,
//! `matmul` (on every core, `ops/matmul.rs`), `sum` and `softmax`, NumPy's math,
//! reductions and rearrangements (`ops/arrays.rs`), attention and its gradients
//! (`ops/attention.rs`, `ops/attention_backward.rs`; packed variable-length batches in
//! `ops/attention_varlen.rs`), decode attention over a paged KV cache
//! (`ops/paged_attention.rs`), and the references of the
//! memory-bound training kernels (`ops/norms.rs`, `ops/losses.rs`). Math is done in `f64`
//! and each result element is rounded once to the operands' dtype, as the typechecker's
//! rules give it.

mod arrays;
mod attention;
mod attention_backward;
mod attention_varlen;
mod losses;
mod matmul;
mod norms;
mod operands;
mod paged_attention;

use lang::ast::BinaryOp;

use crate::element::{is_float, round_to};
use crate::tensor::Dense;

pub use arrays::{Math, Reduce, concat, cumsum, extreme, math, permute, reduce, select, slice};
pub use attention::{attention, attention_lse};
pub use attention_backward::attention_backward;
pub use attention_varlen::{
    VarlenError, attention_varlen, attention_varlen_backward, attention_varlen_lse,
};
pub use losses::{cross_entropy, softmax_backward};
pub use matmul::{cpu_seconds, matmul, matmul_extents};
pub use norms::{layer_norm, layer_norm_backward, rms_norm, rms_norm_backward};
pub use operands::OperandError;
pub use paged_attention::paged_attention;

/// What the references' unit tests build their operands with.
#[cfg(test)]
pub(crate) mod testing {
    use kir::Element;

    use crate::tensor::Dense;

    /// An f64 tensor of `shape` holding `values`, row-major.
    pub(crate) fn dense(shape: &[usize], values: &[f64]) -> Dense {
        Dense {
            dtype: Element::F64,
            shape: shape.to_vec(),
            values: values.to_vec(),
        }
    }
}

/// One operand of elementwise arithmetic.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    /// A tensor.
    Tensor(&'a Dense),
    /// A number, broadcast to every element.
    Scalar(f64),
}

/// `left op right`, elementwise; at least one side is a tensor. Two tensors broadcast as
/// NumPy's do: extents aligned from the last, each pair equal or one of them 1, which is
/// repeated along the other. A comparison gives a u8 mask of 0 and 1 (NaN compares
/// false, but unequal).
pub fn elementwise(
    op: BinaryOp,
    left: Operand<'_>,
    right: Operand<'_>,
) -> Result<Dense, OperandError> {
    let (dtype, shape) = match (left, right) {
        (Operand::Tensor(a), Operand::Tensor(b)) => {
            let shape =
                broadcast_shape(&a.shape, &b.shape).ok_or_else(|| OperandError::Broadcast {
                    operation: op.symbol(),
                    a: a.shape.clone(),
                    b: b.shape.clone(),
                })?;
            (a.dtype, shape)
        }
        (Operand::Tensor(a), Operand::Scalar(_)) | (Operand::Scalar(_), Operand::Tensor(a)) => {
            (a.dtype, a.shape.clone())
        }
        (Operand::Scalar(_), Operand::Scalar(_)) => {
            return Err(OperandError::NoTensor);
        }
    };
    let float = is_float(dtype);
    let comparison = matches!(
        op,
        BinaryOp::Equal
            | BinaryOp::NotEqual
            | BinaryOp::Less
            | BinaryOp::LessEqual
            | BinaryOp::Greater
            | BinaryOp::GreaterEqual
    );
    // A comparison gives a mask: 1 where it holds, else 0, as u8 (NumPy's bool).
    let dtype = if comparison { kir::Element::U8 } else { dtype };
    let count: usize = shape.iter().product();
    let (left_index, right_index) = (Broadcast::of(left, &shape), Broadcast::of(right, &shape));
    let at = |operand: Operand<'_>, index: usize| match operand {
        Operand::Tensor(dense) => dense.values.get(index).copied().unwrap_or(f64::NAN),
        Operand::Scalar(value) => value,
    };
    let mut values = Vec::with_capacity(count);
    for index in 0..count {
        let a = at(left, left_index.source(index));
        let b = at(right, right_index.source(index));
        let value = match op {
            BinaryOp::Add => a + b,
            BinaryOp::Subtract => a - b,
            BinaryOp::Multiply => a * b,
            BinaryOp::Divide if float => a / b,
            BinaryOp::Divide if b == 0.0 => {
                return Err(OperandError::DivisionByZero { element: index });
            }
            BinaryOp::Divide => (a / b).trunc(),
            BinaryOp::Equal => f64::from(u8::from(a == b)),
            BinaryOp::NotEqual => f64::from(u8::from(a != b)),
            BinaryOp::Less => f64::from(u8::from(a < b)),
            BinaryOp::LessEqual => f64::from(u8::from(a <= b)),
            BinaryOp::Greater => f64::from(u8::from(a > b)),
            BinaryOp::GreaterEqual => f64::from(u8::from(a >= b)),
            other => {
                return Err(OperandError::NotElementwise {
                    operator: other.symbol(),
                });
            }
        };
        values.push(round_to(dtype, value));
    }
    Ok(Dense {
        dtype,
        shape,
        values,
    })
}

/// `f` of each pair of `a`'s and `b`'s elements, broadcast as in [`elementwise`], each
/// rounded once to `a`'s dtype; `None` when the shapes do not broadcast.
fn broadcast_pairs(a: &Dense, b: &Dense, f: impl Fn(f64, f64) -> f64) -> Option<Dense> {
    let shape = broadcast_shape(&a.shape, &b.shape)?;
    let count: usize = shape.iter().product();
    let from_a = Broadcast::of(Operand::Tensor(a), &shape);
    let from_b = Broadcast::of(Operand::Tensor(b), &shape);
    let values = (0..count)
        .map(|index| {
            let x = a
                .values
                .get(from_a.source(index))
                .copied()
                .unwrap_or(f64::NAN);
            let y = b
                .values
                .get(from_b.source(index))
                .copied()
                .unwrap_or(f64::NAN);
            round_to(a.dtype, f(x, y))
        })
        .collect();
    Some(Dense {
        dtype: a.dtype,
        shape,
        values,
    })
}

/// The shape two tensors broadcast to (NumPy's rule), or `None`.
pub fn broadcast_shape(x: &[usize], y: &[usize]) -> Option<Vec<usize>> {
    let rank = x.len().max(y.len());
    let at = |shape: &[usize], axis: usize| match (axis + shape.len()).checked_sub(rank) {
        Some(index) => shape[index],
        None => 1,
    };
    (0..rank)
        .map(|axis| match (at(x, axis), at(y, axis)) {
            (1, other) | (other, 1) => Some(other),
            (p, q) => (p == q).then_some(p),
        })
        .collect()
}

/// Where an operand's element for each element of a broadcast result is: its row-major
/// strides over the result's axes, 0 along an axis it repeats.
struct Broadcast {
    /// The result's extents, the last axis first.
    extents: Vec<usize>,
    /// The operand's stride along each of them (0: repeated), in the same order.
    strides: Vec<usize>,
}

impl Broadcast {
    fn of(operand: Operand<'_>, shape: &[usize]) -> Broadcast {
        let own: &[usize] = match operand {
            Operand::Tensor(dense) => &dense.shape,
            Operand::Scalar(_) => &[],
        };
        let mut strides = Vec::with_capacity(shape.len());
        let mut stride = 1;
        for (axis, _) in shape.iter().enumerate().rev() {
            let offset = shape.len() - 1 - axis;
            let extent = own
                .len()
                .checked_sub(offset + 1)
                .map_or(1, |index| own[index]);
            strides.push(if extent == 1 { 0 } else { stride });
            stride *= extent;
        }
        Broadcast {
            extents: shape.iter().rev().copied().collect(),
            strides,
        }
    }

    /// The operand's element for result element `index` (row-major).
    fn source(&self, mut index: usize) -> usize {
        let mut source = 0;
        for (&extent, stride) in self.extents.iter().zip(&self.strides) {
            let extent = extent.max(1);
            source += index % extent * stride;
            index /= extent;
        }
        source
    }
}

/// `a`'s elements, in row-major order, as a tensor of `shape`; `None` when `shape` holds
/// another number of elements.
pub fn reshape(a: &Dense, shape: Vec<usize>) -> Option<Dense> {
    let count = shape
        .iter()
        .try_fold(1_usize, |count, extent| count.checked_mul(*extent));
    (count == Some(a.values.len())).then(|| Dense {
        dtype: a.dtype,
        shape,
        values: a.values.clone(),
    })
}

/// The transpose of a matrix.
pub fn transpose(a: &Dense) -> Result<Dense, OperandError> {
    let [rows, columns] = matrix(a, "transpose")?;
    let mut values = Vec::with_capacity(a.values.len());
    for column in 0..columns {
        for row in 0..rows {
            values.push(a.values[row * columns + column]);
        }
    }
    Ok(Dense {
        dtype: a.dtype,
        shape: vec![columns, rows],
        values,
    })
}

/// The sum along `dimension`, which disappears from the shape.
pub fn sum(a: &Dense, dimension: usize) -> Result<Dense, OperandError> {
    let (outer, extent, inner) = split(a, dimension)?;
    let mut values = vec![0.0; outer * inner];
    for o in 0..outer {
        for e in 0..extent {
            for i in 0..inner {
                values[o * inner + i] += a.values[(o * extent + e) * inner + i];
            }
        }
    }
    for value in &mut values {
        *value = round_to(a.dtype, *value);
    }
    let mut shape = a.shape.clone();
    shape.remove(dimension);
    Ok(Dense {
        dtype: a.dtype,
        shape,
        values,
    })
}

/// The softmax along `dimension` (max subtracted first).
pub fn softmax(a: &Dense, dimension: usize) -> Result<Dense, OperandError> {
    let (outer, extent, inner) = split(a, dimension)?;
    let mut values = a.values.clone();
    for o in 0..outer {
        for i in 0..inner {
            let index = |e: usize| (o * extent + e) * inner + i;
            let max = (0..extent)
                .map(|e| a.values[index(e)])
                .fold(f64::NEG_INFINITY, f64::max);
            let total: f64 = (0..extent).map(|e| (a.values[index(e)] - max).exp()).sum();
            for e in 0..extent {
                values[index(e)] = round_to(a.dtype, (a.values[index(e)] - max).exp() / total);
            }
        }
    }
    Ok(Dense {
        dtype: a.dtype,
        shape: a.shape.clone(),
        values,
    })
}

/// A matrix's (rows, columns).
fn matrix(a: &Dense, operation: &'static str) -> Result<[usize; 2], OperandError> {
    match a.shape.as_slice() {
        [rows, columns] if rows * columns == a.values.len() => Ok([*rows, *columns]),
        _ => Err(OperandError::NotMatrix {
            operation,
            shape: a.shape.clone(),
        }),
    }
}

/// (product of extents before, extent of, product after) `dimension`.
fn split(a: &Dense, dimension: usize) -> Result<(usize, usize, usize), OperandError> {
    let Some(extent) = a.shape.get(dimension) else {
        return Err(OperandError::NoDimension {
            dimension,
            shape: a.shape.clone(),
        });
    };
    let outer = a.shape[..dimension].iter().product();
    let inner = a.shape[dimension + 1..].iter().product();
    if outer * extent * inner != a.values.len() {
        return Err(OperandError::Data {
            shape: a.shape.clone(),
        });
    }
    Ok((outer, *extent, inner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kir::Element;

    fn dense(dtype: Element, shape: &[usize], values: &[f64]) -> Dense {
        Dense {
            dtype,
            shape: shape.to_vec(),
            values: values.to_vec(),
        }
    }

    #[test]
    fn elementwise_with_tensors_and_scalars() {
        let a = dense(Element::F32, &[2], &[1.0, 2.0]);
        let b = dense(Element::F32, &[2], &[0.5, 4.0]);
        let sum = elementwise(BinaryOp::Add, Operand::Tensor(&a), Operand::Tensor(&b)).unwrap();
        assert_eq!(sum.values, vec![1.5, 6.0]);
        let scaled = elementwise(
            BinaryOp::Multiply,
            Operand::Scalar(3.0),
            Operand::Tensor(&a),
        )
        .unwrap();
        assert_eq!(scaled.values, vec![3.0, 6.0]);
        let halved =
            elementwise(BinaryOp::Divide, Operand::Tensor(&b), Operand::Scalar(2.0)).unwrap();
        assert_eq!(halved.values, vec![0.25, 2.0]);
        let other = dense(Element::F32, &[3], &[0.0; 3]);
        let error = elementwise(BinaryOp::Add, Operand::Tensor(&a), Operand::Tensor(&other))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("(2) and (3)") && error.contains("broadcast"),
            "{error}"
        );
    }

    #[test]
    fn tensors_broadcast_as_numpy_does() {
        // A column of scales times a matrix: each row by its own.
        let m = dense(Element::F32, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let column = dense(Element::F32, &[2, 1], &[10.0, 100.0]);
        let rows = elementwise(
            BinaryOp::Multiply,
            Operand::Tensor(&m),
            Operand::Tensor(&column),
        );
        let rows = rows.unwrap();
        assert_eq!(rows.shape, vec![2, 3]);
        assert_eq!(rows.values, vec![10.0, 20.0, 30.0, 400.0, 500.0, 600.0]);
        // A row of fewer axes, on the right: each column by its own.
        let row = dense(Element::F32, &[3], &[1.0, 0.0, -1.0]);
        let columns = elementwise(BinaryOp::Add, Operand::Tensor(&row), Operand::Tensor(&m));
        assert_eq!(columns.unwrap().values, vec![2.0, 2.0, 2.0, 5.0, 5.0, 5.0]);
        // Both sides repeated: (2, 1, 3) - (1, 2, 1) is (2, 2, 3).
        let a = dense(Element::F32, &[2, 1, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let b = dense(Element::F32, &[1, 2, 1], &[0.0, 10.0]);
        let outer = elementwise(BinaryOp::Subtract, Operand::Tensor(&a), Operand::Tensor(&b));
        let outer = outer.unwrap();
        assert_eq!(outer.shape, vec![2, 2, 3]);
        assert_eq!(
            outer.values,
            vec![
                1.0, 2.0, 3.0, -9.0, -8.0, -7.0, 4.0, 5.0, 6.0, -6.0, -5.0, -4.0
            ]
        );
        assert_eq!(broadcast_shape(&[4, 8], &[4, 2]), None);
        let blocks = reshape(&m, vec![2, 3, 1]).unwrap();
        assert_eq!(
            (blocks.shape.as_slice(), blocks.values.len()),
            (&[2, 3, 1][..], 6)
        );
        assert_eq!(reshape(&m, vec![4, 2]), None);
        assert_eq!(broadcast_shape(&[], &[3]), Some(vec![3]));
    }

    #[test]
    fn elementwise_rounds_to_the_dtype_and_guards_integer_division() {
        let a = dense(Element::BF16, &[1], &[1.0]);
        let tiny = elementwise(BinaryOp::Add, Operand::Tensor(&a), Operand::Scalar(1e-3)).unwrap();
        assert_eq!(tiny.values, vec![1.0]);
        let ints = dense(Element::I32, &[2], &[7.0, -7.0]);
        let quotient = elementwise(
            BinaryOp::Divide,
            Operand::Tensor(&ints),
            Operand::Scalar(2.0),
        )
        .unwrap();
        assert_eq!(quotient.values, vec![3.0, -3.0]);
        assert!(
            elementwise(
                BinaryOp::Divide,
                Operand::Tensor(&ints),
                Operand::Scalar(0.0)
            )
            .is_err()
        );
    }

    #[test]
    fn transpose_and_matmul() {
        let a = dense(Element::F32, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let t = transpose(&a).unwrap();
        assert_eq!(t.shape, vec![3, 2]);
        assert_eq!(t.values, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        let product = matmul(&a, &t).unwrap();
        assert_eq!(product.shape, vec![2, 2]);
        assert_eq!(product.values, vec![14.0, 32.0, 32.0, 77.0]);
        assert!(matmul(&a, &a).unwrap_err().to_string().contains("columns"));
    }

    #[test]
    fn sum_and_softmax_along_a_dimension() {
        let a = dense(Element::F64, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(sum(&a, 1).unwrap().values, vec![6.0, 15.0]);
        assert_eq!(sum(&a, 0).unwrap().values, vec![5.0, 7.0, 9.0]);
        let soft = softmax(&a, 1).unwrap();
        let row: f64 = soft.values[..3].iter().sum();
        assert!((row - 1.0).abs() < 1e-12);
        assert!(soft.values[2] > soft.values[1]);
        assert!(sum(&a, 2).unwrap_err().to_string().contains("dimension 2"));
    }
}
