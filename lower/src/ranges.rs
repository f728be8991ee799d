//! The values a run-time integer may take, as an interval, so that a division whose
//! operands provably fit in 32 bits is done in 32 bits.
//!
//! Symbolic integers are exact (lowering computes them in 64 bits), and a 64-bit
//! division by a run-time value costs a subroutine call in SASS that also keeps ptxas
//! from using uniform registers downstream. Each run-time variable has an interval: the
//! hardware's bounds for thread and block indices, its type's for 32-bit parameters and
//! values, its bounds for a loop counter. A sum of products of them is bounded by
//! interval arithmetic, in i128 so that nothing overflows; a bound past 64 bits is
//! unknown.

use cute::Dtype;
use kir::Ty;
use layout::{SymFactor, SymInt};
use trace::{MathFn, Term, TraceParamKind};

use crate::builder::Builder;

/// The closed interval `lo ..= hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Interval {
    pub(crate) lo: i128,
    pub(crate) hi: i128,
}

/// What a 64-bit value may hold; bounds past it are not tracked.
const LIMIT: i128 = i64::MAX as i128;

impl Interval {
    pub(crate) const I32: Interval = Interval::new(i32::MIN as i128, i32::MAX as i128);
    pub(crate) const U32: Interval = Interval::new(0, u32::MAX as i128);

    /// The values a register of type `ty` holds, for the integer types narrower than
    /// 64 bits.
    pub(crate) fn of_ty(ty: Ty) -> Option<Interval> {
        match ty {
            Ty::I32 => Some(Interval::I32),
            Ty::U32 => Some(Interval::U32),
            _ => None,
        }
    }

    /// The values of an integer dtype narrower than 64 bits.
    pub(crate) fn of_dtype(dtype: Dtype) -> Option<Interval> {
        let (lo, hi) = dtype.integer_range()?;
        (dtype.bits() < 64).then(|| Interval::new(lo, hi))
    }

    pub(crate) const fn new(lo: i128, hi: i128) -> Interval {
        Interval { lo, hi }
    }

    pub(crate) const fn point(value: i64) -> Interval {
        Interval::new(value as i128, value as i128)
    }

    /// Within a signed 32-bit integer.
    pub(crate) fn fits_i32(self) -> bool {
        Interval::I32.lo <= self.lo && self.hi <= Interval::I32.hi
    }

    fn bounded(self) -> Option<Interval> {
        (-LIMIT <= self.lo && self.hi <= LIMIT).then_some(self)
    }

    fn add(self, other: Interval) -> Option<Interval> {
        Interval::new(self.lo + other.lo, self.hi + other.hi).bounded()
    }

    fn mul(self, other: Interval) -> Option<Interval> {
        let corners = [
            self.lo * other.lo,
            self.lo * other.hi,
            self.hi * other.lo,
            self.hi * other.hi,
        ];
        Interval::new(*corners.iter().min()?, *corners.iter().max()?).bounded()
    }

    /// The largest magnitude in the interval.
    fn magnitude(self) -> i128 {
        self.lo.abs().max(self.hi.abs())
    }

    /// Division rounding toward zero. By a divisor of one sign the quotient is
    /// monotonic in each operand, so the corners bound it; a divisor that may be zero
    /// leaves only `|a / b| <= |a|`.
    fn div(self, divisor: Interval) -> Interval {
        if divisor.lo > 0 || divisor.hi < 0 {
            let corners = [
                self.lo / divisor.lo,
                self.lo / divisor.hi,
                self.hi / divisor.lo,
                self.hi / divisor.hi,
            ];
            let (lo, hi) = (corners.iter().min(), corners.iter().max());
            if let (Some(&lo), Some(&hi)) = (lo, hi) {
                return Interval::new(lo, hi);
            }
        }
        Interval::new(-self.magnitude(), self.magnitude())
    }

    /// The remainder, which takes the dividend's sign and is smaller than the
    /// divisor's magnitude (and than the dividend's).
    fn rem(self, divisor: Interval) -> Interval {
        let largest = (divisor.magnitude() - 1).max(0);
        let lo = if self.lo >= 0 {
            0
        } else {
            self.lo.max(-largest)
        };
        let hi = if self.hi <= 0 {
            0
        } else {
            self.hi.min(largest)
        };
        Interval::new(lo, hi)
    }
}

impl Builder<'_> {
    /// The interval `value` lies in, when every variable in it is bounded.
    pub(crate) fn range(&self, value: &SymInt) -> Option<Interval> {
        let mut total = Interval::point(0);
        for (coefficient, factors) in value.terms() {
            let mut product = Interval::point(coefficient);
            for factor in factors {
                product = product.mul(self.factor_range(factor)?)?;
            }
            total = total.add(product)?;
        }
        Some(total)
    }

    fn factor_range(&self, factor: SymFactor<'_>) -> Option<Interval> {
        match factor {
            SymFactor::Variable(name) => {
                (self.variables.ranges.get(name).copied()).or_else(|| self.hardware_range(name))
            }
            SymFactor::Div(a, b) => Some(self.range(a)?.div(self.range(b)?)),
            SymFactor::CeilDiv(a, b) => {
                let b = self.range(b)?;
                let bump = b.add(Interval::point(-1))?;
                Some(self.range(a)?.add(bump)?.div(b))
            }
            SymFactor::Mod(a, b) => Some(self.range(a)?.rem(self.range(b)?)),
        }
    }

    /// The interval a defined variable's term lies in: an integer's, where its type
    /// holds it (an i32 that may not fit wraps to anything in i32), or the bounds of a
    /// `min` or `max` of such.
    pub(crate) fn term_range(&self, term: &Term) -> Option<Interval> {
        match term {
            Term::Int(value, dtype) => {
                let exact = self.range(value);
                match Interval::of_dtype(*dtype) {
                    Some(held) => Some(
                        exact
                            .filter(|exact| held.lo <= exact.lo && exact.hi <= held.hi)
                            .unwrap_or(held),
                    ),
                    None if *dtype == Dtype::I64 => exact,
                    None => None,
                }
            }
            Term::Math {
                function: function @ (MathFn::Min | MathFn::Max),
                operands,
                ..
            } => {
                let [a, b] = operands.as_slice() else {
                    return None;
                };
                let (a, b) = (self.term_range(a)?, self.term_range(b)?);
                Some(if *function == MathFn::Min {
                    Interval::new(a.lo.min(b.lo), a.hi.min(b.hi))
                } else {
                    Interval::new(a.lo.max(b.lo), a.hi.max(b.hi))
                })
            }
            _ => None,
        }
    }

    /// Whether every value `value` may take is one of `dtype`'s.
    pub(crate) fn fits(&self, value: &SymInt, dtype: Dtype) -> bool {
        let held = Interval::of_dtype(dtype);
        (self.range(value).zip(held))
            .is_some_and(|(exact, held)| held.lo <= exact.lo && exact.hi <= held.hi)
    }

    /// Whether the integer parameter `name` is an extent of a tensor parameter (a leaf
    /// of its shape): the host refuses a launch whose tensor does not have that shape,
    /// so it is never negative.
    pub(crate) fn is_extent(&self, name: &str) -> bool {
        let variable = SymInt::variable(name);
        (self.trace.params.iter()).any(|param| match &param.kind {
            TraceParamKind::Tensor(_, layout) => layout.shape().leaves().contains(&variable),
            _ => false,
        })
    }

    /// The interval a hardware index or an integer parameter lies in: the limits of
    /// CUDA's launch configuration, a 32-bit parameter's type.
    fn hardware_range(&self, name: &str) -> Option<Interval> {
        const BLOCK_THREADS: i128 = 1024;
        const GRID_X: i128 = i32::MAX as i128;
        const GRID_YZ: i128 = 65535;
        if let Some(index) = self.trace.int_param(name) {
            let extent = self.is_extent(name);
            return match &self.trace.params[index].kind {
                TraceParamKind::Int(Dtype::I64, _) if extent => {
                    Some(Interval::new(0, i64::MAX as i128))
                }
                TraceParamKind::Int(Dtype::I64 | Dtype::U64, _) => None,
                TraceParamKind::Int(Dtype::U32, _) => Some(Interval::U32),
                _ if extent => Some(Interval::new(0, Interval::I32.hi)),
                _ => Some(Interval::I32),
            };
        }
        let (base, axis) = name.split_once('.').unwrap_or((name, ""));
        let extent = ["x", "y", "z"]
            .iter()
            .position(|each| *each == axis)
            .and_then(|axis| self.trace.block.get(axis))
            .and_then(SymInt::as_constant)
            .map_or(BLOCK_THREADS, i128::from);
        let grid = if axis == "x" { GRID_X } else { GRID_YZ };
        Some(match base {
            "lane_idx" => Interval::new(0, 31),
            "warp_idx" => Interval::new(0, BLOCK_THREADS / 32 - 1),
            "thread_idx" => Interval::new(0, extent - 1),
            "block_dim" => Interval::new(1, extent),
            "block_idx" | "cluster_idx" => Interval::new(0, grid - 1),
            "grid_dim" => Interval::new(1, grid),
            "block_idx_in_cluster" | "block_rank_in_cluster" => Interval::new(0, 15),
            _ => return None,
        })
    }

    /// Whether `a / b` and `a % b` give the same result in 32 bits: both operands
    /// provably fit, and the one quotient that does not (`i32::MIN / -1`) cannot occur.
    pub(crate) fn divides_in_32_bits(&self, a: &SymInt, b: &SymInt) -> bool {
        let (Some(a), Some(b)) = (self.range(a), self.range(b)) else {
            return false;
        };
        let overflows = a.lo == Interval::I32.lo && b.lo <= -1 && -1 <= b.hi;
        a.fits_i32() && b.fits_i32() && !overflows
    }

    /// Records the interval a run-time variable lies in.
    pub(crate) fn bound(&mut self, name: &str, interval: Interval) {
        self.variables.ranges.insert(name.to_owned(), interval);
    }
}

#[cfg(test)]
mod tests {
    use super::Interval;

    #[test]
    fn quotients_are_bounded_by_the_corners_for_a_divisor_of_one_sign() {
        let a = Interval::new(-7, 20);
        assert_eq!(a.div(Interval::new(2, 4)), Interval::new(-3, 10));
        assert_eq!(a.div(Interval::new(-4, -2)), Interval::new(-10, 3));
        // A divisor that may be zero: only the dividend's magnitude bounds it.
        assert_eq!(a.div(Interval::new(-1, 3)), Interval::new(-20, 20));
    }

    #[test]
    fn remainders_take_the_dividends_sign_and_stay_below_the_divisor() {
        assert_eq!(
            Interval::new(0, 100).rem(Interval::point(8)),
            Interval::new(0, 7)
        );
        assert_eq!(
            Interval::new(-100, 3).rem(Interval::point(8)),
            Interval::new(-7, 3)
        );
        assert_eq!(
            Interval::new(0, 5).rem(Interval::new(1, 64)),
            Interval::new(0, 5)
        );
    }

    #[test]
    fn products_past_64_bits_are_unknown() {
        let big = Interval::new(0, i64::MAX as i128);
        assert_eq!(big.mul(Interval::point(2)), None);
        assert_eq!(
            Interval::I32.mul(Interval::I32).map(Interval::fits_i32),
            Some(false)
        );
        assert!(
            Interval::new(0, 1023)
                .mul(Interval::point(64))
                .unwrap()
                .fits_i32()
        );
    }
}
