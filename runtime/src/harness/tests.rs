//! How a bench's reported amounts are ordered and shown.

use super::*;

#[test]
fn the_reference_decides_which_amount_leads() {
    let both = vec![Metric::Bytes(4_000_000), Metric::Flops(2_000_000_000)];
    assert_eq!(
        Metric::lead(both.clone(), Some("cublas")),
        (
            Some(Metric::Flops(2_000_000_000)),
            Some(Metric::Bytes(4_000_000))
        )
    );
    assert_eq!(
        Metric::lead(both.iter().rev().copied().collect(), Some("memcpy")),
        (
            Some(Metric::Bytes(4_000_000)),
            Some(Metric::Flops(2_000_000_000))
        )
    );
    assert_eq!(
        Metric::lead(both, None),
        (
            Some(Metric::Bytes(4_000_000)),
            Some(Metric::Flops(2_000_000_000))
        )
    );
    assert_eq!(Metric::lead(Vec::new(), Some("cublas")), (None, None));
}

#[test]
fn both_rates_are_shown() {
    let result = BenchResult {
        kernel_ms: 0.002,
        metric: Some(Metric::Flops(2_000_000_000)),
        also: Some(Metric::Bytes(4_000_000)),
        reference: Some(Reference {
            name: "cuBLAS".to_owned(),
            ms: 0.004,
        }),
        note: None,
    };
    assert_eq!(
        result.to_string(),
        "0.0020 ms, 1000.0 TFLOP/s, 2000.0 GB/s; cuBLAS 500.0 TFLOP/s (0.0040 ms); 200.0% of cuBLAS"
    );
}
