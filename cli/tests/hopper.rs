//! Hopper's asynchronous machinery and clusters (`tests/hopper/*.cuk`): the KIR of each file
//! (insta snapshots) with the instructions it must hold, its PTX assembled by the real
//! ptxas for sm_90a and sm_100a without local memory, and the diagnostics of an sm_80
//! build; the SM90 GEMMs' PTX (`cuk-examples/gemm_sm90.cuk` golden, without local
//! memory; the warp-specialized test, which still spills 8 bytes at ptxas's
//! 168-register cap for 384 threads, assembled), and the FP8 grouped example's, without
//! local memory.

#[path = "support/build.rs"]
mod build;

use build::{assemble, assemble_without_local_memory, build_errors, cukc, emit, kir_holding};

/// The files that build, with what their KIR must show.
const FILES: [(&str, &[&str]); 11] = [
    (
        "mbarrier_phases",
        &[
            "mbarrier_init [",
            "fence_barrier_init",
            "mbarrier_arrive [",
            "mbarrier_wait [",
        ],
    ),
    (
        "tma_tile_copy",
        &[
            "tensor_map %2 modes(1, 0) box(64, 64) swizzle(128)",
            "prefetch_tensor_map %",
            "mbarrier_arrive_expect_tx [",
            "tma_load rank=2 [",
            "const 8192",
        ],
    ),
    (
        "cluster_multicast",
        &[
            "launch grid(ceil_div(%0, 64), (2 * ceil_div(%1, 128)), 1) block(128, 1, 1) cluster(1, 2, 1)",
            "block_rank_in_cluster",
            "cluster_arrive",
            "cluster_wait",
            "tma_load_multicast rank=2 [",
        ],
    ),
    (
        "wgmma_tile",
        &[
            "wgmma_fence",
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{d}}",
            "1, 1, 1, 0, 0;",
            "wgmma_commit",
            "wgmma_wait pending=0",
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
        ],
    ),
    (
        "wgmma_mn_major",
        &[
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
            "1, 1, 1, 1;",
        ],
    ),
    (
        "wgmma_rs",
        &["wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{d}}, {{a}}, {desc_b}"],
    ),
    (
        "wgmma_chain",
        &[
            "{{d}}, {desc_a}, {desc_b}",
            "{{d}}, {{a}}, {desc_b}, {scale_d}, 1, 1, 1;",
        ],
    ),
    (
        "attention_tile",
        &["{{d}}, {{a}}, {desc_b}", "shuffle.xor", "exp2"],
    ),
    ("elect_one", &[":pred = elect_one"]),
    (
        "cluster_view_exchange",
        &[
            "cluster(4, 1, 1)",
            "cluster_store %",
            "= cluster_load %",
            "cluster_wait",
        ],
    ),
    (
        "wgmma_fp8",
        &[
            "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{d}}, {desc_a}, {desc_b}, {scale_d}, 1, 1;",
            "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{d}}, {desc_a}, {desc_b}, 1, 1, 1;",
            "wgmma_commit",
        ],
    ),
];

/// The wgmma kernels, for sm_90a only (wgmma does not exist on sm_100a).
const SM90_ONLY: [&str; 6] = [
    "wgmma_fp8",
    "wgmma_tile",
    "wgmma_mn_major",
    "wgmma_rs",
    "wgmma_chain",
    "attention_tile",
];

/// The PTX of the first entry named `name` (the default instantiation), up to the next.
fn entry<'p>(ptx: &'p str, name: &str) -> &'p str {
    let after = ptx.split(&format!(".entry {name}(")).nth(1).unwrap();
    after.split(".entry").next().unwrap()
}

/// How many bf16 wgmmas of `shape` with `lists` register lists (one: the
/// accumulators; two: A's registers too) `kernel` holds.
fn wgmmas(kernel: &str, shape: &str, lists: usize) -> usize {
    let instruction = format!("wgmma.mma_async.sync.aligned.{shape}.f32.bf16.bf16");
    (kernel.lines())
        .filter(|line| line.contains(&instruction) && line.matches('{').count() == lists)
        .count()
}

#[test]
fn hopper_files_lower_to_ptx_that_ptxas_assembles() {
    for (name, expected) in FILES {
        let file = format!("tests/hopper/{name}.cuk");
        let kir = kir_holding(&file, "sm_90a", expected);
        insta::assert_snapshot!(name, kir);
        for target in ["sm_90a", "sm_100a"] {
            if target == "sm_100a" && SM90_ONLY.contains(&name) {
                continue;
            }
            let ptx = emit(&file, target, "ptx");
            assemble_without_local_memory(&ptx, target, &file);
        }
    }
}

#[test]
fn an_sm80_build_names_each_hopper_instruction_at_its_line() {
    let stderr = build_errors("tests/hopper/mbarrier_phases.cuk", "sm_80");
    for (line, name) in [
        (12, "mbarrier_init"),
        (13, "fence_barrier_init"),
        (18, "mbarrier_arrive"),
    ] {
        assert!(
            stderr.contains(&format!("mbarrier_phases.cuk:{line}:")) && stderr.contains(name),
            "no E0212 for `{name}` at line {line}: {stderr}"
        );
    }
    assert!(stderr.contains("[E0212]"), "{stderr}");
}

#[test]
fn elect_one_in_an_sm80_build_is_an_error_at_the_call() {
    let stderr = build_errors("tests/hopper/elect_one.cuk", "sm_80");
    assert!(
        stderr.contains("[E0212]")
            && stderr.contains("elect_one.cuk:25:")
            && stderr.contains("elect_one"),
        "{stderr}"
    );
}

#[test]
fn wgmma_in_an_sm100_build_is_an_error_at_the_atom() {
    let stderr = build_errors("tests/hopper/wgmma_tile.cuk", "sm_100a");
    assert!(
        stderr.contains("wgmma_tile.cuk:23:") && stderr.contains("exists on sm_90a only"),
        "{stderr}"
    );
}

#[test]
fn a_wgmma_under_a_branch_that_splits_a_warpgroup_is_an_error_at_the_gemm() {
    let stderr = build_errors("tests/hopper/wgmma_split_warpgroup.cuk", "sm_90a");
    assert_eq!(stderr.matches("[E0302]").count(), 1, "{stderr}");
    assert!(
        stderr.contains("wgmma_split_warpgroup.cuk:19:") && stderr.contains("warpgroup"),
        "{stderr}"
    );
}

#[test]
fn the_sm90_gemms_assemble_and_the_example_uses_no_local_memory() {
    let example = "cuk-examples/gemm_sm90.cuk";
    let ptx = emit(example, "sm_90a", "ptx");
    for needle in [
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        ".param .align 64 .b8 gemm_tn_param_7[128]",
        "wgmma.wait_group.sync.aligned 1;",
        "setmaxnreg.inc.sync.aligned.u32 232;",
        "setmaxnreg.dec.sync.aligned.u32 40;",
        ".explicitcluster",
    ] {
        assert!(ptx.contains(needle), "no `{needle}` in the example's PTX");
    }
    insta::assert_snapshot!("gemm_sm90.sm_90a", ptx);
    assemble_without_local_memory(&ptx, "sm_90a", example);
    let specialized = "tests/hopper/gemm_sm90_ws.cuk";
    let ptx = emit(specialized, "sm_90a", "ptx");
    assert!(
        ptx.contains(".minnctapersm 1") && ptx.contains("setmaxnreg.inc.sync.aligned.u32 232;")
    );
    assemble(&ptx, "sm_90a", specialized, false);
    let stderr = build_errors(example, "sm_80");
    assert!(stderr.contains("[E0212]"), "{stderr}");
}

#[test]
fn the_attention_example_assembles_with_both_wgmma_forms() {
    let example = "cuk-examples/attention_fwd_sm90.cuk";
    let ptx = emit(example, "sm_90a", "ptx");
    for needle in [
        "setmaxnreg.inc.sync.aligned.u32 240;",
        "ex2.approx.ftz.f32",
        "bar.arrive 2, 256;",
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes",
    ] {
        assert!(ptx.contains(needle), "no `{needle}` in the example's PTX");
    }
    // S = Q K^T with both operands' descriptors (one register list, the
    // accumulators): head_dim 128 is 8 k-steps over tiles of 192 keys; O += P V with
    // P's registers as A (two lists): 12 k-steps of 16 keys, in the loop and once after.
    let default_kernel = entry(&ptx, "attention_fwd");
    let count = |shape: &str, lists: usize| wgmmas(default_kernel, shape, lists);
    assert_eq!(count("m64n192k16", 1), 8);
    assert_eq!(count("m64n128k16", 2), 24);
    // Within each 64-column panel of head_dim 128 (4 k-steps), each k-step's
    // descriptor is the panel's first plus an immediate: nothing but an add between
    // consecutive wgmmas of S (the swizzle is undone once, before the loop).
    let lines: Vec<&str> = default_kernel.lines().collect();
    let s_steps: Vec<usize> = (0..lines.len())
        .filter(|&line| lines[line].contains("wgmma.mma_async.sync.aligned.m64n192k16"))
        .collect();
    for panel in s_steps.chunks(4) {
        for pair in panel.windows(2) {
            let between = &lines[pair[0] + 1..pair[1]];
            assert!(
                between.len() == 1 && between[0].trim().starts_with("add.s64"),
                "a k-step's descriptor computed anew:\n{}",
                between.join("\n")
            );
        }
    }
    // The warpgroups' turns: named barriers a register names.
    let turns = ["bar.sync %r", "bar.arrive %r"];
    assert!(turns.iter().all(|turn| default_kernel.contains(turn)));
    // The warpgroup index comes from lane 0, so ptxas keeps what depends on it (the
    // wgmma descriptors of q's rows) in uniform registers.
    assert!(default_kernel.contains("shfl.sync.idx.b32"));
    // Some instantiations spill a few bytes at 240 registers; none has ptxas serialize
    // its wgmmas.
    // attention_fwd_fp8: both products FP8 wgmmas from shared memory (one register
    // list): head_dim 128 in 4 k-steps of 32 for S, the tile's 128 keys in 4 for P V,
    // in the loop and once after. P reaches shared memory a word (a lane's four keys of
    // 16) at a time, every store at one base register plus an immediate (P's tile is
    // unswizzled), 16 a tile of 128 keys and 16 zeros before the loop.
    let fp8 = entry(&ptx, "attention_fwd_fp8");
    let e4m3 = "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3";
    let fp8_wgmmas =
        (fp8.lines()).filter(|line| line.contains(e4m3) && line.matches('{').count() == 1);
    assert_eq!(fp8_wgmmas.count(), 12);
    let bases: std::collections::BTreeSet<&str> = (fp8.lines())
        .filter_map(|line| line.trim().strip_prefix("st.shared.b32 ["))
        .map(|address| address.split(['+', ']']).next().unwrap())
        .collect();
    assert_eq!(
        bases.len(),
        1,
        "P's words stored from several bases: {bases:?}"
    );
    assert_eq!(fp8.matches("st.shared.b32").count(), 32);
    assert_eq!(fp8.matches("st.shared.u8").count(), 0);
    let log = assemble(&ptx, "sm_90a", example, false);
    assert!(!log.contains("Potential Performance Loss"), "{log}");
    let stderr = build_errors(example, "sm_80");
    assert!(stderr.contains("[E0212]"), "{stderr}");
}

#[test]
fn the_attention_backward_example_assembles_with_its_five_products_unserialized() {
    let example = "cuk-examples/attention_bwd_sm90.cuk";
    let ptx = emit(example, "sm_90a", "ptx");
    let default_kernel = entry(&ptx, "attention_bwd");
    let hd256 = entry(&ptx, "attention_bwd_hd256");
    let count = |shape: &str, lists: usize| wgmmas(default_kernel, shape, lists);
    // From shared memory: S^T = K Q^T and dP^T = V dO^T, 64 queries and head_dim 128 in
    // 8 k-steps each; dQ = dS K, two 64-column panels of the warpgroup's 64 keys in 4
    // k-steps each.
    assert_eq!(count("m64n64k16", 1), 16 + 8);
    // dV += P^T dO and dK += dS^T Q with P^T and dS^T as register A: 64 queries in 4
    // k-steps each.
    assert_eq!(count("m64n128k16", 2), 8);
    assert_eq!(count("m64n128k16", 1), 0);
    // dq's partial sums go into the workspace as TMA reduce-adds of 64 x 32 boxes, four
    // a tile (two a panel), issued by one thread a warpgroup; no atomic a value.
    let reductions = "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group";
    assert_eq!(default_kernel.matches(reductions).count(), 4);
    assert_eq!(default_kernel.matches("red.global.add").count(), 0);
    // attention_bwd_hd256, all from shared memory: S^T and dP^T of a warpgroup's 32
    // queries, head_dim 256 in 16 k-steps each; dV and dK of its 128 columns, 64 queries
    // in 4 k-steps each; dQ, two 64-column panels of the block's 64 keys in 4 k-steps
    // each; four reduce-adds of 64 x 32 boxes a warpgroup.
    assert_eq!(wgmmas(hd256, "m64n32k16", 1), 32);
    assert_eq!(wgmmas(hd256, "m64n128k16", 1), 8);
    assert_eq!(wgmmas(hd256, "m64n64k16", 1), 8);
    assert_eq!(hd256.matches(reductions).count(), 4);
    assert!(
        hd256.contains("bar.sync 2, 256;"),
        "the two warpgroups meet"
    );
    // Its packed-batch form computes the same products and adds.
    let hd256_varlen = entry(&ptx, "attention_bwd_hd256_varlen");
    for (shape, count) in [("m64n32k16", 32), ("m64n128k16", 8), ("m64n64k16", 8)] {
        assert_eq!(wgmmas(hd256_varlen, shape, 1), count, "{shape}");
    }
    assert_eq!(hd256_varlen.matches(reductions).count(), 4);
    // ptxas keeps the wgmmas asynchronous (one 64 x 128 dQ product made it serialize),
    // and no instantiation but the deterministic one spills: the k-steps' descriptors
    // are computed in the loop, not kept in registers through it.
    // Each warpgroup meets its own 128 threads at a named barrier a register names.
    assert!(default_kernel.contains("bar.sync %r") && default_kernel.contains(", 128;"));
    let log = assemble(&ptx, "sm_90a", example, false);
    let entries: Vec<&str> = log.split("Function properties for ").skip(1).collect();
    assert!(entries.len() > 10, "{log}");
    for entry in entries
        .iter()
        .filter(|entry| !entry.contains("DETERMINISTIC_1"))
    {
        assert!(entry.contains(" 0 bytes stack frame"), "{entry}");
    }
    assert!(!log.contains("Potential Performance Loss"), "{log}");
    // On sm_80 the kernel's 209 KiB of shared memory are the first thing wrong.
    let stderr = build_errors(example, "sm_80");
    assert!(
        stderr.contains("[E0228]") && stderr.contains("fit a block's shared memory"),
        "{stderr}"
    );
}

/// The FP8 grouped GEMMs: each k-tile's four k32 wgmmas (not unrolled across k-tiles),
/// the masked layout's 3-mode boxes, B multicast, and ptxas keeping every instantiation
/// free of local memory with its wgmmas unserialized.
#[test]
fn the_fp8_grouped_example_assembles_without_local_memory_or_serialized_wgmmas() {
    let example = "cuk-examples/gemm_grouped_fp8_sm90.cuk";
    let ptx = emit(example, "sm_90a", "ptx");
    let count = |needle: &str| ptx.matches(needle).count();
    // Both kernels' defaults, 4 each, and their BN = 256 forms, 4 for each half of the
    // tile; the e5m2 test's BN = 64 instantiation, 4.
    assert_eq!(
        count("wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "),
        8 + 16
    );
    assert_eq!(
        count("wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e4m3 "),
        4
    );
    for needle in [
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster",
        "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group",
        "setmaxnreg.inc.sync.aligned.u32 232;",
    ] {
        assert!(ptx.contains(needle), "no `{needle}` in the example's PTX");
    }
    // No local memory but in the BN = 256 forms (the example's notes give their spills).
    let log = assemble(&ptx, "sm_90a", example, false);
    let entries: Vec<&str> = log.split("Function properties for ").skip(1).collect();
    assert!(entries.len() >= 5, "{log}");
    for entry in entries.iter().filter(|entry| !entry.contains("BN_256")) {
        assert!(entry.contains(" 0 bytes stack frame"), "{entry}");
    }
    assert!(!log.contains("Potential Performance Loss"), "{log}");
}

#[test]
fn accumulators_touched_in_the_k_loop_are_a_warning_at_the_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let cubin = dir.path().join("serialized.cubin");
    let output = cukc(&[
        "build",
        "tests/hopper/wgmma_serialized.cuk",
        "-o",
        cubin.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("[W0301]") && stderr.contains("wgmma_serialized.cuk:9:"),
        "{stderr}"
    );
    // The kernel without the mistake builds without the warning.
    let clean = dir.path().join("clean.cubin");
    let output = cukc(&[
        "build",
        "tests/hopper/wgmma_tile.cuk",
        "-o",
        clean.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && !stderr.contains("W0301"),
        "{stderr}"
    );
}
