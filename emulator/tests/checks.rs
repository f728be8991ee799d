//! Each check of the emulator that `.cuk` cannot reach (the typechecker or lowering
//! refuses such kernels first), triggered by a small KIR kernel; the launch checks; and
//! every lowered kernel given too little memory faulting without a panic. The planted
//! bugs of `tests/emulator/` are in `planted.rs`.

mod support;

use emulator::{Elsewhere, Fault, FaultKind, GlobalMemory, Options};
use support::{Arg, Device, assert_says, from_kir, launch_of, lower_file, pick};

/// A kernel in KIR text, launched as its signature says, expected to fault.
fn kir_fault(text: &str, args: impl FnOnce(&mut Device) -> Vec<Arg>) -> Fault {
    let kernel = from_kir(text);
    let mut device = Device::default();
    let args = args(&mut device);
    device.launch(&kernel, &args).unwrap_err()
}

const HEADER: &str = "  param 0 out: tensor f32 shape(64) strides(1)\n";

#[test]
fn shared_accesses_past_the_block_s_memory_are_out_of_bounds() {
    let text = format!(
        "kernel k {{\n{HEADER}  launch grid(1, 1, 1) block(32, 1, 1) smem(128 bytes)
  %0:i32 = shared_base
  %1:i32 = thread_idx.x
  %2:i32 = const 2
  %3:i32 = shl %1, %2
  %4:i32 = add %0, %3
  %5:f32 = const 1.0
  store.shared [%4+4], %5
}}"
    );
    let fault = kir_fault(&text, |device| vec![Arg::Tensor(device.empty(256))]);
    assert_eq!(fault.kind.code(), "E0402");
    assert_eq!(fault.location.unwrap().thread, [31, 0, 0]);
    assert!(
        fault
            .to_string()
            .contains("stores 4 bytes of shared memory at 0x80, past the block's 128 bytes")
    );
}

#[test]
fn misaligned_accesses_are_faults() {
    let text = format!(
        "kernel k {{\n{HEADER}  launch grid(1, 1, 1) block(1, 1, 1) smem(0 bytes)
  %0:i64 = param 0
  %1:f32, %2:f32 = load.global [%0+4]
  store.global [%0+0], %1
}}"
    );
    let fault = kir_fault(&text, |device| vec![Arg::Tensor(device.empty(256))]);
    assert_eq!(fault.kind.code(), "E0403");
    assert_eq!(fault.span.start, 5);
}

/// A kernel whose lanes below `lanes` (of a block of `threads`) shuffle from lane `from`.
fn shuffle_kernel(threads: u32, lanes: u32, from: u32) -> String {
    format!(
        "kernel k {{\n{HEADER}  launch grid(1, 1, 1) block({threads}, 1, 1) smem(0 bytes)
  %0:i32 = thread_idx.x
  %1:i32 = const {lanes}
  %2:pred = cmp.lt %0, %1
  %3:f32 = const 1.0
  %4:i32 = const {from}
  if %2 {{
    %5:f32 = shuffle.idx %3, %4
    yield
  }} else {{
    yield
  }}
}}"
    )
}

#[test]
fn a_shuffle_part_of_a_warp_skips_never_completes() {
    let fault = kir_fault(&shuffle_kernel(64, 16, 0), |_| vec![Arg::Tensor(0)]);
    let FaultKind::PartialWarp { what, other } = fault.kind.cause() else {
        panic!("{fault}");
    };
    assert_eq!(
        (*what, other.thread, other.at),
        ("shuffle", [16, 0, 0], Elsewhere::Exited)
    );
    assert_eq!(fault.span.start, 10);
}

#[test]
fn a_shuffle_from_a_lane_a_partial_warp_lacks_is_a_fault() {
    let fault = kir_fault(&shuffle_kernel(48, 48, 20), |_| vec![Arg::Tensor(0)]);
    assert_eq!(
        fault.kind,
        FaultKind::MissingLane {
            lane: 20,
            lanes: 16
        }
    );
    assert_eq!(fault.location.unwrap().thread, [32, 0, 0]);
    // Every lane of a full warp exists.
    let kernel = from_kir(&shuffle_kernel(64, 64, 20));
    Device::default().run(&kernel, &[Arg::Tensor(0)]);
}

#[test]
fn threads_at_different_barriers_are_a_fault_naming_both() {
    let text = format!(
        "kernel k {{\n{HEADER}  launch grid(1, 1, 1) block(64, 1, 1) smem(0 bytes)
  %0:i32 = thread_idx.x
  %1:i32 = const 32
  %2:pred = cmp.lt %0, %1
  if %2 {{
    barrier
    yield
  }} else {{
    barrier
    yield
  }}
}}"
    );
    let fault = kir_fault(&text, |_| vec![Arg::Tensor(0)]);
    let diagnostic = fault.to_diagnostic();
    assert_eq!(diagnostic.code, "E0406");
    let lines: Vec<u32> = diagnostic.labels().map(|label| label.span.start).collect();
    // The barrier, the other thread's, then each waiting group's (threads 0-31, 32-63).
    assert_eq!(lines, vec![8, 11, 8, 11]);
}

#[test]
fn a_warp_barrier_orders_the_lanes_of_its_warp() {
    // Lane 0 writes a word, lane 1 reads it: a race without `bar.warp.sync`.
    let kernel = |sync: &str| {
        format!(
            "kernel k {{\n{HEADER}  launch grid(1, 1, 1) block(32, 1, 1) smem(4 bytes)
  %0:i32 = thread_idx.x
  %1:i32 = shared_base
  %2:i32 = const 0
  %3:pred = cmp.eq %0, %2
  %4:f32 = const 3.0
  store.shared [%1+0], %4 if %3
  {sync}
  %5:f32 = load.shared [%1+0]
}}"
        )
    };
    let fault = kir_fault(&kernel(""), |_| vec![Arg::Tensor(0)]);
    assert_eq!(fault.kind.code(), "E0404");
    Device::default().run(&from_kir(&kernel("warp_barrier")), &[Arg::Tensor(0)]);
}

#[test]
fn an_atom_without_a_model_is_named() {
    let text = format!(
        "kernel k {{\n{HEADER}  launch grid(1, 1, 1) block(32, 1, 1) smem(512 bytes)
  %0:i32 = shared_base
  atom \"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{{dst}}}}, [{{src}}];\" src=%0+0
  atom \"tcgen05.shift.cta_group::1.down [0];\"
}}"
    );
    // An ldmatrix without its thread-value layouts (`warp copy ...`) has no model either.
    let fault = kir_fault(&text, |_| vec![Arg::Tensor(0)]);
    assert_eq!(fault.kind.code(), "E0408");
    assert!(
        fault.to_string().contains(
            "no model of the atom instruction `ldmatrix.sync.aligned.m8n8.x4.shared.b16`"
        )
    );
    let fault = kir_fault(&text.replace("  atom \"ldmatrix", "  // "), |_| {
        vec![Arg::Tensor(0)]
    });
    assert_says(
        &fault,
        &["no model of the atom instruction `tcgen05.shift.cta_group::1.down`"],
    );
}

/// A block of one warp at `bar.sync` on the barrier a register names.
fn named_barrier_kernel(id: i32) -> String {
    format!(
        "kernel k {{\n{HEADER}  launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)
  %0:i32 = const {id}
  named_barrier_sync_at threads=32 %0
}}"
    )
}

#[test]
fn a_named_barrier_a_register_names_is_run_and_checked_at_run_time() {
    let kernel = from_kir(&named_barrier_kernel(15));
    let launch = launch_of(&kernel, &[Arg::Tensor(0)]);
    let run = emulator::run(
        &kernel,
        &launch,
        &mut GlobalMemory::new(),
        &Options::default(),
    );
    assert!(run.is_ok(), "{:?}", run.err());
    let fault = kir_fault(&named_barrier_kernel(16), |_| vec![Arg::Tensor(0)]);
    assert_eq!(fault.kind.code(), "E0409");
    assert_says(&fault, &["a named barrier 16"]);
}

/// The fault of a warp's loop that never ends, its body `body` yielding `yielded` for
/// the carried `%2` (from 0), run with a budget of 10,000 instructions.
fn endless_loop_fault(body: &str, yielded: &str) -> Fault {
    let text = format!(
        "kernel k {{\n{HEADER}  launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)
  %0:i32 = const 0
  %1:i32 = loop carry(%2:i32 = %0) {{
    %3:pred = const 1
{body}    yield {yielded} while %3
  }}
}}"
    );
    let kernel = from_kir(&text);
    let launch = launch_of(&kernel, &[Arg::Tensor(0)]);
    let options = Options {
        max_instructions: 10_000,
        ..Options::default()
    };
    emulator::run(&kernel, &launch, &mut GlobalMemory::new(), &options).unwrap_err()
}

#[test]
fn an_endless_loop_stops_at_the_budget() {
    // Each iteration changes the loop's value, so it is no spin: only the budget ends it.
    let fault = endless_loop_fault("    %4:i32 = const 1\n    %5:i32 = add %2, %4\n", "%5");
    assert_eq!(
        fault.kind,
        FaultKind::Budget {
            instructions: 10_000
        }
    );
}

#[test]
fn a_loop_that_changes_nothing_is_a_spin_long_before_the_budget() {
    let fault = endless_loop_fault("", "%2");
    assert_eq!(fault.kind.cause(), &FaultKind::Spin, "{fault}");
    assert_eq!(fault.kind.code(), "E0416");
}

#[test]
fn a_launch_that_does_not_fit_the_kernel_is_refused() {
    let kernels = lower_file("cuk-examples/copy_basic.cuk");
    let kernel = pick(&kernels, "copy_basic", &[]);
    let launch = launch_of(
        kernel,
        &[Arg::Int(128), Arg::Int(64), Arg::Tensor(0), Arg::Tensor(0)],
    );
    let refused = |launch: &emulator::Launch| {
        let options = Options::default();
        let fault = emulator::run(kernel, launch, &mut GlobalMemory::new(), &options);
        let fault = fault.unwrap_err();
        assert_eq!((fault.kind.code(), fault.location), ("E0409", None));
        fault.to_string()
    };
    let mut missing = launch.clone();
    missing.args.pop();
    assert!(refused(&missing).contains("3 arguments of a kernel with 4 parameters"));
    let mut huge = launch.clone();
    huge.grid = [u32::MAX; 3];
    assert!(refused(&huge).contains("blocks (at most"));
    let mut wide = launch;
    wide.block = [u32::MAX; 3];
    assert!(refused(&wide).contains("threads (at most 1024)"));
}

#[test]
fn every_fault_code_is_registered() {
    for number in 401..=414 {
        let code = format!("E0{number}");
        assert!(lang::codes::summary(&code).is_some(), "{code}");
    }
}

/// Every kernel the examples and the control-flow tests lower to, launched with small
/// integers and tensors far too small for them: a fault or a clean run, never a panic.
#[test]
fn kernels_given_too_little_memory_fault_and_never_panic() {
    let mut faults = 0;
    for folder in ["cuk-examples", "tests/control"] {
        let mut paths: Vec<_> = std::fs::read_dir(support::root().join(folder))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "cuk"))
            .collect();
        paths.sort();
        for path in paths {
            let source = std::fs::read_to_string(&path).unwrap();
            let (module, _) = grammar::parse(&source);
            let lowered = typecheck::trace(&module, cute::Target::Sm90a, |analysis, traces| {
                lower::lower_traces(analysis.diagnostics, &traces)
            });
            for kernel in &lowered.kernels {
                let mut device = Device::default();
                let args: Vec<Arg> = (kernel.signature.params.iter())
                    .map(|param| match param.kind {
                        kir::ParamKind::Int(_) => Arg::Int(256),
                        kir::ParamKind::Scalar(_) => Arg::F32(1.0),
                        kir::ParamKind::Tensor { .. } | kir::ParamKind::TensorMap(_) => {
                            Arg::Tensor(device.empty(16))
                        }
                    })
                    .collect();
                faults += usize::from(device.launch(kernel, &args).is_err());
            }
        }
    }
    assert!(faults >= 10, "only {faults} kernels faulted");
}

#[test]
fn a_register_read_before_the_tmem_load_wait_faults() {
    // Lowering refuses such a kernel (lower/src/tmem_waits.rs); KIR written by hand
    // reaches the emulator's own check.
    let text = "kernel k {
  param 0 out: tensor f32 shape(64) strides(1)
  launch grid(1, 1, 1) block(32, 1, 1) smem(4 bytes)
  %0:i32 = shared_base
  tmem_alloc columns=32 cta_group=1 [%0+0]
  barrier
  %1:i32 = load.shared [%0+0]
  %2:f32 = tmem_load lanes=32 bits=32 repetitions=1 %1
  %3:i64 = param 0
  store.global [%3+0], %2
  tcgen05_wait_ld
  tmem_dealloc columns=32 cta_group=1 %1
}";
    let fault = kir_fault(text, |device| vec![Arg::Tensor(device.empty(256))]);
    assert_eq!(fault.kind.code(), "E0413");
    assert_says(&fault, &["before `tcgen05_wait_ld()`"]);
}

/// Each lane of a block of `threads` stores whether `elect_one` chose it.
fn elect_kernel(threads: u32) -> String {
    format!(
        "kernel k {{
  param 0 out: tensor i32 shape(64) strides(1)
  launch grid(1, 1, 1) block({threads}, 1, 1) smem(0 bytes)
  %0:i64 = param 0
  %1:i32 = thread_idx.x
  %2:pred = elect_one
  %3:i32 = const 1
  %4:i32 = const 0
  %5:i32 = select %2, %3, %4
  %6:i64 = convert %1
  %7:i64 = const 2
  %8:i64 = shl %6, %7
  %9:i64 = add %0, %8
  store.global [%9+0], %5
}}"
    )
}

#[test]
fn elect_one_chooses_one_lane_of_each_warp_and_not_lane_zero() {
    // The PTX ISA leaves the lane to the hardware; the emulator takes each warp's last,
    // so that a kernel assuming lane 0 fails under emulation.
    for threads in [64, 48] {
        let kernel = from_kir(&elect_kernel(threads));
        let mut device = Device::default();
        let out = device.i32s(&[-1; 64]);
        device.run(&kernel, &[Arg::Tensor(out)]);
        let chosen: Vec<usize> = (device.read_i32(out, threads as usize).iter())
            .enumerate()
            .filter_map(|(lane, elected)| (*elected == 1).then_some(lane))
            .collect();
        let last = threads as usize - 1;
        assert_eq!(chosen, [31, last], "{threads} threads");
    }
}
