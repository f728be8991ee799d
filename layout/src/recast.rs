//! Changing the unit a layout counts in: `upcast`, `downcast` and `recast_layout`
//! (C++ CuTe semantics), for layouts, swizzles and swizzled layouts.
//!
//! - `upcast(layout, n)` makes `n` old elements one new element. A stride-0 mode is
//!   kept; a static stride `d` with `n % |d| == 0` or `|d| % n == 0` becomes
//!   `sign(d) * ceil_div(|d|, n)` and its shape `ceil_div(shape, ceil_div(n, |d|))`, so
//!   a stride-1 mode shrinks by `n` and a larger stride is divided by `n`. A run-time
//!   stride is divided by `n` (assumed divisible, as C++ does).
//! - `downcast(layout, n)` splits each element into `n`: a mode of stride ±1 grows by
//!   `n`, every other stride is multiplied by `n`. The layout must have a stride-1 mode
//!   (adjacent elements), as C++ asserts.
//! - `recast_layout(layout, old_bits, new_bits)` reduces `new_bits / old_bits` to
//!   `num / den` and applies `upcast(num)` then `downcast(den)`.
//!
//! A swizzle counts in the same unit as its layout: upcasting by `2^k` lowers its base
//! by `k` (when the base runs out, the lowest YYY/ZZZ bits go with it), downcasting
//! raises it. A composed layout recasts its swizzle, its offset (which must divide
//! evenly when upcasting) and its inner layout.

use crate::composed::ComposedLayout;
use crate::swizzle::Swizzle;
use crate::{Int, IntTuple, Layout, LayoutError};

/// `n` old elements per new element: stride-1 modes shrink by `n`, other strides are
/// divided by `n`, stride-0 modes are kept.
pub fn upcast<I: Int>(layout: &Layout<I>, factor: i64) -> Result<Layout<I>, LayoutError> {
    check_factor("upcast", factor)?;
    let (shape, stride) = map_modes(layout.shape(), layout.stride(), &mut |extent, stride| {
        upcast_mode(extent, stride, factor)
    })?;
    Layout::new(shape, stride)
}

/// `n` new elements per old element: stride-±1 modes grow by `n`, other strides are
/// multiplied by `n`. Errors if no mode has stride 1.
pub fn downcast<I: Int>(layout: &Layout<I>, factor: i64) -> Result<Layout<I>, LayoutError> {
    check_factor("downcast", factor)?;
    if !layout
        .stride()
        .leaves()
        .iter()
        .any(|stride| stride.is_static(1))
    {
        return Err(LayoutError::Unsupported {
            operation: "downcast",
            reason: format!(
                "layout {layout} has no stride-1 mode, so its elements are not adjacent"
            ),
        });
    }
    let scale = I::from_static(factor);
    let (shape, stride) = map_modes(layout.shape(), layout.stride(), &mut |extent, stride| {
        if stride.is_static(1) || stride.is_static(-1) {
            Ok((extent.mul(&scale)?, stride.clone()))
        } else {
            Ok((extent.clone(), stride.mul(&scale)?))
        }
    })?;
    Layout::new(shape, stride)
}

/// The layout of the same memory seen as elements of `new_bits` instead of `old_bits`.
pub fn recast_layout<I: Int>(
    layout: &Layout<I>,
    old_bits: i64,
    new_bits: i64,
) -> Result<Layout<I>, LayoutError> {
    let (upcast_factor, downcast_factor) = recast_ratio(old_bits, new_bits)?;
    let upcasted = match upcast_factor {
        1 => layout.clone(),
        factor => upcast(layout, factor)?,
    };
    match downcast_factor {
        1 => Ok(upcasted),
        factor => downcast(&upcasted, factor),
    }
}

impl Swizzle {
    /// The swizzle in units of `factor` old units: the base drops by `log2(factor)`.
    /// `factor` must be a power of two.
    pub fn upcast(&self, factor: i64) -> Result<Swizzle, LayoutError> {
        let log2 = i64::from(power_of_two_exponent("upcast", factor)?);
        let base = i64::from(self.base()) - log2;
        let (bits, base) = if base >= 0 {
            (i64::from(self.bits()), base)
        } else {
            ((i64::from(self.bits()) + base).max(0), 0)
        };
        Ok(Swizzle::new(bits, base, i64::from(self.shift()))?)
    }

    /// The swizzle in units of `1 / factor` old units: the base rises by `log2(factor)`.
    /// `factor` must be a power of two.
    pub fn downcast(&self, factor: i64) -> Result<Swizzle, LayoutError> {
        let log2 = i64::from(power_of_two_exponent("downcast", factor)?);
        let base = i64::from(self.base()) + log2;
        Ok(Swizzle::new(
            i64::from(self.bits()),
            base,
            i64::from(self.shift()),
        )?)
    }
}

impl ComposedLayout {
    /// Swizzle, offset and inner layout upcast by `factor`; the offset must divide.
    pub fn upcast(&self, factor: i64) -> Result<ComposedLayout, LayoutError> {
        let swizzle = self.swizzle().upcast(factor)?;
        if self.offset() % factor != 0 {
            return Err(LayoutError::NotDivisible {
                operation: "upcast",
                dividend: format!("offset {}", self.offset()),
                divisor: format!("factor {factor}"),
            });
        }
        let inner = upcast(self.inner(), factor)?;
        Ok(ComposedLayout::new(swizzle, self.offset() / factor, inner))
    }

    /// Swizzle, offset and inner layout downcast by `factor`.
    pub fn downcast(&self, factor: i64) -> Result<ComposedLayout, LayoutError> {
        let swizzle = self.swizzle().downcast(factor)?;
        let offset = self
            .offset()
            .checked_mul(factor)
            .ok_or_else(|| LayoutError::Overflow {
                operation: "downcast",
                expression: format!("{} * {factor}", self.offset()),
            })?;
        let inner = downcast(self.inner(), factor)?;
        Ok(ComposedLayout::new(swizzle, offset, inner))
    }

    /// This swizzled layout seen as elements of `new_bits` instead of `old_bits`.
    pub fn recast(&self, old_bits: i64, new_bits: i64) -> Result<ComposedLayout, LayoutError> {
        let (upcast_factor, downcast_factor) = recast_ratio(old_bits, new_bits)?;
        let upcasted = match upcast_factor {
            1 => self.clone(),
            factor => self.upcast(factor)?,
        };
        match downcast_factor {
            1 => Ok(upcasted),
            factor => upcasted.downcast(factor),
        }
    }
}

/// `new_bits / old_bits` in lowest terms, as (upcast factor, downcast factor).
fn recast_ratio(old_bits: i64, new_bits: i64) -> Result<(i64, i64), LayoutError> {
    for (name, bits) in [("old", old_bits), ("new", new_bits)] {
        if bits <= 0 {
            return Err(LayoutError::Unsupported {
                operation: "recast_layout",
                reason: format!("the {name} element width must be positive, got {bits} bits"),
            });
        }
    }
    let divisor = greatest_common_divisor(old_bits, new_bits);
    Ok((new_bits / divisor, old_bits / divisor))
}

fn greatest_common_divisor(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn check_factor(operation: &'static str, factor: i64) -> Result<(), LayoutError> {
    if factor <= 0 {
        return Err(LayoutError::Unsupported {
            operation,
            reason: format!("the factor must be positive, got {factor}"),
        });
    }
    Ok(())
}

fn power_of_two_exponent(operation: &'static str, factor: i64) -> Result<u32, LayoutError> {
    if factor <= 0 || factor & (factor - 1) != 0 {
        return Err(LayoutError::Unsupported {
            operation,
            reason: format!("a swizzle can only be scaled by a power of two, not {factor}"),
        });
    }
    Ok(factor.trailing_zeros())
}

/// One mode of `upcast`: the new (shape, stride) of a leaf.
fn upcast_mode<I: Int>(extent: &I, stride: &I, factor: i64) -> Result<(I, I), LayoutError> {
    let Some(stride_value) = stride.as_static() else {
        return Ok((extent.clone(), stride.div(&I::from_static(factor))?));
    };
    if stride_value == 0 {
        return Ok((extent.clone(), stride.clone()));
    }
    let magnitude = stride_value
        .checked_abs()
        .ok_or_else(|| LayoutError::Overflow {
            operation: "upcast",
            expression: format!("|{stride_value}|"),
        })?;
    if magnitude % factor != 0 && factor % magnitude != 0 {
        return Err(LayoutError::NotDivisible {
            operation: "upcast",
            dividend: format!("stride {stride_value}"),
            divisor: format!("factor {factor}"),
        });
    }
    let elements_per_step = factor.ceil_div(&magnitude)?;
    let new_extent = extent.ceil_div(&I::from_static(elements_per_step))?;
    let new_stride = magnitude.ceil_div(&factor)? * stride_value.signum();
    Ok((new_extent, I::from_static(new_stride)))
}

/// Applies `convert` to every (shape leaf, stride leaf) pair of congruent int-tuples.
fn map_modes<I: Int>(
    shape: &IntTuple<I>,
    stride: &IntTuple<I>,
    convert: &mut impl FnMut(&I, &I) -> Result<(I, I), LayoutError>,
) -> Result<(IntTuple<I>, IntTuple<I>), LayoutError> {
    match (shape, stride) {
        (IntTuple::Int(extent), IntTuple::Int(step)) => {
            let (extent, step) = convert(extent, step)?;
            Ok((IntTuple::Int(extent), IntTuple::Int(step)))
        }
        (IntTuple::Tuple(extents), IntTuple::Tuple(steps)) if extents.len() == steps.len() => {
            let (shapes, strides) = extents
                .iter()
                .zip(steps)
                .map(|(extent, step)| map_modes(extent, step, convert))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .unzip();
            Ok((IntTuple::Tuple(shapes), IntTuple::Tuple(strides)))
        }
        _ => Err(LayoutError::Incongruent {
            operation: "recast",
            left: format!("shape {shape}"),
            right: format!("stride {stride}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SymInt;

    fn layout(text: &str) -> Layout {
        text.parse().unwrap()
    }

    #[test]
    fn upcast_divides_strides_and_shrinks_unit_modes() {
        assert_eq!(
            upcast(&layout("(8,64):(64,1)"), 8),
            Ok(layout("(8,8):(8,1)"))
        );
        assert_eq!(
            upcast(&layout("(1024,8):(1,1024)"), 16),
            Ok(layout("(64,8):(1,64)"))
        );
        // Stride 2 with factor 4: two steps make one new element, rounded up.
        assert_eq!(upcast(&layout("(2,4):(1,2)"), 4), Ok(layout("(1,2):(1,1)")));
        assert_eq!(
            upcast(&layout("(4,3):(-1,0)"), 2),
            Ok(layout("(2,3):(-1,0)"))
        );
        assert!(matches!(
            upcast(&layout("(4,3):(1,6)"), 4),
            Err(LayoutError::NotDivisible { .. })
        ));
        assert!(upcast(&layout("4:1"), 0).is_err());
    }

    #[test]
    fn downcast_needs_a_unit_stride() {
        assert_eq!(
            downcast(&layout("(8,8):(8,1)"), 8),
            Ok(layout("(8,64):(64,1)"))
        );
        assert_eq!(
            downcast(&layout("(4,2):(1,0)"), 2),
            Ok(layout("(8,2):(1,0)"))
        );
        assert!(matches!(
            downcast(&layout("(4,2):(2,8)"), 2),
            Err(LayoutError::Unsupported { .. })
        ));
    }

    #[test]
    fn recast_reduces_the_bit_ratio() {
        let halves = layout("(8,64):(64,1)");
        assert_eq!(recast_layout(&halves, 16, 16), Ok(halves.clone()));
        assert_eq!(recast_layout(&halves, 16, 128), Ok(layout("(8,8):(8,1)")));
        assert_eq!(recast_layout(&halves, 16, 8), Ok(layout("(8,128):(128,1)")));
        // 32-bit to 48-bit: upcast by 3 then downcast by 2.
        assert_eq!(recast_layout(&layout("12:1"), 32, 48), Ok(layout("8:1")));
        assert!(recast_layout(&halves, 0, 8).is_err());
    }

    #[test]
    fn run_time_strides_are_divided_symbolically() {
        let dynamic: Layout<SymInt> = "(m,8):(8*k,1)".parse().unwrap();
        let upcasted = upcast(&dynamic, 8).unwrap();
        assert_eq!(upcasted.to_string(), "(m,1):(k,1)");
    }

    #[test]
    fn swizzles_move_their_base() {
        let swizzle = Swizzle::new(3, 3, 3).unwrap();
        assert_eq!(swizzle.downcast(2).unwrap().to_string(), "Sw<3,4,3>");
        assert_eq!(swizzle.upcast(8).unwrap().to_string(), "Sw<3,0,3>");
        assert_eq!(swizzle.upcast(32).unwrap().to_string(), "Sw<1,0,3>");
        assert!(swizzle.upcast(3).is_err());
        assert!(Swizzle::new(3, 55, 3).unwrap().downcast(32).is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_factors_never_panic(
            factor in proptest::num::i64::ANY,
            old_bits in proptest::num::i64::ANY,
            new_bits in proptest::num::i64::ANY,
            offset in proptest::num::i64::ANY,
        ) {
            let strides = IntTuple::ints(&[1, -6, i64::MAX]);
            let strided = Layout::new(IntTuple::ints(&[3, 4, 2]), strides).unwrap();
            let _ = upcast(&strided, factor);
            let _ = downcast(&strided, factor);
            let _ = recast_layout(&strided, old_bits, new_bits);
            let composed = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), offset, strided);
            let _ = composed.upcast(factor);
            let _ = composed.downcast(factor);
            let _ = composed.recast(old_bits, new_bits);
        }
    }
}
