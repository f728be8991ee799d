//! The harness's tensors are dense and row-major; a kernel parameter reads its tensor
//! through its own layout. When that layout is not the row-major one of the tensor
//! (a column-major or padded parameter), the kernel would read other elements than the
//! test means, with nothing to say so: the call is refused, naming both layouts.
//!
//! A tensor's dimension may be split into several modes of the parameter's shape
//! (`(m, (n1, n2))` for a tensor of shape `(m, n)`); within it the modes count
//! colexicographically, as CuTe's compact layouts do, so mode strides are the
//! dimension's stride times the extents of the modes before it.

use std::fmt;

use kir::{ParamKind, Signature};

use crate::marshal::CallArg;

/// A tensor parameter of `kernel` that reads its row-major tensor through another
/// layout: its modes' extents and strides, the tensor's shape, and the strides the
/// row-major layout would have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct NotRowMajor {
    kernel: String,
    param: String,
    extents: Vec<i64>,
    strides: Vec<i64>,
    shape: Vec<i64>,
    expected: Vec<i64>,
}

impl fmt::Display for NotRowMajor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}`: `{}` is read through the layout {}:{}, but the test's tensors are dense and row-major, so this one of shape {} is {}:{}; declare the parameter with the row-major layout of its memory (and view it transposed inside the kernel)",
            self.kernel,
            self.param,
            tuple(&self.extents),
            tuple(&self.strides),
            tuple(&self.shape),
            tuple(&self.extents),
            tuple(&self.expected),
        )
    }
}

impl std::error::Error for NotRowMajor {}

/// Checks that each tensor argument is read through the row-major layout of its shape;
/// the message names the kernel, the parameter and both layouts. Parameters whose
/// extents do not group into the tensor's shape are left to `marshal`'s checks.
pub(super) fn check(signature: &Signature, args: &[CallArg<'_>]) -> Result<(), Box<NotRowMajor>> {
    let ints: Vec<i64> = args
        .iter()
        .map(|arg| match arg {
            CallArg::Int(value) => *value,
            _ => 0,
        })
        .collect();
    for (param, arg) in signature.params.iter().zip(args) {
        let (ParamKind::Tensor { shape, strides, .. }, CallArg::Tensor { shape: given, .. }) =
            (&param.kind, arg)
        else {
            continue;
        };
        let evaluate = |exprs: &[kir::HostExpr]| -> Option<Vec<i64>> {
            exprs.iter().map(|expr| expr.evaluate(&ints)).collect()
        };
        let (Some(extents), Some(strides)) = (evaluate(shape), evaluate(strides)) else {
            continue;
        };
        let Some(expected) = row_major_strides(&extents, given) else {
            continue;
        };
        let differs = (extents.iter().zip(strides.iter().zip(&expected)))
            .any(|(extent, (stride, want))| *extent > 1 && stride != want);
        if differs {
            return Err(Box::new(NotRowMajor {
                kernel: signature.name.clone(),
                param: param.name.clone(),
                extents,
                strides,
                shape: given.iter().map(|extent| *extent as i64).collect(),
                expected,
            }));
        }
    }
    Ok(())
}

/// The strides of the modes `extents` over a row-major tensor of shape `shape`, each
/// dimension split into consecutive modes; `None` if they do not group that way.
fn row_major_strides(extents: &[i64], shape: &[usize]) -> Option<Vec<i64>> {
    let mut dimension_strides = vec![1i64; shape.len()];
    for dim in (0..shape.len().saturating_sub(1)).rev() {
        dimension_strides[dim] = dimension_strides[dim + 1].checked_mul(shape[dim + 1] as i64)?;
    }
    let mut strides = Vec::with_capacity(extents.len());
    let mut modes = extents.iter();
    for (extent, stride) in shape.iter().zip(dimension_strides) {
        let mut covered = 1i64;
        while covered < *extent as i64 {
            let mode = modes.next()?;
            strides.push(stride.checked_mul(covered)?);
            covered = covered.checked_mul(*mode)?;
        }
        if covered != *extent as i64 {
            return None;
        }
    }
    // Trailing modes of extent 1 read nothing more.
    for mode in modes {
        if *mode != 1 {
            return None;
        }
        strides.push(0);
    }
    Some(strides)
}

/// `(a, b, c)`.
fn tuple(values: &[i64]) -> String {
    let texts: Vec<String> = values.iter().map(ToString::to_string).collect();
    format!("({})", texts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::row_major_strides;

    #[test]
    fn a_dimension_split_into_modes_counts_its_first_mode_fastest() {
        assert_eq!(row_major_strides(&[4, 6], &[4, 6]), Some(vec![6, 1]));
        assert_eq!(row_major_strides(&[4, 2, 3], &[4, 6]), Some(vec![6, 1, 2]));
        assert_eq!(row_major_strides(&[24], &[24]), Some(vec![1]));
        assert_eq!(row_major_strides(&[4, 5], &[4, 6]), None);
    }
}
