//! `cukc build --emit trace`: the residual program of each example and control-flow
//! test, snapshotted, so a change in what the checker leaves for the GPU shows as a
//! readable diff before it shows in KIR or PTX.

#[path = "support/build.rs"]
mod build;

use build::emit;

const FILES: [&str; 9] = [
    "cuk-examples/copy_vectorized.cuk",
    "cuk-examples/elementwise_add.cuk",
    "cuk-examples/row_reduce.cuk",
    "cuk-examples/softmax.cuk",
    "tests/control/loops.cuk",
    "tests/control/reductions.cuk",
    "tests/miscompiles/load_before_overwrite.cuk",
    "tests/miscompiles/if_const_assignment.cuk",
    "tests/hopper/wgmma_tile.cuk",
];

#[test]
fn traces_print_the_residual_program() {
    for file in FILES {
        let trace = emit(file, "sm_90a", "trace");
        assert!(trace.starts_with("trace "), "{file}: {trace}");
        let name = file
            .rsplit('/')
            .next()
            .unwrap_or(file)
            .trim_end_matches(".cuk");
        insta::assert_snapshot!(name, trace);
    }
}

#[test]
fn operand_free_instructions_are_intrinsics_in_the_trace() {
    // The checker hands lowering `kir::Intrinsic`s, printed as KIR names them.
    let trace = emit("tests/hopper/wgmma_tile.cuk", "sm_90a", "trace");
    for needle in ["wgmma_fence", "wgmma_commit", "wgmma_wait pending=0"] {
        assert!(trace.contains(needle), "no `{needle}` in\n{trace}");
    }
    assert!(!trace.contains("wgmma_commit_group("), "{trace}");
}

#[test]
fn a_loop_is_a_region_whose_carried_locals_are_cells() {
    let trace = emit("tests/control/loops.cuk", "sm_90a", "trace");
    let row_sum = trace
        .split("trace ")
        .find(|t| t.starts_with("row_sum"))
        .unwrap();
    // `acc` is written before the loop, read at the top of each iteration, written by
    // `+=`, and read after the loop.
    assert!(row_sum.contains("for `j` in 0.."), "{row_sum}");
    assert!(row_sum.contains("`acc` = cell#"), "{row_sum}");
    assert!(
        row_sum.contains("cell#") && row_sum.contains("= (`acc` + load#"),
        "{row_sum}"
    );
}
