//! Several ranks at once (`emulator::run_ranks`): `cuk-examples/allreduce.cuk` on two
//! and four ranks sums every rank's input; its planted bugs (`tests/emulator/allreduce_*`)
//! fault on the rank and line they should: a signal sent with a relaxed add is a
//! cross-device race (E0423) naming both ranks' lines, a signal nobody sends a spin
//! (E0416) on a named rank with every rank's waiting threads listed.

mod support;

use emulator::{Fault, FaultKind, Launch, Options, run_ranks};
use kir::Verified;
use support::{Arg, Device, assert_close, assert_starts, launch_of, lower_file, pick, randn};

const N: usize = 1000;

/// Launches `kernel` (allreduce's signature) on `world` ranks, rank r's input `inputs[r]`;
/// each rank's output, or the fault. The planted bugs keep the example's earlier form,
/// which takes its launch's `epoch` (1 here) after `n`; the example counts it itself.
fn all_reduce(kernel: &Verified, inputs: &[Vec<f32>]) -> Result<Vec<Vec<f32>>, Fault> {
    let mut device = Device::default();
    let world = inputs.len();
    let staging: Vec<u64> = (0..world).map(|_| device.f32s(&[0.0; N])).collect();
    let signals: Vec<u64> = (0..world).map(|_| device.i32s(&[0; 16])).collect();
    let outs: Vec<u64> = (0..world).map(|_| device.empty(N * 4)).collect();
    let table = |device: &mut Device, addresses: &[u64]| {
        let bytes: Vec<u8> = addresses.iter().flat_map(|a| a.to_le_bytes()).collect();
        device.memory.allocate(&bytes)
    };
    let staging_table = table(&mut device, &staging);
    let signals_table = table(&mut device, &signals);
    let takes_epoch = (kernel.signature.params.iter()).any(|param| param.name == "epoch");
    let launches: Vec<Launch> = (0..world)
        .map(|rank| {
            let x = device.f32s(&inputs[rank]);
            let mut args = vec![Arg::Int(N as i64)];
            if takes_epoch {
                args.push(Arg::Int(1));
            }
            args.extend([
                Arg::Tensor(x),
                Arg::Tensor(staging[rank]),
                Arg::Tensor(signals[rank]),
                Arg::Tensor(outs[rank]),
                Arg::Int(rank as i64),
                Arg::Int(world as i64),
                Arg::Tensor(staging_table),
                Arg::Tensor(signals_table),
            ]);
            launch_of(kernel, &args)
        })
        .collect();
    run_ranks(kernel, &launches, &mut device.memory, &Options::default())?;
    Ok(outs.iter().map(|out| device.read_f32(*out, N)).collect())
}

fn kernel_of(path: &str) -> Verified {
    let kernels = lower_file(path);
    pick(&kernels, "allreduce", &[]).clone()
}

#[test]
fn every_rank_gets_the_sum_of_every_rank_s_input() {
    let kernel = kernel_of("cuk-examples/allreduce.cuk");
    for world in [2, 4] {
        let inputs: Vec<Vec<f32>> = (0..world).map(|rank| randn(N, rank as u64 + 7)).collect();
        let want: Vec<f32> = (0..N)
            .map(|i| inputs.iter().map(|input| input[i]).sum())
            .collect();
        let outs = all_reduce(&kernel, &inputs).unwrap();
        for out in outs {
            assert_close(&out, &want, 1e-6, 1e-6);
        }
    }
}

#[test]
fn a_signal_without_release_is_a_cross_device_race_on_a_named_rank() {
    let kernel = kernel_of("tests/emulator/allreduce_without_release.cuk");
    let inputs = vec![randn(N, 1), randn(N, 2)];
    let fault = all_reduce(&kernel, &inputs).unwrap_err();
    let FaultKind::OnRank {
        rank,
        world,
        fault: inner,
    } = &fault.kind
    else {
        panic!("{fault}");
    };
    assert_eq!((*rank, *world), (0, 2), "{fault}");
    let FaultKind::CrossRankRace {
        other_rank,
        other_write,
        ..
    } = **inner
    else {
        panic!("{fault}");
    };
    assert_eq!((other_rank, other_write), (1, true), "{fault}");
    assert_eq!(fault.kind.code(), "E0423");
    assert_starts(&fault, "on rank 0 of 2: cross-device race");
}

#[test]
fn the_released_signal_orders_the_same_reads() {
    // The same kernel with the release in place (the example) reads the same peer data
    // after the same signal and is not reported: the race is the missing order.
    let kernel = kernel_of("cuk-examples/allreduce.cuk");
    assert!(all_reduce(&kernel, &[randn(N, 1), randn(N, 2)]).is_ok());
}

#[test]
fn a_wait_for_a_signal_nobody_sends_is_a_spin_naming_the_rank_and_every_waiting_rank() {
    let kernel = kernel_of("tests/emulator/allreduce_without_signal.cuk");
    let fault = all_reduce(&kernel, &[randn(N, 1), randn(N, 2)]).unwrap_err();
    assert_eq!(fault.kind.cause(), &FaultKind::Spin, "{fault}");
    let FaultKind::OnRank {
        rank: 0,
        fault: inner,
        ..
    } = &fault.kind
    else {
        panic!("{fault}");
    };
    let FaultKind::Hang { waiting, .. } = &**inner else {
        panic!("{fault}");
    };
    let ranks: Vec<bool> = (0..2)
        .map(|rank| {
            waiting
                .iter()
                .any(|group| group.what.starts_with(&format!("on rank {rank} ")))
        })
        .collect();
    assert_eq!(ranks, [true, true], "{fault}");
}

#[test]
fn ranks_that_launch_different_grids_are_refused() {
    let kernel = kernel_of("cuk-examples/allreduce.cuk");
    let mut device = Device::default();
    let x = device.f32s(&[0.0; N]);
    let args = [
        Arg::Int(N as i64),
        Arg::Int(1),
        Arg::Tensor(x),
        Arg::Tensor(x),
        Arg::Tensor(x),
        Arg::Tensor(x),
        Arg::Int(0),
        Arg::Int(2),
        Arg::Tensor(x),
        Arg::Tensor(x),
    ];
    let first = launch_of(&kernel, &args);
    let second = Launch {
        grid: [2, 1, 1],
        ..first.clone()
    };
    let fault = run_ranks(
        &kernel,
        &[first, second],
        &mut device.memory,
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!(fault.kind.code(), "E0409", "{fault}");
}
