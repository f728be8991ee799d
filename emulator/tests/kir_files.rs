//! The hand-written KIR kernels of `tests/kir/` (golden-PTX inputs), emulated: each
//! computes what its comment says, checked against a reference written here.

mod support;

use emulator::FaultKind;
use support::{Arg, Device, assert_close, assert_says, randn};

fn kernel(name: &str) -> kir::Verified {
    let text = std::fs::read_to_string(support::root().join("tests/kir").join(name)).unwrap();
    support::from_kir(&text)
}

#[test]
fn straight_line_code_scales_and_rounds_to_bf16() {
    let n = 1000;
    let values: Vec<f32> = randn(n, 20).iter().map(|v| v.abs()).collect();
    let mut device = Device::default();
    let x = device.f32s(&values);
    let y = device.empty(n * 2);
    device.run(
        &kernel("straight_line.kir"),
        &[Arg::Int(n as i64), Arg::Tensor(x), Arg::Tensor(y)],
    );
    let want: Vec<f32> = values
        .iter()
        .enumerate()
        .map(|(i, v)| if i % 2 == 0 { v.sqrt() } else { v.exp2() })
        .map(|v| half::bf16::from_f32(v).to_f32())
        .collect();
    assert_eq!(device.read_bf16(y, n), want);
}

#[test]
fn branches_yield_their_sides_values() {
    let values = randn(128, 21);
    let n = 100;
    let mut device = Device::default();
    let x = device.f32s(&values);
    let out = device.empty(256 * 4);
    device.run(
        &kernel("if_else.kir"),
        &[Arg::Int(n), Arg::Tensor(x), Arg::Tensor(out)],
    );
    let got = device.read_f32(out, 256);
    for t in 0..128 {
        let (value, flag) = if t < n as usize {
            (values[t], 1.0)
        } else {
            (-1.0, t as f32)
        };
        assert_eq!((got[t], got[t + 128]), (value, flag), "thread {t}");
    }

    let out = device.i32s(&[0]);
    device.run(&kernel("if_without_else.kir"), &[Arg::Tensor(out)]);
    assert_eq!(device.read_i32(out, 1), vec![42]);
}

#[test]
fn loops_carry_their_values() {
    let mut device = Device::default();
    let values: Vec<f32> = (0..128).map(|t| t as f32 * 0.75).collect();
    let x = device.f32s(&values);
    let steps = device.empty(128 * 4);
    device.run(
        &kernel("do_while.kir"),
        &[Arg::Tensor(x), Arg::Tensor(steps)],
    );
    let (halved, counts): (Vec<f32>, Vec<i32>) = values
        .iter()
        .map(|value| {
            let (mut v, mut count) = (*value, 0);
            loop {
                v *= 0.5;
                count += 1;
                if v <= 1.0 {
                    break (v, count);
                }
            }
        })
        .unzip();
    assert_eq!(device.read_f32(x, 128), halved);
    assert_eq!(device.read_i32(steps, 128), counts);

    let n = 37;
    let rows = randn(128 * n, 22);
    let x = device.f32s(&rows);
    let sums = device.empty(128 * 4);
    device.run(
        &kernel("counted_loop.kir"),
        &[Arg::Int(n as i64), Arg::Tensor(x), Arg::Tensor(sums)],
    );
    let want: Vec<f32> = rows.chunks(n).map(|row| row.iter().sum()).collect();
    assert_eq!(device.read_f32(sums, 128), want);

    let out = device.empty(128 * 4);
    device.run(
        &kernel("nested_loops.kir"),
        &[Arg::Int(n as i64), Arg::Tensor(out)],
    );
    let n = n as f32;
    assert_eq!(
        device.read_f32(out, 128),
        vec![3.0 * n * (n - 1.0) + 4.0; 128]
    );

    let out = device.empty(64 * 4);
    device.run(
        &kernel("uniform_branch.kir"),
        &[Arg::Int(3), Arg::Tensor(out)],
    );
    let want: Vec<f32> = (0..64).map(|i| if i < 32 { 16.0 } else { 625.0 }).collect();
    assert_eq!(device.read_f32(out, 64), want);

    let out = device.empty(128 * 4);
    device.run(&kernel("loop_condition_carried.kir"), &[Arg::Tensor(out)]);
    let want: Vec<i32> = (0..128).map(|t| if t < 3 { 4 } else { 1 }).collect();
    assert_eq!(device.read_i32(out, 128), want);

    for (n, want) in [(4, [1.0, 2.0]), (5, [2.0, 1.0])] {
        let out = device.empty(64 * 4);
        device.run(&kernel("swap.kir"), &[Arg::Int(n), Arg::Tensor(out)]);
        assert_eq!(device.read_f32(out, 64), want.repeat(32));
    }
}

#[test]
fn shuffles_sum_a_warp() {
    let values = randn(32, 23);
    let mut device = Device::default();
    let x = device.f32s(&values);
    let total = device.f32s(&[0.5]);
    device.run(
        &kernel("shuffle_reduction.kir"),
        &[Arg::Tensor(x), Arg::Tensor(total)],
    );
    let sum: f32 = values.iter().sum();
    assert_close(&device.read_f32(total, 1), &[sum + 0.5], 1e-5, 1e-5);
}

/// Narrow loads extend each byte or half by the register's signedness, and narrow
/// stores keep its low bits, in global and shared memory.
#[test]
fn narrow_loads_extend_and_narrow_stores_truncate() {
    let bytes: Vec<i8> = (0..128).map(|i| (i * 37 - 128) as i8).collect();
    let halves: Vec<u16> = (0..64).map(|i| (i * 1021 + 30000) as u16).collect();
    let mut device = Device::default();
    let x = device
        .memory
        .allocate(&bytes.iter().map(|byte| *byte as u8).collect::<Vec<_>>());
    let y = device.memory.allocate(
        &halves
            .iter()
            .flat_map(|half| half.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    let out = device.i32s(&[0; 512]);
    let z = device.empty(128);
    device.run(
        &kernel("narrow_memory.kir"),
        &[x, y, out, z].map(Arg::Tensor),
    );
    let got = device.read_i32(out, 512);
    for t in 0..32 {
        let words = &got[16 * t..16 * t + 16];
        let mine = &bytes[4 * t..4 * t + 4];
        let signed: Vec<i32> = mine.iter().map(|byte| i32::from(*byte)).collect();
        let unsigned: Vec<i32> = mine.iter().map(|byte| i32::from(*byte as u8)).collect();
        let (low, high) = (halves[2 * t], halves[2 * t + 1]);
        assert_eq!(&words[0..4], signed.as_slice(), "thread {t}");
        assert_eq!(&words[4..8], unsigned.as_slice(), "thread {t}");
        assert_eq!(
            &words[8..10],
            &[i32::from(low), i32::from(high)],
            "thread {t}"
        );
        assert_eq!(
            &words[10..12],
            &[i32::from(low as i16), i32::from(high as i16)],
            "thread {t}"
        );
        assert_eq!(
            words[12],
            i32::from(low.wrapping_mul(3) as i16),
            "thread {t}"
        );
    }
    let stored = device.memory.read(z, 128).unwrap();
    let want: Vec<u8> = bytes
        .iter()
        .map(|byte| (i32::from(*byte) + 300) as u8)
        .collect();
    assert_eq!(stored, want);
}

/// The atomics kernel adds to shared memory it never initialised: the emulator says so,
/// at the first shared atomic, once the block's threads are done; its global atomics have
/// run by then.
#[test]
fn atomics_update_global_memory_and_find_uninitialized_shared_memory() {
    let mut device = Device::default();
    let counters = device.i32s(&[0, 0, 0, 0]);
    let wide = device.memory.allocate(&0i64.to_le_bytes());
    let floats = device.f32s(&[0.0, 0.0, 0.0, 0.0]);
    let olds = device.empty(256 * 4);
    let kernel = kernel("atomics.kir");
    let args = [counters, wide, floats, olds].map(Arg::Tensor);
    let fault = device.launch(&kernel, &args).unwrap_err();
    assert!(
        matches!(fault.kind, FaultKind::Uninitialized { address: 0, .. }),
        "{fault}"
    );
    // A hand-written kernel's spans are its lines.
    assert_eq!(fault.span.start, 28);
    let sum = (0..128).sum::<i32>();
    assert_eq!(device.read_i32(counters, 4), vec![128, sum, 127, 0]);
    assert_eq!(
        device.memory.read(wide, 8).unwrap(),
        i64::from(sum).to_le_bytes()
    );
    let floats = device.read_f32(floats, 4);
    assert_eq!(&floats[..2], &[sum as f32, 127.0]);
}

#[test]
fn prints_are_each_threads_lines_in_thread_order_as_printf_writes_them() {
    let values: Vec<f32> = (0..64).map(|t| t as f32 * 0.5 - 3.0).collect();
    let mut device = Device::default();
    let x = device.f32s(&values);
    let stats = device.run(&kernel("print.kir"), &[Arg::Tensor(x)]);
    let lines: Vec<&str> = stats.printed.lines().collect();
    assert_eq!(lines.len(), 128);
    assert_eq!(
        lines[0],
        "thread 0 of 64 (100%): x = -3.000000 = -3.000, 0 0 0 false"
    );
    assert_eq!(lines[1], "{braces} and no values");
    assert_eq!(
        lines[126],
        "thread 63 of 64 (100%): x = 28.500000 = 28.500, 3f 3f 63 true"
    );
    for (t, pair) in lines.chunks(2).enumerate() {
        assert!(
            pair[0].starts_with(&format!("thread {t} of 64")),
            "{pair:?}"
        );
        assert_eq!(pair[1], "{braces} and no values");
    }
}

#[test]
fn a_launch_printing_more_than_a_mebibyte_stops_with_e0409() {
    let chatty = support::from_kir(
        "kernel chatty {
  launch grid(64, 1, 1) block(256, 1, 1) smem(0 bytes)
  %0:i32 = thread_idx.x
  %1:i64 = const 0
  %2:i64 = const 1000
  for %3:i64 in %1..%2 {
    print \"thread {} says line {} of a thousand\\n\", %0, %3
    yield
  }
}
",
    );
    let fault = Device::default().launch(&chatty, &[]).unwrap_err();
    assert!(matches!(fault.kind, FaultKind::Unsupported(_)), "{fault}");
    assert_eq!(fault.kind.code(), "E0409");
    assert_says(&fault, &["prints more than 1048576 bytes"]);
}
