//! The planted bugs of `tests/emulator/`, each a kernel with one mistake whose first
//! line says the report expected (`// expect: error[CODE] at line N (and line M)`):
//! lowered, launched, and the fault's code and labelled lines compared with it. The
//! barrier protocol's (hangs, spins, mbarrier and named-barrier counts) are in
//! `protocol.rs`.

mod support;

use emulator::{Elsewhere, FaultKind};
use support::planted::{planted, planted_output};
use support::{Arg, Device, assert_says, assert_starts, bf16_rounded, lower_file, randn};

#[test]
fn a_transpose_without_its_barrier_is_a_race_naming_both_lines() {
    let fault = planted("transpose_without_syncthreads.cuk", |device| {
        let a = device.f32s(&randn(64 * 64, 30));
        let out = device.empty(64 * 64 * 4);
        vec![Arg::Int(64), Arg::Int(64), Arg::Tensor(a), Arg::Tensor(out)]
    });
    assert_starts(
        &fault,
        "data race in shared memory: thread (8, 0, 0) of block (0, 0, 0) stores byte 0x20",
    );
    assert_says(&fault, &["which thread (0, 0, 0) read"]);
}

#[test]
fn an_unpredicated_copy_on_a_ragged_shape_reads_past_its_tensor() {
    let fault = planted("unpredicated_ragged_add.cuk", |device| {
        let (a, b) = (
            device.f32s(&randn(20_000, 31)),
            device.f32s(&randn(20_000, 32)),
        );
        let c = device.empty(20_000 * 4);
        vec![
            Arg::Int(100),
            Arg::Int(200),
            Arg::Tensor(a),
            Arg::Tensor(b),
            Arg::Tensor(c),
        ]
    });
    assert_says(
        &fault,
        &[
            "thread (32, 0, 0) of block (6, 0, 0) loads 4 bytes of global memory at 0x100013880",
            "(the nearest is `a`, 80000 bytes at 0x100000000: 4 bytes past its end)",
        ],
    );
}

#[test]
fn a_read_before_cp_async_lands_reads_unwritten_shared_memory() {
    planted("cp_async_without_wait.cuk", |device| {
        let a = device.bf16s(&randn(128 * 64, 33));
        let out = device.empty(128 * 64 * 2);
        vec![
            Arg::Int(128),
            Arg::Int(64),
            Arg::Tensor(a),
            Arg::Tensor(out),
        ]
    });
}

#[test]
fn a_read_before_cp_async_lands_sees_the_old_data() {
    let kernels = lower_file("tests/emulator/cp_async_stale_data.cuk");
    let values = bf16_rounded(&randn(128 * 64, 34));
    let mut device = Device::default();
    let a = device.bf16s(&values);
    let out = device.empty(128 * 64 * 2);
    device.run(
        &kernels[0],
        &[
            Arg::Int(128),
            Arg::Int(64),
            Arg::Tensor(a),
            Arg::Tensor(out),
        ],
    );
    assert_eq!(device.read_bf16(out, 128 * 64), vec![0.0; 128 * 64]);
}

#[test]
fn a_reduction_over_partials_nobody_wrote_reads_uninitialized_memory() {
    let fault = planted("reduction_of_unwritten_partials.cuk", |device| {
        let x = device.f32s(&randn(4 * 1000, 35));
        let sums = device.empty(16);
        vec![
            Arg::Int(4),
            Arg::Int(1000),
            Arg::Tensor(x),
            Arg::Tensor(sums),
        ]
    });
    assert!(
        matches!(fault.kind, FaultKind::Uninitialized { address: 16, .. }),
        "{fault}"
    );
}

#[test]
fn a_barrier_half_the_block_skips_is_never_reached() {
    let fault = planted("divergent_syncthreads.cuk", |device| {
        vec![Arg::Tensor(device.f32s(&randn(256, 36)))]
    });
    let FaultKind::BarrierNotReached { other } = fault.kind.cause() else {
        panic!("{fault}");
    };
    assert_eq!((other.thread, other.at), ([128, 0, 0], Elsewhere::Exited));
}

#[test]
fn an_ldmatrix_of_rows_half_copied_reads_uninitialized_memory() {
    let fault = planted("ldmatrix_of_unwritten_rows.cuk", |device| {
        let a = device.bf16s(&randn(256, 37));
        let b = device.bf16s(&randn(256, 38));
        let c = device.empty(256 * 2);
        vec![Arg::Tensor(a), Arg::Tensor(b), Arg::Tensor(c)]
    });
    // Thread 0 wrote elements 0 to 3 of row 0; its row's element 4 (byte 8) is unwritten.
    assert!(
        matches!(fault.kind, FaultKind::Uninitialized { address: 8, .. }),
        "{fault}"
    );
    assert_eq!(fault.location.unwrap().thread, [0, 0, 0]);
}

#[test]
fn a_tma_load_whose_barrier_expects_nothing_never_completes_its_phase() {
    let fault = planted("tma_without_expect_tx.cuk", |device| {
        let a = device.f32s(&randn(16 * 32, 41));
        let b = device.empty(16 * 32 * 4);
        // The hidden tensor map's argument: the emulator reads the map from the signature.
        vec![Arg::Tensor(a), Arg::Tensor(b), Arg::Tensor(a)]
    });
    assert_says(
        &fault,
        &[
            "phase parity 0 of the mbarrier",
            "no thread of the block can complete",
        ],
    );
}

#[test]
fn an_arrival_on_an_exited_peer_of_the_cluster_is_reported() {
    let fault = planted_output("cluster_exit_without_wait.cuk", 2 * 4);
    assert_starts(
        &fault,
        "an arrival on an mbarrier of block (1, 0, 0), which has exited",
    );
    assert_eq!(fault.location.unwrap().block, [0, 0, 0]);
}

#[test]
fn a_cluster_barrier_one_warp_skips_is_never_released() {
    let fault = planted_output("cluster_barrier_skipped.cuk", 128 * 4);
    assert_starts(
        &fault,
        "a cluster barrier wait that thread (0, 0, 0) of block (1, 0, 0) never arrives at (it has exited, after 0 of the 1 arrivals)",
    );
}

#[test]
fn tensor_memory_still_allocated_at_exit_is_reported_at_its_allocation() {
    let fault = planted("tmem_not_freed.cuk", |device| {
        vec![Arg::Int(0), Arg::Tensor(device.empty(4))]
    });
    assert_starts(
        &fault,
        "64 columns of tensor memory (from column 0) allocated here and not freed",
    );
}

#[test]
fn an_allocation_after_the_permit_is_relinquished_is_reported() {
    let fault = planted_output("tmem_alloc_after_relinquish.cuk", 4);
    assert_says(
        &fault,
        &[
            "after the block relinquished its permit",
            "thread (32, 0, 0)",
        ],
    );
}

#[test]
fn an_allocation_beyond_the_blocks_columns_is_reported() {
    let fault = planted("tmem_over_allocation.cuk", |device| {
        vec![Arg::Int(2), Arg::Tensor(device.empty(8))]
    });
    assert_says(
        &fault,
        &["512 columns while 512 of the block's 512 are allocated"],
    );
}

#[test]
fn a_warp_loading_another_warps_lanes_is_reported() {
    let fault = planted("tmem_load_outside_quadrant.cuk", |device| {
        vec![Arg::Int(0), Arg::Tensor(device.empty(64 * 4))]
    });
    assert_starts(&fault, "warp 1 moves tensor-memory lanes 0 to 31");
}

#[test]
fn a_pair_mma_from_the_odd_block_is_reported() {
    let fault = planted_output("pair_mma_from_odd_block.cuk", 4);
    assert_says(&fault, &["issued by block 1 of a cluster of 2"]);
}

#[test]
fn a_tile_written_again_before_its_tma_store_is_waited_for_is_a_race() {
    let fault = planted("tma_store_tile_overwritten.cuk", |device| {
        let out = device.empty(128 * 64 * 4);
        // The hidden tensor map's argument: the emulator reads the map from the signature.
        vec![Arg::Int(64), Arg::Tensor(out), Arg::Tensor(out)]
    });
    assert_says(
        &fault,
        &["which a TMA store of thread (0, 0, 0) may still be reading"],
    );
}

#[test]
fn a_block_exiting_before_its_tma_store_is_waited_for_is_reported_at_the_store() {
    let fault = planted("tma_store_without_wait.cuk", |device| {
        let out = device.empty(64 * 64 * 4);
        vec![Arg::Int(64), Arg::Tensor(out), Arg::Tensor(out)]
    });
    assert_eq!(fault.kind, FaultKind::StoreOutlivesBlock);
    assert_eq!(fault.location.unwrap().thread, [0, 0, 0]);
}
