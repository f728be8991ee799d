//! Seeded mutation testing of the parser: broken text never panics, never
//! hangs, and every diagnostic points inside the file.
//!
//! The seeds are the example kernels (`cuk-examples/*.cuk`) and the parse and
//! diagnostics corpora (`tests/parse/*.cuk`, `tests/diagnostics/*.cuk`). Each
//! case takes one seed, splits it into rough tokens (words, single
//! punctuation characters, whitespace runs) and applies one to three
//! mutations: delete a token, duplicate one, swap two neighbours, insert
//! garbage (random printable bytes, non-ASCII characters, lone brackets,
//! quotes and comment openers) or cut the text short. A small xorshift
//! generator with a fixed seed makes every run identical, so a failure names
//! its case number and prints the input to reproduce it.
//!
//! Parsing runs on a worker thread; the test waits at most [`CASE_TIME_LIMIT`]
//! per case and reports a hang with its input. A panic is caught with
//! `catch_unwind` and reported the same way.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::time::Duration;

use lang::SourceFile;
use lang::render::{Style, human, json, short};
use mutation::{Generator, rough_tokens, seed_texts};

#[path = "../../tests/support/mutation.rs"]
mod mutation;

/// How many mutated inputs are parsed.
const CASES: usize = 4_000;
/// The most one parse (with rendering) may take before it counts as a hang.
const CASE_TIME_LIMIT: Duration = Duration::from_secs(5);
/// The generator's fixed seed.
const SEED: u64 = 0x00C0_FFEE_CAFE_F00D;

/// Text inserted as garbage: brackets, quotes, comment openers, operators,
/// keywords and non-ASCII characters of every UTF-8 length.
const GARBAGE: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "((((",
    "]]]",
    "\"",
    "\"\\",
    "/*",
    "*/",
    "//",
    ":",
    "::",
    ";",
    ",",
    "..",
    "->",
    "<",
    ">",
    "=",
    "_",
    "0x",
    "1e",
    "99999999999999999999999",
    "kernel",
    "launch",
    "let",
    "fn",
    "const",
    "for",
    "static",
    "gmem",
    "α",
    "×",
    "→",
    "é",
    "\u{FEFF}",
    "\u{202E}",
    "\u{200B}",
    "🚀",
    "\u{10FFFF}",
    "\t",
    "\r",
    "\n",
    "\\u{",
    "$",
    "#",
    "@",
    "`",
    "\u{0}",
];

/// Applies one random mutation to `tokens`.
fn mutate(tokens: &mut Vec<String>, generator: &mut Generator) {
    if tokens.is_empty() {
        tokens.push((*generator.pick(GARBAGE)).to_owned());
        return;
    }
    let at = generator.below(tokens.len());
    match generator.below(6) {
        0 => {
            tokens.remove(at);
        }
        1 => tokens.insert(at, tokens[at].clone()),
        2 if at + 1 < tokens.len() => tokens.swap(at, at + 1),
        3 => {
            let bytes: Vec<u8> = (0..1 + generator.below(8))
                .map(|_| generator.next() as u8)
                .collect();
            tokens.insert(at, String::from_utf8_lossy(&bytes).into_owned());
        }
        4 => tokens.truncate(at),
        _ => tokens.insert(at, (*generator.pick(GARBAGE)).to_owned()),
    }
}

/// Parses `text` and renders its diagnostics in all three forms; returns a
/// description of every diagnostic whose span is not inside the text.
fn check_one(text: &str) -> Vec<String> {
    let (_, diagnostics) = grammar::parse(text);
    let file = SourceFile::new("mutant.cuk", text);
    let _ = (
        human(&diagnostics, &file, Style::Plain),
        short(&diagnostics, &file),
        json(&diagnostics, &file),
    );
    diagnostics
        .iter()
        .flat_map(|diagnostic| {
            diagnostic
                .labels()
                .map(move |label| (diagnostic, label.span))
        })
        .filter(|(_, span)| {
            !(span.start <= span.end
                && span.fits_in(text.len())
                && text.is_char_boundary(span.start as usize)
                && text.is_char_boundary(span.end as usize))
        })
        .map(|(diagnostic, span)| {
            format!(
                "{}[{}] has span {span} in a text of {} bytes",
                diagnostic.severity,
                diagnostic.code,
                text.len()
            )
        })
        .collect()
}

#[test]
fn mutated_examples_never_panic_hang_or_point_outside_the_file() {
    let seeds = seed_texts(&["cuk-examples", "tests/parse", "tests/diagnostics"]);
    assert!(seeds.len() >= 10, "too few seed files: {}", seeds.len());
    let mut generator = Generator(SEED);
    let cases: Vec<String> = (0..CASES)
        .map(|_| {
            let (_, seed) = generator.pick(&seeds);
            let mut tokens: Vec<String> =
                rough_tokens(seed).into_iter().map(str::to_owned).collect();
            for _ in 0..1 + generator.below(3) {
                mutate(&mut tokens, &mut generator);
            }
            tokens.concat()
        })
        .collect();

    let (case_sender, case_receiver) = mpsc::channel::<String>();
    let (result_sender, result_receiver) = mpsc::channel::<Result<Vec<String>, String>>();
    let worker = std::thread::spawn(move || {
        for text in case_receiver {
            let outcome = catch_unwind(AssertUnwindSafe(|| check_one(&text))).map_err(|payload| {
                payload
                    .downcast_ref::<&str>()
                    .map(|message| (*message).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default()
            });
            if result_sender.send(outcome).is_err() {
                break;
            }
        }
    });

    let mut failures = Vec::new();
    for (number, text) in cases.iter().enumerate() {
        if case_sender.send(text.clone()).is_err() {
            failures.push(format!("case {number}: the worker thread is gone"));
            break;
        }
        match result_receiver.recv_timeout(CASE_TIME_LIMIT) {
            Ok(Ok(bad_spans)) => failures.extend(
                bad_spans
                    .into_iter()
                    .map(|problem| format!("case {number}: {problem}\ninput: {text:?}")),
            ),
            Ok(Err(panic)) => {
                failures.push(format!("case {number}: panicked: {panic}\ninput: {text:?}"))
            }
            Err(_) => {
                failures.push(format!(
                    "case {number}: no result within {CASE_TIME_LIMIT:?}\ninput: {text:?}"
                ));
                break;
            }
        }
        if failures.len() >= 5 {
            break;
        }
    }
    drop(case_sender);
    if failures.is_empty() {
        let _ = worker.join();
    }
    assert!(
        failures.is_empty(),
        "{} mutated inputs failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn rough_tokens_cover_the_text_exactly() {
    let text = "let αβ = f(x_1, 2);\n\t// é";
    let tokens = rough_tokens(text);
    assert_eq!(tokens.concat(), text);
    assert_eq!(&tokens[..6], ["let", " ", "αβ", " ", "=", " "]);
}
