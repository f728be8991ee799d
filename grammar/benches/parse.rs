//! Parsing and diagnosing a 5,000-line file: the budget is 20 ms.
//!
//! The input repeats the example kernels (`cuk-examples/*.cuk`, falling back
//! to `tests/parse/*.cuk`) until it has 5,000 lines, and inserts a broken item
//! (`const BROKEN_n: int = 1 +;`) after every 250 lines, so that every run
//! also recovers from errors and renders some twenty ariadne reports. Parsing
//! and rendering are also measured apart.
//!
//! Run with `cargo bench -p grammar --bench parse`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use lang::SourceFile;
use lang::render::{Style, human};

const TARGET_LINES: usize = 5_000;
const LINES_BETWEEN_MISTAKES: usize = 250;

/// The example kernels, in a fixed order.
fn example_texts() -> Vec<String> {
    // Cargo sets the variable when it runs the bench; reading it at run time
    // lets a copied bench binary run from another checkout.
    let manifest_directory = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    let root = manifest_directory.join("..");
    for directory in ["cuk-examples", "tests/parse"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(directory))
            .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
            .unwrap_or_default();
        paths.retain(|path| path.extension().is_some_and(|extension| extension == "cuk"));
        paths.sort();
        let texts: Vec<String> = paths
            .iter()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .collect();
        if !texts.is_empty() {
            return texts;
        }
    }
    Vec::new()
}

/// A file of at least [`TARGET_LINES`] lines built from `examples`.
fn large_file(examples: &[String]) -> String {
    let mut text = String::new();
    let mut lines = 0;
    let mut next_mistake = LINES_BETWEEN_MISTAKES;
    let mut mistakes = 0;
    while lines < TARGET_LINES && !examples.is_empty() {
        for example in examples {
            for line in example.lines() {
                text.push_str(line);
                text.push('\n');
                lines += 1;
            }
            if lines >= next_mistake {
                text.push_str(&format!("const BROKEN_{mistakes}: int = 1 +;\n"));
                mistakes += 1;
                lines += 1;
                next_mistake += LINES_BETWEEN_MISTAKES;
            }
        }
    }
    text
}

fn parse_and_render(criterion: &mut Criterion) {
    let text = large_file(&example_texts());
    let (_, diagnostics) = grammar::parse(&text);
    eprintln!(
        "input: {} lines, {} bytes, {} diagnostics",
        text.lines().count(),
        text.len(),
        diagnostics.len()
    );
    criterion.bench_function("parse a 5,000-line file", |bencher| {
        bencher.iter(|| grammar::parse(black_box(&text)))
    });
    let file = SourceFile::new("large.cuk", text.as_str());
    criterion.bench_function("render its diagnostics", |bencher| {
        bencher.iter(|| human(black_box(&diagnostics), &file, Style::Plain))
    });
    criterion.bench_function("parse and render a 5,000-line file", |bencher| {
        bencher.iter(|| {
            let (module, diagnostics) = grammar::parse(black_box(&text));
            let file = SourceFile::new("large.cuk", text.as_str());
            let rendered = human(&diagnostics, &file, Style::Plain);
            black_box((module, rendered))
        })
    });
}

criterion_group!(benches, parse_and_render);
criterion_main!(benches);
