//! `print`: the text a thread's `vprintf` writes, as C's `printf` writes it for the
//! conversions `backend-ptx` chooses (`%d`, `%u`, `%lld`, `%llu`, `%x`, `%llx`, `%f`,
//! `%.Nf`, and `%s` of `true` or `false` for a pred), written here from the
//! [`kir::Format`] and the values' bits, apart from the backend's code.
//!
//! A launch's text is its threads' lines by block (cluster by cluster, each block's
//! rank order), then by thread (linear index), each thread's in program order. The GPU
//! interleaves threads as they run, so only each thread's own sequence of lines is the
//! same on both. As on the GPU, whose `printf` buffer holds 1 MiB by default, a launch
//! prints at most [`MAX_PRINTED_BYTES`]; beyond it the emulator stops with `E0409`
//! rather than keep text without bound.

use kir::{Format, Piece, Style, Ty};

use crate::arith;

/// The most bytes of text a launch prints.
pub const MAX_PRINTED_BYTES: u64 = 1 << 20;

/// The line `format` writes with `values` (each a type and its bits).
pub(crate) fn line(format: &Format, values: &[(Ty, u64)]) -> String {
    let mut out = String::new();
    let mut values = values.iter();
    for piece in format.pieces() {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Value(style) => {
                if let Some((ty, bits)) = values.next() {
                    out.push_str(&written(*style, *ty, *bits));
                }
            }
        }
    }
    out
}

/// One value as its conversion writes it.
fn written(style: Style, ty: Ty, bits: u64) -> String {
    let float = match ty {
        Ty::F32 => Some(f64::from(f32::from_bits(bits as u32))),
        Ty::F64 => Some(f64::from_bits(bits)),
        _ => None,
    };
    match (style, float) {
        (Style::Plain, Some(value)) => fixed(value, 6),
        (Style::Fixed(digits), Some(value)) => fixed(value, usize::from(digits)),
        (Style::Hex, _) if matches!(ty, Ty::I64 | Ty::U64) => format!("{bits:x}"),
        (Style::Hex, _) => format!("{:x}", bits as u32),
        _ => match ty {
            Ty::Pred => (if bits != 0 { "true" } else { "false" }).to_owned(),
            Ty::I32 => arith::as_i32(bits).to_string(),
            Ty::U32 => (bits as u32).to_string(),
            Ty::I64 => (bits as i64).to_string(),
            _ => bits.to_string(),
        },
    }
}

/// `%.Nf`: `digits` after the point, rounded to nearest (ties to even, on the exact
/// binary value), `inf`, `nan` with their signs.
fn fixed(value: f64, digits: usize) -> String {
    let sign = if value.is_sign_negative() { "-" } else { "" };
    if value.is_nan() {
        format!("{sign}nan")
    } else if value.is_infinite() {
        format!("{sign}inf")
    } else {
        format!("{value:.digits$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_written_as_printf_writes_them() {
        let format = Format::parse("{} {} {:x} {:x} {} {:.2} {} {}|{}").unwrap();
        let values = [
            (Ty::I32, u64::from((-7i32) as u32)),
            (Ty::U32, u64::from(u32::MAX)),
            (Ty::I32, u64::from((-1i32) as u32)),
            (Ty::I64, 255),
            (Ty::F32, u64::from(1.5f32.to_bits())),
            (Ty::F64, 2.675f64.to_bits()),
            (Ty::Pred, 1),
            (Ty::I64, (-3i64) as u64),
            (Ty::F64, (-0.0f64).to_bits()),
        ];
        assert_eq!(
            line(&format, &values),
            "-7 4294967295 ffffffff ff 1.500000 2.67 true -3|-0.000000"
        );
    }

    #[test]
    fn non_finite_floats_are_written_as_c_writes_them() {
        assert_eq!(fixed(f64::INFINITY, 3), "inf");
        assert_eq!(fixed(f64::NEG_INFINITY, 6), "-inf");
        assert_eq!(fixed(f64::NAN, 6), "nan");
        assert_eq!(fixed(0.125, 2), "0.12");
        assert_eq!(fixed(0.5, 0), "0");
    }
}
