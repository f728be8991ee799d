//! The five miscompiles of issue 15, each an input under `tests/miscompiles/` whose
//! `test` block checks values on a GPU (`cukc test`): here, their KIR says what the
//! source says (insta snapshots and the instructions that matter), and ptxas assembles
//! their PTX for every target.

#[path = "support/build.rs"]
mod build;

use build::{TARGETS, assemble_without_local_memory, emit, failing};

/// The KIR of `tests/miscompiles/{name}.cuk`, after its PTX assembled for every target.
fn kir(name: &str) -> String {
    let file = format!("tests/miscompiles/{name}.cuk");
    for target in TARGETS {
        let ptx = emit(&file, target, "ptx");
        assemble_without_local_memory(&ptx, target, &file);
    }
    let kir = emit(&file, "sm_90a", "kir");
    insta::assert_snapshot!(name, kir);
    kir
}

/// The instructions of `kir` from source line `line`, without their value names.
fn line(kir: &str, line: u32) -> Vec<String> {
    kir.lines()
        .filter(|text| text.ends_with(&format!("; line {line}")))
        .map(|text| {
            let op = text.split_once(" = ").map_or(text, |(_, op)| op);
            op.split(';').next().unwrap_or("").trim().to_owned()
        })
        .collect()
}

/// The value that the instruction starting with `op` at source line `line` defines.
fn defined(kir: &str, line: u32, op: &str) -> String {
    kir.lines()
        .filter(|text| text.ends_with(&format!("; line {line}")))
        .find_map(|text| {
            let (value, rest) = text.trim().split_once(" = ")?;
            rest.starts_with(op)
                .then(|| value.split(':').next().unwrap_or("").to_owned())
        })
        .unwrap_or_else(|| panic!("no `{op}` at line {line} in\n{kir}"))
}

#[test]
fn math_functions_compute_their_functions() {
    let kir = kir("math_functions");
    let ptx = emit("tests/miscompiles/math_functions.cuk", "sm_90a", "ptx");
    for instruction in [
        "max.f32",
        "min.f32",
        // abs clears the sign bit (backend-ptx: the GPU folds `abs.f32` into compares).
        "and.b32",
        "sqrt.rn.f32",
        "rsqrt.approx.f32",
        "ex2.approx.ftz.f32",
        "lg2.approx.f32",
    ] {
        assert!(ptx.contains(instruction), "{instruction} missing:\n{ptx}");
    }
    // max(v, 0.0) and exp as ex2 of x * log2(e), log as lg2 times ln(2).
    assert!(
        line(&kir, 16).iter().any(|op| op.starts_with("max %")),
        "{kir}"
    );
    let exp = line(&kir, 21);
    assert!(
        exp.iter().any(|op| op == "const 1.4426950408889634"),
        "{exp:?}"
    );
    assert!(exp.last().is_some_and(|op| op.starts_with("store.global")));
    assert!(exp.iter().any(|op| op.starts_with("exp2 %")), "{exp:?}");
    let log = line(&kir, 23);
    assert!(log.iter().any(|op| op.starts_with("log2 %")), "{log:?}");
    assert!(
        log.iter().any(|op| op == "const 0.6931471805599453"),
        "{log:?}"
    );
}

#[test]
fn a_math_function_lowering_cannot_compute_is_an_error_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("exp64.cuk");
    std::fs::write(
        &source,
        "kernel exp64(n: i32, x: gmem f64[n:1]) launch grid(n / 32) block(32) {\n\
         \x20   let i = block_idx.x * 32 + thread_idx.x;\n\
         \x20   x[i] = exp(x[i]);\n\
         }\n",
    )
    .unwrap();
    let stderr = failing(&[
        "build",
        source.to_str().unwrap(),
        "--emit",
        "ptx",
        "-o",
        "-",
    ]);
    assert!(stderr.contains("[E0301]"), "{stderr}");
    assert!(stderr.contains("`exp` of f64"), "{stderr}");
    assert!(stderr.contains("exp64.cuk:3:"), "{stderr}");
}

#[test]
fn a_load_reads_where_the_program_reads_it() {
    let kir = kir("load_before_overwrite");
    // `let v = s[t]` loads on its line, before the barrier and the store of 0.0; the
    // store to y writes that load.
    let loaded = defined(&kir, 16, "load.shared");
    let zero = defined(&kir, 18, "const 0.0");
    let position = |needle: &str| kir.find(needle).unwrap();
    assert!(position(&format!("{loaded}:f32 = load.shared")) < position(&format!(", {zero} ")));
    let stored = |line_number| line(&kir, line_number).last().cloned().unwrap_or_default();
    assert!(stored(20).ends_with(&format!(", {loaded}")), "{kir}");
    // The fragment's value before the fill goes to z, not the fill.
    let fragment = defined(&kir, 24, "load.global");
    assert!(stored(29).ends_with(&format!(", {fragment}")), "{kir}");
}

#[test]
fn a_predicated_copy_into_registers_keeps_the_masked_values() {
    let kir = kir("predicated_copy_keeps_registers");
    let copy = line(&kir, 17);
    let selects = copy.iter().filter(|op| op.starts_with("select %")).count();
    assert_eq!(selects, 4, "{copy:?}");
    // Each select keeps the filled 7.0 where the predicate is false.
    let seven = defined(&kir, 12, "const 7.0");
    let keeps = copy
        .iter()
        .filter(|op| op.starts_with("select %") && op.ends_with(&format!(", {seven}")))
        .count();
    assert_eq!(keeps, 4, "{copy:?}");
}

#[test]
fn two_loads_at_one_line_are_two_values() {
    let kir = kir("loads_in_static_loop");
    let loads = line(&kir, 13);
    let loads: Vec<_> = loads.iter().filter(|op| op.starts_with("load")).collect();
    assert_eq!(
        loads,
        ["load.global [%10+0]", "load.global [%10+4]"],
        "{kir}"
    );
    // r[0] - r[1], not the constant 0: r[1] negated and added.
    let difference = line(&kir, 15);
    assert!(
        difference.iter().any(|op| op.starts_with("neg %")),
        "{difference:?}"
    );
    assert!(
        difference.iter().any(|op| op.starts_with("add %")),
        "{difference:?}"
    );
}

#[test]
fn an_if_const_assignment_stays_const() {
    let kir = kir("if_const_assignment");
    // The default instantiation scales by 2.0 and the test's `FAST = 0` by 3.0.
    assert!(kir.contains("const 2.0"), "{kir}");
    assert!(kir.contains("const 3.0"), "{kir}");
}
