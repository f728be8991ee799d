//! The runtime on a real GPU: hand-written PTX kernels loaded through the driver's JIT,
//! launched from `test` and `bench` blocks. Without a GPU each test says so on stderr
//! and returns.

use std::io::Write;

use kir::{Element, HostExpr, IntParam, Launch, Param, ParamKind, Signature};
use runtime::{
    BlockKind, CompiledKernel, DeviceInfo, Event, Image, Outcome, Selection, gpu_status, run_blocks,
};

/// The device, or `None` after saying on stderr (past the test harness's capture) why
/// the test does not run here.
fn gpu(test: &str) -> Option<DeviceInfo> {
    match gpu_status() {
        Ok(info) => Some(info),
        Err(reason) => {
            let _ = writeln!(std::io::stderr(), "skipping {test}: {reason}");
            None
        }
    }
}

/// `entry(n: u32, x: .u64)`: x[i] += `addend` for i < n, optionally staged through
/// `smem` bytes of dynamic shared memory (each thread uses the last bytes of it).
fn ptx(entry: &str, addend: &str, smem: u32) -> String {
    let (declare, stage) = if smem > 0 {
        (
            ".extern .shared .align 16 .b8 staging[];".to_owned(),
            format!(
                "mov.u32 %r6, staging;
    add.u32 %r6, %r6, {};
    mul.lo.u32 %r7, %r4, 4;
    sub.u32 %r6, %r6, %r7;
    st.shared.f32 [%r6], %f1;
    bar.sync 0;
    ld.shared.f32 %f1, [%r6];",
                smem - 4
            ),
        )
    } else {
        (String::new(), String::new())
    };
    format!(
        ".version 7.0
.target sm_80
.address_size 64
{declare}
.visible .entry {entry}(
    .param .u32 n,
    .param .u64 x
)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<5>;
    ld.param.u32 %r1, [n];
    ld.param.u64 %rd1, [x];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    mov.f32 %f1, 0f00000000;
    @!%p1 ld.global.f32 %f1, [%rd4];
    {stage}
    add.f32 %f2, %f1, {addend};
    @!%p1 st.global.f32 [%rd4], %f2;
    ret;
}}
"
    )
}

fn kernel(
    name: &str,
    entry: &str,
    const_args: &[(&str, i64)],
    image: Image,
    shared_bytes: u32,
) -> CompiledKernel {
    let ceil_div = HostExpr::CeilDiv(Box::new(HostExpr::Param(0)), Box::new(HostExpr::Const(128)));
    CompiledKernel {
        signature: Signature {
            entry: entry.to_owned(),
            const_args: const_args
                .iter()
                .map(|(name, value)| ((*name).to_owned(), kir::ConstValue::Int(*value)))
                .collect(),
            params: vec![
                Param {
                    name: "n".to_owned(),
                    kind: ParamKind::Int(IntParam::U32),
                },
                Param {
                    name: "x".to_owned(),
                    kind: ParamKind::Tensor {
                        dtype: Element::F32,
                        shape: vec![HostExpr::Param(0)],
                        strides: vec![HostExpr::Const(1)],
                    },
                },
            ],
            launch: Launch {
                grid: [ceil_div, HostExpr::Const(1), HostExpr::Const(1)],
                block: [HostExpr::Const(128), HostExpr::Const(1), HostExpr::Const(1)],
                cluster: [1, 1, 1],
                shared_bytes,
            },
            ..Signature::empty(name)
        },
        image,
    }
}

const SOURCE: &str = "
kernel add<const ADD: int = 1>(n: u32, x: gmem f32[n:1]) launch grid(ceil_div(n, 128)) block(128) { }
kernel add_staged(n: u32, x: gmem f32[n:1]) launch grid(ceil_div(n, 128)) block(128) smem(auto) { }
kernel broken(n: u32, x: gmem f32[n:1]) launch grid(ceil_div(n, 128)) block(128) { }
kernel garbage(n: u32, x: gmem f32[n:1]) launch grid(ceil_div(n, 128)) block(128) { }

test adds_one {
    let x = arange(f32, 1000);
    let expected = x + 1;
    add(1000, x);
    assert_close(x, expected, rtol = 0.0, atol = 0.0);
}
test adds_two_by_const_argument {
    let x = randn(f32, 1000);
    let expected = x + 2;
    add(1000, x, ADD = 2);
    assert_close(x, expected, rtol = 0.0, atol = 0.0);
}
test kernels_chain_on_device_data {
    let x = zeros(f32, 300);
    add(300, x);
    add(300, x);
    add(300, x, ADD = 2);
    assert_close(x, full(f32, 300, 4.0), rtol = 0.0, atol = 0.0);
}
test stages_through_64_kib_of_shared_memory {
    let x = randn(f32, 4096);
    let expected = x + 1;
    add_staged(4096, x);
    assert_close(x, expected, rtol = 0.0, atol = 0.0);
}
test poison_is_caught {
    let x = empty(f32, 256);
    add(256, x);
    assert_close(x, zeros(f32, 256), atol = 1e30);
}
test wrong_shape_is_refused {
    let x = zeros(f32, 100);
    add(200, x);
}
test bad_ptx_names_the_kernel {
    let x = zeros(f32, 100);
    broken(100, x);
}
test garbage_names_the_kernel {
    let x = zeros(f32, 100);
    garbage(100, x);
}
bench add_bandwidth {
    let n = 1 << 24;
    let x = randn(f32, n);
    add(n, x);
    report bytes = 2 * n * 4, against memcpy;
}
test matmul_runs_on_the_gpu {
    let x = zeros(f32, 128);
    add(128, x);
    // Row i of `a` holds 64i .. 64i + 63, which sum to 4096i + 2016, exactly.
    let a = arange(f32, (64, 64));
    let row_sums = transpose(arange(f32, (1, 64)) * 4096 + 2016);
    assert_close(matmul(a, ones(f32, (64, 1))), row_sums, rtol = 0.0, atol = 0.0);
    // The same products in another order: bf16 results within a unit or two.
    let h = randn(bf16, (192, 128));
    let w = randn(bf16, (96, 128));
    assert_close(matmul(h, transpose(w)), transpose(matmul(w, transpose(h))), rtol = 1.6e-2, atol = 1e-2);
}
bench gemm_against_cublas {
    let M = 1024;
    let N = 512;
    let K = 256;
    let a = randn(bf16, (M, K));
    let b = randn(bf16, (N, K));
    let x = zeros(f32, 128);
    add(128, x);
    report flops = 2 * M * N * K, against cublas(a, transpose(b));
}
";

fn run() -> Vec<Event> {
    let (module, diagnostics) = grammar::parse(SOURCE);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let kernels = [
        kernel(
            "add",
            "add_one",
            &[("ADD", 1)],
            Image::Ptx(ptx("add_one", "0f3F800000", 0)),
            0,
        ),
        kernel(
            "add",
            "add_two",
            &[("ADD", 2)],
            Image::Ptx(ptx("add_two", "0f40000000", 0)),
            0,
        ),
        kernel(
            "add_staged",
            "add_staged",
            &[],
            Image::Ptx(ptx("add_staged", "0f3F800000", 65536)),
            65536,
        ),
        kernel(
            "broken",
            "broken",
            &[],
            Image::Ptx(ptx("broken", "0f3F800000", 0).replace("add.f32", "add.f33")),
            0,
        ),
        kernel(
            "garbage",
            "garbage",
            &[],
            Image::Ptx("this is not PTX".to_owned()),
            0,
        ),
    ];
    let mut events = Vec::new();
    let host = typecheck::check(&module, cute::Target::Sm90a).host;
    let summary = run_blocks(&module, &host, &kernels, &Selection::all(), &mut |event| {
        events.push(event)
    });
    for event in &events {
        let _ = writeln!(
            std::io::stderr(),
            "{:?} {}: {:?}",
            event.kind,
            event.name,
            event.outcome
        );
    }
    assert_eq!(summary.skipped, 0, "{events:?}");
    events
}

fn outcome<'e>(events: &'e [Event], name: &str) -> &'e Outcome {
    &events
        .iter()
        .find(|event| event.name == name)
        .unwrap_or_else(|| panic!("no event {name}"))
        .outcome
}

fn failure<'e>(events: &'e [Event], name: &str) -> &'e str {
    match outcome(events, name) {
        Outcome::Failed { message, .. } => message,
        other => panic!("{name}: expected a failure, got {other:?}"),
    }
}

#[test]
fn the_device_is_described() {
    let Some(info) = gpu("the_device_is_described") else {
        return;
    };
    assert!(info.driver_version.0 >= 12, "{info}");
    assert!(info.compute_capability.0 >= 7, "{info}");
    assert!(info.total_memory > 1 << 30, "{info}");
    assert!(!info.name.is_empty());
}

#[test]
fn tests_and_benches_run_hand_written_ptx() {
    if gpu("tests_and_benches_run_hand_written_ptx").is_none() {
        return;
    }
    let events = run();
    for passing in [
        "adds_one",
        "adds_two_by_const_argument",
        "kernels_chain_on_device_data",
        "stages_through_64_kib_of_shared_memory",
        "matmul_runs_on_the_gpu",
    ] {
        assert_eq!(outcome(&events, passing), &Outcome::Passed, "{passing}");
    }
    let poison = failure(&events, "poison_is_caught");
    assert!(
        poison.contains("256 of 256 elements differ") && poison.contains("actual NaN"),
        "{poison}"
    );
    assert_eq!(
        failure(&events, "wrong_shape_is_refused"),
        "`add`: `x` needs a tensor of shape (200) with these arguments, but this one has shape (100)"
    );
    // A mistake in PTX comes with the JIT's log, which names the PTX line.
    let broken = failure(&events, "bad_ptx_names_the_kernel");
    assert!(
        broken.starts_with(
            "the driver could not JIT-compile the PTX of `broken`: CUDA_ERROR_INVALID_PTX"
        ),
        "{broken}"
    );
    assert!(
        broken.contains("line 27; error") && broken.contains("'.f33'"),
        "{broken}"
    );
    let garbage = failure(&events, "garbage_names_the_kernel");
    assert!(
        garbage.starts_with("the driver could not JIT-compile the PTX of `garbage`: CUDA_ERROR_"),
        "{garbage}"
    );
    let bench = events
        .iter()
        .find(|event| event.kind == BlockKind::Bench)
        .expect("the bench ran");
    let Outcome::Measured(result) = &bench.outcome else {
        panic!("{:?}", bench.outcome)
    };
    let ratio = result.ratio().expect("a memcpy reference");
    assert!(
        result.kernel_ms > 0.0 && ratio > 0.05 && ratio < 20.0,
        "{result}"
    );
    assert!(result.to_string().contains("GB/s; memcpy"), "{result}");
    // cuBLAS's time beside the kernel's, or a note saying why there is none.
    let Outcome::Measured(gemm) = outcome(&events, "gemm_against_cublas") else {
        panic!("{:?}", outcome(&events, "gemm_against_cublas"))
    };
    match &gemm.reference {
        Some(reference) => {
            assert_eq!(reference.name, "cuBLAS");
            assert!(reference.ms > 0.0 && gemm.note.is_none(), "{gemm}");
            let text = gemm.to_string();
            assert!(
                text.contains("TFLOP/s; cuBLAS") && text.ends_with("% of cuBLAS"),
                "{text}"
            );
        }
        None => assert!(
            gemm.note
                .as_ref()
                .is_some_and(|note| note.starts_with("cuBLAS not found")),
            "{gemm}"
        ),
    }
}

#[test]
fn the_gpu_tests_parse_and_skip_without_a_gpu() {
    let (module, diagnostics) = grammar::parse(SOURCE);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    if gpu_status().is_ok() {
        return;
    }
    let mut events = Vec::new();
    let host = typecheck::check(&module, cute::Target::Sm90a).host;
    let summary = run_blocks(&module, &host, &[], &Selection::all(), &mut |event| {
        events.push(event)
    });
    assert_eq!(summary.skipped, events.len());
    assert!(events.iter().all(
        |event| matches!(&event.outcome, Outcome::Skipped(reason) if reason.starts_with("no GPU: "))
    ));
}
