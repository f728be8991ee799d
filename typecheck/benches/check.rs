//! Typechecking speed: each example kernel, parsed once, typechecked for sm_80.
//! The target is under 10 ms per example. Run with `cargo bench -p typecheck`.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};

fn examples(criterion: &mut Criterion) {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cuk-examples");
    let mut paths: Vec<_> = std::fs::read_dir(&directory)
        .expect("cuk-examples/ exists")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "cuk"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("readable example");
        let (module, _) = grammar::parse(&text);
        let name = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or("example");
        criterion.bench_function(&format!("typecheck {name}"), |bench| {
            bench.iter(|| typecheck::check(black_box(&module), cute::Target::Sm80));
        });
    }
}

criterion_group!(benches, examples);
criterion_main!(benches);
