//! 64-bit division and remainder by a constant, as a multiplication.
//!
//! `div.s64` and `rem.s64` become a call to a slow subroutine in SASS (about sixty
//! instructions with a reciprocal and a loop of corrections), even by a constant; a
//! pipelined k-loop computing its stage as `k_tile % 3` pays that every tile. For a
//! constant divisor `d >= 2` the quotient is instead a high multiplication by a
//! "magic" number, a shift and a sign fix (Granlund and Montgomery, "Division by
//! invariant integers using multiplication", 1994; the signed form of Warren's
//! Hacker's Delight, section 10-4), exact for every 64-bit dividend and rounding
//! toward zero as `div.s64` does. The remainder is `n - q * d`.

use super::Emitter;

/// The magic multiplier and shift of signed division by `divisor` (at least 2):
/// `n / d = (mulhi(n, m) [+ n when m < 0]) >> s`, plus one when `n` is negative.
pub(super) fn signed_magic(divisor: i64) -> Option<(i64, u32)> {
    if divisor < 2 {
        return None;
    }
    let two63: u64 = 1 << 63;
    let d = divisor.unsigned_abs();
    // The largest dividend magnitude whose remainder by d is d - 1.
    let absolute_nc = two63 - 1 - two63 % d;
    let mut p = 63_u32;
    let (mut q1, mut r1) = (two63 / absolute_nc, two63 % absolute_nc);
    let (mut q2, mut r2) = (two63 / d, two63 % d);
    loop {
        p += 1;
        q1 = q1.wrapping_mul(2);
        r1 = r1.wrapping_mul(2);
        if r1 >= absolute_nc {
            q1 = q1.wrapping_add(1);
            r1 -= absolute_nc;
        }
        q2 = q2.wrapping_mul(2);
        r2 = r2.wrapping_mul(2);
        if r2 >= d {
            q2 = q2.wrapping_add(1);
            r2 -= d;
        }
        let delta = d - r2;
        if !(q1 < delta || (q1 == delta && r1 == 0)) || p >= 128 {
            break;
        }
    }
    Some((q2.wrapping_add(1) as i64, p - 64))
}

impl Emitter<'_, '_> {
    /// Emits `d = a / divisor` (or `a % divisor` when `remainder`) for 64-bit `a`
    /// by the magic-number method; false when the divisor does not allow it.
    pub(super) fn divide_by_constant(
        &mut self,
        d: &str,
        a: &str,
        divisor: i64,
        remainder: bool,
    ) -> bool {
        let Some((magic, shift)) = signed_magic(divisor) else {
            return false;
        };
        let high = self.scratch(kir::Ty::I64);
        self.emit(&format!("mul.hi.s64 {high}, {a}, {magic};"));
        if magic < 0 {
            self.emit(&format!("add.s64 {high}, {high}, {a};"));
        }
        self.emit(&format!("shr.s64 {high}, {high}, {shift};"));
        let sign = self.scratch(kir::Ty::I64);
        self.emit(&format!("shr.u64 {sign}, {a}, 63;"));
        if remainder {
            self.emit(&format!("add.s64 {high}, {high}, {sign};"));
            self.emit(&format!("mul.lo.s64 {high}, {high}, {divisor};"));
            self.emit(&format!("sub.s64 {d}, {a}, {high};"));
        } else {
            self.emit(&format!("add.s64 {d}, {high}, {sign};"));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::signed_magic;

    /// The quotient the emitted instructions compute, in Rust.
    fn quotient(n: i64, divisor: i64) -> i64 {
        let (magic, shift) = signed_magic(divisor).unwrap();
        let mut high = ((i128::from(n) * i128::from(magic)) >> 64) as i64;
        if magic < 0 {
            high = high.wrapping_add(n);
        }
        high >>= shift;
        high + ((n as u64) >> 63) as i64
    }

    #[test]
    fn magic_division_rounds_toward_zero_like_div_s64() {
        let divisors = [
            2,
            3,
            5,
            6,
            7,
            10,
            24,
            25,
            125,
            641,
            1 << 20,
            3 << 40,
            i64::MAX,
        ];
        let mut dividends = vec![0, 1, -1, i64::MAX, i64::MIN, i64::MIN + 1, i64::MAX - 1];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            dividends.push(state as i64);
            dividends.push((state % 100_000) as i64 - 50_000);
        }
        for &divisor in &divisors {
            for &n in &dividends {
                assert_eq!(quotient(n, divisor), n / divisor, "{n} / {divisor}");
            }
        }
    }

    #[test]
    fn divisors_below_two_have_no_magic() {
        assert_eq!(signed_magic(1), None);
        assert_eq!(signed_magic(0), None);
        assert_eq!(signed_magic(-3), None);
    }
}
