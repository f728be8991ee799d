//! A wgmma's descriptors need fit only the warpgroups that can reach it. In a
//! warp-specialized kernel the producer warpgroup's thread index, taken as a consumer's
//! (`thread_idx.x - 128`), points before the tile; with two 64-column panels along K its
//! "tile" for the second panel's k-steps lands inside the buffer but in no descriptor's
//! form. The branch around the gemm says warpgroup 0 never runs it, so lowering derives
//! the descriptors from warpgroups 1 and 2 alone.

#[path = "support/lower.rs"]
mod support;

use support::{kir_text, lowered};

const SOURCE: &str = "use sm90::wgmma_m64k16;
kernel two_panels(j: i32) launch grid(1) block(384) smem(auto) {
    let tQ = smem bf16[composition(swizzle(3, 3, 3), (128, (64, 2)):(64, (1, 8192)))];
    let tK = smem bf16[composition(swizzle(3, 3, 3), (128, (64, 2), 2):(64, (1, 8192), 16384))];
    let qk = make_tiled_mma(wgmma_m64k16(T = bf16, N = 128), make_layout((2, 1, 1)));
    if thread_idx.x / 128 == 0 {
        setmaxnreg_dec(40);
    } else {
        let thr = qk.slice(thread_idx.x - 128);
        let tA = thr.partition_A(tQ);
        let tB = thr.partition_B(tK);
        let acc = thr.make_fragment_C(thr.partition_C(make_identity_tensor((128, 128))));
        for i in 0..j {
            wgmma_fence();
            gemm(qk, acc, tA, tB[_, _, _, i % 2], acc, accumulate = false);
            wgmma_commit_group();
            wgmma_wait_group(0);
        }
    }
}
";

#[test]
fn the_producer_warpgroup_is_not_taken_to_run_the_consumers_wgmma() {
    let text = kir_text(SOURCE);
    // Eight k-steps of m64n128k16, four in each panel.
    assert_eq!(text.matches("wgmma.mma_async").count(), 8, "{text}");
}

/// Warp-specialized code as users write it: `thread_idx.x >= 128` selects the consumer
/// warpgroups, and `(thread_idx.x - 128) / 128` names one. Both are the same across each
/// warpgroup, so the wgmma under them is no E0302.
const COMPARED: &str = "use sm90::wgmma_m64k16;
kernel compared(j: i32) launch grid(1) block(384) smem(auto) {
    let tQ = smem bf16[composition(swizzle(3, 3, 3), (128, 64):(64, 1))];
    let tK = smem bf16[composition(swizzle(3, 3, 3), (64, 64):(64, 1))];
    let qk = make_tiled_mma(wgmma_m64k16(T = bf16, N = 64), make_layout((2, 1, 1)));
    if thread_idx.x >= 128 {
        let w = (thread_idx.x - 128) / 128;
        let thr = qk.slice(thread_idx.x - 128);
        let acc = thr.make_fragment_C(thr.partition_C(make_identity_tensor((128, 64))));
        if w == 0 || j > 1 {
            wgmma_fence();
            gemm(qk, acc, thr.partition_A(tQ), thr.partition_B(tK), acc, accumulate = false);
            wgmma_commit_group();
            wgmma_wait_group(0);
        }
    }
}
";

#[test]
fn a_comparison_at_a_warpgroup_boundary_is_the_same_across_each_warpgroup() {
    kir_text(COMPARED);
    // One more thread, and the boundary splits a warpgroup and a warp.
    let split = COMPARED.replace("thread_idx.x >= 128", "thread_idx.x >= 129");
    let lowered = lowered(&split);
    assert!(
        lowered.diagnostics.iter().any(|d| d.code == "E0302"),
        "{:#?}",
        lowered.diagnostics
    );
}
