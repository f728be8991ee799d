//! The tokens of one line of KIR text: words, numbers, `%N` values, quoted strings,
//! punctuation. Every failure is a message naming the line and what was expected.

use super::ReadError;
use crate::ir::{Ty, ValueId};

/// The largest value number read: a text cannot define more values than it has
/// bytes, and this bound keeps a garbled number from allocating gigabytes.
pub(super) const MAX_VALUE: u32 = 1 << 24;

/// A position in one line.
pub(super) struct Cursor<'t> {
    /// The 1-based line number, for messages.
    pub line: u32,
    rest: &'t str,
}

/// Every type's text name.
const TYPES: [Ty; 12] = [
    Ty::Pred,
    Ty::I32,
    Ty::I64,
    Ty::U32,
    Ty::U64,
    Ty::F32,
    Ty::F64,
    Ty::F16,
    Ty::BF16,
    Ty::B16,
    Ty::B32,
    Ty::B64,
];

impl<'t> Cursor<'t> {
    pub(super) fn new(line: u32, text: &'t str) -> Cursor<'t> {
        Cursor { line, rest: text }
    }

    /// A mistake on this line.
    pub(super) fn error(&self, problem: impl std::fmt::Display) -> ReadError {
        ReadError {
            line: self.line,
            problem: problem.to_string(),
        }
    }

    /// `expected WHAT, found ...` at the current position.
    pub(super) fn expected(&self, what: &str) -> ReadError {
        let found: String = self.rest.trim_start().chars().take(24).collect();
        if found.is_empty() {
            self.error(format!("expected {what}, found the end of the line"))
        } else {
            self.error(format!("expected {what}, found `{found}`"))
        }
    }

    fn skip_spaces(&mut self) {
        self.rest = self.rest.trim_start();
    }

    /// Whether only spaces are left.
    pub(super) fn at_end(&mut self) -> bool {
        self.skip_spaces();
        self.rest.is_empty()
    }

    /// Whether the rest starts with `token` (after spaces), without taking it.
    pub(super) fn peek(&mut self, token: &str) -> bool {
        self.skip_spaces();
        self.rest.starts_with(token)
    }

    /// Takes `token` if the rest starts with it (after spaces).
    pub(super) fn eat(&mut self, token: &str) -> bool {
        self.skip_spaces();
        match self.rest.strip_prefix(token) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// Takes `keyword` if it is the next whole word.
    pub(super) fn eat_word(&mut self, keyword: &str) -> bool {
        self.skip_spaces();
        let after = self.rest.strip_prefix(keyword);
        match after {
            Some(rest) if !rest.starts_with(is_word_char) => {
                self.rest = rest;
                true
            }
            _ => false,
        }
    }

    /// Takes `token`, or fails.
    pub(super) fn expect(&mut self, token: &str) -> Result<(), ReadError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{token}`")))
        }
    }

    /// A word: letters, digits, `_` and `.`.
    pub(super) fn word(&mut self, what: &str) -> Result<&'t str, ReadError> {
        self.skip_spaces();
        let end = self
            .rest
            .find(|c: char| !is_word_char(c))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return Err(self.expected(what));
        }
        let (word, rest) = self.rest.split_at(end);
        self.rest = rest;
        Ok(word)
    }

    /// Everything up to `stop` (not taken), trimmed; fails when `stop` is missing.
    pub(super) fn until(&mut self, stop: char, what: &str) -> Result<&'t str, ReadError> {
        self.skip_spaces();
        let Some(end) = self.rest.find(stop) else {
            return Err(self.expected(what));
        };
        let (taken, rest) = self.rest.split_at(end);
        self.rest = rest;
        Ok(taken.trim_end())
    }

    /// The rest of the line, trimmed.
    pub(super) fn rest(&mut self) -> &'t str {
        let rest = self.rest.trim();
        self.rest = "";
        rest
    }

    /// An integer of type `T`, with an optional sign.
    pub(super) fn integer<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ReadError> {
        self.skip_spaces();
        let sign = usize::from(self.rest.starts_with(['-', '+']));
        let end = self.rest[sign..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(self.rest.len(), |end| end + sign);
        let parsed = self.rest[..end].parse().map_err(|_| self.expected(what))?;
        self.rest = &self.rest[end..];
        Ok(parsed)
    }

    /// A number as written by `{}` for `i64` or `{:?}` for `f64`: a word that may
    /// hold signs (`-1.5e-7`, `NaN`, `-inf`).
    pub(super) fn number(&mut self) -> Result<&'t str, ReadError> {
        self.skip_spaces();
        let end = self
            .rest
            .find(|c: char| !(is_word_char(c) || c == '-' || c == '+'))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return Err(self.expected("a number"));
        }
        let (number, rest) = self.rest.split_at(end);
        self.rest = rest;
        Ok(number)
    }

    /// `%N`.
    pub(super) fn value(&mut self) -> Result<ValueId, ReadError> {
        self.skip_spaces();
        if !self.rest.starts_with('%') {
            return Err(self.expected("a value `%N`"));
        }
        self.rest = &self.rest[1..];
        let number: u32 = self.integer("a value number after `%`")?;
        if number >= MAX_VALUE {
            return Err(self.error(format!("%{number} is beyond the values a text can hold")));
        }
        Ok(ValueId(number))
    }

    /// `%N:ty`.
    pub(super) fn typed_value(&mut self) -> Result<(ValueId, Ty), ReadError> {
        let value = self.value()?;
        if !self.rest.starts_with(':') {
            return Err(self.expected(&format!("`:` and the type of %{}", value.0)));
        }
        self.rest = &self.rest[1..];
        Ok((value, self.ty()?))
    }

    /// A type's name.
    pub(super) fn ty(&mut self) -> Result<Ty, ReadError> {
        let name = self.word("a type")?;
        type_named(name).ok_or_else(|| self.error(format!("`{name}` is not a type")))
    }

    /// `%a, %b, ...` (at least one).
    pub(super) fn values(&mut self) -> Result<Vec<ValueId>, ReadError> {
        let mut values = vec![self.value()?];
        while self.eat(",") {
            values.push(self.value()?);
        }
        Ok(values)
    }

    /// A string as Rust's `{:?}` writes it: quoted, with `\"`, `\\`, `\n`, `\r`,
    /// `\t`, `\0`, `\'` and `\u{…}` escapes.
    pub(super) fn string(&mut self) -> Result<String, ReadError> {
        if !self.eat("\"") {
            return Err(self.expected("a quoted string"));
        }
        let mut out = String::new();
        let mut chars = self.rest.char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                '"' => {
                    self.rest = &self.rest[at + 1..];
                    return Ok(out);
                }
                '\\' => out.push(self.escape(&mut chars)?),
                c => out.push(c),
            }
        }
        Err(self.error("a string is not closed"))
    }

    fn escape(&self, chars: &mut std::str::CharIndices<'_>) -> Result<char, ReadError> {
        let escaped = match chars.next().map(|(_, c)| c) {
            Some('"') => '"',
            Some('\'') => '\'',
            Some('\\') => '\\',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('0') => '\0',
            Some('u') => {
                let digits: String = chars
                    .by_ref()
                    .map(|(_, c)| c)
                    .take_while(|c| *c != '}')
                    .collect();
                let digits = digits.strip_prefix('{').unwrap_or("");
                u32::from_str_radix(digits, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| self.error("a bad `\\u{…}` escape"))?
            }
            other => {
                return Err(self.error(format!("an unknown escape `\\{}`", other.unwrap_or(' '))));
            }
        };
        Ok(escaped)
    }
}

/// The type `name` names.
pub(super) fn type_named(name: &str) -> Option<Ty> {
    TYPES.into_iter().find(|ty| ty.name() == name)
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_read_with_their_line_in_errors() {
        let mut cursor = Cursor::new(7, "  %12:f32 = add %3, %-1");
        assert_eq!(cursor.typed_value(), Ok((ValueId(12), Ty::F32)));
        cursor.expect("=").unwrap();
        assert_eq!(cursor.word("an operation"), Ok("add"));
        assert_eq!(cursor.value(), Ok(ValueId(3)));
        cursor.expect(",").unwrap();
        assert!(
            cursor
                .value()
                .unwrap_err()
                .to_string()
                .starts_with("line 7: expected a value number")
        );
    }

    #[test]
    fn strings_read_what_debug_writes() {
        let original = "st [{a}], \"q\"\\\n\t\u{301}é";
        let written = format!("{original:?} rest");
        let mut cursor = Cursor::new(1, &written);
        assert_eq!(cursor.string().as_deref(), Ok(original));
        assert!(cursor.eat_word("rest"));
        assert!(Cursor::new(1, "\"open").string().is_err());
        assert!(Cursor::new(1, "\"\\u{zz}\"").string().is_err());
        assert!(Cursor::new(1, "\"\\").string().is_err());
    }

    #[test]
    fn value_numbers_are_bounded() {
        assert!(Cursor::new(1, "%99999999999").value().is_err());
        assert!(Cursor::new(1, "%16777216").value().is_err());
        assert_eq!(Cursor::new(1, "%16777215").value(), Ok(ValueId(16_777_215)));
    }
}
