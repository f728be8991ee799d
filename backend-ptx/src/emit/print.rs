//! `print` through CUDA's `vprintf` system call: the format is a global byte string
//! of the kernel, the values are packed into a local buffer as C passes variadic
//! arguments (f32 widened to f64, 32-bit integers in 4 bytes, 64-bit values and
//! pointers in 8 at 8-byte alignment), and the thread calls
//! `vprintf(format, buffer)`; the driver writes the text to the host's standard output
//! when the host synchronizes. A bool is written by `%s` as the module's `true` or
//! `false` string (`vprintf`'s declaration and those strings are [`DECLARATIONS`]).

use std::fmt::Write;

use kir::{Format, Piece, Style, Ty, ValueId};

use super::Emitter;

/// What a module that prints declares once: `vprintf` and the strings bools print as.
pub(super) const DECLARATIONS: &str = "\
.extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 args);
.global .align 1 .b8 cuk_true[5] = {116, 114, 117, 101, 0};
.global .align 1 .b8 cuk_false[6] = {102, 97, 108, 115, 101, 0};

";

/// The printf conversion that writes a value of type `ty` in `style`.
fn conversion(style: Style, ty: Ty) -> String {
    let wide = matches!(ty, Ty::I64 | Ty::U64);
    match (style, ty) {
        (Style::Fixed(digits), _) => format!("%.{digits}f"),
        (Style::Hex, _) if wide => "%llx".to_owned(),
        (Style::Hex, _) => "%x".to_owned(),
        (Style::Plain, Ty::Pred) => "%s".to_owned(),
        (Style::Plain, Ty::F32 | Ty::F64) => "%f".to_owned(),
        (Style::Plain, Ty::U64) => "%llu".to_owned(),
        (Style::Plain, Ty::I64) => "%lld".to_owned(),
        (Style::Plain, Ty::U32) => "%u".to_owned(),
        (Style::Plain, _) => "%d".to_owned(),
    }
}

/// The C format string of `format` for values of `types`, with its terminating zero.
fn printf_bytes(format: &Format, types: &[Ty]) -> Vec<u8> {
    let mut text = String::new();
    let mut types = types.iter();
    for piece in format.pieces() {
        match piece {
            Piece::Text(literal) => text.push_str(&literal.replace('%', "%%")),
            Piece::Value(style) => {
                let ty = types.next().copied().unwrap_or(Ty::I32);
                text.push_str(&conversion(*style, ty));
            }
        }
    }
    let mut bytes = text.into_bytes();
    bytes.push(0);
    bytes
}

/// Where each value goes in the argument buffer, and the buffer's size.
fn packing(types: &[Ty]) -> (Vec<usize>, usize) {
    let mut offsets = Vec::with_capacity(types.len());
    let mut end: usize = 0;
    for ty in types {
        let size = if matches!(ty, Ty::I32 | Ty::U32) {
            4
        } else {
            8
        };
        let at = end.next_multiple_of(size);
        offsets.push(at);
        end = at + size;
    }
    (offsets, end)
}

impl Emitter<'_, '_> {
    /// `vprintf` of `format` with `args`.
    pub(super) fn print(&mut self, format: &Format, args: &[ValueId]) {
        let types: Vec<Ty> = args.iter().map(|arg| self.kernel.ty(*arg)).collect();
        let entry = &self.kernel.signature.entry;
        let name = format!("{entry}_format{}", self.formats.len());
        let bytes = printf_bytes(format, &types);
        let listed: Vec<String> = bytes.iter().map(u8::to_string).collect();
        let declaration = format!(
            ".global .align 1 .b8 {name}[{}] = {{{}}};\n",
            bytes.len(),
            listed.join(", ")
        );
        self.formats.push(declaration);
        let (offsets, bytes) = packing(&types);
        self.print_bytes = self.print_bytes.max(bytes);
        let buffer = format!("{entry}_print_args");
        let mut text = String::new();
        for ((arg, ty), offset) in args.iter().zip(&types).zip(offsets) {
            let value = self.name(*arg).to_owned();
            let stored = match ty {
                Ty::F32 => {
                    let wide = self.scratch(Ty::F64);
                    let _ = write!(text, "cvt.f64.f32 {wide}, {value};\n    ");
                    ("f64", wide)
                }
                Ty::F64 => ("f64", value),
                Ty::Pred => {
                    let [yes, no, chosen] = [(); 3].map(|()| self.scratch(Ty::I64));
                    let _ = write!(
                        text,
                        "cvta.global.u64 {yes}, cuk_true;\n    cvta.global.u64 {no}, cuk_false;\n    selp.b64 {chosen}, {yes}, {no}, {value};\n    "
                    );
                    ("b64", chosen)
                }
                Ty::I32 | Ty::U32 => ("b32", value),
                _ => ("b64", value),
            };
            let _ = write!(
                text,
                "st.local.{} [{buffer}+{offset}], {};\n    ",
                stored.0, stored.1
            );
        }
        let [format_address, args_address] = [(); 2].map(|()| self.scratch(Ty::I64));
        let _ = write!(text, "cvta.global.u64 {format_address}, {name};\n    ");
        if args.is_empty() {
            let _ = write!(text, "mov.u64 {args_address}, 0;\n    ");
        } else {
            let _ = write!(
                text,
                "mov.u64 {args_address}, {buffer};\n    cvta.local.u64 {args_address}, {args_address};\n    "
            );
        }
        let _ = write!(
            text,
            "{{\n    .param .b64 print_format;\n    st.param.b64 [print_format], {format_address};\n    \
             .param .b64 print_args;\n    st.param.b64 [print_args], {args_address};\n    \
             .param .b32 print_status;\n    \
             call (print_status), vprintf, (print_format, print_args);\n    }}"
        );
        self.emit(&text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_become_printf_conversions_by_type() {
        let format = Format::parse("100% {} {} {:x} {:.3} {} {}").unwrap();
        let types = [Ty::I32, Ty::U64, Ty::I64, Ty::F32, Ty::F64, Ty::Pred];
        let bytes = printf_bytes(&format, &types);
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            "100%% %d %llu %llx %.3f %f %s\0"
        );
    }

    #[test]
    fn values_pack_as_c_varargs() {
        let (offsets, bytes) = packing(&[Ty::I32, Ty::F32, Ty::U32, Ty::U32, Ty::I64]);
        assert_eq!(offsets, [0, 8, 16, 20, 24]);
        assert_eq!(bytes, 32);
    }
}
