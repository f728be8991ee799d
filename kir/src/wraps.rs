//! A wrap of a value that already fits is the value.
//!
//! Arithmetic on 8- and 16-bit integers happens in 32-bit registers, and lowering
//! wraps each result back to its type as C does: `and x, 2^b - 1` for an unsigned one,
//! a shift left by `32 - b` and an arithmetic shift right by as much for a signed one.
//! A value a narrow load read (`load.global.u8` zero-extends, `.s8` sign-extends) or an
//! earlier wrap made already holds a value of its width: wrapping it to a type that holds
//! every such value (an unsigned value of `b'` bits in `b > b'` bits, signed or not, or
//! one of the same signedness in `b >= b'`) changes nothing. Such wraps are replaced by
//! their operand, and the `dead` pass removes them.

use rustc_hash::FxHashMap;

use crate::ir::{BinOp, Inst, Kernel, Op, ValueId, replace_uses};

/// What a value is known to fit: `bits` bits, signed or not.
#[derive(Clone, Copy)]
struct Fits {
    bits: u32,
    signed: bool,
}

impl Fits {
    /// Whether every value of this width is one of `wrap`'s, so wrapping changes none.
    fn within(self, wrap: Fits) -> bool {
        (self.signed == wrap.signed && self.bits <= wrap.bits)
            || (!self.signed && self.bits < wrap.bits)
    }
}

/// Replaces each wrap of a value that already fits its width by the value.
pub fn drop_needless_wraps(kernel: &mut Kernel) {
    let mut facts = Facts::default();
    facts.collect(&kernel.body, kernel);
    if !facts.replaced.is_empty() {
        replace_uses(&mut kernel.body, &facts.replaced);
    }
}

#[derive(Default)]
struct Facts {
    /// Each integer constant's value.
    constants: FxHashMap<ValueId, i64>,
    /// What each value is known to fit.
    fits: FxHashMap<ValueId, Fits>,
    /// Each left shift: its operand and its shift.
    shifted_up: FxHashMap<ValueId, (ValueId, ValueId)>,
    /// Each needless wrap, with the value it stands for.
    replaced: FxHashMap<ValueId, ValueId>,
}

impl Facts {
    /// Walks `body` in program order (operands before their users).
    fn collect(&mut self, body: &[Inst], kernel: &Kernel) {
        for inst in body {
            match (&inst.op, inst.results.as_slice()) {
                // A narrow vector load: every word it reads fits.
                (
                    Op::Load {
                        narrow: Some(narrow),
                        ..
                    },
                    results,
                ) => {
                    let fits = Fits {
                        bits: narrow.bits(),
                        signed: narrow.is_signed(),
                    };
                    self.fits
                        .extend(results.iter().map(|result| (*result, fits)));
                }
                (op, [result]) => self.fact(op, *result, kernel),
                _ => {}
            }
            for region in inst.op.regions() {
                self.collect(&region.body, kernel);
            }
        }
    }

    /// What `op`, defining `result`, tells.
    fn fact(&mut self, op: &Op, result: ValueId, kernel: &Kernel) {
        let width = kernel.ty(result).bits();
        match *op {
            Op::ConstInt(value) => {
                self.constants.insert(result, value);
            }
            Op::Binary(BinOp::And, value, mask) if kernel.ty(result).is_integer() => {
                let Some(&mask) = self.constants.get(&mask) else {
                    return;
                };
                // A mask of the low `bits` bits: 2^bits - 1, positive (i64::MAX + 1
                // overflows: it is no narrow width).
                let Some(next) = mask.checked_add(1).filter(|_| mask > 0) else {
                    return;
                };
                let bits = next.trailing_zeros();
                if mask & next != 0 || bits >= width {
                    return;
                }
                self.wrapped(
                    result,
                    value,
                    Fits {
                        bits,
                        signed: false,
                    },
                );
            }
            Op::Binary(BinOp::Shl, value, shift) => {
                self.shifted_up.insert(result, (value, shift));
            }
            // A signed type's right shift is arithmetic (a sign extension of the low
            // bits), an unsigned type's logical (a zero extension).
            Op::Binary(BinOp::Shr, up, shift) if kernel.ty(result).is_integer() => {
                let Some(&(value, first)) = self.shifted_up.get(&up) else {
                    return;
                };
                let (Some(&by), Some(&again)) =
                    (self.constants.get(&shift), self.constants.get(&first))
                else {
                    return;
                };
                if by != again || by <= 0 || by >= i64::from(width) {
                    return;
                }
                let bits = width - by as u32;
                let signed = !kernel.ty(result).is_unsigned();
                self.wrapped(result, value, Fits { bits, signed });
            }
            _ => {}
        }
    }

    /// `result` wraps `value` to `wrap`: it fits that, and stands for `value` if that
    /// already fits it.
    fn wrapped(&mut self, result: ValueId, value: ValueId, wrap: Fits) {
        let value = self.replaced.get(&value).copied().unwrap_or(value);
        match self.fits.get(&value) {
            Some(known) if known.within(wrap) => {
                self.replaced.insert(result, value);
            }
            _ => {
                self.fits.insert(result, wrap);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{from_text, to_text, verify};

    /// `kernel` with `lines` after an i32 loaded as a signed byte, `%1`.
    fn kernel(lines: &str) -> String {
        format!(
            "kernel k {{
  param 0 x: tensor i8 shape(4) strides(1)
  launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)
  %0:i64 = param 0
  %1:i32 = load.global.s8 [%0+0]
{lines}
  store.global.u8 [%0+0], %9
}}
"
        )
    }

    fn after(text: &str) -> String {
        let mut kernel = from_text(text).unwrap();
        super::drop_needless_wraps(&mut kernel);
        verify(kernel.clone()).unwrap();
        to_text(&kernel, &|line| line)
    }

    #[test]
    fn a_signed_byte_wrapped_to_a_signed_byte_or_wider_is_itself() {
        let wrap = "  %2:i32 = const 24\n  %3:i32 = shl %1, %2\n  %9:i32 = shr %3, %2";
        assert!(after(&kernel(wrap)).contains("store.global.u8 [%0+0], %1"));
        let wider = "  %2:i32 = const 16\n  %3:i32 = shl %1, %2\n  %9:i32 = shr %3, %2";
        assert!(after(&kernel(wider)).contains("store.global.u8 [%0+0], %1"));
    }

    #[test]
    fn a_signed_byte_masked_to_unsigned_bits_is_wrapped() {
        // -1 as an s8 is 0xFFFFFFFF in its register: masking it to a byte changes it.
        let mask = "  %2:i32 = const 255\n  %9:i32 = and %1, %2";
        assert!(after(&kernel(mask)).contains("store.global.u8 [%0+0], %9"));
        // Narrower than the byte: changes it too.
        let narrow = "  %2:i32 = const 24\n  %3:i32 = shl %1, %2\n  %4:i32 = const 28\n  %5:i32 = shl %1, %4\n  %9:i32 = shr %5, %4";
        assert!(after(&kernel(narrow)).contains("store.global.u8 [%0+0], %9"));
    }

    #[test]
    fn masks_that_are_no_narrow_width_are_left_alone() {
        // i64::MAX + 1 overflows; a mask of all bits, zero or a non-contiguous one is no wrap.
        for constant in ["9223372036854775807", "-1", "0", "5"] {
            let text = kernel(&format!(
                "  %2:i32 = const {constant}\n  %9:i32 = and %1, %2"
            ));
            assert!(
                after(&text).contains("store.global.u8 [%0+0], %9"),
                "{constant}"
            );
        }
    }
}
