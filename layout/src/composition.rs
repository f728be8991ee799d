//! `composition(a, b)`: the layout `a ∘ b` with `(a ∘ b)(i) = a(b(i))` and the shape of
//! `b` (C++ CuTe's `composition`).
//!
//! `b` is distributed over its modes; each single mode `s:d` is applied to the
//! coalesced `a` by first dividing the stride `d` out of `a`'s modes and then taking
//! `s` elements from what is left. Both steps need one of each pair of values to divide
//! the other; a violation is [`LayoutError::NotDivisible`]. When `a` coalesces to a
//! single mode the result is simply `s : d*stride(a)`, which works for symbolic `a`.

use crate::coalesce::{coalesce_backward, coalesce_keeping_extension, leaf_modes};
use crate::tuple_arith::shape_div_int;
use crate::{AsTiler, Int, IntTuple, Layout, LayoutError, Tiler};

/// The absolute value of a static integer; symbolic values are run-time extents and
/// taken as positive.
pub(crate) fn absolute<I: Int>(value: &I) -> Result<I, LayoutError> {
    match value.as_static() {
        Some(v) => v
            .checked_abs()
            .map(I::from_static)
            .ok_or(LayoutError::Overflow { operation: "abs" }),
        None => Ok(value.clone()),
    }
}

/// CuTe's `shape_min`: 1 if either is 1, otherwise the smaller.
fn shape_min<I: Int>(a: &I, b: &I) -> Result<I, LayoutError> {
    if a.is_static(1) || b.is_static(1) {
        return Ok(I::from_static(1));
    }
    if a == b {
        return Ok(a.clone());
    }
    let x = a.static_value("composition")?;
    let y = b.static_value("composition")?;
    Ok(I::from_static(x.min(y)))
}

fn divisibility(what: &str, left: &impl ToString, right: &str, error: LayoutError) -> LayoutError {
    match error {
        LayoutError::NotDivisible { .. } => LayoutError::NotDivisible {
            operation: "composition",
            dividend: format!("{what} {}", left.to_string()),
            divisor: right.to_owned(),
        },
        other => other,
    }
}

/// Composes the coalesced left operand (its flat modes) with one mode `shape:stride`.
fn compose_mode<I: Int>(lhs: &[(I, I)], shape: &I, stride: &I) -> Result<Layout<I>, LayoutError> {
    let stride_0 = || Layout::new(IntTuple::Int(shape.clone()), IntTuple::Int(stride.clone()));
    let Some(((_, last_stride), earlier)) = lhs.split_last() else {
        return stride_0();
    };
    if stride.is_static(0) {
        return stride_0();
    }
    if earlier.is_empty() {
        return Layout::new(
            IntTuple::Int(shape.clone()),
            IntTuple::Int(stride.mul(last_stride)?),
        );
    }
    // Divide the stride out of the left operand's modes.
    let mut rest_stride = stride.clone();
    let mut divided = Vec::with_capacity(earlier.len());
    for (mode_shape, mode_stride) in earlier {
        let context = |error| {
            divisibility(
                "the left operand's mode shape",
                mode_shape,
                &format!("the stride {stride} of the right operand"),
                error,
            )
        };
        let new_shape = shape_div_int(mode_shape, &rest_stride).map_err(context)?;
        rest_stride = shape_div_int(&rest_stride, mode_shape).map_err(context)?;
        let new_stride = mode_stride.mul(&shape_div_int(mode_shape, &new_shape)?)?;
        divided.push((new_shape, new_stride));
    }
    // Take `shape` elements from what is left.
    let mut rest_shape = shape.clone();
    let mut taken = Vec::with_capacity(divided.len());
    for (mode_shape, mode_stride) in divided {
        let extent = absolute(&mode_shape)?;
        taken.push((shape_min(&extent, &rest_shape)?, mode_stride));
        rest_shape = shape_div_int(&rest_shape, &extent).map_err(|error| {
            divisibility(
                "the shape",
                shape,
                &format!("the left operand's remaining mode shape {extent}"),
                error,
            )
        })?;
    }
    coalesce_backward(&taken, (rest_shape, rest_stride.mul(last_stride)?))
}

fn compose_layout<I: Int>(
    lhs: &[(I, I)],
    shape: &IntTuple<I>,
    stride: &IntTuple<I>,
) -> Result<Layout<I>, LayoutError> {
    match (shape, stride) {
        (IntTuple::Int(s), IntTuple::Int(d)) => compose_mode(lhs, s, d),
        (IntTuple::Tuple(shapes), IntTuple::Tuple(strides)) => {
            let modes = shapes
                .iter()
                .zip(strides)
                .map(|(s, d)| compose_layout(lhs, s, d));
            Layout::from_modes(modes.collect::<Result<_, _>>()?)
        }
        _ => Err(LayoutError::Incongruent {
            operation: "composition",
            left: shape.to_string(),
            right: stride.to_string(),
        }),
    }
}

/// `a ∘ b`: the layout with `b`'s shape whose value at `i` is `a(b(i))`.
///
/// `b` is a [`Layout`] or a [`Tiler`]: a by-mode tiler composes mode `i` of `a` with
/// entry `i` (`_` keeps the mode) and, as in CuTe, drops the modes of `a` past the
/// tiler's rank.
pub fn composition<I: Int>(a: &Layout<I>, b: &impl AsTiler<I>) -> Result<Layout<I>, LayoutError> {
    match b.as_tiler().as_ref() {
        Tiler::Keep => Ok(a.clone()),
        Tiler::Layout(b) => {
            let flat = coalesce_keeping_extension(a)?;
            compose_layout(&leaf_modes(&flat), b.shape(), b.stride())
        }
        Tiler::Modes(tilers) => {
            let modes = a.modes();
            if tilers.len() > modes.len() {
                return Err(LayoutError::RankMismatch {
                    operation: "composition",
                    layout_rank: modes.len(),
                    tiler_rank: tilers.len(),
                });
            }
            let composed = modes
                .iter()
                .zip(tilers)
                .map(|(mode, tiler)| composition(mode, tiler));
            Layout::from_modes(composed.collect::<Result<_, _>>()?)
        }
    }
}
