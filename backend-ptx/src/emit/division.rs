//! 64-bit division and remainder: by a constant as a multiplication, by a run-time
//! value through 32-bit division whenever both operands fit.
//!
//! `div.s64` and `rem.s64` become a call to a slow subroutine in SASS (about sixty
//! instructions with a reciprocal and a loop of corrections), even by a constant; a
//! pipelined k-loop computing its stage as `k_tile % 3` pays that every tile. For a
//! constant divisor `d >= 2` the quotient is instead a high multiplication by a
//! "magic" number, a shift and a sign fix (Granlund and Montgomery, "Division by
//! invariant integers using multiplication", 1994; the signed form of Warren's
//! Hacker's Delight, section 10-4), exact for every 64-bit dividend and rounding
//! toward zero as `div.s64` does. The remainder is `n - q * d`.
//!
//! By a run-time divisor, the operands are tested first: when both lie in 0 .. 2^31,
//! `div.u32` gives the same quotient inline, and only other values reach `div.s64`
//! (the "bypass" LLVM's NVPTX backend also makes). Besides its cost, the subroutine's
//! call keeps ptxas from holding values derived from its result in uniform registers:
//! a persistent GEMM whose tile count came from a `div.s64` built its wgmma
//! descriptors per thread, and ran 2-4% slower than with `div.s32` (H100, 4096^3).

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

    /// Emits `d = a / b` (or `a % b` when `remainder`) for 64-bit operands, rounding
    /// toward zero: `div.u32` when both operands are in 0 .. 2^31, else `div.s64`. A
    /// constant `b` is an immediate, tested here rather than at run time.
    pub(super) fn divide_wide(&mut self, d: &str, (a, b): (&str, Divisor<'_>), remainder: bool) {
        let op = if remainder { "rem" } else { "div" };
        let (tested, b32) = match b {
            Divisor::Constant(value) if (0..1 << 31).contains(&value) => {
                (a.to_owned(), value.to_string())
            }
            Divisor::Constant(value) => {
                self.emit(&format!("{op}.s64 {d}, {a}, {value};"));
                return;
            }
            Divisor::Register(b) => {
                let both = self.scratch(kir::Ty::I64);
                self.emit(&format!("or.b64 {both}, {a}, {b};"));
                let narrow = self.scratch(kir::Ty::I32);
                (both, narrow)
            }
        };
        let (high, wide) = (self.scratch(kir::Ty::I64), self.scratch(kir::Ty::Pred));
        let (slow, done) = (self.label(), self.label());
        self.emit(&format!("shr.u64 {high}, {tested}, 31;"));
        self.emit(&format!("setp.ne.s64 {wide}, {high}, 0;"));
        self.emit(&format!("@{wide} bra {slow};"));
        let a32 = self.scratch(kir::Ty::I32);
        self.emit(&format!("cvt.u32.u64 {a32}, {a};"));
        if let Divisor::Register(b) = b {
            self.emit(&format!("cvt.u32.u64 {b32}, {b};"));
        }
        self.emit(&format!("{op}.u32 {a32}, {a32}, {b32};"));
        self.emit(&format!("cvt.u64.u32 {d}, {a32};"));
        self.emit(&format!("bra.uni {done};"));
        self.place(&slow);
        let b_text = match b {
            Divisor::Constant(value) => value.to_string(),
            Divisor::Register(b) => b.to_owned(),
        };
        self.emit(&format!("{op}.s64 {d}, {a}, {b_text};"));
        self.place(&done);
    }
}

/// A 64-bit division's divisor: an immediate or a register's name.
#[derive(Clone, Copy)]
pub(super) enum Divisor<'a> {
    Constant(i64),
    Register(&'a str),
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
