//! A `print`'s format string as data: literal text and placeholders, each placeholder
//! a [`Style`] that says how one run-time value is written.
//!
//! The syntax is the language's (`docs/language.md`, "Printing"): `{}` writes a value
//! as C's `printf` writes it by default (`%d`, `%u`, `%lld`, `%f`; a bool `true` or
//! `false`), `{:x}` an integer
//! in lowercase hexadecimal (`%x`), `{:.N}` a float with `N` digits after the point
//! (`%.Nf`); `{{` and `}}` are literal braces. [`Format::parse`] reads it (the checker
//! reports its [`FormatError`]s), [`Format::source`] writes it back (KIR's text form);
//! `backend-ptx` turns it into a `printf` format and the emulator writes the text.

use crate::ir::Ty;

/// The most digits after the point a `{:.N}` asks for.
pub const MAX_PRECISION: u8 = 20;

/// How a placeholder writes its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// `{}`: an integer in decimal, a float with six digits after the point.
    Plain,
    /// `{:x}`: an integer in lowercase hexadecimal, its two's complement at its width.
    Hex,
    /// `{:.N}`: a float with `N` digits after the point.
    Fixed(u8),
}

impl Style {
    /// Whether a value of type `ty` can be written so: integers, floats (32 or 64
    /// bits) and preds (`true`, `false`) by `{}`, integers by `{:x}`, floats by `{:.N}`.
    pub fn accepts(self, ty: Ty) -> bool {
        let float = matches!(ty, Ty::F32 | Ty::F64);
        match self {
            Style::Plain => float || ty.is_integer() || ty == Ty::Pred,
            Style::Hex => ty.is_integer(),
            Style::Fixed(_) => float,
        }
    }

    /// The placeholder's text.
    pub fn source(self) -> String {
        match self {
            Style::Plain => "{}".to_owned(),
            Style::Hex => "{:x}".to_owned(),
            Style::Fixed(digits) => format!("{{:.{digits}}}"),
        }
    }
}

/// One piece of a format.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// Text written as it is.
    Text(String),
    /// The next value, written in a style.
    Value(Style),
}

/// A format: text and placeholders in order, adjacent texts merged.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Format {
    pieces: Vec<Piece>,
}

/// What is wrong with a format string, and where (a character index into it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// The character at which the problem is found.
    pub at: usize,
    /// The problem, in words.
    pub problem: String,
}

impl Format {
    /// The format `text` writes, or the first mistake in it.
    pub fn parse(text: &str) -> Result<Format, FormatError> {
        let mut format = Format::default();
        let mut chars = text.chars().enumerate().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' if chars.next_if(|(_, next)| *next == '{').is_some() => format.text("{"),
                '}' if chars.next_if(|(_, next)| *next == '}').is_some() => format.text("}"),
                '}' => {
                    return Err(FormatError {
                        at,
                        problem: "a lone `}` (write `}}` for a brace)".to_owned(),
                    });
                }
                '{' => {
                    let mut spec = String::new();
                    loop {
                        match chars.next() {
                            Some((_, '}')) => break,
                            Some((_, c)) => spec.push(c),
                            None => {
                                return Err(FormatError {
                                    at,
                                    problem: "a `{` that is never closed (write `{{` for a brace)"
                                        .to_owned(),
                                });
                            }
                        }
                    }
                    let style = style(&spec).ok_or_else(|| FormatError {
                        at,
                        problem: format!(
                            "`{{{spec}}}` is not a placeholder: write `{{}}`, `{{:x}}` or `{{:.N}}` (N at most {MAX_PRECISION})"
                        ),
                    })?;
                    format.pieces.push(Piece::Value(style));
                }
                c => format.text(c.encode_utf8(&mut [0; 4])),
            }
        }
        Ok(format)
    }

    /// A format of `pieces`, adjacent texts merged and empty ones dropped.
    pub fn from_pieces(pieces: impl IntoIterator<Item = Piece>) -> Format {
        let mut format = Format::default();
        for piece in pieces {
            match piece {
                Piece::Text(text) => format.text(&text),
                value => format.pieces.push(value),
            }
        }
        format
    }

    /// Appends literal text.
    pub fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(Piece::Text(last)) = self.pieces.last_mut() {
            last.push_str(text);
        } else {
            self.pieces.push(Piece::Text(text.to_owned()));
        }
    }

    /// The pieces, in order.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The placeholders' styles, in order.
    pub fn styles(&self) -> impl Iterator<Item = Style> + '_ {
        self.pieces.iter().filter_map(|piece| match piece {
            Piece::Value(style) => Some(*style),
            Piece::Text(_) => None,
        })
    }

    /// The format string that parses to this format.
    pub fn source(&self) -> String {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => out.push_str(&text.replace('{', "{{").replace('}', "}}")),
                Piece::Value(style) => out.push_str(&style.source()),
            }
        }
        out
    }
}

/// The style a placeholder's inside (between the braces) names.
fn style(spec: &str) -> Option<Style> {
    match spec {
        "" => Some(Style::Plain),
        ":x" => Some(Style::Hex),
        _ => {
            let digits = spec.strip_prefix(":.")?;
            if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            let digits: u8 = digits.parse().ok()?;
            (digits <= MAX_PRECISION).then_some(Style::Fixed(digits))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_escaped_braces_parse_and_write_back() {
        let format = Format::parse("x={} h={:x} f={:.3} {{set}}\n").unwrap();
        assert_eq!(
            format.styles().collect::<Vec<_>>(),
            [Style::Plain, Style::Hex, Style::Fixed(3)]
        );
        assert_eq!(
            format.pieces()[6],
            Piece::Text(" {set}\n".to_owned()),
            "{format:?}"
        );
        assert_eq!(format.source(), "x={} h={:x} f={:.3} {{set}}\n");
        assert_eq!(Format::parse(&format.source()).unwrap(), format);
    }

    #[test]
    fn mistakes_name_their_character() {
        let cases = [
            ("ab}", 2, "lone `}`"),
            ("a{b", 1, "never closed"),
            ("{:y}", 0, "`{:y}` is not a placeholder"),
            ("x {:.21}", 2, "at most 20"),
            ("{:.}", 0, "not a placeholder"),
            ("{0}", 0, "not a placeholder"),
        ];
        for (text, at, words) in cases {
            let error = Format::parse(text).unwrap_err();
            assert_eq!(error.at, at, "{text}");
            assert!(error.problem.contains(words), "{text}: {}", error.problem);
        }
    }

    #[test]
    fn styles_accept_the_types_printf_writes_so() {
        assert!(Style::Plain.accepts(Ty::I64) && Style::Plain.accepts(Ty::F32));
        assert!(Style::Hex.accepts(Ty::U32) && !Style::Hex.accepts(Ty::F64));
        assert!(Style::Fixed(2).accepts(Ty::F64) && !Style::Fixed(2).accepts(Ty::I32));
        assert!(Style::Plain.accepts(Ty::Pred) && !Style::Hex.accepts(Ty::Pred));
        assert!(!Style::Plain.accepts(Ty::F16) && !Style::Plain.accepts(Ty::B32));
    }

    #[test]
    fn pieces_merge_adjacent_text() {
        let format = Format::from_pieces([
            Piece::Text("a".to_owned()),
            Piece::Text(String::new()),
            Piece::Text("b".to_owned()),
            Piece::Value(Style::Plain),
        ]);
        assert_eq!(format.pieces().len(), 2);
        assert_eq!(format.source(), "ab{}");
    }
}
