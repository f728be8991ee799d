//! `complement`, `right_inverse` and `left_inverse` (C++ CuTe semantics).
//!
//! The complement of `a` with respect to a cotarget is a layout `c` whose image is
//! disjoint from `a`'s, ordered after it, so that `(a, c)` covers the cotarget. The
//! inverses visit the modes of the coalesced layout by increasing stride.

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
        Some(cotarget)
            if cotarget
                .leaves()
                .iter()
                .any(|extent| extent.as_static().is_some_and(|value| value <= 0)) =>
        {
            return Err(LayoutError::Unsupported {
                operation: "complement",
                reason: format!("the cotarget {cotarget} must be positive"),
            });
        }
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

/// The coalesced modes of `layout` with the exclusive prefix products of their extents
/// (`1, s0, s0*s1, ...`) and their indices sorted by stride (as C++ sorts them).
struct SortedModes<I> {
    modes: Vec<(I, I)>,
    prefix: Vec<I>,
    order: Vec<usize>,
}

fn sorted_modes<I: Int>(
    layout: &Layout<I>,
    operation: &'static str,
) -> Result<SortedModes<I>, LayoutError> {
    let modes = leaf_modes(&coalesce(layout)?);
    let mut prefix = Vec::with_capacity(modes.len() + 1);
    let mut product = I::from_static(1);
    for (shape, _) in &modes {
        prefix.push(product.clone());
        product = product.mul(shape)?;
    }
    prefix.push(product);
    let mut keyed = Vec::with_capacity(modes.len());
    for (index, (_, stride)) in modes.iter().enumerate() {
        match stride.as_static() {
            Some(value) => keyed.push((value, index)),
            None if operation == "right_inverse" => {}
            None => {
                stride.static_value(operation)?;
            }
        }
    }
    exchange_sort(&mut keyed);
    Ok(SortedModes {
        modes,
        prefix,
        order: keyed.into_iter().map(|(_, index)| index).collect(),
    })
}

/// Sorts by the first entry as C++ CuTe's `exchange_sort` (in `SortByKey`) does, which
/// is not stable: modes of equal stride (a non-injective layout) come in its order, so
/// the quasi-inverses C++ builds for them are the same here.
fn exchange_sort(keyed: &mut [(i64, usize)]) {
    for first in 0..keyed.len() {
        for second in first + 1..keyed.len() {
            if keyed[second].0 < keyed[first].0 {
                keyed.swap(first, second);
            }
        }
    }
}

fn from_leaf_lists<I: Int>(shapes: Vec<I>, strides: Vec<I>) -> Result<Layout<I>, LayoutError> {
    let shapes = IntTuple::Tuple(shapes.into_iter().map(IntTuple::Int).collect());
    let strides = IntTuple::Tuple(strides.into_iter().map(IntTuple::Int).collect());
    coalesce(&Layout::new(shapes, strides)?)
}

/// A layout `r` with `layout(r(i)) == i` for all `i < size(r)` (C++ `right_inverse`):
/// visiting the coalesced modes by increasing static stride, every mode whose stride
/// equals the extent covered so far joins the result.
pub fn right_inverse<I: Int>(layout: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    let sorted = sorted_modes(layout, "right_inverse")?;
    let mut shapes = vec![I::from_static(1)];
    let mut strides = vec![I::from_static(0)];
    let mut covered = I::from_static(1);
    for &index in &sorted.order {
        let (Some((shape, stride)), Some(position)) =
            (sorted.modes.get(index), sorted.prefix.get(index))
        else {
            continue;
        };
        if *stride == covered {
            shapes.push(shape.clone());
            strides.push(position.clone());
            covered = shape.mul(stride)?;
        }
    }
    from_leaf_lists(shapes, strides)
}

/// A layout `l` with `layout(l(layout(i))) == layout(i)` for all `i < size(layout)`:
/// C++ `left_inverse`, a left inverse when `layout` is injective and a quasi-inverse
/// otherwise. Strides must be static; each nonzero stride, in increasing order, must
/// be a multiple of the extent covered by the smaller ones.
pub fn left_inverse<I: Int>(layout: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    let sorted = sorted_modes(layout, "left_inverse")?;
    let mut shapes: Vec<I> = Vec::with_capacity(sorted.order.len() + 1);
    let mut strides = vec![I::from_static(0)];
    let mut covered = I::from_static(1);
    for &index in &sorted.order {
        let (Some((_, stride)), Some(position)) =
            (sorted.modes.get(index), sorted.prefix.get(index))
        else {
            continue;
        };
        if stride.is_static(0) {
            continue;
        }
        if stride.as_static().is_some_and(|value| value < 0) {
            return Err(LayoutError::Unsupported {
                operation: "left_inverse",
                reason: format!("layout {layout} has the negative stride {stride}"),
            });
        }
        if !stride.rem(&covered)?.is_static(0) {
            return Err(LayoutError::NotDivisible {
                operation: "left_inverse",
                dividend: format!("the stride {stride} of layout {layout}"),
                divisor: format!("the extent {covered} covered by its smaller strides"),
            });
        }
        let extent = stride.div(&covered)?;
        covered = covered.mul(&extent)?;
        shapes.push(extent);
        strides.push(position.clone());
    }
    let last = sorted
        .order
        .last()
        .and_then(|&index| sorted.modes.get(index));
    shapes.push(last.map_or_else(|| I::from_static(1), |(shape, _)| shape.clone()));
    from_leaf_lists(shapes, strides)
}
