//! The interpreter on host-only blocks (no GPU needed): arithmetic, consts, tensor
//! creation and reference operations, `assert_close` reports, control flow, and errors
//! that must be messages, not panics.

use crate::harness::{BlockKind, Event, Outcome, Selection, Summary, run_blocks};

fn run(source: &str, selection: &Selection) -> (Summary, Vec<Event>) {
    let (module, diagnostics) = grammar::parse(source);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    // What the checker found for host code (the blocks here need not check clean:
    // the interpreter must fail them with messages on its own).
    let host = typecheck::check(&module, cute::Target::Sm90a).host;
    let mut events = Vec::new();
    let summary = run_blocks(&module, &host, &[], selection, &mut |event| {
        events.push(event)
    });
    (summary, events)
}

fn outcome(source: &str) -> Outcome {
    let (_, events) = run(source, &Selection::all());
    assert_eq!(events.len(), 1, "{events:?}");
    events[0].outcome.clone()
}

fn failure(source: &str) -> String {
    match outcome(source) {
        Outcome::Failed { message, .. } => message,
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn host_reference_operations() {
    let outcome = outcome(
        "const ROWS: int = 2;
        const COLUMNS: int = ROWS * 3;
        test algebra {
            let a = arange(f32, (ROWS, COLUMNS));
            let b = ones(f32, (ROWS, COLUMNS));
            assert_close(a + b - b, a, rtol = 0.0, atol = 0.0);
            assert_close(a * 2 / 2.0, a, rtol = 0.0, atol = 0.0);
            assert_close(-a, a * -1, rtol = 0.0, atol = 0.0);
            assert_close(transpose(transpose(a)), a, rtol = 0.0, atol = 0.0);
            // Row i of a holds 6i .. 6i + 5, so times a column of ones it is 15 + 36i.
            let row_sums = transpose(full(f32, (1, ROWS), 15.0) + arange(f32, (1, ROWS)) * 36);
            assert_close(matmul(a, ones(f32, (COLUMNS, 1))), row_sums, rtol = 0.0, atol = 0.0);
        }",
    );
    assert_eq!(outcome, Outcome::Passed);
}

#[test]
fn sums_softmax_and_row_sums() {
    let outcome = outcome(
        "test reductions {
            let a = arange(f64, (2, 3));
            assert_close(sum(a, 1), full(f64, 2, 3.0) + arange(f64, 2) * 9, rtol = 0.0, atol = 0.0);
            assert_close(sum(softmax(a)), ones(f64, 2), atol = 1e-12);
            let rows = matmul(a, ones(f64, (3, 1)));
            assert_close(transpose(rows), transpose(matmul(a, ones(f64, (3, 1)))), rtol = 0.0, atol = 0.0);
        }",
    );
    assert_eq!(outcome, Outcome::Passed);
}

#[test]
fn consts_are_the_values_the_checker_evaluated() {
    // A tuple pattern, a dtype, a float and a shape: each read from the checker's
    // values, not evaluated again.
    let outcome = outcome(
        "const (ROWS, COLUMNS) = (2, 3);
        const T = f64;
        const SCALE = 0.5;
        const SHAPE = (ROWS, COLUMNS);
        test consts {
            let a = ones(T, SHAPE);
            assert_close(a * SCALE, full(f64, (2, 3), 0.5), rtol = 0.0, atol = 0.0);
            assert_close(sum(a, 1), full(T, ROWS, 3.0), rtol = 0.0, atol = 0.0);
        }",
    );
    assert_eq!(outcome, Outcome::Passed);
}

#[test]
fn integer_arithmetic_loops_and_conditions() {
    let outcome = outcome(
        "const K: int = 1 << 4;
        test loops {
            let mut total = 0;
            for i in 0..K {
                if i % 2 == 0 { continue; }
                total += i;
            }
            let mut n = 0;
            while true {
                n = n + 1;
                if n >= ceil_div(total, 8) { break; }
            }
            // 1 + 3 + ... + 15 = 64; ceil_div(64, 8) = 8.
            assert_close(full(i32, 1, n), full(i32, 1, 8));
            assert_close(full(i64, 1, total), full(i64, 1, min(64, max(0, 100))));
        }",
    );
    assert_eq!(outcome, Outcome::Passed);
}

#[test]
fn a_failed_assert_close_names_the_worst_element() {
    let message = failure(
        "test mismatch {
            let a = arange(f32, (4, 8));
            let b = a + 0.5;
            assert_close(a, b, rtol = 0.0, atol = 0.25);
        }",
    );
    assert!(
        message.starts_with("assert_close: 32 of 32 elements differ"),
        "{message}"
    );
    assert!(
        message.contains("worst at (0, 0): actual 0, expected 0.5"),
        "{message}"
    );
}

#[test]
fn empty_tensors_are_poisoned() {
    let message = failure(
        "test unwritten {
            let out = empty(bf16, (3, 5));
            assert_close(out, zeros(bf16, (3, 5)), atol = 1000.0);
        }",
    );
    assert!(message.contains("15 of 15 elements differ"), "{message}");
    assert!(message.contains("actual NaN"), "{message}");
    assert!(message.contains("was this element written?"), "{message}");
}

#[test]
fn random_data_is_the_same_every_run_and_differs_between_tensors() {
    let source = "test draws {
        let a = randn(f32, (64, 64));
        let b = randn(f32, (64, 64));
        assert_close(a, b, rtol = 0.0, atol = 0.0);
    }";
    let first = failure(source);
    assert_eq!(first, failure(source));
    assert!(first.contains("4096 of 4096"), "{first}");
}

#[test]
fn training_references_and_their_tuples() {
    // A row of ones has mean square 1, so RMSNorm gives the weights; LayerNorm of a row
    // of equal values is its bias; a tuple result binds to a pattern.
    let outcome = outcome(
        "test references {
            let x = ones(f64, (3, 4));
            let w = arange(f64, 4);
            let rows_of_w = matmul(ones(f64, (3, 1)), arange(f64, (1, 4)));
            assert_close(rms_norm(x, w, 0.0), rows_of_w, rtol = 0.0, atol = 0.0);
            let (dx, dw) = rms_norm_backward(x, w, x, 0.0);
            assert_close(dw, full(f64, 4, 3.0), rtol = 0.0, atol = 1e-12);
            let (lx, lw, lb) = layer_norm_backward(arange(f64, (3, 4)), w, x, 1e-5);
            assert_close(lb, full(f64, 4, 3.0), rtol = 0.0, atol = 1e-12);
            assert_close(layer_norm(x * 5, w, w, 1e-5), rows_of_w, rtol = 0.0, atol = 0.0);
            let y = softmax(arange(f64, (2, 3)));
            assert_close(softmax_backward(y, ones(f64, (2, 3))), zeros(f64, (2, 3)), atol = 1e-12);
            let (loss, dlogits) = cross_entropy(zeros(f64, (2, 4)), arange(i32, 2), 1, 0.0);
            assert_close(loss, full(f32, 2, 1.3862944) - arange(f32, 2) * 1.3862944, rtol = 1e-6);
            assert_close(sum(dlogits), zeros(f64, 2), atol = 1e-12);
        }",
    );
    assert_eq!(outcome, Outcome::Passed);
    let bad_label = failure(
        "test t { let (l, d) = cross_entropy(zeros(f32, (2, 4)), arange(i32, 2) * 4, -100, 0.0); }",
    );
    assert!(
        bad_label.contains("label 4 is neither a class of 0..4"),
        "{bad_label}"
    );
    let smoothing = failure(
        "test t { let (l, d) = cross_entropy(zeros(f32, (2, 4)), arange(i32, 2), -100, 2.0); }",
    );
    assert!(smoothing.contains("between 0 and 1"), "{smoothing}");
    let shapes = failure("test t { let y = rms_norm(ones(f32, (2, 4)), ones(f32, 3), 0.0); }");
    assert!(shapes.contains("last extent is x's 4"), "{shapes}");
}

#[test]
fn the_attention_backward_reference_gives_three_gradients() {
    // Zero queries and keys weigh the 4 keys equally: dv = pᵀ do is 3 queries' 1 / 4;
    // with the scores constant, dq and dk are 0. Causal (aligned bottom-right), queries
    // 0, 1 and 2 see 2, 3 and 4 keys: dv's rows are 13/12, 13/12, 7/12 and 3/12, which
    // weighed by the key's index sum to 3 columns of 36/12 (non-causal: 13.5).
    let outcome = outcome(
        "test gradients {
            let q = zeros(f64, (2, 3, 2));
            let k = zeros(f64, (2, 4, 2));
            let v = arange(f64, (2, 4, 3));
            let (dq, dk, dv) = attention_backward(q, k, v, ones(f64, (2, 3, 3)));
            assert_close(dv, full(f64, (2, 4, 3), 0.75), rtol = 0.0, atol = 1e-12);
            assert_close(dq, zeros(f64, (2, 3, 2)), rtol = 0.0, atol = 1e-12);
            assert_close(dk, zeros(f64, (2, 4, 2)), rtol = 0.0, atol = 1e-12);
            let (cq, ck, cv) = attention_backward(q, k, v, ones(f64, (2, 3, 3)), causal = true);
            let by_key = reshape(arange(f64, 4), (4, 1));
            assert_close(sum(sum(cv * by_key)), full(f64, 2, 9.0), rtol = 0.0, atol = 1e-12);
        }",
    );
    assert_eq!(outcome, Outcome::Passed);
    let shapes = failure(
        "test t { let (a, b, c) = attention_backward(zeros(f32, (3, 2)), zeros(f32, (4, 2)), zeros(f32, (4, 2)), zeros(f32, (2, 2))); }",
    );
    assert!(shapes.contains("do (..., heads, queries, dv)"), "{shapes}");
}

#[test]
fn host_code_errors_are_messages_with_spans() {
    let cases = [
        (
            "test t { let a = zeros(f32, (2, 0)); }",
            "extents are positive",
        ),
        ("test t { let x = 1 / 0; }", "division by zero"),
        ("test t { let x = 9223372036854775807 + 1; }", "overflow"),
        ("test t { let x = UNKNOWN; }", "`UNKNOWN` is not a variable"),
        (
            "const L = (2, 3):(3, 1); test t { let x = zeros(f32, L); }",
            "const `L` cannot be used",
        ),
        (
            "const A: int = B; const B: int = A; test t { let x = A; }",
            "const `A` cannot be used in host code: the checker could not evaluate it",
        ),
        (
            "test t { let x = zeros(f32, (2, 2)); let y = x + ones(f32, (3, 3)); }",
            "(2, 2) and (3, 3)",
        ),
        (
            "test t { let x = transpose(ones(f32, 3)); }",
            "matrices (rank 2)",
        ),
        (
            "test t { let x = ones(f32, 3); report bytes = 4; }",
            "belongs in a `bench`",
        ),
        ("test t { let mut i = 0; while true { i += 1; } }", "steps"),
    ];
    for (source, expected) in cases {
        let message = failure(source);
        assert!(message.contains(expected), "{source}: {message}");
    }
    // The span points at the failing expression.
    let source = "test t {\n    let a = 1;\n    let b = a / 0;\n}";
    match outcome(source) {
        Outcome::Failed { span, .. } => assert_eq!(&source[span.range()], "a / 0"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn selection_filters_by_kind_and_name() {
    let source = "
        test first { let a = 1; }
        bench second { let a = 1; }
        test third { let a = zeros(f32, 2); assert_close(a, ones(f32, 2)); }
    ";
    let (summary, events) = run(source, &Selection::tests());
    assert_eq!(
        summary,
        Summary {
            passed: 1,
            failed: 1,
            skipped: 0,
            emulated: 0,
            hung: false,
        }
    );
    assert_eq!(summary.to_string(), "1 passed, 1 failed");
    assert_eq!(
        events
            .iter()
            .map(|event| event.name.as_str())
            .collect::<Vec<_>>(),
        ["first", "third"]
    );
    let (summary, events) = run(source, &Selection::all().with_filter("sec"));
    assert_eq!(summary.passed, 1);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, BlockKind::Bench);
    // A bench without `report` still runs; it measured nothing.
    assert!(matches!(&events[0].outcome, Outcome::Measured(result) if result.metric.is_none()));
}

#[test]
fn a_gpu_only_block_is_skipped_off_the_gpu() {
    let source = "
        test large {
            gpu_only();
            assert_close(zeros(f32, 4), ones(f32, 4));
        }
    ";
    // A block that calls no kernel has no GPU either, so it is skipped everywhere, before
    // the assertion that would fail.
    match outcome(source) {
        Outcome::Skipped(reason) => assert_eq!(
            reason,
            "gpu_only(): the block runs only on a GPU (this block calls no kernel)"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn kernel_calls_without_a_gpu_skip_with_the_reason() {
    let source = "
        kernel touch(n: i32, x: gmem f32[n:1]) launch grid(1) block(32) { }
        test calls_a_kernel {
            let x = zeros(f32, 4);
            touch(4, x);
        }
        test host_only { let x = zeros(f32, 4); }
    ";
    let (summary, events) = run(source, &Selection::all());
    match crate::gpu_status() {
        Err(_) => {
            assert_eq!(
                summary,
                Summary {
                    passed: 1,
                    failed: 0,
                    skipped: 1,
                    emulated: 0,
                    hung: false,
                }
            );
            assert!(
                matches!(&events[0].outcome, Outcome::Skipped(reason) if reason.starts_with("no GPU"))
            );
            assert_eq!(summary.to_string(), "1 passed, 0 failed, 1 skipped");
        }
        // With a GPU, no compiled kernel was given: a clear failure.
        Ok(_) => {
            assert!(
                matches!(&events[0].outcome, Outcome::Failed { message, .. } if message.contains("`touch` was not compiled"))
            );
        }
    }
}

#[test]
fn a_tensor_beyond_available_memory_ends_its_block() {
    let Some(available) = crate::host_memory::available() else {
        eprintln!("SKIP: /proc/meminfo is unreadable");
        return;
    };
    // Twice what is available, counting the f64 copy, yet within MAX_TENSOR_BYTES.
    let count = available / 6;
    if count * 4 > crate::tensor::MAX_TENSOR_BYTES {
        eprintln!("SKIP: this machine has more memory than the 16 GiB cap can exceed");
        return;
    }
    let message = failure(&format!("test t {{ let a = ones(f32, {count}); }}"));
    assert!(
        message.contains("this process may still allocate"),
        "{message}"
    );
}
