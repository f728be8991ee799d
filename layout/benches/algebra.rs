//! Timing of composition and logical_divide on rank-4, depth-3 layouts.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use layout::{Layout, SymInt, Tiler, composition, logical_divide};

fn algebra(criterion: &mut Criterion) {
    let a = Layout::<i64>::row_major("((2,(2,2)),(4,(2,2)),8,(2,4))".parse().unwrap()).unwrap();
    let b: Layout = "((2,2),(4,(2,2)),(2,2),4):((1,64),(2,(8,16)),(256,512),1024)"
        .parse()
        .unwrap();
    let tiler: Tiler = "((2,2):(1,4),(4,2):(1,8),4:2,(2,2):(1,2))".parse().unwrap();
    let global: Layout<SymInt> = "(m,k,l,4):(k,1,m*k,8)".parse().unwrap();
    let static_tiler: Tiler<SymInt> = "(8,128,_,2)".parse().unwrap();

    // Time the successful paths, not early errors.
    println!(
        "a ∘ b = {}",
        composition(&a, &b).expect("valid composition")
    );
    println!(
        "a ⊘ tiler = {}",
        logical_divide(&a, &tiler).expect("valid divide")
    );
    println!(
        "global ⊘ tiler = {}",
        logical_divide(&global, &static_tiler).expect("valid divide")
    );

    criterion.bench_function("composition rank-4 depth-3", |bench| {
        bench.iter(|| composition(black_box(&a), black_box(&b)))
    });
    criterion.bench_function("logical_divide rank-4 depth-3 by-mode tiler", |bench| {
        bench.iter(|| logical_divide(black_box(&a), black_box(&tiler)))
    });
    criterion.bench_function("logical_divide symbolic by static tiler", |bench| {
        bench.iter(|| logical_divide(black_box(&global), black_box(&static_tiler)))
    });
}

criterion_group!(benches, algebra);
criterion_main!(benches);
