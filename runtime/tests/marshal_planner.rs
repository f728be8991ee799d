//! A `Planner` made once and reused for many calls plans each as `plan` does; tensor
//! strides, when the host knows them, are checked against the layout (a mode a tensor
//! dimension covers first-mode-fastest, extents of 1 unchecked); and the signature's
//! assumptions and alignments are checked in one pass, in order, a malformed one failing
//! every call.

use kir::{
    Alignment, Assumption, Element, HostExpr, IntParam, Launch, Param, ParamKind, Signature,
};
use runtime::marshal::{CallArg, Planner, plan};

/// `scale(n: i32, x: gmem f32[(4, n):(1, 4)], y: gmem f32[(n, 4):(4, 1)])`: `x` read
/// column-major, `y` row-major; `n` a multiple of 2, `x` 16-byte aligned.
fn signature() -> Signature {
    let tensor = |shape: [HostExpr; 2], strides: [HostExpr; 2]| ParamKind::Tensor {
        dtype: Element::F32,
        shape: shape.to_vec(),
        strides: strides.to_vec(),
    };
    let (n, c) = (|| HostExpr::Param(0), HostExpr::Const);
    Signature {
        params: vec![
            Param {
                name: "n".to_owned(),
                kind: ParamKind::Int(IntParam::I32),
            },
            Param {
                name: "x".to_owned(),
                kind: tensor([c(4), n()], [c(1), c(4)]),
            },
            Param {
                name: "y".to_owned(),
                kind: tensor([n(), c(4)], [c(4), c(1)]),
            },
        ],
        launch: Launch {
            grid: [n(), c(1), c(1)],
            block: [c(32), c(1), c(1)],
            cluster: [1, 1, 1],
            shared_bytes: 0,
        },
        assumptions: vec![Assumption {
            param: 0,
            multiple: 2,
            reason: "pairs".to_owned(),
        }],
        alignments: vec![Alignment {
            param: 1,
            bytes: 16,
            reason: "vectors".to_owned(),
        }],
        ..Signature::empty("scale")
    }
}

fn tensor<'a>(shape: &'a [usize], strides: Option<&'a [i64]>, address: u64) -> CallArg<'a> {
    CallArg::Tensor {
        dtype: Element::F32,
        shape,
        strides,
        address,
    }
}

#[test]
fn a_reused_planner_plans_each_call_as_plan_does() {
    let planner = Planner::new(&signature());
    for n in [2, 6, 7, 64] {
        for address in [0x1000, 0x1004] {
            let (x, y) = ([4, n as usize], [n as usize, 4]);
            let args = [
                CallArg::Int(n),
                tensor(&x, Some(&[1, 4]), address),
                tensor(&y, None, 0x2000),
            ];
            assert_eq!(planner.plan(&args), plan(&signature(), &args));
        }
    }
    let ok = [
        CallArg::Int(8),
        tensor(&[4, 8], None, 0x1000),
        tensor(&[8, 4], None, 0x2000),
    ];
    assert_eq!(planner.plan(&ok).expect("a good call").grid, [8, 1, 1]);
}

#[test]
fn known_strides_are_checked_against_the_layout() {
    let planner = Planner::new(&signature());
    let call = |x_strides: &[i64]| {
        let args = [
            CallArg::Int(8),
            tensor(&[4, 8], Some(x_strides), 0x1000),
            tensor(&[8, 4], Some(&[4, 1]), 0x2000),
        ];
        planner.plan(&args)
    };
    assert!(call(&[1, 4]).is_ok());
    let error = call(&[8, 1]).unwrap_err();
    assert_eq!(error.param, Some(1));
    assert_eq!(
        error.message,
        "`scale`: `x` has strides [8, 1], but the kernel reads it with strides [1, 4] (dimension 0 differs); pass a tensor laid out that way (for row-major, .contiguous())"
    );
    // One host dimension covering both modes holds them first-mode-fastest.
    let flat = [
        CallArg::Int(8),
        tensor(&[32], Some(&[1]), 0x1000),
        tensor(&[8, 4], None, 0x2000),
    ];
    assert!(planner.plan(&flat).is_ok());
}

#[test]
fn an_extent_of_one_has_no_stride_to_check() {
    let planner = Planner::new(&signature());
    let args = [
        CallArg::Int(1),
        tensor(&[4, 1], Some(&[1, 99]), 0x1000),
        tensor(&[1, 4], Some(&[99, 1]), 0x2000),
    ];
    // `n` = 1 breaks the assumption, which is checked after the tensors.
    let error = planner.plan(&args).unwrap_err();
    assert_eq!(error.param, Some(0));
    assert!(
        error
            .message
            .contains("`n` = 1 must be a multiple of 2: pairs")
    );
}

#[test]
fn assumptions_come_before_alignments() {
    let planner = Planner::new(&signature());
    let args = [
        CallArg::Int(3),
        tensor(&[4, 3], None, 0x1004),
        tensor(&[3, 4], None, 0x2000),
    ];
    assert_eq!(planner.plan(&args).unwrap_err().param, Some(0));
    let args = [
        CallArg::Int(4),
        tensor(&[4, 4], None, 0x1004),
        tensor(&[4, 4], None, 0x2000),
    ];
    let error = planner.plan(&args).unwrap_err();
    assert_eq!(error.param, Some(1));
    assert_eq!(
        error.message,
        "`scale`: `x` starts at address 0x1004, which is not a multiple of 16 bytes: vectors"
    );
}

#[test]
fn a_requirement_naming_a_parameter_it_cannot_fails_every_call() {
    let args = [
        CallArg::Int(4),
        tensor(&[4, 4], None, 0x1000),
        tensor(&[4, 4], None, 0x2000),
    ];
    let mut missing = signature();
    missing.assumptions[0].param = 7;
    let error = Planner::new(&missing).plan(&args).unwrap_err();
    assert_eq!(error.param, None);
    assert_eq!(
        error.message,
        "`scale`: an assumption names parameter 7, which does not exist"
    );
    let mut not_a_tensor = signature();
    not_a_tensor.alignments[0].param = 0;
    let error = Planner::new(&not_a_tensor).plan(&args).unwrap_err();
    assert_eq!(
        error.message,
        "`scale`: an alignment names parameter 0, which is not a tensor"
    );
}
