//! Decoding literals: integers (decimal, `0x`, `0b`, `_` separators) that must
//! fit in `i64`, finite floats, and strings with their escapes.
//!
//! Each decoder returns the literal's token, or [`Token::Error`] after
//! pushing a diagnostic that says what is wrong with the text.

use lang::{Diagnostic, Span};

use crate::token::Token;

/// Decodes an integer token's text into [`Token::Int`].
pub fn integer(text: &str, span: Span, diagnostics: &mut Vec<Diagnostic>) -> Token<'static> {
    match integer_value(text, span) {
        Ok(value) => Token::Int(value),
        Err(diagnostic) => reported(*diagnostic, diagnostics),
    }
}

/// Decodes a float token's text into [`Token::Float`].
pub fn float(text: &str, span: Span, diagnostics: &mut Vec<Diagnostic>) -> Token<'static> {
    let cleaned: String = text.chars().filter(|&character| character != '_').collect();
    match cleaned.parse::<f64>() {
        Ok(value) if value.is_finite() => Token::Float(value),
        _ => reported(
            malformed(span, format!("float literal `{text}` is out of range"))
                .with_note(format!("the largest finite float is about {:e}", f64::MAX)),
            diagnostics,
        ),
    }
}

/// Decodes a complete string literal (with its quotes) into [`Token::String`].
pub fn string(text: &str, span: Span, diagnostics: &mut Vec<Diagnostic>) -> Token<'static> {
    match decode_string(text, span) {
        Ok(value) => Token::String(value),
        Err(diagnostic) => reported(*diagnostic, diagnostics),
    }
}

fn reported(diagnostic: Diagnostic, diagnostics: &mut Vec<Diagnostic>) -> Token<'static> {
    diagnostics.push(diagnostic);
    Token::Error
}

fn integer_value(text: &str, span: Span) -> Result<i64, Box<Diagnostic>> {
    let (radix, digits, radix_name) = match text.get(..2) {
        Some("0x" | "0X") => (16, &text[2..], "hexadecimal"),
        Some("0b" | "0B") => (2, &text[2..], "binary"),
        _ => (10, text, "decimal"),
    };
    let cleaned: String = digits
        .chars()
        .filter(|&character| character != '_')
        .collect();
    if cleaned.is_empty() {
        return Err(Box::new(malformed(
            span,
            format!("{radix_name} literal `{text}` has no digits"),
        )));
    }
    if let Some(bad) = cleaned.chars().find(|character| !character.is_digit(radix)) {
        return Err(Box::new(
            malformed(
                span,
                format!("`{bad}` is not a {radix_name} digit in `{text}`"),
            )
            .with_help("numbers have no suffix, and a name cannot start with a digit"),
        ));
    }
    i64::from_str_radix(&cleaned, radix).map_err(|_| {
        Box::new(
            Diagnostic::error("E0105", "integer literal is too large")
                .with_primary(span, "does not fit in a signed 64-bit integer")
                .with_note(format!("the largest integer literal is {}", i64::MAX)),
        )
    })
}

fn malformed(span: Span, message: String) -> Diagnostic {
    Diagnostic::error("E0106", message).with_primary(span, "malformed number")
}

fn decode_string(text: &str, span: Span) -> Result<String, Box<Diagnostic>> {
    let body = text.get(1..text.len().saturating_sub(1)).unwrap_or("");
    let mut value = String::with_capacity(body.len());
    let mut characters = body.char_indices();
    while let Some((offset, character)) = characters.next() {
        if character != '\\' {
            value.push(character);
            continue;
        }
        let decoded = match characters.next() {
            Some((_, 'n')) => Some('\n'),
            Some((_, 't')) => Some('\t'),
            Some((_, 'r')) => Some('\r'),
            Some((_, '0')) => Some('\0'),
            Some((_, '\\')) => Some('\\'),
            Some((_, '"')) => Some('"'),
            Some((_, 'u')) => unicode_escape(&mut characters),
            _ => None,
        };
        match decoded {
            Some(character) => value.push(character),
            None => {
                let body_offset =
                    |position: usize| span.start.saturating_add(1).saturating_add(position as u32);
                let escape_end = characters
                    .clone()
                    .next()
                    .map_or(body.len(), |(next, _)| next);
                let escape =
                    Span::new(body_offset(offset), body_offset(escape_end.max(offset + 1)));
                return Err(Box::new(
                    Diagnostic::error("E0104", "unknown escape sequence in string literal")
                        .with_primary(escape, "not a valid escape")
                        .with_help(r#"valid escapes: \\ \" \n \t \r \0 \u{hex}"#),
                ));
            }
        }
    }
    Ok(value)
}

/// Decodes the `{hex}` part of a `\u{hex}` escape.
fn unicode_escape(characters: &mut std::str::CharIndices<'_>) -> Option<char> {
    if characters.next()?.1 != '{' {
        return None;
    }
    let mut hex = String::new();
    for (_, character) in characters.by_ref() {
        if character == '}' {
            return u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
        }
        if hex.len() == 6 {
            return None;
        }
        hex.push(character);
    }
    None
}
