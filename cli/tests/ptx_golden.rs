//! Golden PTX: every example that lowers, for every target, as `cukc build --emit ptx`
//! prints it (insta snapshots), each assembled by the real ptxas (installed into
//! `target/cukc-cache` when the machine has none) with no local memory, the GEMM's
//! instantiations included; and the
//! build errors: a construct lowering lacks, an atom newer than the target.

#[path = "support/build.rs"]
mod build;

use build::{TARGETS, assemble, cukc, emit, failing, root};

/// The examples.
const EXAMPLES: [&str; 15] = [
    "copy_basic",
    "copy_vectorized",
    "copy_cp_async",
    "copy_swizzled_smem",
    "copy_four_ways",
    "elementwise_add",
    "transpose_smem",
    "row_reduce",
    "softmax",
    "rmsnorm",
    "layernorm",
    "cross_entropy",
    "axpy",
    "gemm_sm80",
    "allreduce",
];

#[test]
fn every_example_has_golden_ptx_that_ptxas_assembles_without_local_memory() {
    for example in EXAMPLES {
        for target in TARGETS {
            let file = format!("cuk-examples/{example}.cuk");
            let ptx = emit(&file, target, "ptx");
            assert!(ptx.contains(&format!(".target {target}")));
            insta::assert_snapshot!(format!("{example}.{target}"), ptx);
            assemble(&ptx, target, &file, true);
        }
    }
}

/// The all-reduce's signals cross GPUs over NVLink: every ordered access (the acquire
/// loads that wait, the release adds that signal a peer) is at system scope, the only
/// scope that includes another GPU's threads (PTX ISA, "Memory Consistency Model",
/// scope), and nothing uses NVLink multicast, which is off on our machines.
#[test]
fn the_all_reduce_orders_every_signal_at_system_scope_and_uses_no_multicast() {
    for target in TARGETS {
        let ptx = emit("cuk-examples/allreduce.cuk", target, "ptx");
        let ordered: Vec<&str> = (ptx.lines())
            .filter(|line| {
                [".acquire.", ".release.", ".acq_rel."]
                    .iter()
                    .any(|order| line.contains(order))
            })
            .collect();
        // Per instantiation (f32, bf16): two waits for the done signals, two for the
        // data signals, two release adds.
        assert_eq!(ordered.len(), 2 * 6, "{target}:\n{}", ordered.join("\n"));
        for line in &ordered {
            assert!(line.contains(".sys.global."), "{target}: {line}");
        }
        assert!(!ptx.contains("multimem"), "{target}");
    }
}

#[test]
fn the_default_build_writes_a_cubin_and_its_ptx_beside_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("copy.cuk");
    std::fs::copy(root().join("cuk-examples/copy_vectorized.cuk"), &source).unwrap();
    let output = cukc(&["build", source.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let cubin = std::fs::read(dir.path().join("copy.cubin")).unwrap();
    assert_eq!(&cubin[..4], b"\x7fELF");
    let ptx = std::fs::read_to_string(dir.path().join("copy.ptx")).unwrap();
    assert!(ptx.contains(".target sm_90a"));
}

#[test]
fn line_info_maps_instructions_to_source_lines() {
    let output = cukc(&[
        "build",
        "cuk-examples/copy_vectorized.cuk",
        "--emit",
        "ptx",
        "--lineinfo",
        "-o",
        "-",
    ]);
    let ptx = String::from_utf8(output.stdout).unwrap();
    let absolute = std::fs::canonicalize(root().join("cuk-examples/copy_vectorized.cuk")).unwrap();
    assert!(absolute.is_absolute());
    assert!(
        ptx.contains(&format!(".file 1 \"{}\"", absolute.display())),
        "{ptx}"
    );
    // The two copies are on lines 72 and 74 of the example.
    assert!(ptx.contains(".loc 1 72 5"), "{ptx}");
    assert!(ptx.contains(".loc 1 74 5"), "{ptx}");
    let chosen = cukc(&[
        "build",
        "cuk-examples/copy_vectorized.cuk",
        "--emit",
        "ptx",
        "--lineinfo",
        "--lineinfo-source",
        "/src/copy.cuk",
        "-o",
        "-",
    ]);
    let ptx = String::from_utf8(chosen.stdout).unwrap();
    assert!(ptx.contains(".file 1 \"/src/copy.cuk\""), "{ptx}");
}

#[test]
fn what_lowering_cannot_build_is_an_error_at_its_line_from_check_and_build() {
    let file = "tests/lowering/tensor_return_not_lowered.cuk";
    let built = cukc(&["build", file, "--emit", "ptx", "-o", "-"]);
    let checked = cukc(&["check", file]);
    for output in [built, checked] {
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("[E0301]"), "{stderr}");
        assert!(
            stderr.contains("tensor_return_not_lowered.cuk:6:"),
            "{stderr}"
        );
        assert!(stderr.contains("`return`"), "{stderr}");
    }
}

#[test]
fn a_kernel_without_const_defaults_builds_only_what_launches_give_it() {
    let file = "tests/typecheck/w0201_kernel_never_instantiated.cuk";
    let checked = cukc(&["check", file]);
    let stderr = String::from_utf8_lossy(&checked.stderr);
    assert!(checked.status.success(), "{stderr}");
    assert!(
        stderr.contains("[W0201]") && stderr.contains("`never_built`"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("E0301") && !stderr.contains("built_by_its_test` is"),
        "{stderr}"
    );
    let built = cukc(&["build", file, "--emit", "ptx", "-o", "-"]);
    assert!(built.status.success());
    let ptx = String::from_utf8_lossy(&built.stdout);
    assert!(ptx.contains(".entry built_by_its_test__N_128("), "{ptx}");
    assert!(!ptx.contains("never_built"), "{ptx}");
    let tested = cukc(&["test", file]);
    assert!(
        tested.status.success(),
        "{}",
        String::from_utf8_lossy(&tested.stderr)
    );
}

#[test]
fn an_atom_newer_than_the_target_is_an_error_and_builds_for_newer_targets() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("stmatrix.cuk");
    std::fs::write(
        &source,
        "use sm90::stmatrix_x4;\n\
         kernel store(out: gmem bf16[(8, 8):(8, 1)]) launch grid(1) block(32) {\n\
         \x20   let stores = stmatrix_x4(T = bf16);\n\
         \x20   let s = smem bf16[(8, 8):(8, 1)];\n\
         \x20   copy(s, out);\n\
         }\n",
    )
    .unwrap();
    let path = source.to_str().unwrap();
    let old = cukc(&[
        "build", path, "--target", "sm_80", "--emit", "ptx", "-o", "-",
    ]);
    assert_eq!(old.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&old.stderr);
    assert!(stderr.contains("[E0212]"), "{stderr}");
    let new = cukc(&[
        "build", path, "--target", "sm_90a", "--emit", "ptx", "-o", "-",
    ]);
    assert!(
        new.status.success(),
        "{}",
        String::from_utf8_lossy(&new.stderr)
    );
}

#[test]
fn a_missing_ptxas_is_an_error_naming_it() {
    let stderr = failing(&[
        "build",
        "cuk-examples/copy_basic.cuk",
        "-o",
        "/dev/null",
        "--offline",
        "--ptxas",
        "/nonexistent/ptxas",
    ]);
    assert!(stderr.contains("[E0303]"), "{stderr}");
    assert!(stderr.contains("/nonexistent/ptxas"), "{stderr}");
}

#[test]
fn a_ptxas_rejection_points_at_the_line_whose_code_it_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("bad.cuk");
    std::fs::copy(
        root().join("tests/lowering/ptxas_rejects_an_atom.cuk"),
        &source,
    )
    .unwrap();
    let stderr = failing(&["build", source.to_str().unwrap()]);
    assert!(stderr.contains("[E0303]"), "{stderr}");
    assert!(stderr.contains("bad.cuk:17:5"), "the copy's line: {stderr}");
    assert!(stderr.contains("check its `ptx`"), "{stderr}");
}
