//! Host reference operations on [`Dense`] values: elementwise arithmetic, `transpose`,
//! `matmul` (on every core, `ops/matmul.rs`), `sum` and `softmax`, and the references of
//! the memory-bound training kernels (`ops/norms.rs`, `ops/losses.rs`). Math is done in `f64`
//! and each result element is rounded once to the operands' dtype, as the typechecker's
//! rules give it.

mod attention;
mod losses;
mod matmul;
mod norms;
mod operands;

use lang::ast::BinaryOp;

use crate::element::{is_float, round_to};
use crate::tensor::{Dense, shape_text};

pub use attention::{attention, attention_lse};
pub use losses::{cross_entropy, softmax_backward};
pub use matmul::{cpu_seconds, matmul, matmul_extents};
pub use norms::{layer_norm, layer_norm_backward, rms_norm, rms_norm_backward};
pub use operands::OperandError;

/// One operand of elementwise arithmetic.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    /// A tensor.
    Tensor(&'a Dense),
    /// A number, broadcast to every element.
    Scalar(f64),
}

/// `left op right`, elementwise; at least one side is a tensor.
pub fn elementwise(op: BinaryOp, left: Operand<'_>, right: Operand<'_>) -> Result<Dense, String> {
    let template = match (left, right) {
        (Operand::Tensor(a), Operand::Tensor(b)) => {
            if a.shape != b.shape {
                return Err(format!(
                    "`{}` needs tensors of one shape, not {} and {}",
                    op.symbol(),
                    shape_text(&a.shape),
                    shape_text(&b.shape)
                ));
            }
            a
        }
        (Operand::Tensor(a), Operand::Scalar(_)) | (Operand::Scalar(_), Operand::Tensor(a)) => a,
        (Operand::Scalar(_), Operand::Scalar(_)) => {
            return Err("elementwise arithmetic needs a tensor operand".to_owned());
        }
    };
    let float = is_float(template.dtype);
    let at = |operand: Operand<'_>, index: usize| match operand {
        Operand::Tensor(dense) => dense.values.get(index).copied().unwrap_or(f64::NAN),
        Operand::Scalar(value) => value,
    };
    let mut values = Vec::with_capacity(template.values.len());
    for index in 0..template.values.len() {
        let (a, b) = (at(left, index), at(right, index));
        let value = match op {
            BinaryOp::Add => a + b,
            BinaryOp::Subtract => a - b,
            BinaryOp::Multiply => a * b,
            BinaryOp::Divide if float => a / b,
            BinaryOp::Divide if b == 0.0 => {
                return Err(format!(
                    "integer division by zero in `/` at element {index}"
                ));
            }
            BinaryOp::Divide => (a / b).trunc(),
            other => return Err(format!("`{}` does not apply to tensors", other.symbol())),
        };
        values.push(round_to(template.dtype, value));
    }
    Ok(Dense {
        dtype: template.dtype,
        shape: template.shape.clone(),
        values,
    })
}

/// The transpose of a matrix.
pub fn transpose(a: &Dense) -> Result<Dense, String> {
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
pub fn sum(a: &Dense, dimension: usize) -> Result<Dense, String> {
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
pub fn softmax(a: &Dense, dimension: usize) -> Result<Dense, String> {
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

fn matrix(a: &Dense, operation: &str) -> Result<[usize; 2], String> {
    match a.shape.as_slice() {
        [rows, columns] if rows * columns == a.values.len() => Ok([*rows, *columns]),
        _ => Err(format!(
            "{operation} takes matrices (rank 2), not shape {}",
            shape_text(&a.shape)
        )),
    }
}

/// (product of extents before, extent of, product after) `dimension`.
fn split(a: &Dense, dimension: usize) -> Result<(usize, usize, usize), String> {
    let Some(extent) = a.shape.get(dimension) else {
        return Err(format!(
            "dimension {dimension} does not exist in a tensor of shape {}",
            shape_text(&a.shape)
        ));
    };
    let outer = a.shape[..dimension].iter().product();
    let inner = a.shape[dimension + 1..].iter().product();
    if outer * extent * inner != a.values.len() {
        return Err(format!(
            "shape {} does not match its data",
            shape_text(&a.shape)
        ));
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
        let error =
            elementwise(BinaryOp::Add, Operand::Tensor(&a), Operand::Tensor(&other)).unwrap_err();
        assert!(error.contains("(2) and (3)"), "{error}");
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
        assert!(matmul(&a, &a).unwrap_err().contains("columns"));
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
        assert!(sum(&a, 2).unwrap_err().contains("dimension 2"));
    }
}
