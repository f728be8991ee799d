//! The control-flow tests (`tests/control/`) and the miscompiles once shipped
//! (`tests/miscompiles/`), lowered and emulated: each computes what its host reference,
//! written here in Rust, says.

mod support;

use support::{Arg, Device, assert_close, lower_file, pick, randn};

#[test]
fn row_sums_loop_over_ragged_rows() {
    let kernels = lower_file("tests/control/loops.cuk");
    let kernel = pick(&kernels, "row_sum", &[]);
    for m in [129, 258] {
        let n = 77;
        let values = randn(m * n, 10);
        let mut device = Device::default();
        let x = device.f32s(&values);
        let y = device.empty(m * 4);
        device.run(
            kernel,
            &[
                Arg::Int(m as i64),
                Arg::Int(n as i64),
                Arg::Tensor(x),
                Arg::Tensor(y),
            ],
        );
        let want: Vec<f32> = values.chunks(n).map(|row| row.iter().sum()).collect();
        assert_close(&device.read_f32(y, m), &want, 1e-5, 1e-4);
    }
}

#[test]
fn nested_loops_while_loops_and_stage_indices_compute_their_references() {
    let kernels = lower_file("tests/control/loops.cuk");
    let mut device = Device::default();

    let n = 9;
    let values = randn(n * n, 11);
    let x = device.f32s(&values);
    let out = device.empty(32 * 4);
    device.run(
        pick(&kernels, "triangle_sum", &[]),
        &[Arg::Int(n as i64), Arg::Tensor(x), Arg::Tensor(out)],
    );
    let mut triangle = 0.0f32;
    for i in 0..n {
        for j in 0..=i {
            triangle += values[i * n + j];
        }
    }
    assert_eq!(device.read_f32(out, 32), vec![triangle; 32]);

    let n = 1000;
    let x = device.f32s(&vec![0.37; n]);
    let steps = device.empty(n * 4);
    device.run(
        pick(&kernels, "halvings", &[]),
        &[Arg::Int(n as i64), Arg::Tensor(x), Arg::Tensor(steps)],
    );
    assert_eq!(device.read_i32(steps, n), vec![6; n]);

    let n = 10;
    let values = randn(n, 12);
    let x = device.f32s(&values);
    let y = device.empty(n * 4);
    device.run(
        pick(&kernels, "stages", &[]),
        &[Arg::Int(n as i64), Arg::Tensor(x), Arg::Tensor(y)],
    );
    let scales = [1.0, 2.0, 4.0];
    let want: Vec<f32> = values
        .iter()
        .enumerate()
        .map(|(k, v)| v * scales[k % 3])
        .collect();
    assert_eq!(device.read_f32(y, n), want);
}

#[test]
fn integers_the_symbolic_arithmetic_cannot_express_are_computed() {
    let kernels = lower_file("tests/control/integers.cuk");
    let n = 20;
    let inputs: Vec<i32> = (0..32).map(|t| (t * 7) % 23 - 4).collect();
    let mut device = Device::default();
    let x = device.i32s(&inputs);
    let y = device.empty(32 * 4);
    device.run(
        pick(&kernels, "ints", &[]),
        &[Arg::Int(n), Arg::Tensor(x), Arg::Tensor(y)],
    );
    let want: Vec<i32> = (0..32)
        .map(|t: i32| {
            let a = inputs[t as usize];
            let m = a.min(n as i32 - 3);
            let total: i32 = (0..m.max(0)).map(|k| k >> 1).sum();
            m + (a & 7) + ((t ^ 5) | 1) + total
        })
        .collect();
    assert_eq!(device.read_i32(y, 32), want);
}

#[test]
fn block_and_warp_reductions_sum_rows() {
    let kernels = lower_file("tests/control/reductions.cuk");
    let (m, n) = (37, 1000);
    let values = randn(m * n, 13);
    let mut device = Device::default();
    let x = device.f32s(&values);
    let sums = device.empty(m * 4);
    let maxes = device.empty(m * 4);
    let dims = [Arg::Int(m as i64), Arg::Int(n as i64)];
    device.run(
        pick(&kernels, "row_stats", &[]),
        &[
            dims[0],
            dims[1],
            Arg::Tensor(x),
            Arg::Tensor(sums),
            Arg::Tensor(maxes),
        ],
    );
    let want_sums: Vec<f32> = values.chunks(n).map(|row| row.iter().sum()).collect();
    let want_maxes: Vec<f32> = values
        .chunks(n)
        .map(|row| row.iter().copied().fold(f32::NEG_INFINITY, f32::max))
        .collect();
    assert_close(&device.read_f32(sums, m), &want_sums, 1e-4, 1e-3);
    assert_eq!(device.read_f32(maxes, m), want_maxes);

    // Atomics from every block of a row (blocks run one at a time).
    let (m, n) = (3, 100_000);
    let values = randn(m * n, 14);
    let x = device.f32s(&values);
    let totals = device.f32s(&[0.0; 3]);
    let stats = device.run(
        pick(&kernels, "row_totals", &[]),
        &[
            Arg::Int(m as i64),
            Arg::Int(n as i64),
            Arg::Tensor(x),
            Arg::Tensor(totals),
        ],
    );
    assert!(!stats.parallel);
    let want: Vec<f32> = values.chunks(n).map(|row| row.iter().sum()).collect();
    assert_close(&device.read_f32(totals, m), &want, 1e-3, 1e-2);
}

#[test]
fn a_shuffle_under_a_warp_uniform_branch_pairs_lanes() {
    let source =
        std::fs::read_to_string(support::root().join("tests/control/divergent_shuffle.cuk"))
            .unwrap();
    // The divergent kernel is E0302 at build time; the uniform one runs.
    let start = source.find("kernel shuffle_in_uniform_branch").unwrap();
    let end = (source[start..].find("\n// `t / 2`")).map_or(source.len(), |end| start + end);
    let kernels = support::lower_source(&source[start..end]);
    let values = randn(64, 15);
    let mut device = Device::default();
    let x = device.f32s(&values);
    device.run(
        pick(&kernels, "shuffle_in_uniform_branch", &[]),
        &[Arg::Tensor(x)],
    );
    let want: Vec<f32> = (0..64)
        .map(|t| {
            if t / 32 == 1 {
                values[t] + values[t ^ 1]
            } else {
                values[t]
            }
        })
        .collect();
    assert_eq!(device.read_f32(x, 64), want);
}

#[test]
fn the_miscompiles_compute_the_right_values() {
    let n = 1024usize;
    let mut device = Device::default();
    let values = randn(n, 16);

    let kernels = lower_file("tests/miscompiles/if_const_assignment.cuk");
    let x = device.f32s(&values);
    for (fast, scale) in [("1", 2.0), ("0", 3.0)] {
        let y = device.empty(n * 4);
        let kernel = pick(&kernels, "if_const_assignment", &[("FAST", fast)]);
        device.run(
            kernel,
            &[Arg::Int(n as i64), Arg::Tensor(x), Arg::Tensor(y)],
        );
        let want: Vec<f32> = values.iter().map(|v| v * scale).collect();
        assert_eq!(device.read_f32(y, n), want);
    }

    let kernels = lower_file("tests/miscompiles/load_before_overwrite.cuk");
    let (y, z) = (device.empty(n * 4), device.empty(n * 4));
    let args = [
        Arg::Int(n as i64),
        Arg::Tensor(x),
        Arg::Tensor(y),
        Arg::Tensor(z),
    ];
    device.run(pick(&kernels, "load_before_overwrite", &[]), &args);
    assert_eq!(device.read_f32(y, n), values);
    assert_eq!(device.read_f32(z, n), values);

    let kernels = lower_file("tests/miscompiles/loads_in_static_loop.cuk");
    let idx = device.i32s(&(0..2 * n as i32).collect::<Vec<_>>());
    let y = device.empty(n * 4);
    device.run(
        pick(&kernels, "loads_in_static_loop", &[]),
        &[Arg::Int(n as i64), Arg::Tensor(idx), Arg::Tensor(y)],
    );
    assert_eq!(device.read_i32(y, n), vec![-1; n]);

    let kernels = lower_file("tests/miscompiles/predicated_copy_keeps_registers.cuk");
    let rows = 256;
    let x = device.f32s(&vec![3.0; rows * 4]);
    let kernel = pick(&kernels, "predicated_copy_keeps_registers", &[]);
    for (k, want) in [(0, 7.0), (4, 3.0)] {
        let y = device.empty(rows * 16);
        device.run(
            kernel,
            &[
                Arg::Int(rows as i64),
                Arg::Int(k),
                Arg::Tensor(x),
                Arg::Tensor(y),
            ],
        );
        assert_eq!(device.read_f32(y, rows * 4), vec![want; rows * 4]);
    }
}

#[test]
fn math_functions_compute_what_they_say() {
    let kernels = lower_file("tests/miscompiles/math_functions.cuk");
    let n = 1024usize;
    let mut device = Device::default();
    let x = device.f32s(&vec![-2.0; n]);
    let outputs: Vec<u64> = (0..9).map(|_| device.empty(n * 4)).collect();
    let mut args = vec![Arg::Int(n as i64), Arg::Tensor(x)];
    args.extend(outputs.iter().map(|output| Arg::Tensor(*output)));
    device.run(pick(&kernels, "math_functions", &[]), &args);
    let want = [
        0.0,
        -2.0,
        2.0,
        2f32.sqrt(),
        0.5,
        (-2f32).exp(),
        0.25,
        4f32.ln(),
        2.0,
    ];
    for (output, want) in outputs.iter().zip(want) {
        assert_close(&device.read_f32(*output, n), &vec![want; n], 1e-6, 0.0);
    }
}

#[test]
fn a_kernel_generic_over_its_dtype_fills_each_type() {
    let kernels = lower_file("tests/control/dtype_params.cuk");
    let mut device = Device::default();
    let a = device.empty(1000 * 4);
    device.run(
        pick(&kernels, "fill", &[]),
        &[Arg::Int(1000), Arg::Tensor(a), Arg::F32(2.5)],
    );
    assert_eq!(device.read_f32(a, 1000), vec![2.5; 1000]);
    let b = device.empty(1000 * 2);
    let bf16 = pick(&kernels, "fill", &[("T", "bf16")]);
    device.run(bf16, &[Arg::Int(1000), Arg::Tensor(b), Arg::F32(2.5)]);
    assert_eq!(device.read_bf16(b, 1000), vec![2.5; 1000]);
    let h = device.empty(777 * 2);
    let f16 = pick(&kernels, "fill", &[("T", "f16")]);
    device.run(f16, &[Arg::Int(777), Arg::Tensor(h), Arg::F32(-0.75)]);
    let halves = device.memory.read(h, 777 * 2).unwrap();
    let want = half::f16::from_f32(-0.75).to_le_bytes().repeat(777);
    assert_eq!(halves, want);
}
