//! A `tune` block's space from source text: the points its conditions keep, in order,
//! and a point made into a module whose kernel defaults to the point's values and
//! which keeps only the benches that time it.

use lang::ast::{ExprKind, ItemKind, Module};
use tune::{ConstValue, check, specialise};

const SOURCE: &str = r#"
kernel scale<const BLOCK: int = 128, const UNROLL: int = 1, const T: dtype = f32>(n: i32, x: gmem T[(n):(1)]) launch grid(n / BLOCK) block(BLOCK) {
}

test scale_works {
    let x = randn(f32, (256,));
    scale(256, x);
}

bench scale_4096 {
    let x = randn(f32, (4096,));
    scale(4096, x);
    report bytes = 8 * 4096;
}

bench scale_65536 {
    let x = randn(f32, (65536,));
    scale(65536, x);
    report bytes = 8 * 65536;
}

tune scale_space: scale for scale_4096 {
    BLOCK in [64, 128, 256];
    UNROLL in [1, 2, 4];
    T in [f32, f16];
    where BLOCK * UNROLL <= 256 && (T == f32 || UNROLL > 1);
}
"#;

fn parsed() -> Module {
    let (module, diagnostics) = grammar::parse(SOURCE);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    module
}

fn block(module: &Module) -> &lang::ast::TuneBlock {
    module
        .items
        .iter()
        .find_map(|item| match &item.kind {
            ItemKind::Tune(block) => Some(block),
            _ => None,
        })
        .expect("a tune block")
}

#[test]
fn the_conditions_keep_points_in_order_the_last_parameter_fastest() {
    let module = parsed();
    let checked = check(&module, block(&module));
    assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
    let space = checked.space.expect("a space");
    assert_eq!(space.total, 18);
    let points: Vec<String> = space.points.iter().map(ToString::to_string).collect();
    assert_eq!(
        points,
        [
            "BLOCK=64 UNROLL=1 T=f32",
            "BLOCK=64 UNROLL=2 T=f32",
            "BLOCK=64 UNROLL=2 T=f16",
            "BLOCK=64 UNROLL=4 T=f32",
            "BLOCK=64 UNROLL=4 T=f16",
            "BLOCK=128 UNROLL=1 T=f32",
            "BLOCK=128 UNROLL=2 T=f32",
            "BLOCK=128 UNROLL=2 T=f16",
            "BLOCK=256 UNROLL=1 T=f32",
        ]
    );
}

#[test]
fn a_point_becomes_the_kernel_s_defaults_and_only_its_benches_stay() {
    let module = parsed();
    let space = check(&module, block(&module)).space.expect("a space");
    let point = &space.points[2];
    let timed = specialise(&module, "scale", point, Some(&["scale_4096"]));
    let names: Vec<&str> = timed
        .items
        .iter()
        .map(|item| match &item.kind {
            ItemKind::Kernel(kernel) => kernel.name.text.as_str(),
            ItemKind::Bench(bench) => bench.name.text.as_str(),
            _ => "other",
        })
        .collect();
    assert_eq!(names, ["scale", "scale_4096"]);
    let ItemKind::Kernel(kernel) = &timed.items[0].kind else {
        panic!("the kernel comes first");
    };
    let defaults: Vec<String> = kernel
        .generics
        .iter()
        .map(
            |generic| match &generic.default.as_ref().expect("a default").kind {
                ExprKind::Int(value) => value.to_string(),
                ExprKind::Path(path) => path.segments[0].text.clone(),
                other => format!("{other:?}"),
            },
        )
        .collect();
    assert_eq!(defaults, ["64", "2", "f16"]);
    let everything = specialise(&module, "scale", point, None);
    assert_eq!(everything.items.len(), module.items.len());
    assert_eq!(point.value("T"), Some(&ConstValue::Dtype("f16".to_owned())));
}

#[test]
fn values_read_back_from_their_text() {
    for value in [
        ConstValue::Int(-3),
        ConstValue::Int(128),
        ConstValue::Bool(false),
        ConstValue::Dtype("bf16".to_owned()),
    ] {
        assert_eq!(ConstValue::parse(&value.to_string()), Some(value));
    }
    assert_eq!(ConstValue::parse("not_a_dtype"), None);
}
