//! `crd2idx` of a static integer index over a shape whose extents are static: the
//! index is split into coordinates with machine integers, and only the strides'
//! multiples are computed in the layout's integer type.
//!
//! Unrolled loops index fragments and coordinate tensors with constants; the general
//! path (`tuple_arith::int_crd2idx`) would divide and take remainders of symbolic
//! constants, allocating each. The result, an error included, is the general path's:
//! the same multiplications and additions in the same order. Where the general path
//! must decide (a symbolic extent, an extent not above zero, a shape and stride that
//! disagree), this gives `None`.

use crate::{Int, IntTuple, LayoutError};

/// The offset of the non-negative static `index` in `shape`:`stride`, or `None` where
/// the general path must compute it.
pub(crate) fn static_int_crd2idx<I: Int>(
    index: i64,
    shape: &IntTuple<I>,
    stride: &IntTuple<I>,
) -> Option<Result<I, LayoutError>> {
    match (shape, stride) {
        (IntTuple::Int(_), IntTuple::Int(d)) => Some(I::from_static(index).mul(d)),
        (IntTuple::Tuple(ss), IntTuple::Tuple(ds)) if ss.len() == ds.len() && !ss.is_empty() => {
            let last = ss.len() - 1;
            let mut rest = index;
            let mut sum = I::from_static(0);
            for (position, (s, d)) in ss.iter().zip(ds).enumerate() {
                let coordinate = if position == last {
                    rest
                } else {
                    let extent = static_product(s).filter(|extent| *extent > 0)?;
                    let coordinate = rest % extent;
                    rest /= extent;
                    coordinate
                };
                let part = match static_int_crd2idx(coordinate, s, d)? {
                    Ok(part) => part,
                    Err(error) => return Some(Err(error)),
                };
                sum = match sum.add(&part) {
                    Ok(sum) => sum,
                    Err(error) => return Some(Err(error)),
                };
            }
            Some(Ok(sum))
        }
        _ => None,
    }
}

/// The product of `shape`'s extents when all are static and it does not overflow.
fn static_product<I: Int>(shape: &IntTuple<I>) -> Option<i64> {
    match shape {
        IntTuple::Int(extent) => extent.as_static(),
        IntTuple::Tuple(modes) => modes.iter().try_fold(1_i64, |product, mode| {
            product.checked_mul(static_product(mode)?)
        }),
    }
}
