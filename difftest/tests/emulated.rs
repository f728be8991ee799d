//! The differential tester in CI: 2,400 generated programs run on the emulator agree
//! with the C reference bit for bit, with the features the compiler still gets wrong
//! left out (`difftest::features::KNOWN_FAILING`, each with why); the reference itself
//! is checked on values C fixes, and programs mixing dtypes are refused.

use difftest::dtype::Dtype;
use difftest::harness::{self, Backend, Runner};
use difftest::program::{Binary, Expr, ExprKind, Input, Program, ROWS, Source, Stmt, Value, Var};
use difftest::reference::{convert, evaluate};
use difftest::{Features, RunConfig};

#[test]
fn generated_programs_agree_with_the_c_reference_on_the_emulator() {
    let config = RunConfig {
        seed: 20_261_128,
        first: 0,
        count: 2_400,
        features: Features::working(),
        batch: 60,
        minimise_per_class: 1,
    };
    let mut runner = Runner::new(Backend::Emulator);
    let summary = difftest::run(&mut runner, &config, |_| {});
    let report: Vec<String> = (summary.failures.iter().take(5))
        .map(|failure| difftest::describe(config.seed, failure))
        .collect();
    assert_eq!(summary.programs, config.count);
    assert_eq!(
        summary.agreements,
        summary.programs,
        "{:?}\n{}",
        summary.classes,
        report.join("\n")
    );
}

#[test]
fn the_reference_converts_as_c_and_ptx_do() {
    // int -> int wraps; float -> int truncates toward zero and saturates, NaN -> 0.
    assert_eq!(
        convert(Value::Int(-10), Dtype::U32),
        Value::Int(4_294_967_286)
    );
    assert_eq!(
        convert(Value::Int(-2_147_483_647), Dtype::I8),
        Value::Int(1)
    );
    assert_eq!(convert(Value::Float(-2.9), Dtype::I32), Value::Int(-2));
    assert_eq!(
        convert(Value::Float(1e10), Dtype::I32),
        Value::Int(2_147_483_647)
    );
    assert_eq!(convert(Value::Float(-1.0), Dtype::U32), Value::Int(0));
    assert_eq!(convert(Value::Float(f64::NAN), Dtype::I64), Value::Int(0));
    // int -> float rounds once, to nearest even.
    assert_eq!(
        convert(Value::Int(16_777_217), Dtype::F32),
        Value::Float(16_777_216.0)
    );
    assert_eq!(convert(Value::Int(2049), Dtype::F16), Value::Float(2048.0));
    assert_eq!(
        convert(Value::Int(70_000), Dtype::F16),
        Value::Float(f64::INFINITY)
    );
    // A u32 above 2^31 is positive.
    assert_eq!(
        convert(Value::Int(3_548_625_185), Dtype::U64),
        Value::Int(3_548_625_185)
    );
}

/// A store to an 8- or 16-bit output keeps the low bits of the promoted value, as C's
/// assignment converts it: the reference once kept `a + 100` of a u8 `a` = 200 as 300
/// (the first runs with i8/u8/i16/u16 tensors disagreed on every such store).
#[test]
fn the_reference_stores_the_low_bits_of_a_narrow_value() {
    let var = |name: &str, dtype| Var {
        name: name.to_owned(),
        dtype,
    };
    let a = |dtype| Expr {
        dtype,
        kind: ExprKind::Var(2),
    };
    let literal = |value, dtype| Expr {
        dtype,
        kind: ExprKind::Literal(Value::Int(value)),
    };
    let sum = |dtype, value| Expr {
        dtype,
        kind: ExprKind::Binary(
            Binary::Add,
            Box::new(a(dtype)),
            Box::new(literal(value, dtype)),
        ),
    };
    for (dtype, input, added, stored) in [
        (Dtype::U8, 200, 100, 44),
        (Dtype::I8, -128, -1, 127),
        (Dtype::I16, 30_000, 30_000, -5536),
        (Dtype::U16, 40_000, 40_000, 14_464),
    ] {
        let program = Program {
            name: "narrow".to_owned(),
            vars: vec![var("t", Dtype::I32), var("n", Dtype::I32), var("a", dtype)],
            inputs: vec![Input {
                var: 2,
                source: Source::Tensor,
                values: vec![Value::Int(input); ROWS],
            }],
            body: vec![Stmt::Store {
                output: 0,
                value: sum(dtype, added),
            }],
            outputs: vec![dtype],
            atomics: Vec::new(),
        };
        let rows = evaluate(&program).expect("a defined program");
        assert_eq!(rows[0].stored[0], Some(Value::Int(stored)), "{dtype:?}");
    }
}

#[test]
fn operands_of_two_dtypes_are_refused_where_c_would_convert_silently() {
    // docs/language.md: arithmetic and comparisons mixing dtypes need `.to(...)`
    // (E0214); a bool is not a number (E0216). The generator never writes these.
    let kernel = |a: &str, b: &str, expr: &str| {
        format!(
            "kernel k(n: i32, a: {a}, b: {b}, o: gmem i32[n:1]) launch grid(1) block(32) {{\n\
             let t = thread_idx.x;\n let x = {expr};\n o[t] = t;\n}}\n"
        )
    };
    for (a, b) in [
        ("i32", "u32"),
        ("u64", "i64"),
        ("i32", "i64"),
        ("f32", "f64"),
        ("f16", "bf16"),
        ("i32", "f32"),
    ] {
        for op in ["+", "*", "/", "<", "=="] {
            let source = kernel(a, b, &format!("a {op} b"));
            let code = harness::refusal(&source);
            // An int compared with a float is E0216 today ("does not apply"), where
            // arithmetic of the two is E0214: either refuses it at the line.
            let int_float_comparison = b == "f32" && matches!(op, "<" | "==");
            let codes: &[&str] = if int_float_comparison {
                &["E0214", "E0216"]
            } else {
                &["E0214"]
            };
            assert!(
                code.as_deref().is_some_and(|code| codes.contains(&code)),
                "{a} {op} {b}: {code:?}"
            );
        }
    }
    let source = kernel("bool", "i32", "a + b");
    assert_eq!(harness::refusal(&source).as_deref(), Some("E0216"));
    let source = kernel("i32", "u32", "a + a.to(i32)");
    assert_eq!(harness::refusal(&source), None);
}
