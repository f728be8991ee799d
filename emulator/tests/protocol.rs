//! The barrier protocol: the planted bugs of `tests/emulator/` that hang, spin or break
//! an mbarrier's or a named barrier's counts, each reported at once at its line (with
//! every waiting group for a hang), and the kernels that wait correctly, which pass.

mod support;

use emulator::{FaultKind, Options, Waiting};
use support::planted::{planted, planted_output};
use support::{Arg, Device, assert_says, launch_of, lower_source, randn};

/// The arguments of a 16 x 32 f32 TMA copy (its hidden tensor map last).
fn tma_copy(device: &mut Device) -> Vec<Arg> {
    let a = device.f32s(&randn(16 * 32, 41));
    let b = device.empty(16 * 32 * 4);
    vec![Arg::Tensor(a), Arg::Tensor(b), Arg::Tensor(a)]
}

/// The waiting groups of a hang (none for another fault).
fn waiting(kind: &FaultKind) -> &[Waiting] {
    match kind {
        FaultKind::Hang { waiting, .. } => waiting,
        _ => &[],
    }
}

#[test]
fn a_spin_on_a_flag_nothing_sets_is_reported_as_soon_as_no_thread_moves() {
    let fault = planted_output("spin_on_unset_flag.cuk", 128 * 4);
    assert_eq!(fault.kind.cause(), &FaultKind::Spin, "{fault}");
    let groups = waiting(&fault.kind);
    assert_eq!(groups.len(), 1, "{fault}");
    assert_eq!((groups[0].block, groups[0].threads), ([0, 0, 0], (0, 127)));
    assert!(groups[0].what.contains("spin"), "{fault}");
}

#[test]
fn a_spin_whose_values_cycle_is_reported_as_soon_as_no_thread_moves() {
    let fault = planted_output("spin_cycling_on_unset_flag.cuk", 128 * 4);
    assert_eq!(fault.kind.cause(), &FaultKind::Spin, "{fault}");
    let groups = waiting(&fault.kind);
    assert_eq!((groups[0].block, groups[0].threads), ([0, 0, 0], (0, 127)));
}

#[test]
fn a_thread_spinning_until_a_later_thread_sets_its_flag_is_not_reported() {
    // Thread 0 polls a global flag that thread 32 sets after it: the emulator lets the
    // spinning thread wait while the others run, so the loop ends as on a GPU.
    let source = "
kernel handoff(flag: gmem i32[1:1], out: gmem i32[1:1]) launch grid(1) block(64) smem(auto) {
    if thread_idx.x == 0 {
        let mut seen = flag[0];
        while seen == 0 {
            seen = flag[0];
        }
        out[0] = seen;
    }
    if thread_idx.x == 32 {
        flag[0] = 7;
    }
}
";
    let kernels = lower_source(source);
    let mut device = Device::default();
    let flag = device.i32s(&[0]);
    let out = device.empty(4);
    device.run(&kernels[0], &[Arg::Tensor(flag), Arg::Tensor(out)]);
    assert_eq!(device.read_i32(out, 1), vec![7]);
}

#[test]
fn an_expect_tx_above_the_box_hangs_and_the_report_says_what_the_phase_expects() {
    let fault = planted("expect_tx_above_the_box.cuk", tma_copy);
    let groups = waiting(&fault.kind);
    assert_eq!(groups.len(), 1, "{fault}");
    assert_eq!(groups[0].threads, (0, 127));
    assert!(
        groups[0].what.contains("parity 0")
            && groups[0]
                .what
                .contains("0 of its 1 arrivals and 2048 transaction bytes"),
        "{}",
        groups[0].what
    );
}

#[test]
fn an_expect_tx_below_the_box_is_an_over_arrival_at_the_load() {
    let fault = planted("expect_tx_below_the_box.cuk", tma_copy);
    assert_says(
        &fault,
        &["gets 1024 more transaction bytes than its phase 0 expects"],
    );
}

#[test]
fn two_phases_completing_while_a_thread_waits_for_the_first_is_an_overrun() {
    let fault = planted_output("mbarrier_phase_overrun.cuk", 2 * 4);
    assert_says(
        &fault,
        &["completed phases 0 to 1 before the waiting thread could observe"],
    );
}

#[test]
fn two_roles_counting_one_named_barrier_differently_are_reported_at_both() {
    let fault = planted_output("named_barrier_counts_differ.cuk", 256 * 4);
    let FaultKind::NamedBarrierCount {
        count,
        other_count,
        other,
        ..
    } = fault.kind
    else {
        panic!("{fault}");
    };
    assert_eq!((count, other_count, other), (128, 256, [0, 0, 0]));
    assert_eq!(fault.location.unwrap().thread, [128, 0, 0]);
}

#[test]
fn a_spin_stops_long_before_the_instruction_budget() {
    let kernels = support::lower_file("tests/emulator/spin_on_unset_flag.cuk");
    let mut device = Device::default();
    let out = device.empty(128 * 4);
    let launch = launch_of(&kernels[0], &[Arg::Tensor(out)]);
    // Each thread loads the flag a few times, far below this budget.
    let options = Options {
        max_instructions: 100_000,
        ..Options::default()
    };
    let fault = emulator::run(&kernels[0], &launch, &mut device.memory, &options).unwrap_err();
    assert_eq!(fault.kind.cause(), &FaultKind::Spin, "{fault}");
}

#[test]
fn a_spin_polling_with_an_atomic_that_changes_nothing_is_reported() {
    // `atomic_fetch_add(flag, 0, 0)` writes back the value it read: a poll, not a write.
    let source = "
kernel polls(flag: gmem i32[1:1], out: gmem i32[1:1]) launch grid(1) block(32) smem(auto) {
    let mut seen = atomic_fetch_add(flag, 0, 0);
    while seen == 0 {
        seen = atomic_fetch_add(flag, 0, 0);
    }
    out[0] = seen;
}
";
    let kernels = lower_source(source);
    let mut device = Device::default();
    let flag = device.i32s(&[0]);
    let out = device.empty(4);
    let fault = device
        .launch(&kernels[0], &[Arg::Tensor(flag), Arg::Tensor(out)])
        .unwrap_err();
    assert_eq!(fault.kind.cause(), &FaultKind::Spin, "{fault}");
    // With the flag set, the same loop ends.
    let flag = device.i32s(&[3]);
    device.run(&kernels[0], &[Arg::Tensor(flag), Arg::Tensor(out)]);
    assert_eq!(device.read_i32(out, 1), vec![3]);
}
