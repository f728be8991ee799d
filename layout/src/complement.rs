//! `complement`, `right_inverse` and `left_inverse` (C++ CuTe semantics).
//!
//! The complement of `a` with respect to a cotarget is a layout `c` whose image is
//! disjoint from `a`'s, ordered after it, so that `(a, c)` covers the cotarget. The
//! inverses follow the chain of strides `1, s0*d0, ...` through the coalesced layout.

use crate::coalesce::{coalesce, filter, leaf_modes};
use crate::tuple_arith::{ceil_div, compact_left};
use crate::{Int, IntTuple, Layout, LayoutError};

/// CuTe's `coalesce` of a shape: adjacent leaves that are both static or both symbolic
/// are multiplied together.
fn coalesce_shape<I: Int>(shape: &IntTuple<I>) -> Result<IntTuple<I>, LayoutError> {
    let mut merged: Vec<I> = Vec::new();
    for leaf in shape.leaves() {
        match merged.last_mut() {
            Some(back) if back.as_static().is_some() == leaf.as_static().is_some() => {
                *back = back.mul(&leaf)?
            }
            _ => merged.push(leaf),
        }
    }
    Ok(IntTuple::from_modes_unwrapped(
        merged.into_iter().map(IntTuple::Int).collect(),
    ))
}

fn not_injective<I: Int>(layout: &Layout<I>) -> LayoutError {
    LayoutError::NotInjective {
        operation: "complement",
        layout: layout.to_string(),
    }
}

/// The complement of `layout` up to `cotarget` (default: the cosize of the filtered
/// layout). Strides must be positive; with more than one mode they must be static.
pub fn complement<I: Int>(
    layout: &Layout<I>,
    cotarget: Option<&IntTuple<I>>,
) -> Result<Layout<I>, LayoutError> {
    let filtered = filter(layout)?;
    let cotarget = match cotarget {
        Some(cotarget) => cotarget.clone(),
        None => IntTuple::Int(filtered.cosize()?),
    };
    let mut modes = leaf_modes(&filtered);
    if let [(_, stride)] = modes.as_slice()
        && stride.is_static(0)
    {
        return Layout::column_major(coalesce_shape(&cotarget)?);
    }
    for (_, stride) in &modes {
        if modes.len() > 1 {
            stride.static_value("complement")?;
        }
        if stride.as_static().is_some_and(|value| value < 0) {
            return Err(LayoutError::Unsupported {
                operation: "complement",
                reason: format!("layout {layout} has a negative stride"),
            });
        }
    }
    let mut shapes: Vec<I> = Vec::with_capacity(modes.len() + 1);
    let mut strides: Vec<I> = vec![I::from_static(1)];
    // Take the modes in increasing stride order; the gap before each becomes a mode.
    while !modes.is_empty() {
        let smallest = (0..modes.len())
            .min_by_key(|&index| modes.get(index).and_then(|(_, stride)| stride.as_static()))
            .unwrap_or(0);
        let (shape, stride) = modes.remove(smallest);
        let previous = strides.last().cloned().unwrap_or_else(|| I::from_static(1));
        let gap = stride.div(&previous)?;
        if gap.is_static(0) {
            return Err(not_injective(layout));
        }
        shapes.push(gap);
        strides.push(stride.mul(&shape)?);
    }
    let next_stride = strides.pop().unwrap_or_else(|| I::from_static(1));
    let rest_shape = coalesce_shape(&ceil_div(&cotarget, &IntTuple::Int(next_stride.clone()))?)?;
    let rest_stride = compact_left(&rest_shape, &next_stride)?;
    let mut shape_modes: Vec<IntTuple<I>> = shapes.into_iter().map(IntTuple::Int).collect();
    let mut stride_modes: Vec<IntTuple<I>> = strides.into_iter().map(IntTuple::Int).collect();
    shape_modes.push(rest_shape);
    stride_modes.push(rest_stride);
    coalesce(&Layout::new(
        IntTuple::Tuple(shape_modes),
        IntTuple::Tuple(stride_modes),
    )?)
}

/// A layout `r` with `layout(r(i)) == i` for all `i < size(r)`, as large as the chain
/// of strides starting at 1 allows (`1:0` if there is none).
pub fn right_inverse<I: Int>(layout: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    let flat = coalesce(layout)?;
    let modes = leaf_modes(&flat);
    let positions = compact_left(flat.shape(), &I::from_static(1))?.leaves();
    let mut chosen = Vec::new();
    let mut next = 1_i64;
    while chosen.len() < modes.len() {
        let found = modes
            .iter()
            .position(|(_, stride)| stride.as_static().and_then(i64::checked_abs) == Some(next));
        let Some(index) = found else { break };
        chosen.push(index);
        let Some((shape, _)) = modes.get(index) else {
            break;
        };
        match shape.as_static().and_then(|s| s.checked_mul(next)) {
            Some(following) if following != next => next = following,
            _ => break,
        }
    }
    if chosen.is_empty() {
        return Ok(Layout::unit());
    }
    let mut shapes = Vec::with_capacity(chosen.len());
    let mut strides = Vec::with_capacity(chosen.len());
    for index in chosen {
        if let (Some((shape, stride)), Some(position)) = (modes.get(index), positions.get(index)) {
            let sign = if stride.as_static().is_some_and(|value| value < 0) {
                -1
            } else {
                1
            };
            shapes.push(IntTuple::Int(shape.clone()));
            strides.push(IntTuple::Int(position.mul(&I::from_static(sign))?));
        }
    }
    Layout::new(
        IntTuple::from_modes_unwrapped(shapes),
        IntTuple::from_modes_unwrapped(strides),
    )
}

/// A layout `l` with `l(layout(i)) == i` for all `i < size(layout)`: the right inverse
/// of `(layout, complement(layout))`. Errors when `layout` is not injective or its
/// image cannot be inverted by a layout.
pub fn left_inverse<I: Int>(layout: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    let filtered_size = filter(layout)?.size()?;
    if filtered_size != layout.size()? {
        return Err(LayoutError::NotInjective {
            operation: "left_inverse",
            layout: layout.to_string(),
        });
    }
    let completed = Layout::from_modes(vec![layout.clone(), complement(layout, None)?])?;
    let inverse = right_inverse(&completed)?;
    if inverse.size()? != completed.size()? {
        return Err(LayoutError::Unsupported {
            operation: "left_inverse",
            reason: format!(
                "layout {layout} has no left inverse layout (its image has gaps its complement does not fill)"
            ),
        });
    }
    Ok(inverse)
}
