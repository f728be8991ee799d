//! `composition(a, b)`: the layout `a ∘ b` with `(a ∘ b)(i) = a(b(i))` and the shape of
//! `b` (C++ CuTe's `composition`).
//!
//! `b` is distributed over its modes; each single mode `s:d` is applied to the
//! coalesced `a` by walking `a`'s modes: the stride `d` is divided out of each
//! (`d` must be a multiple of the mode's extent or smaller than it) and then the
//! extent left of `s` is taken from it (the taken extent must divide what is left). A
//! violation is [`LayoutError::NotDivisible`]. Where C++ only checks a stride smaller
//! than the mode and then returns a layout that is not `a ∘ b` (the stride does not
//! divide the mode and `b` continues into the next mode), this is an error too. When
//! `a` coalesces to a single mode the result is simply `s : d*stride(a)`, which works
//! for symbolic `a`.

use crate::coalesce::{coalesce_keeping_extension, leaf_modes};
use crate::{AsTiler, Int, IntTuple, Layout, LayoutError, Tiler};

/// The absolute value of a static integer; symbolic values are run-time extents and
/// taken as positive.
pub(crate) fn absolute<I: Int>(value: &I) -> Result<I, LayoutError> {
    match value.as_static() {
        Some(v) => v
            .checked_abs()
            .map(I::from_static)
            .ok_or_else(|| LayoutError::Overflow {
                operation: "abs",
                expression: format!("|{v}|"),
            }),
        None => Ok(value.clone()),
    }
}

fn not_divisible(dividend: String, divisor: String) -> LayoutError {
    LayoutError::NotDivisible {
        operation: "composition",
        dividend,
        divisor,
    }
}

/// The smaller of two extents; symbolic extents compare only when equal.
fn smaller<I: Int>(a: &I, b: &I) -> Result<I, LayoutError> {
    if a == b {
        return Ok(a.clone());
    }
    let x = a.static_value("composition")?;
    let y = b.static_value("composition")?;
    Ok(I::from_static(x.min(y)))
}

/// Composes the coalesced left operand (its flat modes) with one mode `shape:stride`
/// (C++ `composition_impl`): walk the left modes but the last, dividing the stride out
/// of each and taking what is left of `shape` from it.
fn compose_mode<I: Int>(lhs: &[(I, I)], shape: &I, stride: &I) -> Result<Layout<I>, LayoutError> {
    let single = |stride: I| Layout::new(IntTuple::Int(shape.clone()), IntTuple::Int(stride));
    let Some(((_, last_stride), earlier)) = lhs.split_last() else {
        return single(stride.clone());
    };
    if stride.is_static(0) {
        return single(stride.clone());
    }
    if earlier.is_empty() {
        return single(stride.mul(last_stride)?);
    }
    let mut shapes = Vec::with_capacity(earlier.len() + 1);
    let mut strides = Vec::with_capacity(earlier.len() + 1);
    let mut rest_shape = shape.clone();
    let mut rest_stride = stride.clone();
    for (current_shape, current_stride) in earlier {
        if let (Some(extent), Some(step)) = (current_shape.as_static(), rest_stride.as_static())
            && step.checked_rem(extent).is_some_and(|r| r != 0)
            && step >= extent
        {
            return Err(not_divisible(
                format!("the stride {step} of the right operand"),
                format!("the left operand's mode shape {extent}"),
            ));
        }
        let magnitude = absolute(&rest_stride)?;
        let next_shape = current_shape.ceil_div(&magnitude)?;
        let sign = if rest_stride.as_static().is_some_and(|value| value < 0) {
            -1
        } else {
            1
        };
        let next_stride = magnitude
            .ceil_div(current_shape)?
            .mul(&I::from_static(sign))?;
        if next_shape.is_static(1) || rest_shape.is_static(1) {
            rest_stride = next_stride;
            continue;
        }
        // C++ accepts a stride smaller than the mode but not dividing it and then
        // returns a layout that is not `a ∘ b` once `b` spills into the next mode.
        if let (Some(extent), Some(step), Some(left), Some(taken)) = (
            current_shape.as_static(),
            magnitude.as_static(),
            rest_shape.as_static(),
            next_shape.as_static(),
        ) && extent.checked_rem(step).is_some_and(|r| r != 0)
            && left > taken
        {
            return Err(not_divisible(
                format!("the left operand's mode shape {extent}"),
                format!("the stride {step} of the right operand (which continues past that mode)"),
            ));
        }
        let new_shape = smaller(&next_shape, &rest_shape)?;
        if let (Some(taken), Some(left)) = (new_shape.as_static(), rest_shape.as_static())
            && left.checked_rem(taken) != Some(0)
        {
            return Err(not_divisible(
                format!("the remaining shape {left} of the right operand"),
                format!("the extent {taken} taken from a mode of the left operand"),
            ));
        }
        shapes.push(IntTuple::Int(new_shape.clone()));
        strides.push(IntTuple::Int(rest_stride.mul(current_stride)?));
        rest_shape = rest_shape.div(&new_shape)?;
        rest_stride = next_stride;
    }
    if shapes.is_empty() {
        return Layout::new(
            IntTuple::Int(rest_shape),
            IntTuple::Int(rest_stride.mul(last_stride)?),
        );
    }
    if !rest_shape.is_static(1) {
        shapes.push(IntTuple::Int(rest_shape));
        strides.push(IntTuple::Int(rest_stride.mul(last_stride)?));
    }
    Layout::new(
        IntTuple::from_modes_unwrapped(shapes),
        IntTuple::from_modes_unwrapped(strides),
    )
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
/// `b` is a [`Layout`] or a [`Tiler`]: an integer `n` means `n:1`; a by-mode tiler
/// composes mode `i` of `a` with
/// entry `i` (`_` keeps the mode) and, as in CuTe, drops the modes of `a` past the
/// tiler's rank.
pub fn composition<I: Int>(a: &Layout<I>, b: &impl AsTiler<I>) -> Result<Layout<I>, LayoutError> {
    match b.as_tiler().as_ref() {
        Tiler::Keep => Ok(a.clone()),
        Tiler::Layout(b) => {
            let flat = coalesce_keeping_extension(a)?;
            compose_layout(&leaf_modes(&flat), b.shape(), b.stride())
        }
        Tiler::Extent(n) => {
            let flat = coalesce_keeping_extension(a)?;
            compose_mode(&leaf_modes(&flat), n, &I::from_static(1))
        }
        Tiler::Modes(tilers) => {
            let modes = a.modes();
            if tilers.len() > modes.len() {
                return Err(LayoutError::RankMismatch {
                    operation: "composition",
                    operand: "tiler",
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
