//! Arithmetic over int-tuples: CuTe's `prefix_product`, `inner_product`, `shape_div`,
//! `ceil_div`, `idx2crd`, `crd2idx`, `elem_less` and `product_each`.
//!
//! Coordinates are colexicographic: the leftmost mode varies fastest.

use crate::{Int, IntTuple, LayoutError};

fn incongruent<I: Int, J: Int>(
    operation: &'static str,
    left: &IntTuple<I>,
    right: &IntTuple<J>,
) -> LayoutError {
    LayoutError::Incongruent {
        operation,
        left: left.to_string(),
        right: right.to_string(),
    }
}

/// Exclusive prefix products of `shape` starting at `init` (CuTe's `prefix_product`):
/// the strides of the compact column-major layout when `init` is 1.
pub fn prefix_product<I: Int>(
    shape: &IntTuple<I>,
    init: &IntTuple<I>,
) -> Result<IntTuple<I>, LayoutError> {
    match (shape, init) {
        (IntTuple::Tuple(modes), IntTuple::Tuple(inits)) => {
            if modes.len() != inits.len() {
                return Err(incongruent("prefix_product", shape, init));
            }
            let result = modes
                .iter()
                .zip(inits)
                .map(|(mode, start)| prefix_product(mode, start));
            Ok(IntTuple::Tuple(result.collect::<Result<_, _>>()?))
        }
        (IntTuple::Tuple(modes), IntTuple::Int(start)) => {
            let mut current = start.clone();
            let mut result = Vec::with_capacity(modes.len());
            for mode in modes {
                result.push(prefix_product(mode, &IntTuple::Int(current.clone()))?);
                current = current.mul(&mode.product()?)?;
            }
            Ok(IntTuple::Tuple(result))
        }
        (IntTuple::Int(_), IntTuple::Int(_)) => Ok(init.clone()),
        (IntTuple::Int(_), IntTuple::Tuple(_)) => Err(incongruent("prefix_product", shape, init)),
    }
}

/// Compact strides for `shape` starting at `start` (CuTe's `compact_major`), walking
/// the modes left to right (`LayoutLeft`) or right to left (`LayoutRight`). A static
/// extent-1 mode gets stride 0, as in C++.
fn compact<I: Int>(
    shape: &IntTuple<I>,
    current: &mut I,
    rightmost_fastest: bool,
) -> Result<IntTuple<I>, LayoutError> {
    match shape {
        IntTuple::Int(extent) if extent.is_static(1) => Ok(IntTuple::int(0)),
        IntTuple::Int(extent) => {
            let stride = current.clone();
            *current = current.mul(extent)?;
            Ok(IntTuple::Int(stride))
        }
        IntTuple::Tuple(modes) => {
            let mut strides = Vec::with_capacity(modes.len());
            if rightmost_fastest {
                for mode in modes.iter().rev() {
                    strides.push(compact(mode, current, true)?);
                }
                strides.reverse();
            } else {
                for mode in modes {
                    strides.push(compact(mode, current, false)?);
                }
            }
            Ok(IntTuple::Tuple(strides))
        }
    }
}

/// Compact column-major strides for `shape` starting at `start` (CuTe's
/// `compact_major<LayoutLeft>`): the leftmost mode varies fastest.
pub(crate) fn compact_left<I: Int>(
    shape: &IntTuple<I>,
    start: &I,
) -> Result<IntTuple<I>, LayoutError> {
    compact(shape, &mut start.clone(), false)
}

/// Compact row-major strides for `shape` starting at `start` (CuTe's
/// `compact_major<LayoutRight>`): the rightmost mode varies fastest.
pub(crate) fn compact_right<I: Int>(
    shape: &IntTuple<I>,
    start: &I,
) -> Result<IntTuple<I>, LayoutError> {
    compact(shape, &mut start.clone(), true)
}

/// Sum of the products of corresponding leaves of two congruent int-tuples.
pub fn inner_product<I: Int>(a: &IntTuple<I>, b: &IntTuple<I>) -> Result<I, LayoutError> {
    match (a, b) {
        (IntTuple::Int(x), IntTuple::Int(y)) => x.mul(y),
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) if xs.len() == ys.len() => xs
            .iter()
            .zip(ys)
            .try_fold(I::from_static(0), |sum, (x, y)| {
                sum.add(&inner_product(x, y)?)
            }),
        _ => Err(incongruent("inner_product", a, b)),
    }
}

/// CuTe's `shape_div` of two integers: `a / b` where one divides the other, rounding
/// a quotient of 0 away from zero (so `shape_div(2, 8)` is 1).
pub(crate) fn shape_div_int<I: Int>(a: &I, b: &I) -> Result<I, LayoutError> {
    if let (Some(x), Some(y)) = (a.as_static(), b.as_static()) {
        if y == 0 {
            return Err(LayoutError::DivisionByZero {
                operation: "shape_div",
            });
        }
        let divides =
            x.checked_rem(y).is_some_and(|r| r == 0) || y.checked_rem(x).is_some_and(|r| r == 0);
        if !divides {
            return Err(LayoutError::NotDivisible {
                operation: "shape_div",
                dividend: x.to_string(),
                divisor: y.to_string(),
            });
        }
        let quotient = <i64 as Int>::div(&x, &y)?;
        return Ok(I::from_static(if quotient != 0 {
            quotient
        } else {
            x.signum() * y.signum()
        }));
    }
    if a == b {
        return Ok(I::from_static(1));
    }
    if a.rem(b)?.is_static(0) {
        return a.div(b);
    }
    let dynamic = if a.as_static().is_none() { a } else { b };
    Err(LayoutError::Dynamic {
        operation: "shape_div",
        operand: dynamic.to_string(),
    })
}

/// CuTe's `shape_div`: divides `a` by `b` mode by mode, or folds an integer divisor
/// through the modes of `a` left to right.
pub fn shape_div<I: Int>(a: &IntTuple<I>, b: &IntTuple<I>) -> Result<IntTuple<I>, LayoutError> {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) => {
            if xs.len() != ys.len() {
                return Err(incongruent("shape_div", a, b));
            }
            let result = xs.iter().zip(ys).map(|(x, y)| shape_div(x, y));
            Ok(IntTuple::Tuple(result.collect::<Result<_, _>>()?))
        }
        (IntTuple::Tuple(xs), IntTuple::Int(divisor)) => {
            let mut rest = divisor.clone();
            let mut result = Vec::with_capacity(xs.len());
            for x in xs {
                result.push(shape_div(x, &IntTuple::Int(rest.clone()))?);
                rest = shape_div_int(&rest, &x.product()?)?;
            }
            Ok(IntTuple::Tuple(result))
        }
        (IntTuple::Int(x), IntTuple::Tuple(_)) => {
            Ok(IntTuple::Int(shape_div_int(x, &b.product()?)?))
        }
        (IntTuple::Int(x), IntTuple::Int(y)) => Ok(IntTuple::Int(shape_div_int(x, y)?)),
    }
}

/// CuTe's `ceil_div`: mode by mode for two tuples (missing divisor modes are 1), folded
/// left to right for a tuple divided by an integer.
pub fn ceil_div<I: Int>(a: &IntTuple<I>, b: &IntTuple<I>) -> Result<IntTuple<I>, LayoutError> {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) => {
            if xs.len() < ys.len() {
                return Err(incongruent("ceil_div", a, b));
            }
            let one = IntTuple::int(1);
            let result = xs
                .iter()
                .enumerate()
                .map(|(index, x)| ceil_div(x, ys.get(index).unwrap_or(&one)));
            Ok(IntTuple::Tuple(result.collect::<Result<_, _>>()?))
        }
        (IntTuple::Tuple(xs), IntTuple::Int(divisor)) => {
            let mut rest = divisor.clone();
            let mut result = Vec::with_capacity(xs.len());
            for x in xs {
                result.push(ceil_div(x, &IntTuple::Int(rest.clone()))?);
                rest = rest.ceil_div(&x.product()?)?;
            }
            Ok(IntTuple::Tuple(result))
        }
        (IntTuple::Int(x), _) => Ok(IntTuple::Int(x.ceil_div(&b.product()?)?)),
    }
}

/// Rejects a negative static integer coordinate. Past the end is allowed: as in CuTe,
/// an integer coordinate beyond the shape's size continues along the last mode.
fn check_not_negative<I: Int>(coordinate: &I, shape: &IntTuple<I>) -> Result<(), LayoutError> {
    if coordinate.as_static().is_some_and(|value| value < 0) {
        return Err(LayoutError::CoordinateOutOfRange {
            coordinate: coordinate.to_string(),
            shape: shape.to_string(),
        });
    }
    Ok(())
}

/// Maps a coordinate (an integer or a hierarchical coordinate) to an index through
/// `shape` and `stride` (CuTe's `crd2idx`). An integer coordinate into a tuple shape is
/// split colexicographically; one at or past the shape's size extends the last mode, as
/// in CuTe (`4:2` at 5 is 10). Negative static integer coordinates are rejected.
pub fn crd2idx<I: Int>(
    coord: &IntTuple<I>,
    shape: &IntTuple<I>,
    stride: &IntTuple<I>,
) -> Result<I, LayoutError> {
    match (coord, shape, stride) {
        (IntTuple::Tuple(cs), IntTuple::Tuple(ss), IntTuple::Tuple(ds)) => {
            if cs.len() != ss.len() || ss.len() != ds.len() {
                return Err(incongruent("crd2idx", coord, shape));
            }
            let mut sum = I::from_static(0);
            for ((c, s), d) in cs.iter().zip(ss).zip(ds) {
                sum = sum.add(&crd2idx(c, s, d)?)?;
            }
            Ok(sum)
        }
        (IntTuple::Int(index), _, _) => {
            check_not_negative(index, shape)?;
            int_crd2idx(index, shape, stride)
        }
        _ => Err(incongruent("crd2idx", coord, shape)),
    }
}

/// `crd2idx` of a non-negative integer coordinate.
fn int_crd2idx<I: Int>(
    index: &I,
    shape: &IntTuple<I>,
    stride: &IntTuple<I>,
) -> Result<I, LayoutError> {
    if let Some(index) = index.as_static()
        && let Some(offset) = crate::static_index::static_int_crd2idx(index, shape, stride)
    {
        return offset;
    }
    match (shape, stride) {
        (IntTuple::Int(_), IntTuple::Int(d)) => index.mul(d),
        (IntTuple::Tuple(ss), IntTuple::Tuple(ds)) if ss.len() == ds.len() && !ss.is_empty() => {
            let mut rest = index.clone();
            let mut sum = I::from_static(0);
            let last = ss.len().saturating_sub(1);
            for (position, (s, d)) in ss.iter().zip(ds).enumerate() {
                if position == last {
                    sum = sum.add(&int_crd2idx(&rest, s, d)?)?;
                } else {
                    let extent = s.product()?;
                    sum = sum.add(&int_crd2idx(&rest.rem(&extent)?, s, d)?)?;
                    rest = rest.div(&extent)?;
                }
            }
            Ok(sum)
        }
        _ => Err(incongruent("crd2idx", shape, stride)),
    }
}

/// The natural (colexicographic) coordinate of `index` in `shape` (CuTe's
/// `idx2crd(idx, shape)`): congruent with `shape`; an integer shape returns `index`. An
/// integer index at or past the end of a tuple shape is not wrapped: the last mode
/// absorbs the overflow, as `crd2idx` extends it (`idx2crd(40, (4,8))` is `(0,10)`). For
/// the wrapping `(idx / stride) % shape` of every leaf, use [`idx2crd_strided`].
pub fn idx2crd<I: Int>(
    index: &IntTuple<I>,
    shape: &IntTuple<I>,
) -> Result<IntTuple<I>, LayoutError> {
    match (index, shape) {
        (IntTuple::Int(_), IntTuple::Int(_)) => Ok(index.clone()),
        (IntTuple::Int(index), IntTuple::Tuple(modes)) if !modes.is_empty() => {
            let mut rest = index.clone();
            let mut coordinate = Vec::with_capacity(modes.len());
            let last = modes.len() - 1;
            for (position, mode) in modes.iter().enumerate() {
                if position == last {
                    coordinate.push(idx2crd(&IntTuple::Int(rest.clone()), mode)?);
                } else {
                    let extent = mode.product()?;
                    coordinate.push(idx2crd(&IntTuple::Int(rest.rem(&extent)?), mode)?);
                    rest = rest.div(&extent)?;
                }
            }
            Ok(IntTuple::Tuple(coordinate))
        }
        (IntTuple::Tuple(is), IntTuple::Tuple(ss)) if is.len() == ss.len() => {
            let result = is.iter().zip(ss).map(|(i, s)| idx2crd(i, s));
            Ok(IntTuple::Tuple(result.collect::<Result<_, _>>()?))
        }
        _ => Err(incongruent("idx2crd", index, shape)),
    }
}

/// CuTe's `idx2crd(idx, shape, stride)`: each leaf coordinate is
/// `(idx / stride) % shape` (0 under a static extent 1).
pub fn idx2crd_strided<I: Int>(
    index: &IntTuple<I>,
    shape: &IntTuple<I>,
    stride: &IntTuple<I>,
) -> Result<IntTuple<I>, LayoutError> {
    match (index, shape, stride) {
        (IntTuple::Int(_), IntTuple::Int(s), IntTuple::Int(_)) if s.is_static(1) => {
            Ok(IntTuple::int(0))
        }
        (IntTuple::Int(i), IntTuple::Int(s), IntTuple::Int(d)) => {
            Ok(IntTuple::Int(i.div(d)?.rem(s)?))
        }
        (IntTuple::Int(_), IntTuple::Tuple(ss), IntTuple::Tuple(ds)) if ss.len() == ds.len() => {
            let result = ss.iter().zip(ds).map(|(s, d)| idx2crd_strided(index, s, d));
            Ok(IntTuple::Tuple(result.collect::<Result<_, _>>()?))
        }
        (IntTuple::Tuple(is), IntTuple::Tuple(ss), IntTuple::Tuple(ds))
            if is.len() == ss.len() && ss.len() == ds.len() =>
        {
            let result = is
                .iter()
                .zip(ss)
                .zip(ds)
                .map(|((i, s), d)| idx2crd_strided(i, s, d));
            Ok(IntTuple::Tuple(result.collect::<Result<_, _>>()?))
        }
        _ => Err(incongruent("idx2crd", index, shape)),
    }
}

/// CuTe's `elem_less`: whether every leaf of `a` is less than the matching leaf of `b`
/// (`b` may have extra trailing modes).
pub fn elem_less<I: Int>(a: &IntTuple<I>, b: &IntTuple<I>) -> Result<bool, LayoutError> {
    match (a, b) {
        (IntTuple::Int(x), IntTuple::Int(y)) => {
            Ok(x.static_value("elem_less")? < y.static_value("elem_less")?)
        }
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) if xs.len() <= ys.len() => {
            for (x, y) in xs.iter().zip(ys) {
                if !elem_less(x, y)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        _ => Err(incongruent("elem_less", a, b)),
    }
}

/// The product of each top-level mode: `((2,3),4)` gives `(6,4)`.
pub fn product_each<I: Int>(a: &IntTuple<I>) -> Result<IntTuple<I>, LayoutError> {
    match a {
        IntTuple::Int(_) => Ok(a.clone()),
        IntTuple::Tuple(modes) => {
            let products = modes.iter().map(|mode| mode.product().map(IntTuple::Int));
            Ok(IntTuple::Tuple(products.collect::<Result<_, _>>()?))
        }
    }
}
