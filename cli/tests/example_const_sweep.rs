//! Every example's const parameters, sampled: at each point (a few values of each
//! parameter around its default, some that the example must refuse, listed
//! combinations, and random combinations from a fixed seed) the example either fails
//! `cukc check` with its `static_assert`s alone (E0228 at an assert's line), or checks
//! clean and its tests pass on the emulator. A value that computed a wrong result
//! without a word (gemm_sm90's BN = 64 stored nothing) fails here.
//!
//! CI runs the quick sweep: each point's check and, for an accepted point, the example's
//! quick test blocks (`quick_filter`, else all; the other blocks and the benches are
//! blanked out of the file, so `check` checks fewer instantiations), with 2 random
//! combinations an example.
//! `CUK_SWEEP=all cargo test -p cli --test example_const_sweep` runs every test block
//! at every point, with 10 random combinations an example. The machinery is in
//! `support/const_sweep.rs`.

#[path = "support/build.rs"]
mod build;
#[path = "support/const_sweep.rs"]
mod const_sweep;

use build::{cukc, root};
use const_sweep::{
    Example, Expect, Param, describe, keep_tests, not_a_refusal, param, points, rewrite, target_of,
    write,
};

/// Whether to run the whole sweep (`CUK_SWEEP=all`).
fn full() -> bool {
    std::env::var("CUK_SWEEP").is_ok_and(|value| value == "all")
}

/// Checks every point of `example`; panics with each that did neither.
fn sweep(example: &Example<'_>) {
    let path = root().join("cuk-examples").join(example.file);
    let source = std::fs::read_to_string(&path).unwrap();
    let target = target_of(&source);
    let folder = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("const_sweep");
    let (random, filter) = match full() {
        true => (10, None),
        false => (2, Some(example.quick_filter.unwrap_or(""))),
    };
    let (mut passed, mut refused, mut problems) = (0, 0, Vec::new());
    let points = points(example, random);
    for (index, (point, expect)) in points.iter().enumerate() {
        let mut text = rewrite(&source, example, point);
        if let Some(filter) = filter {
            text = keep_tests(&text, filter);
        }
        let file = write(&folder, &format!("{index}_{}", example.file), &text);
        let file = file.to_str().unwrap();
        let said = |output: &std::process::Output| {
            let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
            stdout + &String::from_utf8_lossy(&output.stderr)
        };
        let check = cukc(&[
            "check",
            file,
            "--target",
            target,
            "--message-format",
            "short",
        ]);
        let checked = said(&check);
        let at = describe(point);
        if !check.status.success() {
            refused += 1;
            if let Some(why) = not_a_refusal(&checked, &text) {
                problems.push(format!("{at}: refused, but {why}"));
            } else if *expect == Expect::Accepted {
                problems.push(format!("{at}: must be accepted, but:\n{checked}"));
            }
            continue;
        }
        if *expect == Expect::Refused {
            problems.push(format!("{at}: must be refused by a static_assert"));
        }
        if !checked.trim().is_empty() {
            problems.push(format!("{at}: checks with diagnostics:\n{checked}"));
        }
        let test = cukc(&["test", "--emulate", file, "--target", target]);
        let stdout = String::from_utf8_lossy(&test.stdout);
        let ran = stdout
            .lines()
            .any(|line| line.starts_with("test ") && line.contains(" ... ok ("));
        if test.status.success() && ran && stdout.contains(" passed, 0 failed") {
            passed += 1;
        } else {
            problems.push(format!(
                "{at}: checks, but its tests fail:\n{}",
                said(&test)
            ));
        }
        std::fs::remove_file(file).ok();
    }
    eprintln!(
        "{}: {} points, {refused} refused, {passed} passed",
        example.file,
        points.len()
    );
    assert!(
        problems.is_empty(),
        "{}:\n{}",
        example.file,
        problems.join("\n")
    );
}

/// The copy ladder's steps 2-4 share their parameters; their tiles' rows (`BM`, the
/// default given) differ.
const fn copy_params(rows: &'static str) -> [Param; 4] {
    [
        param("BM", rows, &["16", "96", "128", "256"], &["8"]),
        param("BK", "64", &["128", "192"], &["32"]),
        param("THREADS", "128", &["64", "256"], &["96", "120"]),
        param("VALUES_PER_THREAD", "8", &[], &["4"]),
    ]
}

#[test]
fn copy_basic() {
    sweep(&Example {
        file: "copy_basic.cuk",
        params: &[
            param("BM", "128", &["64", "96", "256"], &["2048"]),
            param("BK", "64", &["128", "192"], &["32", "48"]),
            param("THREADS", "64", &["16", "32"], &["128", "2048"]),
        ],
        accepted: &[],
        quick_filter: None,
    });
}

#[test]
fn copy_vectorized() {
    let accepted: &[&[(&str, &str)]] = &[&[("THREADS", "1024"), ("BM", "256")]];
    sweep(&Example {
        file: "copy_vectorized.cuk",
        params: &copy_params("32"),
        accepted,
        quick_filter: None,
    });
}

#[test]
fn copy_cp_async() {
    let accepted: &[&[(&str, &str)]] = &[&[("THREADS", "1024"), ("BM", "128")]];
    sweep(&Example {
        file: "copy_cp_async.cuk",
        params: &copy_params("32"),
        accepted,
        quick_filter: None,
    });
}

#[test]
fn copy_swizzled_smem() {
    let swizzle = param("SWIZZLE_BITS", "3", &["0", "1", "2"], &["4"]);
    let [rows, columns, threads, values] = copy_params("64");
    let params = [rows, columns, threads, values, swizzle];
    sweep(&Example {
        file: "copy_swizzled_smem.cuk",
        params: &params,
        accepted: &[],
        quick_filter: None,
    });
}

#[test]
fn copy_four_ways() {
    sweep(&Example {
        file: "copy_four_ways.cuk",
        params: &[
            param("CTA_M", "8", &["1", "4", "16"], &["128"]),
            param("CTA_K", "128", &["64", "96", "256"], &["100"]),
            param("VALUES_PER_THREAD", "8", &["4", "16"], &["3", "6"]),
        ],
        accepted: &[],
        quick_filter: None,
    });
}

#[test]
fn transpose_smem() {
    sweep(&Example {
        file: "transpose_smem.cuk",
        params: &[
            param("TILE", "64", &["32", "128"], &["8", "48", "256"]),
            param("THREADS", "512", &["128", "256", "1024"], &["96", "2048"]),
            param("TILE_BF16", "128", &["32", "64"], &["30", "34"]),
            param("THREADS_BF16", "512", &["256", "1024"], &["96", "2048"]),
        ],
        accepted: &[
            &[("TILE", "48"), ("THREADS", "192")],
            &[("TILE", "8"), ("THREADS", "64")],
        ],
        quick_filter: None,
    });
}

#[test]
fn axpy() {
    sweep(&Example {
        file: "axpy.cuk",
        params: &[
            param("BLOCK_THREADS", "256", &["96", "1024"], &["2048"]),
            param("VALUES_PER_THREAD", "4", &["1", "2"], &["3", "8"]),
        ],
        accepted: &[],
        quick_filter: Some("axpy_on_a_ragged_length"),
    });
}

#[test]
fn elementwise_add() {
    sweep(&Example {
        file: "elementwise_add.cuk",
        params: &[
            param("THREAD_ROWS", "4", &["1", "8"], &["64"]),
            param("THREAD_COLUMNS", "32", &["24", "64"], &["512"]),
            param("VALUE_ROWS", "4", &["1", "3"], &[]),
            param("VALUE_COLUMNS", "4", &["2", "8"], &[]),
        ],
        accepted: &[],
        quick_filter: None,
    });
}

#[test]
fn row_reduce() {
    sweep(&Example {
        file: "row_reduce.cuk",
        params: &[
            param("BLOCK_THREADS", "256", &["64", "1024"], &["96", "2048"]),
            param("VALUES_PER_THREAD", "4", &["1", "2"], &["3", "8"]),
            param("TILE", "4096", &["1024", "8192"], &["100", "1536"]),
        ],
        accepted: &[],
        quick_filter: None,
    });
}

#[test]
fn softmax() {
    // COLS is at least the tests' 8192 columns: a shorter tile is the caller's mistake
    // (n <= COLS), not a const combination.
    sweep(&Example {
        file: "softmax.cuk",
        params: &[
            param("BLOCK_THREADS", "256", &["128", "1024"], &["96"]),
            param("VALUES_PER_THREAD", "8", &["1", "4"], &["3", "16"]),
            param("COLS", "8192", &["10240", "16384"], &["9000"]),
        ],
        accepted: &[],
        quick_filter: None,
    });
}

#[test]
fn allreduce() {
    // T is fixed by the tests' tensors; the ranks' count by their `ranks(N)`.
    sweep(&Example {
        file: "allreduce.cuk",
        params: &[param("THREADS", "256", &["32", "100", "1024"], &["2048"])],
        accepted: &[],
        quick_filter: Some("allreduce_f32_two_ranks"),
    });
}

/// rmsnorm and layernorm, alike: the first test runs the defaults (rows of 4096); the
/// other tests name their constants, and T is fixed by the tests' tensors.
fn sweep_norm(file: &'static str, [threads, cols]: [&'static str; 2]) {
    sweep(&Example {
        file,
        params: &[
            param(threads, "128", &["256", "512"], &["96", "2048"]),
            param(cols, "4096", &["6144", "8192"], &["1000", "5000"]),
        ],
        accepted: &[],
        quick_filter: None,
    });
}

#[test]
fn rmsnorm() {
    sweep_norm("rmsnorm.cuk", ["rmsnorm_fwd::THREADS", "rmsnorm_fwd::COLS"]);
}

#[test]
fn layernorm() {
    sweep_norm(
        "layernorm.cuk",
        ["layernorm_fwd::THREADS", "layernorm_fwd::COLS"],
    );
}

#[test]
fn cross_entropy() {
    // Rows of 1000 (resident) and 5000 (looped) classes: COLS must hold 1000.
    sweep(&Example {
        file: "cross_entropy.cuk",
        params: &[
            param(
                "cross_entropy_resident::THREADS",
                "128",
                &["256", "1024"],
                &["96"],
            ),
            param(
                "cross_entropy_resident::COLS",
                "8192",
                &["2048", "4096"],
                &["3000"],
            ),
            param(
                "cross_entropy_looped::THREADS",
                "128",
                &["64", "256"],
                &["100", "512"],
            ),
            param(
                "cross_entropy_looped::TILE",
                "2048",
                &["1024", "8192"],
                &["512", "1500"],
            ),
        ],
        accepted: &[],
        quick_filter: None,
    });
}

// The GEMMs' and attention's T (and attention's D and CAUSAL) are fixed by their tests'
// tensors and references, so the sweeps leave them to the tests.

#[test]
fn gemm_sm80() {
    sweep(&Example {
        file: "gemm_sm80.cuk",
        params: &[
            param("BM", "128", &["64", "96"], &["80", "256"]),
            param("BN", "256", &["64", "128"], &["96", "192"]),
            param("BK", "64", &[], &["16", "32", "48", "128"]),
            param("STAGES", "3", &["2", "4"], &["1", "5"]),
            param("WARPS_M", "2", &["1", "4"], &["3"]),
            param("WARPS_N", "4", &["1", "2", "8"], &["3"]),
        ],
        accepted: &[
            &[("BK", "32"), ("STAGES", "4")],
            &[("BK", "128"), ("BN", "128"), ("BM", "64")],
            &[("WARPS_M", "1"), ("WARPS_N", "1")],
        ],
        quick_filter: Some("gemm_tn_small_k"),
    });
}

#[test]
fn gemm_sm90() {
    sweep(&Example {
        file: "gemm_sm90.cuk",
        params: &[
            param("BM", "128", &["64"], &["192", "256"]),
            param("BN", "256", &["128"], &["64", "96", "192"]),
            param("BK", "64", &[], &["32", "128"]),
            param("STAGES", "4", &["2", "3"], &["1", "5"]),
            param("CM", "2", &["1", "4", "8"], &["3", "16"]),
            param("RASTER", "3", &["0", "1", "5"], &["17"]),
            param("EPI", "2", &["1"], &["0", "3", "4"]),
        ],
        accepted: &[
            &[("BN", "64"), ("EPI", "1")],
            &[("BN", "192"), ("EPI", "1")],
            &[("BN", "192"), ("EPI", "1"), ("CM", "3")],
            &[("EPI", "4"), ("STAGES", "3")],
        ],
        quick_filter: Some("gemm_tn_small_k"),
    });
}

#[test]
fn gemm_fp8_sm90() {
    sweep(&Example {
        file: "gemm_fp8_sm90.cuk",
        params: &[
            param("BM", "128", &["64"], &["192"]),
            param("BN", "256", &["128"], &["96", "192"]),
            param("BK", "128", &[], &["64", "256"]),
            param("STAGES", "4", &["2", "3"], &["1", "5"]),
            param("CM", "2", &["1", "4"], &["3", "16"]),
            param("RASTER", "3", &["0", "1"], &["17"]),
            param("EPI", "2", &["1"], &["0", "3"]),
            param("BLOCKWISE", "0", &[], &["1", "2"]),
        ],
        accepted: &[
            &[("BN", "192"), ("EPI", "1")],
            &[("BLOCKWISE", "1"), ("BN", "128")],
            &[
                ("BLOCKWISE", "1"),
                ("BN", "128"),
                ("CM", "1"),
                ("STAGES", "5"),
            ],
        ],
        quick_filter: Some("gemm_fp8_long_k_one_block_per_cluster"),
    });
}

// Both kernels take the same consts (the sweep rewrites each default in both).
#[test]
fn gemm_grouped_sm90() {
    sweep(&Example {
        file: "gemm_grouped_sm90.cuk",
        params: &[
            param("BM", "128", &["64"], &["192"]),
            param("BN", "256", &["128"], &["64", "192"]),
            param("BK", "64", &[], &["128"]),
            param("STAGES", "4", &["2", "3"], &["1", "5"]),
            param("CM", "2", &["1", "4"], &["3", "16"]),
            param("RASTER", "3", &["0", "1"], &["17"]),
            param("EPI", "2", &["1"], &["0", "3"]),
        ],
        accepted: &[
            &[("BN", "64"), ("EPI", "1")],
            &[("BN", "192"), ("EPI", "1")],
        ],
        quick_filter: Some("grouped_contiguous_matches_reference"),
    });
}

// Both kernels take the same consts; BN is 64 or 128 (one block of B's scales a tile).
#[test]
fn gemm_grouped_fp8_sm90() {
    sweep(&Example {
        file: "gemm_grouped_fp8_sm90.cuk",
        params: &[
            param("BM", "128", &["64"], &["192"]),
            param("BN", "128", &[], &["192", "256"]),
            param("BK", "128", &[], &["64"]),
            param("STAGES", "6", &["2", "4"], &["1", "7"]),
            param("CM", "2", &["1", "4"], &["3", "16"]),
            param("RASTER", "3", &["0", "1"], &["17"]),
            param("EPI", "2", &["1"], &["0", "3"]),
        ],
        accepted: &[
            &[("BN", "64"), ("EPI", "1")],
            &[("BN", "64"), ("EPI", "1"), ("CM", "8")],
            &[("BN", "256"), ("STAGES", "4")],
        ],
        quick_filter: Some("grouped_fp8_masked_matches_dequantized_reference"),
    });
}

// The small-M kernel: its stage count is bounded by shared memory with the widest
// activation tile and two warpgroups (8 stages of 384 rows do not fit).
#[test]
fn gemm_small_m_sm90() {
    sweep(&Example {
        file: "gemm_small_m_sm90.cuk",
        params: &[
            param("WG", "1", &["2"], &["0", "3"]),
            param("BA", "16", &["8", "24", "128"], &["0", "12", "264"]),
            param("STAGES", "8", &["2", "3"], &["1"]),
            // LAST = 0 leaves the sum to `splitk_reduce` and LAST = 2 to a cluster of
            // CS splits, different contracts: the tests that launch gemm_swap_ab alone
            // with other split counts would fail, rightly.
            param("LAST", "1", &[], &["3"]),
            param("CS", "1", &[], &["2", "3"]),
        ],
        accepted: &[&[("WG", "2"), ("BA", "256"), ("STAGES", "3")]],
        quick_filter: Some("ragged_three_splits_twice"),
    });
}

#[test]
fn gemm_sm100() {
    sweep(&Example {
        file: "gemm_sm100.cuk",
        params: &[
            param("BN", "256", &["64", "128"], &["32", "96", "192"]),
            param("BK", "64", &[], &["32", "128"]),
            param("gemm_tn::STAGES", "4", &["2", "3"], &["1", "5"]),
            param("gemm_tn_2sm::STAGES", "4", &["5"], &["3", "8"]),
            param("CM", "1", &["2", "4", "8"], &["3", "16"]),
        ],
        accepted: &[],
        quick_filter: Some("matches_reference"),
    });
}

#[test]
fn attention_fwd_sm90() {
    sweep(&Example {
        file: "attention_fwd_sm90.cuk",
        params: &[
            param("BN", "192", &["16", "128"], &["8", "200", "256"]),
            param("STAGES", "2", &["1"], &["0", "3"]),
            param("CAUSAL", "0", &[], &["2"]),
            // The FP8 kernel's tiles are whole panels of keys, and 256 keys' scores do
            // not fit beside O.
            param(
                "attention_fwd_fp8::BN",
                "128",
                &["64"],
                &["32", "96", "192", "256"],
            ),
        ],
        accepted: &[],
        quick_filter: Some("attention_hd64_128_causal"),
    });
}

// The decode's D, GROUP and PAGE are fixed by its tests' shapes; UNROLL is the loads in
// flight. MLA's BN is the tokens a tile (32 or 64) and STAGES the tiles in flight: three
// of 64 tokens no longer fit beside q's tile.
#[test]
fn attention_decode_sm90() {
    sweep(&Example {
        file: "attention_decode_sm90.cuk",
        params: &[
            param("UNROLL", "4", &["1", "2", "8"], &["0", "9"]),
            param("mla_decode::BN", "64", &["32"], &["16", "48", "128"]),
            param("mla_decode::STAGES", "2", &["1"], &["0", "3"]),
        ],
        accepted: &[&[("mla_decode::BN", "32"), ("mla_decode::STAGES", "4")]],
        // The bf16 cache's test, the e4m3 one's (KV is no default to sweep: the tests'
        // caches have their dtypes) and MLA's at 64 heads.
        quick_filter: Some("three_splits"),
    });
}

#[test]
fn attention_bwd_sm90() {
    sweep(&Example {
        file: "attention_bwd_sm90.cuk",
        params: &[
            // Three stages of q and do no longer fit beside the two f32 dq tiles at
            // the default D = 128.
            param("STAGES", "2", &["1"], &["0", "3"]),
            // At D = 256 one stage of q and do fits beside the f32 dq tile, not two.
            param("attention_bwd_hd256::STAGES", "1", &[], &["0", "2"]),
            param("attention_bwd_hd256_varlen::STAGES", "1", &[], &["0", "2"]),
            param("CAUSAL", "0", &[], &["2"]),
        ],
        accepted: &[],
        // The causal tests at seqlen 128: attention_bwd at D = 64 and 128, and
        // attention_bwd_hd256.
        quick_filter: Some("_128_causal"),
    });
}
