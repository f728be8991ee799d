//! The pieces shared by the seeded mutation tests of the parser
//! (`grammar/tests/mutation.rs`) and the typechecker (`typecheck/tests/mutation.rs`):
//! a deterministic generator, the seed files, and text split into rough tokens.

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
