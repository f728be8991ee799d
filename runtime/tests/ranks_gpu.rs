//! Multi-rank blocks whose kernels are compiled for GPUs (`test`/`bench NAME ranks(N)`)
//! on a machine with fewer GPUs than ranks: each block that launches a kernel is skipped,
//! saying how many GPUs it needs and how many there are, never failed and never sent to
//! the emulator; a block that launches nothing still runs its body on every rank. (With
//! enough GPUs, scripts/gpu-check-ranks.sh runs the real thing.)

use std::io::Write;

use runtime::{CompiledKernel, Event, Image, Outcome, Selection, gpu_count, run_blocks};

const SOURCE: &str = "
kernel fill(a: gmem i32[32:1]) launch grid(1) block(32) symmetric(a) {
    a[thread_idx.x] = this_rank();
}

test launches ranks(2) {
    let a = zeros(i32, 32);
    fill(a);
    assert_close(a, zeros(i32, 32) + this_rank(), rtol = 0.0, atol = 0.0);
}

bench measures ranks(2) {
    let a = zeros(i32, 32);
    fill(a);
    report bytes = 128;
}

test host_only ranks(2) {
    let a = ones(f32, 4) * this_rank();
    assert_close(a, ones(f32, 4) * this_rank(), rtol = 0.0, atol = 0.0);
}
";

/// Every block of `SOURCE`, its kernel given as (never loaded) PTX.
fn run() -> Vec<Event> {
    let (module, errors) = grammar::parse(SOURCE);
    assert!(errors.is_empty(), "{errors:?}");
    let (host, lowered) = typecheck::trace(&module, cute::Target::Sm90a, |analysis, traces| {
        (
            analysis.host,
            lower::lower_traces(analysis.diagnostics, &traces),
        )
    });
    assert!(!lowered.has_errors(), "{:?}", lowered.diagnostics);
    let kernels: Vec<CompiledKernel> = (lowered.kernels.into_iter())
        .map(|kernel| CompiledKernel {
            signature: kernel.signature.clone(),
            image: Image::Ptx(".version 8.0\n// not loaded: too few GPUs\n".to_owned()),
        })
        .collect();
    let mut events = Vec::new();
    run_blocks(&module, &host, &kernels, &Selection::all(), &mut |event| {
        events.push(event)
    });
    events
}

#[test]
fn blocks_on_more_ranks_than_gpus_are_skipped_saying_how_many_gpus_they_need() {
    let found = gpu_count();
    if found >= 2 {
        let _ = writeln!(
            std::io::stderr(),
            "skipping: this machine has {found} GPUs, enough for the blocks to run"
        );
        return;
    }
    let events = run();
    let outcome = |name: &str| {
        let event = events.iter().find(|event| event.name == name);
        event.map(|event| event.outcome.clone())
    };
    let listed = if found == 0 { "no GPU" } else { "only 1 GPU" };
    let skipped = Outcome::Skipped(format!(
        "a block on 2 ranks needs 2 GPUs, one per rank, and the driver lists {listed} (`cukc test --emulate` runs it on the emulator)"
    ));
    assert_eq!(outcome("launches"), Some(skipped.clone()), "{events:?}");
    assert_eq!(outcome("measures"), Some(skipped), "{events:?}");
    assert_eq!(outcome("host_only"), Some(Outcome::Passed), "{events:?}");
}
