//! The examples' kernels (`cuk-examples/`), lowered and emulated at their test blocks'
//! sizes (the GEMM at smaller ones), compute what the host references written here in
//! Rust say.

mod support;

use support::{Arg, Device, assert_close, bf16_rounded, lower_file, pick, randn};

/// Copies of an (m, k) bf16 matrix that must come out exact.
fn check_bf16_copy(file: &str, name: &str, consts: &[(&str, &str)], m: usize, k: usize) {
    let kernels = lower_file(file);
    let kernel = pick(&kernels, name, consts);
    let mut device = Device::default();
    let values = bf16_rounded(&randn(m * k, 1));
    let a = device.bf16s(&values);
    let out = device.empty(m * k * 2);
    let (m_arg, k_arg) = (Arg::Int(m as i64), Arg::Int(k as i64));
    device.run(kernel, &[m_arg, k_arg, Arg::Tensor(a), Arg::Tensor(out)]);
    assert_eq!(device.read_bf16(out, m * k), values, "{name} {consts:?}");
}

#[test]
fn the_copies_are_exact() {
    check_bf16_copy("cuk-examples/copy_basic.cuk", "copy_basic", &[], 512, 256);
    check_bf16_copy(
        "cuk-examples/copy_vectorized.cuk",
        "copy_vectorized",
        &[],
        512,
        256,
    );
    check_bf16_copy(
        "cuk-examples/copy_cp_async.cuk",
        "copy_cp_async",
        &[],
        512,
        256,
    );
    let swizzled = "cuk-examples/copy_swizzled_smem.cuk";
    check_bf16_copy(swizzled, "copy_swizzled_smem", &[], 512, 256);
    check_bf16_copy(
        swizzled,
        "copy_swizzled_smem",
        &[("SWIZZLE_BITS", "0")],
        512,
        256,
    );
    for name in ["copy_manual", "copy_flat_divide", "copy_tv", "copy_tiled"] {
        check_bf16_copy("cuk-examples/copy_four_ways.cuk", name, &[], 256, 1024);
    }
}

#[test]
fn transposes_through_shared_memory_are_exact() {
    let kernels = lower_file("cuk-examples/transpose_smem.cuk");
    let (m, n) = (256, 512);
    let values = randn(m * n, 2);
    let transposed = |values: &[f32]| {
        let mut out = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                out[j * m + i] = values[i * n + j];
            }
        }
        out
    };
    let mut device = Device::default();
    let dims = [Arg::Int(m as i64), Arg::Int(n as i64)];
    let a = device.f32s(&values);
    let out = device.empty(m * n * 4);
    let kernel = pick(&kernels, "transpose_smem", &[]);
    device.run(
        kernel,
        &[dims[0], dims[1], Arg::Tensor(a), Arg::Tensor(out)],
    );
    assert_eq!(device.read_f32(out, m * n), transposed(&values));

    let values = bf16_rounded(&values);
    let a = device.bf16s(&values);
    let out = device.empty(m * n * 2);
    let kernel = pick(&kernels, "transpose_smem_bf16", &[]);
    device.run(
        kernel,
        &[dims[0], dims[1], Arg::Tensor(a), Arg::Tensor(out)],
    );
    assert_eq!(device.read_bf16(out, m * n), transposed(&values));
}

#[test]
fn elementwise_add_adds_on_full_and_ragged_shapes() {
    let kernels = lower_file("cuk-examples/elementwise_add.cuk");
    let kernel = pick(&kernels, "elementwise_add", &[]);
    for (m, n) in [(1024, 512), (1000, 500)] {
        let (a_values, b_values) = (randn(m * n, 3), randn(m * n, 4));
        let mut device = Device::default();
        let a = device.f32s(&a_values);
        let b = device.f32s(&b_values);
        let c = device.empty(m * n * 4);
        let (m_arg, n_arg) = (Arg::Int(m as i64), Arg::Int(n as i64));
        let tensors = [Arg::Tensor(a), Arg::Tensor(b), Arg::Tensor(c)];
        device.run(kernel, &[m_arg, n_arg, tensors[0], tensors[1], tensors[2]]);
        let sums: Vec<f32> = a_values.iter().zip(&b_values).map(|(a, b)| a + b).collect();
        assert_eq!(device.read_f32(c, m * n), sums);
    }
}

/// Each row's sum and largest value, in f64.
fn row_stats(values: &[f32], n: usize) -> (Vec<f32>, Vec<f32>) {
    values
        .chunks(n)
        .map(|row| {
            let sum: f64 = row.iter().map(|value| f64::from(*value)).sum();
            let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (sum as f32, max)
        })
        .unzip()
}

#[test]
fn row_reduce_sums_and_maxes_rows() {
    let kernels = lower_file("cuk-examples/row_reduce.cuk");
    let kernel = pick(&kernels, "row_reduce", &[]);
    for (m, n) in [(256, 8192), (77, 1000)] {
        let values = randn(m * n, 5);
        let mut device = Device::default();
        let x = device.f32s(&values);
        let sums = device.empty(m * 4);
        let maxes = device.empty(m * 4);
        let (m_arg, n_arg) = (Arg::Int(m as i64), Arg::Int(n as i64));
        device.run(
            kernel,
            &[
                m_arg,
                n_arg,
                Arg::Tensor(x),
                Arg::Tensor(sums),
                Arg::Tensor(maxes),
            ],
        );
        let (want_sums, want_maxes) = row_stats(&values, n);
        assert_close(&device.read_f32(sums, m), &want_sums, 1e-4, 1e-3);
        assert_eq!(device.read_f32(maxes, m), want_maxes);
    }
}

#[test]
fn softmax_normalises_rows() {
    let kernels = lower_file("cuk-examples/softmax.cuk");
    let kernel = pick(&kernels, "row_softmax", &[]);
    for (m, n) in [(64, 8192), (37, 1000)] {
        let values = bf16_rounded(&randn(m * n, 6));
        let mut device = Device::default();
        let x = device.bf16s(&values);
        let y = device.empty(m * n * 2);
        let (m_arg, n_arg) = (Arg::Int(m as i64), Arg::Int(n as i64));
        device.run(kernel, &[m_arg, n_arg, Arg::Tensor(x), Arg::Tensor(y)]);
        let mut want = Vec::with_capacity(m * n);
        for row in values.chunks(n) {
            let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let exps: Vec<f64> = row.iter().map(|v| f64::from(v - max).exp()).collect();
            let total: f64 = exps.iter().sum();
            want.extend(exps.iter().map(|e| (e / total) as f32));
        }
        assert_close(&device.read_bf16(y, m * n), &want, 2e-2, 1e-4);
    }
}

#[test]
fn axpy_scales_and_adds_with_a_float_parameter() {
    let kernels = lower_file("cuk-examples/axpy.cuk");
    let kernel = pick(&kernels, "axpy", &[]);
    for (n, alpha) in [(1_048_576, 2.5f32), (1_000_004, -0.75)] {
        let (x_values, y_values) = (randn(n, 7), randn(n, 8));
        let mut device = Device::default();
        let x = device.f32s(&x_values);
        let y = device.f32s(&y_values);
        let args = [
            Arg::Int(n as i64),
            Arg::F32(alpha),
            Arg::Tensor(x),
            Arg::Tensor(y),
        ];
        device.run(kernel, &args);
        let want: Vec<f32> = x_values
            .iter()
            .zip(&y_values)
            .map(|(x, y)| x * alpha + y)
            .collect();
        // `mul.rn` then `add.rn`: two roundings, never contracted to an fma.
        assert_eq!(device.read_f32(y, n), want);
    }
}

#[test]
fn the_sm80_gemm_multiplies_ragged_matrices() {
    let kernels = lower_file("cuk-examples/gemm_sm80.cuk");
    let kernel = pick(&kernels, "gemm_tn", &[]);
    // Two blocks by two, every edge ragged, four k-tiles: the pipeline fills and drains.
    let (m, n, k) = (200, 136, 200);
    let (a_values, b_values) = (
        bf16_rounded(&randn(m * k, 9)),
        bf16_rounded(&randn(n * k, 10)),
    );
    let mut device = Device::default();
    let a = device.bf16s(&a_values);
    let b = device.bf16s(&b_values);
    let c = device.empty(m * n * 2);
    let dims = [m, n, k].map(|dim| Arg::Int(dim as i64));
    let tensors = [a, b, c].map(Arg::Tensor);
    device.run(
        kernel,
        &[
            dims[0], dims[1], dims[2], tensors[0], tensors[1], tensors[2],
        ],
    );
    let mut want = Vec::with_capacity(m * n);
    for row in a_values.chunks(k) {
        for column in b_values.chunks(k) {
            let dot: f64 = row
                .iter()
                .zip(column)
                .map(|(x, y)| f64::from(*x) * f64::from(*y))
                .sum();
            want.push(dot as f32);
        }
    }
    // One rounding to bf16 (8 significant bits) of an f32 sum.
    assert_close(&device.read_bf16(c, m * n), &want, 1e-2, 1e-2);
}
