//! `coalesce`, `filter_zeros` and `filter`: simplifications that keep the layout's
//! function on its domain.
//!
//! Coalescing walks the flattened modes from the back, as CuTe's `bw_coalesce` does:
//! shape-1 modes vanish, and a mode `s1:d1` followed by `s0:d0` with `s1*d1 == d0`
//! merges into `s1*s0:d1`. Merging needs static values; symbolic modes stay apart.

use crate::{Int, IntTuple, Layout, LayoutError};

/// Whether mode `shape:stride` followed by a mode of stride `next_stride` can merge.
fn mergeable<I: Int>(shape: &I, stride: &I, next_shape: &I, next_stride: &I) -> bool {
    match (
        shape.as_static(),
        stride.as_static(),
        next_shape.as_static(),
        next_stride.as_static(),
    ) {
        (Some(s), Some(d), Some(_), Some(next)) => s.checked_mul(d) == Some(next),
        _ => false,
    }
}

/// CuTe's `bw_coalesce`: prepends the flat modes `earlier` (walked back to front) to
/// the mode `last`, merging where possible. An all-unit result is `1:0`; a single mode
/// has integer shape and stride.
pub(crate) fn coalesce_backward<I: Int>(
    earlier: &[(I, I)],
    last: (I, I),
) -> Result<Layout<I>, LayoutError> {
    // Reversed: the element at the end is the current front of the result.
    let mut reversed = vec![last];
    for (shape, stride) in earlier.iter().rev() {
        if shape.is_static(1) {
            continue;
        }
        let only_unit =
            reversed.len() == 1 && reversed.first().is_some_and(|(s, _)| s.is_static(1));
        match reversed.last_mut() {
            Some(front) if only_unit => *front = (shape.clone(), stride.clone()),
            Some(front) if mergeable(shape, stride, &front.0, &front.1) => {
                *front = (shape.mul(&front.0)?, stride.clone());
            }
            _ => reversed.push((shape.clone(), stride.clone())),
        }
    }
    if reversed.len() == 1 && reversed.first().is_some_and(|(s, _)| s.is_static(1)) {
        return Ok(Layout::unit());
    }
    reversed.reverse();
    let (shapes, strides): (Vec<_>, Vec<_>) = reversed
        .into_iter()
        .map(|(s, d)| (IntTuple::Int(s), IntTuple::Int(d)))
        .unzip();
    Layout::new(
        IntTuple::from_modes_unwrapped(shapes),
        IntTuple::from_modes_unwrapped(strides),
    )
}

/// The flattened `(shape, stride)` leaf pairs of a layout.
pub(crate) fn leaf_modes<I: Int>(layout: &Layout<I>) -> Vec<(I, I)> {
    layout
        .shape()
        .leaves()
        .into_iter()
        .zip(layout.stride().leaves())
        .collect()
}

/// Merges modes where possible (CuTe's `coalesce`): the result has depth at most 1,
/// the same size, and the same value at every index of the domain.
pub fn coalesce<I: Int>(layout: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    let mut modes = leaf_modes(layout);
    match modes.pop() {
        Some(last) => coalesce_backward(&modes, last),
        None => Ok(Layout::unit()),
    }
}

/// CuTe's `coalesce_x`: like [`coalesce`] but also keeps the function beyond the domain
/// (a trailing shape-1 mode keeps its stride), as composition needs.
pub(crate) fn coalesce_keeping_extension<I: Int>(
    layout: &Layout<I>,
) -> Result<Layout<I>, LayoutError> {
    let mut modes = leaf_modes(layout);
    match modes.pop() {
        Some((shape, stride)) if shape.is_static(1) => {
            coalesce_backward(&modes, (I::from_static(2), stride))
        }
        Some(last) => coalesce_backward(&modes, last),
        None => Ok(Layout::unit()),
    }
}

/// Applies `simplify` at the leaves of `profile`: modes of `layout` matched by a tuple
/// are simplified mode by mode, modes past the profile's rank are kept.
fn by_profile<I: Int>(
    operation: &'static str,
    layout: &Layout<I>,
    profile: &IntTuple<I>,
    simplify: fn(&Layout<I>) -> Result<Layout<I>, LayoutError>,
) -> Result<Layout<I>, LayoutError> {
    let IntTuple::Tuple(profiles) = profile else {
        return simplify(layout);
    };
    let modes = layout.modes();
    if profiles.len() > modes.len() {
        return Err(LayoutError::RankMismatch {
            operation,
            operand: "profile",
            layout_rank: modes.len(),
            tiler_rank: profiles.len(),
        });
    }
    let mut result = Vec::with_capacity(modes.len());
    for (index, mode) in modes.iter().enumerate() {
        match profiles.get(index) {
            Some(sub_profile) => result.push(by_profile(operation, mode, sub_profile, simplify)?),
            None => result.push(mode.clone()),
        }
    }
    Layout::from_modes(result)
}

/// Coalesces within each leaf of `profile` (CuTe's `coalesce(layout, profile)`): the
/// result keeps the profile's nesting.
pub fn coalesce_by<I: Int>(
    layout: &Layout<I>,
    profile: &IntTuple<I>,
) -> Result<Layout<I>, LayoutError> {
    by_profile("coalesce", layout, profile, coalesce)
}

/// Replaces the shape of every stride-0 mode by 1 (CuTe's `filter_zeros`).
pub fn filter_zeros<I: Int>(layout: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    fn zeroed<I: Int>(shape: &IntTuple<I>, stride: &IntTuple<I>) -> IntTuple<I> {
        match (shape, stride) {
            (IntTuple::Tuple(shapes), IntTuple::Tuple(strides)) => IntTuple::Tuple(
                shapes
                    .iter()
                    .zip(strides)
                    .map(|(s, d)| zeroed(s, d))
                    .collect(),
            ),
            (_, IntTuple::Int(d)) if d.is_static(0) => IntTuple::int(1),
            _ => shape.clone(),
        }
    }
    Layout::new(
        zeroed(layout.shape(), layout.stride()),
        layout.stride().clone(),
    )
}

/// Removes stride-0 and size-1 modes and coalesces (CuTe's `filter`); `1:0` if nothing
/// is left.
pub fn filter<I: Int>(layout: &Layout<I>) -> Result<Layout<I>, LayoutError> {
    coalesce(&filter_zeros(layout)?)
}

/// Filters within each leaf of `profile` (CuTe's `filter(layout, profile)`).
pub fn filter_by<I: Int>(
    layout: &Layout<I>,
    profile: &IntTuple<I>,
) -> Result<Layout<I>, LayoutError> {
    by_profile("filter", layout, profile, filter)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(text: &str) -> Layout {
        text.parse().unwrap()
    }

    #[test]
    fn coalesce_merges_and_drops_units() {
        assert_eq!(
            coalesce(&layout("(2,(1,6)):(1,(6,2))")).unwrap(),
            layout("12:1")
        );
        assert_eq!(
            coalesce(&layout("(2,4):(4,1)")).unwrap(),
            layout("(2,4):(4,1)")
        );
        assert_eq!(coalesce(&layout("(1,1):(3,5)")).unwrap(), layout("1:0"));
        assert_eq!(coalesce(&layout("(4,1):(1,0)")).unwrap(), layout("4:1"));
        assert_eq!(
            coalesce_keeping_extension(&layout("(4,1):(1,0)")).unwrap(),
            layout("(4,2):(1,0)")
        );
        let profiled = coalesce_by(
            &layout("((2,2),(2,2)):((1,2),(8,16))"),
            &IntTuple::ints(&[1, 1]),
        )
        .unwrap();
        assert_eq!(profiled, layout("(4,4):(1,8)"));
    }

    #[test]
    fn filter_removes_broadcast_modes() {
        assert_eq!(filter(&layout("(2,3,4):(0,1,3)")).unwrap(), layout("12:1"));
        assert_eq!(filter(&layout("(2,3):(0,0)")).unwrap(), layout("1:0"));
        assert_eq!(
            filter_zeros(&layout("(2,3):(0,1)")).unwrap(),
            layout("(1,3):(0,1)")
        );
    }
}
