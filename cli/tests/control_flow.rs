//! Run-time loops and branches: the KIR of `tests/control/*.cuk` (insta snapshots),
//! their PTX for every target assembled by the real ptxas without local memory, and
//! the warp-collective check (`E0302`).

#[path = "support/build.rs"]
mod build;

use build::{TARGETS, assemble_without_local_memory, emit, failing, kir_holding};

/// The files that build, with what their KIR must show.
const FILES: [(&str, &[&str]); 8] = [
    (
        "loops",
        &["for %", "loop carry(", " while %", "if %", "rem %"],
    ),
    (
        "reductions",
        &["shuffle.xor", "uniform {", "atomic.add.global"],
    ),
    ("integers", &["min %", "and %", "xor %", "loop carry("]),
    // `threadfence()` and `threadfence_system()` are the rows `fence_device` and
    // `fence_system`.
    (
        "threadfence",
        &["fence_device", "fence_system", "atomic.add.global"],
    ),
    ("dtype_params", &["kernel fill__T_bf16", "const T = f16"]),
    // i32 operands that provably fit divide in 32 bits, others in 64.
    (
        "division",
        &[
            ":i32 = div %",
            ":i32 = rem %",
            ":i64 = div %",
            ":i64 = rem %",
        ],
    ),
    // 8- and 16-bit elements move through narrow accesses.
    (
        "small_int_memory",
        &[
            "load.global.s8 [",
            "load.global.u8 [",
            "load.global.s16 [",
            "load.global.u16 [",
            "store.global.u8 [",
            "load.shared.s8 [",
            "store.shared.u16 [",
        ],
    ),
    // Values converted to FP8 two to an instruction, stored as bytes and as words.
    (
        "fp8_convert",
        &[
            "f32x2_to_e4m3x2 %",
            "f32x2_to_e5m2x2 %",
            "store.global.u8 [",
            "e4m3x2_to_f16x2 %",
        ],
    ),
];

#[test]
fn loops_and_branches_lower_to_regions_that_ptxas_assembles() {
    for (name, expected) in FILES {
        let file = format!("tests/control/{name}.cuk");
        let kir = kir_holding(&file, "sm_90a", expected);
        insta::assert_snapshot!(name, kir);
        for target in TARGETS {
            let ptx = emit(&file, target, "ptx");
            assemble_without_local_memory(&ptx, target, &file);
        }
    }
}

#[test]
fn a_shuffle_under_a_divergent_branch_is_an_error_at_the_shuffle() {
    let stderr = failing(&[
        "build",
        "tests/control/divergent_shuffle.cuk",
        "--emit",
        "kir",
        "-o",
        "-",
    ]);
    assert!(stderr.contains("[E0302]"), "{stderr}");
    assert!(stderr.contains("divergent_shuffle.cuk:9:"), "{stderr}");
    assert!(
        !stderr.contains("divergent_shuffle.cuk:18:"),
        "the uniform branch builds: {stderr}"
    );
    assert!(
        stderr.contains("divergent_shuffle.cuk:28:"),
        "t / 2 splits a warp: {stderr}"
    );
    assert!(
        !stderr.contains("divergent_shuffle.cuk:31:"),
        "t / 64 is whole warps: {stderr}"
    );
}

#[test]
fn a_64_bit_division_tries_32_bits_first_and_a_provably_narrow_one_is_32_bits() {
    let ptx = emit("tests/control/division.cuk", "sm_90a", "ptx");
    for needle in [
        "div.s32", "rem.s32", "div.u32", "rem.u32", "div.s64", "rem.s64",
    ] {
        assert!(ptx.contains(needle), "no `{needle}` in\n{ptx}");
    }
    let kir = emit("tests/control/division.cuk", "sm_90a", "kir");
    let counter = kir
        .split("kernel divide_counter")
        .nth(1)
        .expect("the counter kernel");
    let counter = counter.split("kernel ").next().unwrap_or(counter);
    assert!(
        counter.contains(":i32 = div %") && !counter.contains(":i64 = div %"),
        "{counter}"
    );
    let guard = ptx.find("shr.u64").expect("the operands' test");
    let wide = ptx.find("div.s64").expect("the 64-bit division");
    assert!(guard < wide, "the test comes first:\n{ptx}");
}

/// Narrow elements load into 32-bit registers with the extension their signedness
/// gives and store their low bits, one at a time or four to an instruction where a
/// copy moves them into or out of registers (ptxas accepts each: the test above).
#[test]
fn narrow_elements_load_extended_and_store_truncated() {
    let ptx = emit("tests/control/small_int_memory.cuk", "sm_90a", "ptx");
    for needle in [
        "ld.global.s8 %r",
        "ld.global.u8 %r",
        "ld.global.s16 %r",
        "ld.global.u16 %r",
        "st.global.u8 [",
        "st.global.u16 [",
        "ld.shared.s8 %r",
        "st.shared.u16 [",
        "ld.global.v4.s16 {%r",
        "st.global.v4.s16 [",
        "ld.global.v4.u8 {%r",
        "st.global.v4.u8 [",
        // Four i8 between global and shared memory move as one 32-bit word.
        "ld.global.b32 %r",
        "st.shared.b32 [",
    ] {
        assert!(ptx.contains(needle), "no `{needle}` in\n{ptx}");
    }
}
