//! cuBLAS against the CPU reference, on a GPU: every layout and dtype of [`Gemm`], and a
//! timed reference. Without a GPU, or without cuBLAS, each test says so on stderr and
//! returns.

use std::io::Write;

use super::*;
use crate::compare::{Tolerance, assert_close};
use crate::ops;
use crate::random::{Distribution, fill};
use crate::tensor::{Dense, Tensor};

/// The GPU with cuBLAS open, or `None` after saying why not.
fn gpu_with_blas(test: &str) -> Option<Gpu> {
    let opened = Gpu::open().and_then(|mut gpu| gpu.blas().map(|()| gpu));
    match opened {
        Ok(gpu) => Some(gpu),
        Err(reason) => {
            let _ = writeln!(std::io::stderr(), "skipping {test}: {reason}");
            None
        }
    }
}

/// A random `rows x columns` host tensor.
fn random(dtype: Element, rows: usize, columns: usize, seed: u64) -> Tensor {
    Tensor {
        dtype,
        shape: vec![rows, columns],
        host: Some(fill(dtype, rows * columns, Distribution::Normal, seed)),
        device: None,
    }
}

fn dense(tensor: &Tensor) -> Dense {
    tensor.dense().expect("host data")
}

/// `gemm`'s result read back as a tensor of `dtype`.
fn product(gpu: &mut Gpu, gemm: &Gemm, a: &Tensor, b: &Tensor) -> Dense {
    let upload = |tensor: &Tensor| gpu.upload(tensor.host.as_ref().expect("host data"));
    let (a, b) = (upload(a).unwrap(), upload(b).unwrap());
    let bytes = gpu.gemm(gemm, &a, &b).unwrap();
    dense(&Tensor {
        dtype: gemm.output,
        shape: vec![gemm.m, gemm.n],
        host: Some(bytes),
        device: None,
    })
}

#[test]
fn every_layout_and_dtype_matches_the_cpu_product() {
    let Some(mut gpu) = gpu_with_blas("every_layout_and_dtype_matches_the_cpu_product") else {
        return;
    };
    let (m, k, n) = (70, 130, 50);
    // (inputs, output, tolerance): f32 sums of 130 products of about 1 stay within
    // 1e-4 of the f64 ones; rounding to bf16 may differ by one unit at a tie.
    let cases = [
        (Element::BF16, Element::F32, 1e-4),
        (Element::F16, Element::F32, 1e-4),
        (Element::BF16, Element::BF16, 1.6e-2),
        (Element::F32, Element::F32, 1e-4),
        (Element::F64, Element::F64, 1e-12),
    ];
    for (case, (input, output, tolerance)) in cases.into_iter().enumerate() {
        for (a_transposed, b_transposed) in
            [(false, false), (false, true), (true, false), (true, true)]
        {
            let seed = case as u64 * 4 + u64::from(a_transposed) * 2 + u64::from(b_transposed);
            let gemm = Gemm {
                m,
                n,
                k,
                a_transposed,
                b_transposed,
                input,
                output,
            };
            let (a_rows, a_columns) = gemm.stored_a();
            let (b_rows, b_columns) = gemm.stored_b();
            let a = random(input, a_rows, a_columns, seed);
            let b = random(input, b_rows, b_columns, !seed);
            let logical = |tensor: &Tensor, transposed: bool| {
                let stored = dense(tensor);
                if transposed {
                    ops::transpose(&stored).unwrap()
                } else {
                    stored
                }
            };
            // The CPU product rounds once to its first operand's dtype: the output's.
            let mut a_logical = logical(&a, a_transposed);
            a_logical.dtype = output;
            let expected = ops::matmul(&a_logical, &logical(&b, b_transposed)).unwrap();
            let actual = product(&mut gpu, &gemm, &a, &b);
            let tolerance = Tolerance {
                rtol: tolerance,
                atol: tolerance,
            };
            assert_close(&actual, &expected, tolerance)
                .unwrap_or_else(|report| panic!("{}: {report}", gemm.describe()));
        }
    }
}

#[test]
fn a_bench_reference_is_timed() {
    let Some(mut gpu) = gpu_with_blas("a_bench_reference_is_timed") else {
        return;
    };
    let gemm = Gemm {
        m: 256,
        n: 128,
        k: 64,
        a_transposed: false,
        b_transposed: true,
        input: Element::BF16,
        output: Element::BF16,
    };
    let a = gpu.upload(&vec![0u8; 256 * 64 * 2]).unwrap();
    let b = gpu.upload(&vec![0u8; 128 * 64 * 2]).unwrap();
    let ms = gpu.time_gemm(&gemm, &a, &b, 1, 3).unwrap();
    assert!(ms > 0.0 && ms < 100.0, "{ms}");
    let small = gpu.upload(&[0u8; 2]).unwrap();
    let error = gpu.time_gemm(&gemm, &small, &b, 1, 3).unwrap_err();
    assert!(
        error.to_string().contains("smaller than its shape"),
        "{error}"
    );
}
