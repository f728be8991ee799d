//! Float and bool arguments checked and marshalled without a GPU: each float rounded
//! once to its parameter's width, a bool as a 32-bit 0 or 1, the parameter bytes laid
//! out at their natural alignment, and an argument of the wrong kind or out of range
//! refused with a message naming the kernel and the parameter.

use kir::{Element, HostExpr, IntParam, Launch, Param, ParamKind, ScalarParam, Signature};
use runtime::marshal::{ArgValue, CallArg, param_buffer, plan};

/// `scale(n: i32, alpha: f32, beta: f64, gamma: f16, delta: bf16, flag: bool,
/// x: gmem f32[n:1])`, one block of `n` threads.
fn signature() -> Signature {
    let param = |name: &str, kind: ParamKind| Param {
        name: name.to_owned(),
        kind,
    };
    let one = || HostExpr::Const(1);
    Signature {
        params: vec![
            param("n", ParamKind::Int(IntParam::I32)),
            param("alpha", ParamKind::Scalar(ScalarParam::F32)),
            param("beta", ParamKind::Scalar(ScalarParam::F64)),
            param("gamma", ParamKind::Scalar(ScalarParam::F16)),
            param("delta", ParamKind::Scalar(ScalarParam::BF16)),
            param("flag", ParamKind::Scalar(ScalarParam::Bool)),
            param(
                "x",
                ParamKind::Tensor {
                    dtype: Element::F32,
                    shape: vec![HostExpr::Param(0)],
                    strides: vec![one()],
                },
            ),
        ],
        launch: Launch {
            grid: [one(), one(), one()],
            block: [HostExpr::Param(0), one(), one()],
            cluster: [1, 1, 1],
            shared_bytes: 0,
        },
        ..Signature::empty("scale")
    }
}

const SHAPE: [usize; 1] = [256];

fn x() -> CallArg<'static> {
    CallArg::Tensor {
        dtype: Element::F32,
        shape: &SHAPE,
        strides: None,
        address: 0x7000_0000_1000,
    }
}

/// The arguments with `replace` at parameter `index`.
fn args_with(index: usize, replace: CallArg<'static>) -> Vec<CallArg<'static>> {
    let mut args = vec![
        CallArg::Int(256),
        CallArg::Float(2.5),
        CallArg::Float(-0.1),
        CallArg::Float(1.5),
        // Halfway between 1 and the next bf16: ties go to the even mantissa, 1.
        CallArg::Float(1.0 + 2f64.powi(-8)),
        CallArg::Bool(true),
        x(),
    ];
    args[index] = replace;
    args
}

fn error(index: usize, replace: CallArg<'static>) -> String {
    plan(&signature(), &args_with(index, replace))
        .unwrap_err()
        .message
}

#[test]
fn floats_are_rounded_once_to_their_width_and_bools_are_32_bit() {
    let planned = plan(&signature(), &args_with(5, CallArg::Bool(true))).unwrap();
    assert_eq!(
        planned.args[..],
        [
            ArgValue::I32(256),
            ArgValue::F32(2.5),
            ArgValue::F64(-0.1),
            ArgValue::F16(0x3E00),
            ArgValue::BF16(0x3F80),
            ArgValue::U32(1),
            ArgValue::Address(0x7000_0000_1000),
        ]
    );
    assert_eq!(planned.block, [256, 1, 1]);
    let unset = plan(&signature(), &args_with(5, CallArg::Bool(false))).unwrap();
    assert_eq!(unset.args[5], ArgValue::U32(0));
    let alpha = plan(&signature(), &args_with(1, CallArg::Float(0.1))).unwrap();
    assert_eq!(alpha.args[1], ArgValue::F32(0.1f32));
    let infinite = plan(&signature(), &args_with(3, CallArg::Float(f64::INFINITY))).unwrap();
    assert_eq!(infinite.args[3], ArgValue::F16(0x7C00));
}

#[test]
fn each_argument_sits_at_a_multiple_of_its_size() {
    let planned = plan(&signature(), &args_with(5, CallArg::Bool(true))).unwrap();
    let bytes = param_buffer(&planned.args);
    let mut expected = Vec::new();
    expected.extend_from_slice(&256i32.to_le_bytes());
    expected.extend_from_slice(&2.5f32.to_le_bytes());
    expected.extend_from_slice(&(-0.1f64).to_le_bytes());
    expected.extend_from_slice(&0x3E00u16.to_le_bytes());
    expected.extend_from_slice(&0x3F80u16.to_le_bytes());
    expected.extend_from_slice(&1u32.to_le_bytes());
    expected.extend_from_slice(&0x7000_0000_1000u64.to_le_bytes());
    assert_eq!(bytes, expected);
    // A 2-byte float after a 4-byte one leaves no gap; an 8-byte one after it does.
    let packed = param_buffer(&[ArgValue::F16(1), ArgValue::F64(1.0)]);
    assert_eq!(packed.len(), 16);
    assert_eq!(&packed[2..8], &[0; 6]);
}

#[test]
fn an_argument_of_the_wrong_kind_names_both_kinds() {
    assert_eq!(
        error(1, x()),
        "`scale`: `alpha` is an f32, but a tensor was given"
    );
    assert_eq!(
        error(1, CallArg::Int(2)),
        "`scale`: `alpha` is an f32, but an integer was given"
    );
    assert_eq!(
        error(4, CallArg::Bool(true)),
        "`scale`: `delta` is a bf16, but a bool was given"
    );
    assert_eq!(
        error(5, CallArg::Float(1.0)),
        "`scale`: `flag` is a bool, but a float was given"
    );
    assert_eq!(
        error(0, CallArg::Float(256.0)),
        "`scale`: `n` is an integer, but a float was given"
    );
    assert_eq!(
        error(6, CallArg::Float(1.0)),
        "`scale`: `x` is a tensor, but a float was given"
    );
}

#[test]
fn a_finite_float_too_large_for_its_parameter_is_refused() {
    assert_eq!(
        error(3, CallArg::Float(1e5)),
        "`scale`: 100000.0 does not fit `gamma: f16`"
    );
    assert_eq!(
        error(1, CallArg::Float(1e39)),
        "`scale`: 1e39 does not fit `alpha: f32`"
    );
    assert!(plan(&signature(), &args_with(4, CallArg::Float(1e38))).is_ok());
}

/// `narrow(a: i8, b: u8, c: i16, d: u16)`, one thread.
fn narrow_signature() -> Signature {
    let param = |name: &str, int: IntParam| Param {
        name: name.to_owned(),
        kind: ParamKind::Int(int),
    };
    Signature {
        params: vec![
            param("a", IntParam::I8),
            param("b", IntParam::U8),
            param("c", IntParam::I16),
            param("d", IntParam::U16),
        ],
        ..Signature::empty("narrow")
    }
}

#[test]
fn narrow_integers_are_passed_in_32_bits_and_range_checked() {
    let args = |values: [i64; 4]| values.map(CallArg::Int);
    let planned = plan(&narrow_signature(), &args([-128, 255, -32768, 65535])).unwrap();
    assert_eq!(
        planned.args[..],
        [
            ArgValue::I32(-128),
            ArgValue::U32(255),
            ArgValue::I32(-32768),
            ArgValue::U32(65535),
        ]
    );
    let bytes = param_buffer(&planned.args);
    assert_eq!(&bytes[..4], &(-128i32).to_le_bytes());
    assert_eq!(bytes.len(), 16);
    for (values, message) in [
        ([128, 0, 0, 0], "`narrow`: 128 does not fit `a: i8`"),
        ([0, -1, 0, 0], "`narrow`: -1 does not fit `b: u8`"),
        ([0, 0, 32768, 0], "`narrow`: 32768 does not fit `c: i16`"),
        ([0, 0, 0, 65536], "`narrow`: 65536 does not fit `d: u16`"),
    ] {
        assert_eq!(
            plan(&narrow_signature(), &args(values))
                .unwrap_err()
                .message,
            message
        );
    }
}
