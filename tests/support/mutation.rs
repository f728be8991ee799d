//! The pieces shared by the seeded mutation tests of the parser
//! (`grammar/tests/mutation.rs`), the typechecker (`typecheck/tests/mutation.rs`) and
//! lowering (`lower/tests/mutation.rs`): a deterministic generator, the seed files,
//! text split into rough tokens, and mutants aimed past the parser.

// Each test binary that includes this module uses part of it.
#![allow(dead_code)]

use std::path::Path;

/// A xorshift64* generator: tiny, deterministic, good enough to pick mutations.
pub struct Generator(pub u64);

impl Generator {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..bound`; `bound` must not be 0.
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    /// One of `items`, which must not be empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The `.cuk` files of `directories` (relative to the repository root), as (path,
/// text), sorted by path.
pub fn seed_texts(directories: &[&str]) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seeds = Vec::new();
    for directory in directories {
        let Ok(entries) = std::fs::read_dir(root.join(directory)) else {
            continue;
        };
        for path in entries.flatten().map(|entry| entry.path()) {
            let is_cuk = path.extension().is_some_and(|extension| extension == "cuk");
            if let (true, Ok(text)) = (is_cuk, std::fs::read_to_string(&path)) {
                seeds.push((path.display().to_string(), text));
            }
        }
    }
    seeds.sort();
    seeds
}

/// Splits `text` into rough tokens: identifier-like words, whitespace runs, and
/// single other characters. Concatenating them gives `text` back.
pub fn rough_tokens(text: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let mut start = 0;
    let class = |character: char| {
        if character.is_alphanumeric() || character == '_' {
            1
        } else if character.is_whitespace() {
            2
        } else {
            0
        }
    };
    let mut previous: Option<u8> = None;
    for (offset, character) in text.char_indices() {
        let current = class(character);
        if offset > start && (current == 0 || previous != Some(current)) {
            tokens.push(&text[start..offset]);
            start = offset;
        }
        previous = Some(current);
    }
    if start < text.len() {
        tokens.push(&text[start..]);
    }
    tokens
}

/// The numbers a mutation puts in place of another.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "3",
    "7",
    "1000000",
    "-1",
    "4611686018427387904",
    "2.5",
];

/// One to three mutations aimed at the checker and lowering rather than the parser:
/// a number replaced by another, a name by another name of the file, a token
/// deleted, duplicated or swapped with its neighbour.
pub fn semantic_mutant(text: &str, generator: &mut Generator) -> String {
    let mut tokens: Vec<String> = rough_tokens(text).into_iter().map(str::to_owned).collect();
    let names: Vec<String> = tokens
        .iter()
        .filter(|token| {
            token
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .cloned()
        .collect();
    for _ in 0..=generator.below(3) {
        if tokens.len() < 2 {
            break;
        }
        let index = generator.below(tokens.len());
        let is_number = tokens[index]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit());
        let is_name = tokens[index]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_');
        match generator.below(5) {
            0 | 1 if is_number => tokens[index] = (*generator.pick(NUMBERS)).to_owned(),
            0 | 1 if is_name && !names.is_empty() => tokens[index] = generator.pick(&names).clone(),
            2 => {
                tokens.remove(index);
            }
            3 => {
                let token = tokens[index].clone();
                tokens.insert(index, token);
            }
            _ if index + 1 < tokens.len() => tokens.swap(index, index + 1),
            _ => {}
        }
    }
    tokens.concat()
}

/// `cases` mutants of `seeds` ([`semantic_mutant`], from a generator started at
/// `seed`), each with the target it is checked for (`targets` in turn) and its case's
/// name, as a failure prints it: `(case, input, target)`.
pub fn semantic_cases<'s, T: Copy + std::fmt::Display>(
    seeds: &'s [(String, String)],
    seed: u64,
    cases: usize,
    targets: &'s [T],
) -> impl Iterator<Item = (String, String, T)> + 's {
    let mut generator = Generator(seed);
    (0..cases).map(move |case| {
        let (seed_name, seed) = generator.pick(seeds);
        let input = semantic_mutant(seed, &mut generator);
        let target = targets[case % targets.len()];
        (
            format!("case {case} (from {seed_name}, {target})"),
            input,
            target,
        )
    })
}

/// Runs `work` on a thread of its own and returns what it gives, panicking with
/// `case` and `input` when it panics or takes longer than `limit`.
pub fn run_case<T: Send + 'static>(
    case: &str,
    input: &str,
    limit: std::time::Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        let _ = sender.send(outcome);
    });
    match receiver.recv_timeout(limit) {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(_)) => panic!("{case} panicked on:\n{input}"),
        Err(_) => panic!("{case} took over {limit:?} on:\n{input}"),
    }
}

/// Asserts that every label of every diagnostic points inside `input`.
pub fn assert_inside_file(case: &str, input: &str, diagnostics: &[lang::Diagnostic]) {
    for diagnostic in diagnostics {
        for label in diagnostic.labels() {
            assert!(
                label.span.range().end <= input.len()
                    && input.is_char_boundary(label.span.range().start),
                "{case}: {} points outside the file:\n{input}",
                diagnostic.message
            );
        }
    }
}
