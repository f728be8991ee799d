//! Test blocks whose kernels are compiled for the emulator ([`Image::Kir`]) run there on
//! any machine, marshalled as for the GPU; a fault fails its block with its diagnostic
//! (code, the kernel's lines, the call); benches are skipped.

use runtime::{BlockKind, CompiledKernel, Event, Image, Outcome, Selection, Summary, run_blocks};

/// Runs every block of `source`, its kernels lowered for the emulator.
fn run(source: &str) -> (Summary, Vec<Event>) {
    let (module, errors) = grammar::parse(source);
    assert!(errors.is_empty(), "{errors:?}");
    let (host, lowered) = typecheck::trace(&module, cute::Target::Sm90a, |analysis, traces| {
        (
            analysis.host,
            lower::lower_traces(analysis.diagnostics, &traces),
        )
    });
    assert!(!lowered.has_errors(), "{:?}", lowered.diagnostics);
    let kernels: Vec<CompiledKernel> = lowered
        .kernels
        .into_iter()
        .map(|kernel| CompiledKernel {
            signature: kernel.signature.clone(),
            image: Image::Kir(Box::new(kernel)),
        })
        .collect();
    let mut events = Vec::new();
    let summary = run_blocks(&module, &host, &kernels, &Selection::all(), &mut |event| {
        events.push(event)
    });
    (summary, events)
}

const SCALE: &str = "
kernel scale(n: i32, alpha: f32, x: gmem f32[n:1], y: gmem f32[n:1])
    launch grid(ceil_div(n, 128)) block(128)
{
    let i = block_idx.x * 128 + thread_idx.x;
    if i < n {
        y[i] = x[i] * alpha;
    }
}
";

#[test]
fn kernels_compiled_for_the_emulator_run_there_and_benches_are_skipped() {
    let source = format!(
        "{SCALE}
        test scales {{
            let x = randn(f32, 1000);
            let y = empty(f32, 1000);
            scale(1000, 1.5, x, y);
            assert_close(y, x * 1.5, rtol = 0.0, atol = 0.0);
        }}
        test wrong_values_fail {{
            let x = randn(f32, 1000);
            let y = empty(f32, 1000);
            scale(1000, 1.5, x, y);
            assert_close(y, x * 2.5, rtol = 1e-6);
        }}
        test host_only {{ let a = ones(f32, 4); }}
        bench scale_bandwidth {{
            let x = randn(f32, 1000);
            let y = empty(f32, 1000);
            scale(1000, 1.5, x, y);
        }}"
    );
    let (summary, events) = run(&source);
    let outcomes: Vec<&Outcome> = events.iter().map(|event| &event.outcome).collect();
    assert_eq!(outcomes[0], &Outcome::Passed);
    let work = events[0].emulated.unwrap();
    assert_eq!(work.launches, 1);
    assert!(work.instructions > 1000, "{work:?}");
    assert!(
        matches!(outcomes[1], Outcome::Failed { message, diagnostic: None, .. } if message.starts_with("assert_close"))
    );
    assert_eq!((outcomes[2], events[2].emulated), (&Outcome::Passed, None));
    assert_eq!(events[3].kind, BlockKind::Bench);
    assert!(
        matches!(outcomes[3], Outcome::Skipped(reason) if reason.contains("benches are not emulated"))
    );
    let expected = Summary {
        passed: 2,
        failed: 1,
        skipped: 1,
        emulated: 2,
        hung: false,
    };
    assert_eq!(summary, expected);
    assert_eq!(
        summary.to_string(),
        "2 passed, 1 failed, 1 skipped (2 blocks emulated)"
    );
}

#[test]
fn a_fault_fails_its_block_with_the_diagnostic() {
    let source = "
        kernel racy(x: gmem f32[64:1]) launch grid(1) block(64) smem(auto) {
            let s = smem f32[64:1];
            s[thread_idx.x] = x[thread_idx.x];
            x[thread_idx.x] = s[63 - thread_idx.x];
        }
        test racy_is_reported {
            let x = randn(f32, 64);
            racy(x);
        }";
    let (summary, events) = run(source);
    assert_eq!((summary.failed, summary.emulated), (1, 1));
    let Outcome::Failed {
        message,
        span,
        diagnostic: Some(diagnostic),
    } = &events[0].outcome
    else {
        panic!("{:?}", events[0].outcome);
    };
    assert!(
        message.starts_with("`racy` on the emulator: error[E0404]: data race in shared memory"),
        "{message}"
    );
    assert_eq!(&source[span.range()], "racy(x)");
    assert_eq!(diagnostic.code, "E0404");
    let labelled: Vec<&str> = diagnostic
        .labels()
        .map(|label| source[label.span.range()].trim())
        .collect();
    assert_eq!(labelled.len(), 3, "{labelled:?}");
    assert_eq!(labelled[2], "racy(x)");
}

#[test]
fn a_launch_runs_the_instantiation_the_checker_found_with_defaults_evaluated_there() {
    // N's default reads a module const and M: the interpreter evaluates neither, it
    // takes the instantiation the checker checked for each launch's given arguments.
    let source = "
        const BASE: int = 2;
        kernel fill<const M: int = BASE, const N: int = M * 4>(y: gmem f32[4:1])
            launch grid(1) block(4)
        {
            y[thread_idx.x] = (N + thread_idx.x).to(f32);
        }
        test defaults {
            let y = empty(f32, 4);
            fill(y);
            assert_close(y, arange(f32, 4) + 8, rtol = 0.0, atol = 0.0);
        }
        test one_given {
            let y = empty(f32, 4);
            fill(y, M = 5);
            assert_close(y, arange(f32, 4) + 20, rtol = 0.0, atol = 0.0);
        }
        test both_given {
            let y = empty(f32, 4);
            fill(y, N = 3, M = 5);
            assert_close(y, arange(f32, 4) + 3, rtol = 0.0, atol = 0.0);
        }";
    let (summary, events) = run(source);
    for event in &events {
        assert_eq!(event.outcome, Outcome::Passed, "{}", event.name);
    }
    assert_eq!(summary.passed, 3);
}

#[test]
fn host_references_reshape_and_broadcast_block_scales() {
    // A kernel that scales each 4-element block of a row by its own factor, against the
    // reference that reshapes rows into blocks and broadcasts the factors over them.
    let source = "
        kernel block_scale(x: gmem f32[(2, 8):(8, 1)], s: gmem f32[(2, 2):(2, 1)], y: gmem f32[(2, 8):(8, 1)])
            launch grid(1) block(16)
        {
            let r = thread_idx.x / 8;
            let c = thread_idx.x % 8;
            y[r, c] = x[r, c] * s[r, c / 4];
        }
        test blocks_match {
            let x = randn(f32, (2, 8));
            let s = randn(f32, (2, 2));
            let y = empty(f32, (2, 8));
            block_scale(x, s, y);
            let expected = reshape(reshape(x, (2, 2, 4)) * reshape(s, (2, 2, 1)), (2, 8));
            assert_close(y, expected, rtol = 0.0, atol = 0.0);
        }
        test transposed_scales_differ {
            let x = randn(f32, (2, 8));
            let s = randn(f32, (2, 2));
            let y = empty(f32, (2, 8));
            block_scale(x, s, y);
            let swapped = reshape(reshape(x, (2, 2, 4)) * reshape(transpose(s), (2, 2, 1)), (2, 8));
            assert_close(y, swapped, rtol = 1e-6);
        }";
    first_passes_second_fails_by_its_values(source);
}

#[test]
fn host_references_read_like_numpy() {
    // Each row's maximum, its exponentials shifted by it, and its running sums, against
    // references built from `max`, `exp`, `reshape` and `cumsum`; the rearrangements
    // undo each other; a reference of the wrong reduction fails.
    let source = "
        kernel row_parts(x: gmem f32[(4, 32):(32, 1)], m: gmem f32[4:1], e: gmem f32[(4, 32):(32, 1)], c: gmem f32[(4, 32):(32, 1)])
            launch grid(1) block(4)
        {
            let r = thread_idx.x;
            let mut best: f32 = x[r, 0];
            for j in 0..32 {
                best = max(best, x[r, j]);
            }
            m[r] = best;
            let mut total: f32 = 0.0;
            for j in 0..32 {
                e[r, j] = exp(x[r, j] - best);
                total = total + x[r, j];
                c[r, j] = total;
            }
        }
        test rows_match {
            let x = randn(f32, (4, 32));
            let m = empty(f32, 4);
            let e = empty(f32, (4, 32));
            let c = empty(f32, (4, 32));
            row_parts(x, m, e, c);
            assert_close(m, max(x, 1), rtol = 0.0, atol = 0.0);
            assert_close(e, exp(x - reshape(max(x), (4, 1))), rtol = 1e-5, atol = 1e-6);
            assert_close(c, cumsum(x), rtol = 1e-5, atol = 1e-5);
            assert_close(concat(slice(x, 1, 0, 5), slice(x, 1, 5, 32), 1), x, rtol = 0.0, atol = 0.0);
            assert_close(permute(x, (1, 0)), transpose(x), rtol = 0.0, atol = 0.0);
            assert_close(maximum(x, minimum(x, full(f32, 1, 0.0))), x, rtol = 0.0, atol = 0.0);
            assert_close(if_else(x > 0.0, x, 0.0), maximum(x, zeros(f32, 1)), rtol = 0.0, atol = 0.0);
            assert_close(sum((x == reshape(max(x), (4, 1))).to(f32)), full(f32, 4, 1.0), rtol = 0.0, atol = 0.0);
        }
        test the_minimum_is_not_the_maximum {
            let x = randn(f32, (4, 32));
            let m = empty(f32, 4);
            let e = empty(f32, (4, 32));
            let c = empty(f32, (4, 32));
            row_parts(x, m, e, c);
            assert_close(m, min(x, 1), rtol = 1e-3);
        }";
    first_passes_second_fails_by_its_values(source);
}

/// Runs `source`, whose first test must pass and whose second must fail by an
/// `assert_close` (the values a reference gives, checked both ways).
fn first_passes_second_fails_by_its_values(source: &str) {
    let (summary, events) = run(source);
    assert_eq!(
        events[0].outcome,
        Outcome::Passed,
        "{:?}",
        events[0].outcome
    );
    assert!(
        matches!(&events[1].outcome, Outcome::Failed { message, .. } if message.starts_with("assert_close")),
        "{:?}",
        events[1].outcome
    );
    assert_eq!((summary.passed, summary.failed), (1, 1));
}
