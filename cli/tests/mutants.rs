//! The mutation test of the asynchronous pipelines (issue 35): in every example and test
//! file that uses mbarriers, TMA, wgmma, cp.async or tcgen05, each synchronizing statement
//! (a wait, fence, arrive, commit or expect_tx: [`SYNCHRONIZERS`]) is deleted in turn,
//! and `cukc test --emulate` on the mutant must fail with a diagnostic: an emulator fault
//! (`E04xx`, a detected hang included) or a build error. A mutant that still passes, or
//! fails only by its values, must be listed in [`EXCEPTIONS`] with the reason, and
//! behave as listed, so that the list shrinks as the emulator learns. The unmutated
//! files pass (`emulated.rs`).
//!
//! CI runs the files in [`SAMPLE`] (the mutants of the large examples take minutes to
//! emulate); `CUK_MUTANTS=all cargo test -p cli --test mutants` runs every file, and
//! `CUK_MUTANTS=FILE,FILE` (paths as [`ALL`] spells them) the files named.

#[path = "support/build.rs"]
mod build;

use build::{cukc, root};

/// The statements whose deletion is a mutant (the start of a line, up to the `(`).
const SYNCHRONIZERS: [&str; 22] = [
    "mbarrier_wait(",
    "mbarrier_arrive(",
    "mbarrier_arrive_expect_tx(",
    "fence_barrier_init(",
    "fence_proxy_async(",
    "wgmma_fence(",
    "wgmma_commit_group(",
    "wgmma_wait_group(",
    "cp_async_commit_group(",
    "cp_async_wait_group(",
    "cp_async_wait_all(",
    "tma_store_commit_group(",
    "tma_store_wait_group(",
    "tma_store_wait_all(",
    "tcgen05_commit(",
    "tcgen05_wait_ld(",
    "producer_acquire(",
    "consumer_wait(",
    "consumer_release(",
    // The halves of a split cluster barrier (`cuk-examples/cross_entropy_cluster.cuk`).
    "cluster_arrive(",
    "cluster_wait(",
    // A signal to a peer rank (`cuk-examples/allreduce.cuk`).
    "atomic_add(peer(",
];

/// Every file with asynchronous operations whose tests run on the emulator (a file
/// without test blocks, such as `tests/blackwell/pair_forms.cuk`, has nothing to run).
const ALL: [&str; 41] = [
    "cuk-examples/allreduce.cuk",
    "cuk-examples/attention_bwd_sm90.cuk",
    "cuk-examples/attention_decode_sm90.cuk",
    "cuk-examples/attention_fwd_sm90.cuk",
    "cuk-examples/copy_cp_async.cuk",
    "cuk-examples/copy_swizzled_smem.cuk",
    "cuk-examples/cross_entropy.cuk",
    "cuk-examples/cross_entropy_cluster.cuk",
    "cuk-examples/gemm_fp8_sm90.cuk",
    "cuk-examples/gemm_grouped_fp8_sm90.cuk",
    "cuk-examples/gemm_grouped_sm90.cuk",
    "cuk-examples/gemm_sm100.cuk",
    "cuk-examples/gemm_sm80.cuk",
    "cuk-examples/gemm_sm90.cuk",
    "cuk-examples/gemm_small_m_sm90.cuk",
    "cuk-examples/layernorm.cuk",
    "cuk-examples/rmsnorm.cuk",
    "tests/blackwell/tmem_alloc.cuk",
    "tests/blackwell/tmem_copy.cuk",
    "tests/blackwell/tmem_half_the_warps.cuk",
    "tests/blackwell/tmem_shapes.cuk",
    "tests/blackwell/umma_fp8.cuk",
    "tests/blackwell/umma_pair.cuk",
    "tests/blackwell/umma_pair_tmem_a.cuk",
    "tests/blackwell/umma_tf32.cuk",
    "tests/blackwell/umma_tile.cuk",
    "tests/blackwell/umma_tmem_a.cuk",
    "tests/hopper/attention_tile.cuk",
    "tests/hopper/cluster_multicast.cuk",
    "tests/hopper/gemm_sm90_pingpong.cuk",
    "tests/hopper/gemm_sm90_ws.cuk",
    "tests/hopper/mbarrier_handoff.cuk",
    "tests/hopper/mbarrier_phases.cuk",
    "tests/hopper/tma_reduce_add.cuk",
    "tests/hopper/tma_store_then_ticket.cuk",
    "tests/hopper/tma_tile_copy.cuk",
    "tests/hopper/wgmma_chain.cuk",
    "tests/hopper/wgmma_fp8.cuk",
    "tests/hopper/wgmma_mn_major.cuk",
    "tests/hopper/wgmma_rs.cuk",
    "tests/hopper/wgmma_tile.cuk",
];

/// The files CI mutates: small, and covering TMA, wgmma (shared and register A, FP8),
/// clusters, cp.async (a pipeline of row stages too), tcgen05, a two-barrier handoff and
/// signals between ranks.
const SAMPLE: [&str; 15] = [
    "cuk-examples/allreduce.cuk",
    "cuk-examples/copy_swizzled_smem.cuk",
    "cuk-examples/rmsnorm.cuk",
    "tests/blackwell/tmem_copy.cuk",
    "tests/blackwell/umma_tile.cuk",
    "tests/hopper/cluster_multicast.cuk",
    "tests/hopper/mbarrier_handoff.cuk",
    "tests/hopper/mbarrier_phases.cuk",
    "tests/hopper/tma_reduce_add.cuk",
    "tests/hopper/tma_tile_copy.cuk",
    "tests/hopper/wgmma_chain.cuk",
    "tests/hopper/wgmma_fp8.cuk",
    "tests/hopper/wgmma_mn_major.cuk",
    "tests/hopper/wgmma_rs.cuk",
    "tests/hopper/wgmma_tile.cuk",
];

/// What a mutant did under `cukc test --emulate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// An emulator fault (`E04xx`).
    Fault,
    /// A build error.
    Rejected,
    /// A test failed by its values, with no diagnostic.
    Wrong,
    /// Every test passed.
    Passed,
}

/// The mutants that are neither a fault nor a build error: (file, deleted statement,
/// what it does, why).
const EXCEPTIONS: &[(&str, &str, Outcome, &str)] = &[
    (
        "tests/blackwell/tmem_alloc.cuk",
        "tcgen05_wait_ld();",
        Outcome::Passed,
        "harmless: no tcgen05.ld precedes it (the test checks the allocation), so it waits for nothing",
    ),
    (
        "tests/blackwell/tmem_alloc.cuk",
        "mbarrier_wait(done, 0, 0);",
        Outcome::Passed,
        "harmless: no tcgen05 operation precedes the commit it waits for, and nothing after it reads tensor memory",
    ),
    (
        "cuk-examples/attention_fwd_sm90.cuk",
        "consumer_release(empty_v, tiles - 1, STAGES = STAGES);",
        Outcome::Passed,
        LAST_RELEASE,
    ),
    (
        "cuk-examples/gemm_sm90.cuk",
        "consumer_release(empty, tiles * k_tiles - 1, STAGES = STAGES, CTAS = CM);",
        Outcome::Passed,
        LAST_RELEASE,
    ),
    (
        "cuk-examples/gemm_fp8_sm90.cuk",
        "consumer_release(empty, tiles * k_tiles - 1, STAGES = STAGES, CTAS = CM);",
        Outcome::Passed,
        LAST_RELEASE,
    ),
    (
        "cuk-examples/gemm_grouped_sm90.cuk",
        "consumer_release(empty, j * k_tiles - 1, STAGES = STAGES, CTAS = CM);",
        Outcome::Passed,
        LAST_RELEASE,
    ),
    (
        "cuk-examples/gemm_small_m_sm90.cuk",
        "consumer_release(empty, count - 1, STAGES = STAGES);",
        Outcome::Passed,
        LAST_RELEASE,
    ),
    (
        "*",
        "fence_barrier_init();",
        Outcome::Passed,
        "harmless where a barrier follows the init: `fence.mbarrier_init.release.cluster` is a release fence for prior `mbarrier.init`s only, and every file follows the init with `syncthreads()` (the block's threads) or `cluster_sync()` (`barrier.cluster.arrive.release`, the cluster's), which releases all prior writes; the emulator does not model the init fence apart from them",
    ),
    (
        "cuk-examples/gemm_sm80.cuk",
        "cp_async_wait_group(0);",
        Outcome::Passed,
        "harmless: before the epilogue, the groups still pending are the pipeline's empty tail commits (no cp.async in flight), which the wait only drains",
    ),
];

/// A line without its comment, trimmed.
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or_default().trim()
}

/// Why deleting a pipeline's last release of a stage is harmless.
const LAST_RELEASE: &str = "harmless: the release of the last tile's stage, which no later load of the block or a peer waits for (the kernel ends after it)";

/// The mutants of `text`: its line number (from 1) and the text without it.
fn mutants(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    (lines.iter().enumerate())
        .filter(|(_, line)| {
            let statement = code(line);
            statement.ends_with(';') && SYNCHRONIZERS.iter().any(|call| statement.starts_with(call))
        })
        .map(|(index, _)| {
            let mut rest = lines.clone();
            rest.remove(index);
            (index + 1, rest.join("\n") + "\n")
        })
        .collect()
}

/// Runs `cukc test --emulate` on `path` for `target`.
fn outcome(path: &str, target: &str) -> (Outcome, String) {
    let output = cukc(&["test", "--emulate", path, "--target", target]);
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    let outcome = if output.status.success() {
        Outcome::Passed
    } else if text.contains("error[E04") || text.contains("[E04") {
        Outcome::Fault
    } else if text.contains("error[E") || text.contains("] Error") {
        Outcome::Rejected
    } else {
        Outcome::Wrong
    };
    (outcome, text)
}

/// The exception for `statement` of `file`, if any.
fn exception(file: &str, statement: &str) -> Option<(Outcome, &'static str)> {
    EXCEPTIONS
        .iter()
        .find(|(at, text, ..)| (*at == "*" || *at == file) && *text == statement)
        .map(|(_, _, outcome, reason)| (*outcome, *reason))
}

#[test]
fn deleting_any_synchronization_is_reported() {
    let chosen = std::env::var("CUK_MUTANTS").unwrap_or_default();
    let files: Vec<&str> = match chosen.as_str() {
        "all" => ALL.to_vec(),
        "" => SAMPLE.to_vec(),
        list => (ALL.iter().copied())
            .filter(|file| list.split(',').any(|wanted| wanted == *file))
            .collect(),
    };
    let folder = std::env::temp_dir().join(format!("cuk-mutants-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let (mut reported, mut listed, mut problems) = (0, 0, Vec::new());
    for file in files {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let target = text
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("// target: "))
            .map_or("sm_90a", str::trim);
        let name = std::path::Path::new(file).file_name().unwrap();
        let path = folder.join(name);
        for (line, mutant) in mutants(&text) {
            std::fs::write(&path, mutant).unwrap();
            let statement = code(text.lines().nth(line - 1).unwrap());
            let (outcome, output) = outcome(path.to_str().unwrap(), target);
            match (outcome, exception(file, statement)) {
                (Outcome::Fault | Outcome::Rejected, _) => reported += 1,
                (outcome, Some((expected, _))) if outcome == expected => listed += 1,
                (outcome, expected) => problems.push(format!(
                    "{file}:{line}: deleting `{statement}`: {outcome:?}, expected {}\n{output}",
                    expected.map_or(
                        "a fault or a build error".to_owned(),
                        |(outcome, reason)| { format!("{outcome:?} ({reason})") }
                    )
                )),
            }
        }
    }
    std::fs::remove_dir_all(&folder).ok();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    // The sample (and every file) has at least 30; files named one by one may have fewer.
    let named = !matches!(chosen.as_str(), "" | "all");
    assert!(named || reported >= 30, "only {reported} mutants reported");
    eprintln!("{reported} mutants reported, {listed} listed as exceptions");
}

/// The files whose build fails by design (`hopper.rs`, `blackwell.rs`): no test runs.
const BUILD_ERRORS: [&str; 4] = [
    "tests/blackwell/tmem_breaches.cuk",
    "tests/blackwell/tmem_read_before_wait.cuk",
    "tests/hopper/wgmma_serialized.cuk",
    "tests/hopper/wgmma_split_warpgroup.cuk",
];

#[test]
fn every_file_with_asynchronous_operations_is_mutated() {
    let mut found = Vec::new();
    for folder in [
        "cuk-examples",
        "tests/control",
        "tests/miscompiles",
        "tests/hopper",
        "tests/blackwell",
    ] {
        for entry in std::fs::read_dir(root().join(folder)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let file = format!("{folder}/{name}");
            if !name.ends_with(".cuk") || BUILD_ERRORS.contains(&file.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(root().join(&file)).unwrap();
            let tested = text.lines().any(|line| line.starts_with("test "));
            if tested && !mutants(&text).is_empty() {
                found.push(file);
            }
        }
    }
    found.sort();
    assert_eq!(found, ALL.to_vec());
    for file in SAMPLE {
        assert!(ALL.contains(&file), "{file}");
    }
}
