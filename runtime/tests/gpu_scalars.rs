//! Float and bool arguments on a real GPU: `test` blocks pass float literals, float
//! expressions and bools to hand-written PTX kernels, whose results the host reference
//! checks; a wrong kind of argument is refused before launch. Without a GPU each test
//! says so on stderr and returns.

use std::io::Write;

use kir::{Element, HostExpr, IntParam, Launch, Param, ParamKind, ScalarParam, Signature};
use runtime::{CompiledKernel, Event, Image, Outcome, Selection, gpu_status, run_blocks};

/// `axpy(n: u32, alpha: f32, flag: bool, x, y)`: y[i] = alpha * x[i] + y[i] for i < n
/// when `flag` is set.
const AXPY_PTX: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry axpy(
    .param .u32 n,
    .param .f32 alpha,
    .param .u32 flag,
    .param .u64 x,
    .param .u64 y
)
{
    .reg .pred %p<3>;
    .reg .b32 %r<7>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<8>;
    ld.param.u32 %r1, [n];
    ld.param.f32 %f1, [alpha];
    ld.param.u32 %r6, [flag];
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd5, [y];
    setp.eq.u32 %p2, %r6, 0;
    @%p2 bra DONE;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    cvta.to.global.u64 %rd6, %rd5;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    add.s64 %rd7, %rd6, %rd3;
    ld.global.f32 %f2, [%rd4];
    ld.global.f32 %f3, [%rd7];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd7], %f4;
DONE:
    ret;
}
";

/// `widths(h: f16, b: bf16, d: f64, out)`: out = (h, b, d) as f32.
const WIDTHS_PTX: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry widths(
    .param .b16 h,
    .param .b16 b,
    .param .f64 d,
    .param .u64 out
)
{
    .reg .b16 %h<3>;
    .reg .b32 %r<2>;
    .reg .f32 %f<4>;
    .reg .f64 %fd<2>;
    .reg .b64 %rd<3>;
    ld.param.b16 %h1, [h];
    ld.param.b16 %h2, [b];
    ld.param.f64 %fd1, [d];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    cvt.f32.f16 %f1, %h1;
    cvt.u32.u16 %r1, %h2;
    shl.b32 %r1, %r1, 16;
    mov.b32 %f2, %r1;
    cvt.rn.f32.f64 %f3, %fd1;
    st.global.f32 [%rd2], %f1;
    st.global.f32 [%rd2+4], %f2;
    st.global.f32 [%rd2+8], %f3;
    ret;
}
";

const SOURCE: &str = "
kernel axpy(n: u32, alpha: f32, flag: bool, x: gmem f32[n:1], y: gmem f32[n:1])
    launch grid(ceil_div(n, 128)) block(128) { }
kernel widths(h: f16, b: bf16, d: f64, out: gmem f32[3:1]) launch grid(1) block(1) { }

test axpy_takes_a_float_literal {
    let n = 1000;
    let x = randn(f32, n);
    let y = randn(f32, n);
    let expected = x * 2.5 + y;
    axpy(n, 2.5, true, x, y);
    assert_close(y, expected);
}
test axpy_takes_a_float_expression {
    let n = 300;
    let alpha = 1.0 / 8;
    let x = arange(f32, n);
    let y = ones(f32, n);
    axpy(n, alpha * 2 - 0.5, 1 < 2, x, y);
    assert_close(y, x * -0.25 + 1, rtol = 0.0, atol = 0.0);
}
test a_false_flag_leaves_y {
    let x = randn(f32, 256);
    let y = ones(f32, 256);
    axpy(256, 2.5, false, x, y);
    assert_close(y, ones(f32, 256), rtol = 0.0, atol = 0.0);
}
test every_width_arrives_exactly {
    let out = empty(f32, 3);
    widths(1.5, -2.5, -6.5, out);
    assert_close(out, arange(f32, 3) * -4 + 1.5, rtol = 0.0, atol = 0.0);
}
test a_tensor_for_alpha_is_refused {
    let x = zeros(f32, 128);
    axpy(128, x, true, x, x);
}
test an_integer_for_alpha_is_refused {
    let x = zeros(f32, 128);
    axpy(128, 2, true, x, x);
}
";

fn signature(name: &str, params: Vec<Param>, grid: HostExpr, block: i64) -> Signature {
    let one = || HostExpr::Const(1);
    Signature {
        params,
        launch: Launch {
            grid: [grid, one(), one()],
            block: [HostExpr::Const(block), one(), one()],
            cluster: [1, 1, 1],
            shared_bytes: 0,
        },
        ..Signature::empty(name)
    }
}

fn param(name: &str, kind: ParamKind) -> Param {
    Param {
        name: name.to_owned(),
        kind,
    }
}

fn f32_tensor(extent: HostExpr) -> ParamKind {
    ParamKind::Tensor {
        dtype: Element::F32,
        shape: vec![extent],
        strides: vec![HostExpr::Const(1)],
    }
}

fn kernels() -> [CompiledKernel; 2] {
    let blocks = HostExpr::CeilDiv(Box::new(HostExpr::Param(0)), Box::new(HostExpr::Const(128)));
    let axpy = signature(
        "axpy",
        vec![
            param("n", ParamKind::Int(IntParam::U32)),
            param("alpha", ParamKind::Scalar(ScalarParam::F32)),
            param("flag", ParamKind::Scalar(ScalarParam::Bool)),
            param("x", f32_tensor(HostExpr::Param(0))),
            param("y", f32_tensor(HostExpr::Param(0))),
        ],
        blocks,
        128,
    );
    let widths = signature(
        "widths",
        vec![
            param("h", ParamKind::Scalar(ScalarParam::F16)),
            param("b", ParamKind::Scalar(ScalarParam::BF16)),
            param("d", ParamKind::Scalar(ScalarParam::F64)),
            param("out", f32_tensor(HostExpr::Const(3))),
        ],
        HostExpr::Const(1),
        1,
    );
    [
        CompiledKernel {
            signature: axpy,
            image: Image::Ptx(AXPY_PTX.to_owned()),
        },
        CompiledKernel {
            signature: widths,
            image: Image::Ptx(WIDTHS_PTX.to_owned()),
        },
    ]
}

fn outcome<'e>(events: &'e [Event], name: &str) -> &'e Outcome {
    &events
        .iter()
        .find(|event| event.name == name)
        .unwrap_or_else(|| panic!("no event {name}"))
        .outcome
}

#[test]
fn tests_pass_floats_and_bools_to_kernels() {
    if let Err(reason) = gpu_status() {
        let _ = writeln!(
            std::io::stderr(),
            "skipping tests_pass_floats_and_bools_to_kernels: {reason}"
        );
        return;
    }
    let (module, diagnostics) = grammar::parse(SOURCE);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let mut events = Vec::new();
    let host = typecheck::check(&module, cute::Target::Sm90a).host;
    run_blocks(
        &module,
        &host,
        &kernels(),
        &Selection::all(),
        &mut |event| events.push(event),
    );
    for passing in [
        "axpy_takes_a_float_literal",
        "axpy_takes_a_float_expression",
        "a_false_flag_leaves_y",
        "every_width_arrives_exactly",
    ] {
        assert_eq!(outcome(&events, passing), &Outcome::Passed, "{passing}");
    }
    for (refused, message) in [
        (
            "a_tensor_for_alpha_is_refused",
            "`axpy`: `alpha` is an f32, but a tensor was given",
        ),
        (
            "an_integer_for_alpha_is_refused",
            "`axpy`: `alpha` is an f32, but an integer was given",
        ),
    ] {
        assert!(
            matches!(outcome(&events, refused), Outcome::Failed { message: got, .. } if got == message),
            "{refused}: {:?}",
            outcome(&events, refused)
        );
    }
}
