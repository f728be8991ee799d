//! Fuzz target: any bytes, decoded lossily as UTF-8, parse without panicking,
//! and every diagnostic's labels lie inside the text on character boundaries.
//! The rendering of the diagnostics is exercised too.

#![no_main]

use lang::SourceFile;
use lang::render::{Style, human};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let (_, diagnostics) = grammar::parse(&text);
    for label in diagnostics
        .iter()
        .flat_map(|diagnostic| diagnostic.labels())
    {
        let span = label.span;
        assert!(
            span.start <= span.end && span.fits_in(text.len()),
            "span {span} outside {} bytes",
            text.len()
        );
        assert!(
            text.is_char_boundary(span.start as usize) && text.is_char_boundary(span.end as usize)
        );
    }
    let file = SourceFile::new("fuzz.cuk", text.as_ref());
    let _ = human(&diagnostics, &file, Style::Plain);
});
