//! The text form reads back: `to_text(from_text(to_text(k)))` is `to_text(k)` for
//! kernels built here (every operation, every signature line, escapes in a template)
//! and for every kernel the examples and the control-flow tests lower to; a kernel
//! whose spans are line numbers reads back equal. Mistakes are errors that name their
//! line.

use kir::{
    AtomicOp, BinOp, CmpOp, Element, HostExpr, Inst, IntParam, Kernel, Launch, Op, Param,
    ParamKind, Region, ScalarParam, Scope, ShuffleMode, Signature, Space, Special, Ty, UnOp,
    ValueId, from_text, to_text,
};
use lang::Span;

/// Spans read from text are line numbers: printing them back is the identity.
fn identity(offset: u32) -> u32 {
    offset
}

fn boxed(expr: HostExpr) -> Box<HostExpr> {
    Box::new(expr)
}

fn signature() -> Signature {
    let tensor = ParamKind::Tensor {
        dtype: Element::BF16,
        shape: vec![
            HostExpr::Param(0),
            HostExpr::CeilDiv(boxed(HostExpr::Param(1)), boxed(HostExpr::Const(-4))),
        ],
        strides: vec![HostExpr::Param(1), HostExpr::Const(1)],
    };
    let param = |name: &str, kind: ParamKind| Param {
        name: name.to_owned(),
        kind,
    };
    Signature {
        name: "everything".to_owned(),
        entry: "everything__TILE_64".to_owned(),
        const_args: vec![
            ("TILE".to_owned(), kir::ConstValue::Int(64)),
            ("NEGATIVE".to_owned(), kir::ConstValue::Int(-1)),
            ("T".to_owned(), kir::ConstValue::Dtype("bf16".to_owned())),
        ],
        params: vec![
            param("m", ParamKind::Int(IntParam::U32)),
            param("k", ParamKind::Int(IntParam::I64)),
            param("a", tensor),
            param("alpha", ParamKind::Scalar(ScalarParam::BF16)),
            param("flag", ParamKind::Scalar(ScalarParam::Bool)),
        ],
        launch: Launch {
            grid: [
                HostExpr::Div(boxed(HostExpr::Param(1)), boxed(HostExpr::Const(64))),
                HostExpr::Rem(boxed(HostExpr::Param(0)), boxed(HostExpr::Const(3))),
                HostExpr::Const(1),
            ],
            block: [HostExpr::Const(128), HostExpr::Const(1), HostExpr::Const(1)],
            cluster: [2, 1, 1],
            shared_bytes: 4096,
        },
        assumptions: vec![kir::Assumption {
            param: 1,
            multiple: 8,
            reason: "a vector access: `k` moves 8 at a time".to_owned(),
        }],
        alignments: vec![kir::Alignment {
            param: 2,
            bytes: 16,
            reason: "16 bytes: aligned".to_owned(),
        }],
        element_requirements: vec![
            kir::ElementRequirement {
                param: 2,
                rule: kir::ElementRule::Range {
                    low: HostExpr::Const(-1),
                    high: HostExpr::Add(boxed(HostExpr::Param(0)), boxed(HostExpr::Const(1))),
                },
                span: Span::empty(2),
            },
            kir::ElementRequirement {
                param: 2,
                rule: kir::ElementRule::Offsets {
                    total: HostExpr::Param(1),
                    max_step: None,
                },
                span: Span::empty(3),
            },
            kir::ElementRequirement {
                param: 2,
                rule: kir::ElementRule::Offsets {
                    total: HostExpr::Mul(boxed(HostExpr::Param(1)), boxed(HostExpr::Const(2))),
                    max_step: Some(HostExpr::Param(0)),
                },
                span: Span::empty(4),
            },
        ],
    }
}

/// Appends `op` defining values of `tys`, at line `line`.
fn push(kernel: &mut Kernel, op: Op, tys: &[Ty], line: u32) -> Vec<ValueId> {
    kernel.push_many(op, tys, Span::empty(line))
}

fn inst(op: Op, results: Vec<ValueId>, line: u32) -> Inst {
    Inst {
        op,
        results,
        span: Span::empty(line),
    }
}

/// A kernel with every operation, regions nested in regions, and spans that are
/// line numbers.
fn everything() -> Kernel {
    let mut k = Kernel::new(signature(), Span::empty(2));
    let base = push(&mut k, Op::Param(2), &[Ty::I64], 10)[0];
    let tid = push(&mut k, Op::Special(Special::ThreadIndex(0)), &[Ty::I32], 11)[0];
    push(&mut k, Op::Special(Special::GridDim(2)), &[Ty::I32], 11);
    push(
        &mut k,
        Op::Special(Special::ClusterIndex(1)),
        &[Ty::I32],
        11,
    );
    push(
        &mut k,
        Op::Special(Special::BlockInCluster(0)),
        &[Ty::I32],
        11,
    );
    push(
        &mut k,
        Op::Special(Special::BlockRankInCluster),
        &[Ty::I32],
        11,
    );
    let shared = push(&mut k, Op::SharedBase, &[Ty::I32], 12)[0];
    let zero = push(&mut k, Op::ConstInt(0), &[Ty::I32], 13)[0];
    let eight = push(&mut k, Op::ConstInt(-8), &[Ty::I32], 13)[0];
    let half = push(&mut k, Op::ConstFloat(-1.5e-7), &[Ty::F32], 14)[0];
    let negative_zero = push(&mut k, Op::ConstFloat(-0.0), &[Ty::F64], 14)[0];
    push(&mut k, Op::ConstFloat(f64::INFINITY), &[Ty::F32], 14);
    let less = push(&mut k, Op::Compare(CmpOp::Lt, tid, eight), &[Ty::Pred], 15)[0];
    let sum = push(&mut k, Op::Binary(BinOp::Shr, tid, eight), &[Ty::I32], 15)[0];
    let root = push(&mut k, Op::Unary(UnOp::Rsqrt, half), &[Ty::F32], 16)[0];
    push(&mut k, Op::Fma(root, half, root), &[Ty::F32], 16);
    push(&mut k, Op::Unary(UnOp::Neg, negative_zero), &[Ty::F64], 16);
    let picked = push(&mut k, Op::Select(less, tid, sum), &[Ty::I32], 17)[0];
    let wide = push(&mut k, Op::Convert(picked), &[Ty::I64], 17)[0];
    let halves = push(
        &mut k,
        Op::Load {
            space: Space::Global,
            address: wide,
            offset: -4,
            narrow: None,
            predicate: Some(less),
        },
        &[Ty::BF16, Ty::BF16],
        18,
    );
    let packed = push(&mut k, Op::Pack(halves[0], halves[1]), &[Ty::B32], 19)[0];
    push(&mut k, Op::Unpack(packed), &[Ty::F16, Ty::B16], 19);
    k.push_effect(
        Op::Store {
            space: Space::Shared,
            address: shared,
            offset: 64,
            narrow: None,
            values: vec![packed, packed],
            predicate: None,
        },
        Span::empty(20),
    );
    k.push_effect(
        Op::Atom {
            template: "cp.async [{dst}], [{src}], 16; // \"quoted\" \\ {{x}}\n\tnext".to_owned(),
            operands: vec![
                ("dst".to_owned(), shared, 128),
                ("src".to_owned(), base, -16),
            ],
            registers: Vec::new(),
            output: None,
            warp: None,
            predicate: Some(less),
            scope: Scope::Thread,
        },
        Span::empty(21),
    );
    push(
        &mut k,
        Op::Atom {
            template: "mma.sync.aligned {{d}}, {{a}}, {{b}};".to_owned(),
            operands: Vec::new(),
            registers: vec![
                ("a".to_owned(), vec![packed, packed]),
                ("b".to_owned(), vec![packed]),
            ],
            output: Some("d".to_owned()),
            warp: None,
            predicate: None,
            scope: Scope::Warp,
        },
        &[Ty::B32, Ty::B32],
        21,
    );
    k.push_effect(Op::CpAsyncCommit, Span::empty(22));
    k.push_effect(Op::CpAsyncWait(1), Span::empty(22));
    k.push_effect(Op::Barrier, Span::empty(23));
    k.push_effect(Op::WarpBarrier, Span::empty(23));
    let shuffled = push(
        &mut k,
        Op::Shuffle {
            mode: ShuffleMode::Xor,
            value: half,
            lane: eight,
        },
        &[Ty::F32],
        24,
    )[0];
    let atomic = |op, value| Op::Atomic {
        op,
        space: Space::Global,
        address: base,
        offset: 8,
        value,
    };
    push(&mut k, atomic(AtomicOp::Max, tid), &[Ty::I32], 25);
    k.push_effect(atomic(AtomicOp::Add, shuffled), Span::empty(25));
    let format = kir::Format::parse("lane {} got {:.3} ({:x}) \"100%\" {{ok}}\n").unwrap();
    k.push_effect(
        Op::Print {
            format,
            args: vec![tid, shuffled, tid],
        },
        Span::empty(26),
    );
    let total = counted_loop(&mut k, zero, tid, shuffled, less);
    k.push_effect(atomic(AtomicOp::Min, total), Span::empty(40));
    k
}

/// `for i in start..end carry(acc) { if c { loop { ... } } }`, at lines 30 to 39.
fn counted_loop(
    k: &mut Kernel,
    start: ValueId,
    end: ValueId,
    init: ValueId,
    c: ValueId,
) -> ValueId {
    let (counter, acc) = (k.new_value(Ty::I32), k.new_value(Ty::F32));
    let (x, sum, next, again) = (
        k.new_value(Ty::F32),
        k.new_value(Ty::F32),
        k.new_value(Ty::F32),
        k.new_value(Ty::Pred),
    );
    let (looped, chosen, result) = (
        k.new_value(Ty::F32),
        k.new_value(Ty::F32),
        k.new_value(Ty::F32),
    );
    let do_while = Op::Loop {
        inits: vec![acc],
        body: Region {
            params: vec![x],
            body: vec![
                inst(Op::Binary(BinOp::Add, x, acc), vec![sum], 33),
                inst(Op::Compare(CmpOp::Gt, sum, acc), vec![again], 34),
            ],
            yields: vec![sum],
        },
        condition: again,
        uniform: false,
    };
    let branch = Op::If {
        condition: c,
        then: Region {
            params: Vec::new(),
            body: vec![inst(do_while, vec![looped], 32)],
            yields: vec![looped],
        },
        otherwise: Region {
            params: Vec::new(),
            body: Vec::new(),
            yields: vec![acc],
        },
        uniform: true,
    };
    let body = vec![
        inst(branch, vec![chosen], 31),
        inst(Op::Binary(BinOp::Mul, chosen, chosen), vec![next], 36),
    ];
    k.body.push(inst(
        Op::For {
            start,
            end,
            inits: vec![init],
            body: Region {
                params: vec![counter, acc],
                body,
                yields: vec![next],
            },
            uniform: false,
        },
        vec![result],
        30,
    ));
    result
}

#[test]
fn a_kernel_with_every_operation_reads_back_equal() {
    let kernel = everything();
    assert!(kir::verify(kernel.clone()).is_ok());
    let text = to_text(&kernel, &identity);
    let read = from_text(&text).unwrap_or_else(|error| panic!("{error}\n{text}"));
    assert_eq!(to_text(&read, &identity), text);
    assert_eq!(read, kernel, "{text}");
}

#[test]
fn mistakes_name_their_line() {
    let text = to_text(&everything(), &identity);
    let lines: Vec<&str> = text.lines().collect();
    let with_line = |number: usize, replacement: &str| {
        let mut edited = lines.clone();
        edited[number - 1] = replacement;
        from_text(&edited.join("\n")).unwrap_err()
    };
    let cases = [
        (1, "kernal k {", "line 1: expected `kernel NAME {`"),
        (
            8,
            "  param 2 a: tensor q8 shape() strides()",
            "line 8: `q8` is no dtype",
        ),
        (
            12,
            "  %0:i64 = frobnicate %1",
            "line 12: `frobnicate` is not an operation",
        ),
        (12, "  %0:i65 = param 2", "line 12: `i65` is not a type"),
        (
            12,
            "  %0:i64 = param 2 ; lines 3",
            "line 12: expected `line N` after `;`",
        ),
        (
            12,
            "  %0:i64 = param 2 extra",
            "line 12: expected the end of the line",
        ),
    ];
    for (number, replacement, expected) in cases {
        let error = with_line(number, replacement);
        let error = error.to_string();
        assert!(error.starts_with(expected), "{replacement}: {error}");
    }
    let truncated = lines[..lines.len() - 3].join("\n");
    assert!(
        from_text(&truncated)
            .unwrap_err()
            .problem
            .contains("ends inside the kernel")
    );
    let retyped = text.replacen("%1:i32 = thread_idx.x", "%1:f32 = thread_idx.x", 1);
    assert!(from_text(&retyped).is_ok_and(|kernel| kir::verify(kernel).is_err()));
}

#[test]
fn hand_written_text_takes_its_own_line_numbers() {
    let text = "// a comment\nkernel k {\n  launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)\n\n  \
                %0:i32 = thread_idx.x\n  barrier ; line 40\n}\n";
    let kernel = from_text(text).unwrap();
    assert_eq!(kernel.span, Span::empty(2));
    assert_eq!(kernel.body[0].span, Span::empty(5));
    assert_eq!(kernel.body[1].span, Span::empty(40));
    assert!(kir::verify(kernel).is_ok());
}
