//! Kernel calls checked and marshalled without a GPU: the parameter bytes, launch
//! dimensions, shape, dtype, range and assumption checks, and the choice of
//! instantiation by const arguments.

use kir::{
    Alignment, Assumption, Element, HostExpr, IntParam, Launch, Param, ParamKind, Signature,
};
use runtime::marshal::{ArgValue, CallArg, LaunchPlan, param_buffer, plan, select};
use runtime::{CompiledKernel, Image};

fn boxed(expr: HostExpr) -> Box<HostExpr> {
    Box::new(expr)
}

/// `copy(m: i32, k: i32, a: gmem bf16[(m, k):(k, 1)], out: ...)` with a 128 x 64 tile
/// per block and 128-bit accesses along k.
fn copy_signature(entry: &str, const_args: &[(&str, i64)]) -> Signature {
    let row_major = || ParamKind::Tensor {
        dtype: Element::BF16,
        shape: vec![HostExpr::Param(0), HostExpr::Param(1)],
        strides: vec![HostExpr::Param(1), HostExpr::Const(1)],
    };
    Signature {
        entry: entry.to_owned(),
        const_args: const_args
            .iter()
            .map(|(name, value)| ((*name).to_owned(), kir::ConstValue::Int(*value)))
            .collect(),
        params: vec![
            Param {
                name: "m".to_owned(),
                kind: ParamKind::Int(IntParam::I32),
            },
            Param {
                name: "k".to_owned(),
                kind: ParamKind::Int(IntParam::I32),
            },
            Param {
                name: "a".to_owned(),
                kind: row_major(),
            },
            Param {
                name: "out".to_owned(),
                kind: row_major(),
            },
        ],
        launch: Launch {
            grid: [
                HostExpr::Div(boxed(HostExpr::Param(0)), boxed(HostExpr::Const(128))),
                HostExpr::Div(boxed(HostExpr::Param(1)), boxed(HostExpr::Const(64))),
                HostExpr::Const(1),
            ],
            block: [HostExpr::Const(128), HostExpr::Const(1), HostExpr::Const(1)],
            cluster: [1, 1, 1],
            shared_bytes: 16384,
        },
        assumptions: vec![Assumption {
            param: 1,
            multiple: 8,
            reason: "`copy` moves 8 bf16 at a time along `k`".to_owned(),
        }],
        alignments: vec![Alignment {
            param: 2,
            bytes: 16,
            reason: "a vector access moves 8 bf16 at a time".to_owned(),
        }],
        ..Signature::empty("copy")
    }
}

fn tensor(dtype: Element, shape: &[usize], address: u64) -> CallArg<'_> {
    CallArg::Tensor {
        dtype,
        shape,
        strides: None,
        address,
    }
}

/// `copy`'s arguments for a 512 x 256 bf16 `a` at `a_address` and `out` at
/// `out_address`.
fn copy_args(a_address: u64, out_address: u64) -> [CallArg<'static>; 4] {
    const SHAPE: [usize; 2] = [512, 256];
    [
        CallArg::Int(512),
        CallArg::Int(256),
        tensor(Element::BF16, &SHAPE, a_address),
        tensor(Element::BF16, &SHAPE, out_address),
    ]
}

#[test]
fn arguments_are_marshalled_with_their_widths_and_the_launch_is_evaluated() {
    let args = copy_args(0x7000_0000_1000, 0x7000_0004_1000);
    let planned = plan(&copy_signature("copy", &[]), &args).unwrap();
    assert_eq!(
        planned,
        LaunchPlan {
            args: vec![
                ArgValue::I32(512),
                ArgValue::I32(256),
                ArgValue::Address(0x7000_0000_1000),
                ArgValue::Address(0x7000_0004_1000),
            ]
            .into(),
            maps: Default::default(),
            grid: [4, 4, 1],
            block: [128, 1, 1],
            cluster: [1, 1, 1],
            shared_bytes: 16384,
        }
    );
    let bytes = param_buffer(&planned.args);
    assert_eq!(bytes.len(), 24);
    assert_eq!(&bytes[0..8], &[0x00, 0x02, 0, 0, 0x00, 0x01, 0, 0]);
    assert_eq!(&bytes[8..16], &0x7000_0000_1000u64.to_le_bytes());
}

#[test]
fn the_parameter_buffer_aligns_each_argument_to_its_size() {
    let bytes = param_buffer(&[
        ArgValue::I32(-1),
        ArgValue::U64(2),
        ArgValue::U32(3),
        ArgValue::I64(-4),
    ]);
    let mut expected = Vec::new();
    expected.extend_from_slice(&(-1i32).to_le_bytes());
    expected.extend_from_slice(&[0; 4]);
    expected.extend_from_slice(&2u64.to_le_bytes());
    expected.extend_from_slice(&3u32.to_le_bytes());
    expected.extend_from_slice(&[0; 4]);
    expected.extend_from_slice(&(-4i64).to_le_bytes());
    assert_eq!(bytes, expected);
}

fn plan_error(m: i64, k: i64, dtype: Element, shape: &[usize]) -> String {
    let out = [m.max(1) as usize, k.max(1) as usize];
    let args = [
        CallArg::Int(m),
        CallArg::Int(k),
        tensor(dtype, shape, 16),
        tensor(Element::BF16, &out, 32),
    ];
    plan(&copy_signature("copy", &[]), &args)
        .unwrap_err()
        .message
}

#[test]
fn wrong_arguments_are_clear_errors_naming_the_kernel() {
    assert_eq!(
        plan_error(512, 256, Element::BF16, &[256, 512]),
        "`copy`: `a` needs a tensor of shape (512, 256) with these arguments, but this one has shape (256, 512)"
    );
    assert_eq!(
        plan_error(512, 256, Element::F32, &[512, 256]),
        "`copy`: `a` holds bf16, but this tensor holds f32"
    );
    assert_eq!(
        plan_error(512, 100, Element::BF16, &[512, 100]),
        "`copy`: `k` = 100 must be a multiple of 8: `copy` moves 8 bf16 at a time along `k`"
    );
    assert_eq!(
        plan_error(1 << 40, 256, Element::BF16, &[1 << 40, 256]),
        "`copy`: 1099511627776 does not fit `m: i32`"
    );
    assert_eq!(
        plan_error(64, 256, Element::BF16, &[64, 256]),
        "`copy`: the grid would be (0, 4, 1) with these arguments; each extent must be at least 1"
    );
    let few = plan(&copy_signature("copy", &[]), &[CallArg::Int(1)])
        .unwrap_err()
        .message;
    assert_eq!(few, "`copy` takes 4 arguments, but 1 were given");
    let swapped = [
        CallArg::Int(512),
        tensor(Element::BF16, &[512, 256], 0),
        CallArg::Int(1),
        CallArg::Int(2),
    ];
    let error = plan(&copy_signature("copy", &[]), &swapped)
        .unwrap_err()
        .message;
    assert_eq!(error, "`copy`: `k` is an integer, but a tensor was given");
}

#[test]
fn a_layout_reaching_past_the_tensor_is_refused() {
    let mut signature = copy_signature("copy", &[]);
    // Rows twice as far apart as the tensor's: the last rows would read past its end.
    signature.params[2].kind = ParamKind::Tensor {
        dtype: Element::BF16,
        shape: vec![HostExpr::Param(0), HostExpr::Param(1)],
        strides: vec![
            HostExpr::Mul(boxed(HostExpr::Param(1)), boxed(HostExpr::Const(2))),
            HostExpr::Const(1),
        ],
    };
    let args = copy_args(0, 0);
    let error = plan(&signature, &args).unwrap_err().message;
    assert_eq!(
        error,
        "`copy`: `a`'s layout reaches past the 131072 elements of its tensor"
    );
}

#[test]
fn a_failed_check_says_which_parameter_it_is_about() {
    let signature = copy_signature("copy", &[]);
    let about = |m: i64, k: i64, dtype: Element, address: u64| {
        let shape = [m.max(1) as usize, k.max(1) as usize];
        let args = [
            CallArg::Int(m),
            CallArg::Int(k),
            tensor(dtype, &shape, address),
            tensor(Element::BF16, &shape, 0x2000),
        ];
        plan(&signature, &args).unwrap_err().param
    };
    assert_eq!(about(512, 256, Element::F32, 0x1000), Some(2));
    assert_eq!(about(512, 100, Element::BF16, 0x1000), Some(1));
    assert_eq!(about(512, 256, Element::BF16, 0x1002), Some(2));
    assert_eq!(about(1 << 40, 256, Element::BF16, 0x1000), Some(0));
    // The launch is about no one parameter.
    assert_eq!(about(64, 256, Element::BF16, 0x1000), None);
    let few = plan(&signature, &[CallArg::Int(1)]).unwrap_err();
    assert_eq!(few.param, None);
}

#[test]
fn a_misaligned_tensor_is_refused_before_launch() {
    let args = copy_args(0x1000 + 2, 0x2000);
    let error = plan(&copy_signature("copy", &[]), &args)
        .unwrap_err()
        .message;
    assert_eq!(
        error,
        "`copy`: `a` starts at address 0x1002, which is not a multiple of 16 bytes: a vector access moves 8 bf16 at a time"
    );
    let aligned = copy_args(0x1000 + 16, 0x2000);
    assert!(plan(&copy_signature("copy", &[]), &aligned).is_ok());
}

#[test]
fn a_nested_mode_matches_a_host_dimension_of_its_size() {
    let mut signature = copy_signature("copy", &[]);
    signature.assumptions.clear();
    // ((8, m / 8), k) flattened: the host passes an (m, k) tensor.
    signature.params[2].kind = ParamKind::Tensor {
        dtype: Element::BF16,
        shape: vec![
            HostExpr::Const(8),
            HostExpr::Div(boxed(HostExpr::Param(0)), boxed(HostExpr::Const(8))),
            HostExpr::Param(1),
        ],
        strides: vec![
            HostExpr::Param(1),
            HostExpr::Mul(boxed(HostExpr::Param(1)), boxed(HostExpr::Const(8))),
            HostExpr::Const(1),
        ],
    };
    let args = copy_args(0, 0);
    assert!(plan(&signature, &args).is_ok());
}

fn compiled(entry: &str, const_args: &[(&str, i64)]) -> CompiledKernel {
    CompiledKernel {
        signature: copy_signature(entry, const_args),
        image: Image::Ptx(String::new()),
    }
}

#[test]
fn instantiations_are_chosen_by_their_const_arguments() {
    let kernels = [
        compiled("copy", &[("SWIZZLE_BITS", 3)]),
        compiled("copy__SWIZZLE_BITS_0", &[("SWIZZLE_BITS", 0)]),
    ];
    let wanted = |value: i64| vec![("SWIZZLE_BITS".to_owned(), kir::ConstValue::Int(value))];
    assert_eq!(select(&kernels, "copy", &wanted(3)), Ok(0));
    assert_eq!(select(&kernels, "copy", &wanted(0)), Ok(1));
    assert_eq!(
        select(&kernels, "copy", &wanted(2)).map_err(|error| error.to_string()),
        Err("kernel `copy` was not compiled with SWIZZLE_BITS = 2; compiled: SWIZZLE_BITS = 3; SWIZZLE_BITS = 0".to_owned())
    );
    assert_eq!(
        select(&kernels, "transpose", &[]).map_err(|error| error.to_string()),
        Err("kernel `transpose` was not compiled".to_owned())
    );
    // A dtype const argument chooses by the dtype's name.
    let mut typed = compiled("fill__T_bf16", &[]);
    typed.signature.name = "fill".to_owned();
    typed.signature.const_args = vec![("T".to_owned(), kir::ConstValue::Dtype("bf16".to_owned()))];
    let mut default = typed.clone();
    default.signature.const_args[0].1 = kir::ConstValue::Dtype("f32".to_owned());
    let kernels = [default, typed];
    let dtype = |name: &str| vec![("T".to_owned(), kir::ConstValue::Dtype(name.to_owned()))];
    assert_eq!(select(&kernels, "fill", &dtype("bf16")), Ok(1));
    assert_eq!(select(&kernels, "fill", &dtype("f32")), Ok(0));
    assert!(
        select(&kernels, "fill", &dtype("f16"))
            .unwrap_err()
            .to_string()
            .contains("T = f16")
    );
}

#[test]
fn hidden_tensor_maps_come_from_their_tensors_and_are_not_passed() {
    let mut signature = copy_signature("copy", &[]);
    signature.params.push(Param {
        name: "a_tma4".to_owned(),
        kind: ParamKind::TensorMap(kir::TensorMap {
            tensor: 2,
            modes: vec![1, 0],
            box_shape: vec![64, 128],
            swizzle: 128,
        }),
    });
    let shape = [256usize, 512];
    let tensor = |address| CallArg::Tensor {
        dtype: Element::BF16,
        shape: &shape,
        strides: None,
        address,
    };
    let args = [
        CallArg::Int(256),
        CallArg::Int(512),
        tensor(0x1000),
        tensor(0x9000),
    ];
    let launch = plan(&signature, &args).expect("the map is derived");
    assert_eq!(launch.args.last(), Some(&ArgValue::TensorMap(0x1000)));
    let [map] = launch.maps.as_slice() else {
        panic!("not one tensor map in {:?}", launch.maps);
    };
    assert_eq!((map.address, map.rank), (0x1000, 2));
    assert_eq!(
        (map.extents[..2].to_vec(), map.strides[0]),
        (vec![512, 256], 1024)
    );
    let mut five = args.to_vec();
    five.push(CallArg::Int(1));
    let error = plan(&signature, &five).unwrap_err().message;
    assert!(
        error.contains("takes 4 arguments, but 5 were given"),
        "{error}"
    );
    // A tensor at an address TMA cannot use names the map.
    let misaligned = [
        CallArg::Int(256),
        CallArg::Int(512),
        tensor(0x1008),
        tensor(0x9000),
    ];
    let error = plan(&signature, &misaligned).unwrap_err();
    assert_eq!(error.param, Some(4));
    assert!(
        error.message.contains("the tensor map `a_tma4`") && error.message.contains("16 bytes"),
        "{}",
        error.message
    );
}
