//! The warp-collective atoms against the PTX ISA's own description of them, written
//! here independently of the layouts the instructions carry: `ldmatrix` (`.x1`, `.x2`,
//! `.x4`, `.trans`), `stmatrix` (`.x1`, `.x4`, `.x2.trans`) and `mma.sync` m16n8k16 (bf16
//! and f16 inputs) and m16n8k8; and the faults of a warp that does not execute one
//! whole.

mod support;

use emulator::FaultKind;
use support::{Arg, Device, assert_close, assert_says, bf16_rounded, randn};

/// The text of `tests/kir/{name}`.
fn kir_text(name: &str) -> String {
    std::fs::read_to_string(support::root().join("tests/kir").join(name)).unwrap()
}

fn kir_file(name: &str) -> kir::Verified {
    support::from_kir(&kir_text(name))
}

/// `c = a · bᵀ` with a 16 x `k` and b 8 x `k`, in f64 from the 16-bit inputs.
fn reference(a: &[f32], b: &[f32], k: usize) -> Vec<f32> {
    let mut c = vec![0f32; 16 * 8];
    for m in 0..16 {
        for n in 0..8 {
            let dot: f64 = (0..k)
                .map(|step| f64::from(a[m * k + step]) * f64::from(b[n * k + step]))
                .sum();
            c[m * 8 + n] = dot as f32;
        }
    }
    c
}

/// Runs the MMA `kernel` on `a` (16 x `k`) and `b` (8 x `k`), in `device` at `a_at`
/// and `b_at`, and checks its f32 `c` against [`reference`]: products of 16-bit values
/// are exact; one f32 rounding of their sum is all that differs.
fn check_product(
    device: &mut Device,
    kernel: &kir::Verified,
    (a_at, b_at): (u64, u64),
    (a, b): (&[f32], &[f32]),
    k: usize,
) -> emulator::Stats {
    let c_at = device.empty(16 * 8 * 4);
    let args = [Arg::Tensor(a_at), Arg::Tensor(b_at), Arg::Tensor(c_at)];
    let stats = device.run(kernel, &args);
    assert_close(&device.read_f32(c_at, 128), &reference(a, b, k), 1e-6, 1e-6);
    stats
}

#[test]
fn ldmatrix_and_mma_multiply_a_tile() {
    let a = bf16_rounded(&randn(256, 40));
    let b = bf16_rounded(&randn(128, 41));
    let mut device = Device::default();
    let at = (device.bf16s(&a), device.bf16s(&b));
    let stats = check_product(&mut device, &kir_file("warp_mma.kir"), at, (&a, &b), 16);
    assert!(stats.instructions >= 32 * 50, "{stats:?}");
}

#[test]
fn m16n8k8_reads_its_fragments_from_registers() {
    // The PTX ISA's fragments of m16n8k8 put a[t / 4, 2 (t % 4) + {0, 1}] (and the same 8
    // rows down) and b[t / 4, 2 (t % 4) + {0, 1}] in lane t: its 32-bit word t of each.
    let text = "kernel k {
  param 0 a: tensor bf16 shape(16, 8) strides(8, 1)
  param 1 b: tensor bf16 shape(8, 8) strides(8, 1)
  param 2 c: tensor f32 shape(16, 8) strides(8, 1)
  launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)
  %0:i64 = param 0
  %1:i64 = param 1
  %2:i64 = param 2
  %3:i32 = thread_idx.x
  %4:i32 = const 2
  %5:i32 = shl %3, %4
  %6:i64 = convert %5
  %7:i64 = add %0, %6
  %8:b32 = load.global [%7+0]
  %9:b32 = load.global [%7+128]
  %10:i64 = add %1, %6
  %11:b32 = load.global [%10+0]
  %12:f32 = const 0.0
  %13:f32, %14:f32, %15:f32, %16:f32 = atom.warp \"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {{d}}, {{a}}, {{b}}, {{c}};\" a=[%8, %9], b=[%11], c=[%12, %12, %12, %12] -> d warp mma m16n8k8 f32.bf16.bf16.f32 a=((4,8),(2,2)):((32,1),(16,8)) b=((4,8),2):((16,1),8) c=((4,8),(2,2)):((32,1),(16,8))
  %17:i32 = shr %3, %4
  %18:i32 = const 5
  %19:i32 = shl %17, %18
  %20:i32 = const 3
  %21:i32 = and %3, %20
  %22:i32 = shl %21, %20
  %23:i32 = add %19, %22
  %24:i64 = convert %23
  %25:i64 = add %2, %24
  store.global [%25+0], %13, %14
  store.global [%25+256], %15, %16
}";
    let a = bf16_rounded(&randn(128, 44));
    let b = bf16_rounded(&randn(64, 45));
    let mut device = Device::default();
    let at = (device.bf16s(&a), device.bf16s(&b));
    check_product(&mut device, &support::from_kir(text), at, (&a, &b), 8);
}

#[test]
fn f16_inputs_multiply_too() {
    let kernel = support::from_kir(&kir_text("warp_mma.kir").replace("bf16", "f16"));
    let round = |values: Vec<f32>| -> Vec<f32> {
        values
            .iter()
            .map(|v| half::f16::from_f32(*v).to_f32())
            .collect()
    };
    let (a, b) = (round(randn(256, 42)), round(randn(128, 43)));
    let mut device = Device::default();
    let at = (device.f16s(&a), device.f16s(&b));
    check_product(&mut device, &kernel, at, (&a, &b), 16);
}

/// The start both kernels share: `%0` is shared memory's base, `%1` the lane `t`,
/// `%5`, `%7`, `%8`, `%9` its four words holding the 16-bit values `8t` to `8t + 7`, and
/// `%12` the address of shared row `t`; `%10` is 4.
const ROWS: &str = "  param 0 out: tensor i32 shape(128) strides(1)
  launch grid(1, 1, 1) block(32, 1, 1) smem(512 bytes)
  %0:i32 = shared_base
  %1:i32 = thread_idx.x
  %2:i32 = const 524296
  %3:i32 = mul %1, %2
  %4:i32 = const 65536
  %5:i32 = add %3, %4
  %6:i32 = const 131074
  %7:i32 = add %5, %6
  %8:i32 = add %7, %6
  %9:i32 = add %8, %6
  %10:i32 = const 4
  %11:i32 = shl %1, %10
  %12:i32 = add %0, %11";

/// KIR from `%{first}` to `%{first + 7}`, the last the address of shared row `l ^ 21`
/// for a lane `l` below `lanes`, else an address far outside shared memory (which the
/// atoms must ignore).
fn row_address(first: usize, lanes: u32) -> String {
    let r = |offset: usize| format!("%{}", first + offset);
    [
        format!("{}:i32 = const {lanes}", r(0)),
        format!("{}:pred = cmp.lt %1, {}", r(1), r(0)),
        format!("{}:i32 = const 21", r(2)),
        format!("{}:i32 = xor %1, {}", r(3), r(2)),
        format!("{}:i32 = const 4000", r(4)),
        format!("{}:i32 = select {}, {}, {}", r(5), r(1), r(3), r(4)),
        format!("{}:i32 = shl {}, %10", r(6), r(5)),
        format!("{}:i32 = add %0, {}", r(7), r(6)),
    ]
    .map(|line| format!("  {line}"))
    .join("\n")
}

/// Shared memory holds 32 rows of 8 16-bit elements, row `r` element `j` being
/// `8r + j`; each lane addresses a row as [`row_address`] says for `lanes`. `atom` runs
/// and each lane stores its `words` result words to `out[lane · words ..]`.
fn ldmatrix_kernel(lanes: u32, atom: &str, words: usize) -> String {
    let results: Vec<String> = (0..words).map(|w| format!("%{}:b32", 30 + w)).collect();
    let values: Vec<String> = (0..words).map(|w| format!("%{}", 30 + w)).collect();
    format!(
        "kernel k {{
{ROWS}
  store.shared [%12+0], %5, %7, %8, %9
  barrier
{}
  {} = atom.warp {atom}
  %40:i64 = param 0
  %41:i32 = const {}
  %42:i32 = shl %1, %41
  %43:i64 = convert %42
  %44:i64 = add %40, %43
  store.global [%44+0], {}
}}",
        row_address(13, lanes),
        results.join(", "),
        (words * 4).trailing_zeros(),
        values.join(", ")
    )
}

fn ldmatrix(shape: &str, layouts: &str) -> String {
    format!(
        "\"ldmatrix.sync.aligned.m8n8.{shape}.shared.b16 {{{{dst}}}}, [{{src}}];\" src=%20+0 -> dst warp copy b16 {layouts}"
    )
}

/// What the PTX ISA says lane `lane`'s register `matrix` holds after an `ldmatrix` of
/// the rows above: without `.trans`, row `lane / 4` of the matrix, elements
/// `2 (lane % 4)` and the next; with it, column `lane / 4` of rows `2 (lane % 4)` and the
/// next. Matrix `i`'s rows come from lanes `8i` to `8i + 7`.
fn expected(lane: u32, matrix: u32, trans: bool) -> i32 {
    let row_of = |row: u32| (8 * matrix + row) ^ 21;
    let (low, high) = if trans {
        let column = lane / 4;
        (
            8 * row_of(2 * (lane % 4)) + column,
            8 * row_of(2 * (lane % 4) + 1) + column,
        )
    } else {
        let element = 8 * row_of(lane / 4) + 2 * (lane % 4);
        (element, element + 1)
    };
    (low | (high << 16)) as i32
}

#[test]
fn ldmatrix_variants_load_what_the_ptx_isa_says() {
    // Each variant's layouts as CuTe's copy traits give them (in 16-bit elements).
    let variants = [
        ("x1", 1, false, "src=((8,4),8):((8,0),1) dst=(32,2):(2,1)"),
        (
            "x2",
            2,
            false,
            "src=((16,2),8):((8,0),1) dst=(32,(2,2)):(2,(1,64))",
        ),
        ("x4", 4, false, "src=(32,8):(8,1) dst=(32,(2,4)):(2,(1,64))"),
        (
            "x1.trans",
            1,
            true,
            "src=((8,4),8):((8,0),1) dst=((4,8),2):((16,1),8)",
        ),
        (
            "x4.trans",
            4,
            true,
            "src=(32,8):(8,1) dst=((4,8),(2,4)):((16,1),(8,64))",
        ),
    ];
    for (shape, matrices, trans, layouts) in variants {
        let text = ldmatrix_kernel(8 * matrices, &ldmatrix(shape, layouts), matrices as usize);
        let mut device = Device::default();
        let out = device.empty(128 * 4);
        device.run(&support::from_kir(&text), &[Arg::Tensor(out)]);
        let got = device.read_i32(out, 32 * matrices as usize);
        let want: Vec<i32> = (0..32)
            .flat_map(|lane| (0..matrices).map(move |matrix| expected(lane, matrix, trans)))
            .collect();
        assert_eq!(got, want, "{shape}");
    }
}

/// Shared memory (32 rows of 8 16-bit elements) is zeroed; lane `t`'s register `i`
/// holds the elements `8t + 2i` and `8t + 2i + 1`; each lane addresses a row as
/// [`row_address`] says for `lanes`; after `atom` and a barrier, lane `t` copies row `t`
/// to `out`.
fn stmatrix_kernel(lanes: u32, atom: &str, words: usize) -> String {
    let registers: Vec<&str> = ["%5", "%7", "%8", "%9"][..words].to_vec();
    format!(
        "kernel k {{
{ROWS}
  %13:i32 = const 0
  store.shared [%12+0], %13, %13, %13, %13
  barrier
{}
  atom.warp \"stmatrix.sync.aligned.m8n8.{atom}.shared.b16 [{{dst}}], {{{{src}}}};\" dst=%21+0, src=[{}] warp copy b16 {{layouts}}
  barrier
  %22:i32, %23:i32, %24:i32, %25:i32 = load.shared [%12+0]
  %26:i64 = param 0
  %27:i64 = convert %11
  %28:i64 = add %26, %27
  store.global [%28+0], %22, %23, %24, %25
}}",
        row_address(14, lanes),
        registers.join(", ")
    )
}

#[test]
fn stmatrix_variants_store_what_the_ptx_isa_says() {
    // Each variant's layouts as CuTe's copy traits give them (in 16-bit elements).
    let variants = [
        ("x1", 1, false, "src=(32,2):(2,1) dst=((8,4),8):((8,0),1)"),
        ("x4", 4, false, "src=(32,(2,4)):(2,(1,64)) dst=(32,8):(8,1)"),
        (
            "x2.trans",
            2,
            true,
            "src=((4,8),(2,2)):((16,1),(8,64)) dst=((16,2),8):((8,0),1)",
        ),
    ];
    for (shape, matrices, trans, layouts) in variants {
        let text =
            stmatrix_kernel(8 * matrices, shape, matrices as usize).replace("{layouts}", layouts);
        let mut device = Device::default();
        let out = device.empty(128 * 4);
        device.run(&support::from_kir(&text), &[Arg::Tensor(out)]);
        // Row r of matrix i is at the row lane 8i + r addresses; lane t's register i
        // holds its row t / 4, columns 2 (t % 4) and the next (with `.trans`, its column
        // t / 4, rows 2 (t % 4) and the next).
        let element = |row: u32, column: u32| -> u32 {
            let (matrix, r) = ((row ^ 21) / 8, (row ^ 21) % 8);
            if matrix >= matrices {
                return 0;
            }
            let (lane, half) = if trans {
                (4 * column + r / 2, r % 2)
            } else {
                (4 * r + column / 2, column % 2)
            };
            8 * lane + 2 * matrix + half
        };
        let want: Vec<i32> = (0..32)
            .flat_map(|row| {
                (0..4).map(move |word| {
                    (element(row, 2 * word) | (element(row, 2 * word + 1) << 16)) as i32
                })
            })
            .collect();
        assert_eq!(device.read_i32(out, 128), want, "{shape}");
    }
}

#[test]
fn a_warp_atom_needs_all_32_lanes() {
    let atom = ldmatrix("x4", "src=(32,8):(8,1) dst=(32,(2,4)):(2,(1,64))");
    let short = ldmatrix_kernel(32, &atom, 4).replace("block(32, 1, 1)", "block(16, 1, 1)");
    let predicated =
        ldmatrix_kernel(32, &format!("{atom} if %14"), 4).replace("const 32", "const 8");
    for (text, lanes, predicate) in [(short, 16, false), (predicated, 8, true)] {
        let mut device = Device::default();
        let out = device.empty(128 * 4);
        let fault = device
            .launch(&support::from_kir(&text), &[Arg::Tensor(out)])
            .unwrap_err();
        assert_eq!(fault.kind.code(), "E0407", "{fault}");
        assert!(
            matches!(fault.kind, FaultKind::IncompleteWarp { lanes: l, predicated, .. } if l == lanes && predicated == predicate),
            "{fault}"
        );
        assert_says(
            &fault,
            &["`ldmatrix.sync.aligned.m8n8.x4.shared.b16`, which needs all 32 lanes"],
        );
    }
}

#[test]
fn an_ldmatrix_with_a_store_s_operands_is_refused_not_skipped() {
    // The verifier accepts the operands of a store (an address `dst`, registers `src`);
    // an `ldmatrix` template with them is not a copy the emulator can run.
    let text = "kernel k {
  launch grid(1, 1, 1) block(32, 1, 1) smem(512 bytes)
  %0:i32 = shared_base
  %1:b32 = const 0
  atom.warp \"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {{src}}, [{dst}];\" dst=%0+0, src=[%1] warp copy b16 src=(32,2):(2,1) dst=((8,4),8):((8,0),1)
}";
    let fault = Device::default()
        .launch(&support::from_kir(text), &[])
        .unwrap_err();
    assert_eq!(fault.kind.code(), "E0409", "{fault}");
    assert_says(&fault, &["without its `src` address operand"]);
}
