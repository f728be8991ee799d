//! Blackwell's tcgen05 machinery (`tests/blackwell/*.cuk`, sm_100a): the KIR of each
//! file (insta snapshots) with the instructions it must hold and its PTX assembled by
//! the real ptxas for sm_100a without local memory (their test blocks run on the CPU
//! emulator in `emulated.rs`); the SM100 GEMM example's golden PTX, assembled. No
//! Blackwell GPU runs them: ptxas and the emulator are the evidence.

#[path = "support/build.rs"]
mod build;

use build::{assemble_without_local_memory, build_errors, cukc, emit, kir_holding};

/// The files that build, with what their KIR must show.
const FILES: [(&str, &[&str]); 10] = [
    (
        "tmem_alloc",
        &[
            "tmem_alloc columns=128 cta_group=1 [",
            "tmem_alloc columns=256 cta_group=1 [",
            "tmem_relinquish_alloc_permit cta_group=1",
            "tcgen05_fence_before_thread_sync",
            "tcgen05_fence_after_thread_sync",
            "tcgen05_commit cta_group=1 [",
            "tcgen05_wait_ld",
            "tcgen05_wait_st",
            "tmem_dealloc columns=256 cta_group=1 %",
        ],
    ),
    (
        "umma_tile",
        &[
            "tcgen05_mma_f16 cta_group=1 %",
            // The instruction descriptor of bf16, f32, K-major, M = 128, N = 128.
            "const 136316048",
            "tmem_load lanes=32 bits=32 repetitions=32 %",
        ],
    ),
    (
        "umma_tf32",
        &[
            "tcgen05_mma_tf32 cta_group=1 %",
            // The instruction descriptor of tf32, f32, K-major, M = 128, N = 64.
            "const 135268624",
        ],
    ),
    (
        "umma_fp8",
        &[
            "tcgen05_mma_f8f6f4 cta_group=1 %",
            // The instruction descriptor of e4m3 A and B, f32, K-major, M = 128, N = 64.
            "const 135266320",
        ],
    ),
    (
        "umma_tmem_a",
        &[
            "tcgen05_mma_f16_tmem_a cta_group=1 %",
            // 64 bf16 a thread, packed in pairs.
            "tmem_store lanes=32 bits=32 repetitions=32 %",
        ],
    ),
    (
        "umma_pair_tmem_a",
        &["tcgen05_mma_f16_tmem_a cta_group=2 %"],
    ),
    (
        "pair_forms",
        &[
            "tcgen05_mma_tf32 cta_group=2 %",
            "tcgen05_mma_f8f6f4 cta_group=2 %",
            "tcgen05_commit cta_group=2 [",
        ],
    ),
    (
        "umma_pair",
        &[
            "tmem_alloc columns=128 cta_group=2 [",
            "tcgen05_mma_f16 cta_group=2 %",
            // The instruction descriptor of bf16, f32, K-major, M = 256, N = 128.
            "const 270533776",
            "tcgen05_commit_multicast cta_group=2 [",
            "tmem_dealloc columns=128 cta_group=2 %",
            "tmem_relinquish_alloc_permit cta_group=2",
        ],
    ),
    (
        "tmem_shapes",
        &[
            "tmem_load lanes=16 bits=64 repetitions=4 %",
            "tmem_load lanes=16 bits=128 repetitions=2 %",
            "tmem_load lanes=16 bits=256 repetitions=1 %",
            "tmem_store lanes=16 bits=64 repetitions=4 %",
            "tmem_store lanes=16 bits=128 repetitions=2 %",
            "tmem_store lanes=16 bits=256 repetitions=1 %",
        ],
    ),
    (
        "tmem_copy",
        &[
            "tmem_store lanes=32 bits=32 repetitions=8 %",
            "tmem_load lanes=32 bits=32 repetitions=4 %",
        ],
    ),
];

#[test]
fn blackwell_files_lower_to_ptx_that_ptxas_assembles() {
    for (name, expected) in FILES {
        let file = format!("tests/blackwell/{name}.cuk");
        let kir = kir_holding(&file, "sm_100a", expected);
        insta::assert_snapshot!(name, kir);
        let ptx = emit(&file, "sm_100a", "ptx");
        assemble_without_local_memory(&ptx, "sm_100a", &file);
    }
}

#[test]
fn the_sm100_gemm_assembles_without_local_memory() {
    let example = "cuk-examples/gemm_sm100.cuk";
    let ptx = emit(example, "sm_100a", "ptx");
    for needle in [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        "tcgen05.mma.cta_group::1.kind::f16",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",
        "tcgen05.ld.sync.aligned.32x32b.x32.b32",
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
        // The CTA-pair variant.
        ".reqnctapercluster 2, 1, 1",
        "cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes",
        "tcgen05.mma.cta_group::2.kind::f16",
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64",
    ] {
        assert!(ptx.contains(needle), "no `{needle}` in the example's PTX");
    }
    insta::assert_snapshot!("gemm_sm100.sm_100a", ptx);
    assemble_without_local_memory(&ptx, "sm_100a", example);
    let stderr = build_errors(example, "sm_90a");
    assert!(stderr.contains("[E0212]"), "{stderr}");
}

#[test]
fn an_sm90_build_names_each_tcgen05_instruction_at_its_line() {
    let stderr = build_errors("tests/blackwell/tmem_alloc.cuk", "sm_90a");
    for (line, name) in [
        (15, "tmem_alloc"),
        (17, "tmem_relinquish_alloc_permit"),
        (23, "tcgen05_fence_before_thread_sync"),
        (29, "tcgen05_commit"),
        (38, "tmem_dealloc"),
    ] {
        assert!(
            stderr.contains(&format!("tmem_alloc.cuk:{line}:")) && stderr.contains(name),
            "no E0212 for `{name}` at line {line}: {stderr}"
        );
    }
    assert!(stderr.contains("[E0212]"), "{stderr}");
}

#[test]
fn a_register_read_before_its_loads_wait_is_an_error_at_the_read() {
    let stderr = build_errors("tests/blackwell/tmem_read_before_wait.cuk", "sm_100a");
    assert_eq!(stderr.matches("[E0227]").count(), 1, "{stderr}");
    assert!(
        stderr.contains("tmem_read_before_wait.cuk:24:")
            && stderr.contains("loaded here")
            && stderr.contains(" 22 │"),
        "{stderr}"
    );
}

#[test]
fn tensor_memory_breaches_are_errors_at_their_lines() {
    let stderr = build_errors("tests/blackwell/tmem_breaches.cuk", "sm_100a");
    assert_eq!(stderr.matches("[E0227]").count(), 3, "{stderr}");
    for (line, message) in [
        (
            17,
            "warp 0 moves tensor-memory lanes 24 to 39, but warp w may reach only lanes 32 (w % 4) to 32 (w % 4) + 31: 0 to 31",
        ),
        (
            39,
            "the lanes of warp 0 give one tensor-memory move different addresses (0x0 and 0x10000)",
        ),
        (
            54,
            "kernel `never_freed` allocates 64 columns of tensor memory and never frees them",
        ),
    ] {
        assert!(
            stderr.contains(message) && stderr.contains(&format!("tmem_breaches.cuk:{line}:")),
            "no E0227 at line {line}: {stderr}"
        );
    }
}

#[test]
fn a_file_builds_for_the_target_its_first_line_declares() {
    // No --target: gemm_sm100.cuk's first line says sm_100a, which its tcgen05 needs.
    let output = cukc(&[
        "build",
        "cuk-examples/gemm_sm100.cuk",
        "--emit",
        "ptx",
        "-o",
        "-",
    ]);
    let ptx = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(ptx.contains(".target sm_100a"), "{ptx}");
}

#[test]
fn a_file_runs_for_the_target_its_first_line_declares() {
    // No --target: the emulator builds the sm_100a example for sm_100a, not the
    // default sm_90a, so `cukc test cuk-examples/` runs every example.
    let output = cukc(&["test", "--emulate", "cuk-examples/gemm_sm100.cuk"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("7 passed, 0 failed"), "{stdout}");
    // A --target still decides: tcgen05 does not exist on sm_90a.
    let output = cukc(&[
        "test",
        "--emulate",
        "--target",
        "sm_90a",
        "cuk-examples/gemm_sm100.cuk",
    ]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("[E0212]"));
}
