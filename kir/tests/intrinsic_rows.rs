//! The intrinsic table: every row names one kind of instruction, which its `build`
//! makes back from sample numbers; an instruction of every row, on operands of its
//! roles' types, verifies and reads back from its text; and the verifier holds each
//! operand, offset and parameter to its row.

use kir::intrinsic::ROWS;
use kir::{Intrinsic, Op, RoleKind, Row, Space, Ty, from_text, to_text, verify};

/// A sample value for a number of that name.
fn sample(name: &str) -> u32 {
    match name {
        "registers" => 232,
        "id" => 1,
        "threads" => 256,
        "pending" => 1,
        "rank" => 2,
        "columns" => 128,
        "cta_group" => 2,
        "lanes" => 16,
        "bits" => 256,
        "repetitions" => 2,
        other => panic!("no sample for the number `{other}`: add one"),
    }
}

/// A kernel whose only effect is `line`, with `%0` a shared address, `%1` an i32,
/// `%2` an i64 and `%3` a b32 to use as operands.
fn kernel_text(line: &str) -> String {
    format!(
        "kernel k {{
  launch grid(1, 1, 1) block(256, 1, 1) smem(64 bytes)
  %0:i32 = shared_base
  %1:i32 = const 1
  %2:i64 = const 0
  %3:b32 = load.shared [%0+0]
  {line}
}}
"
    )
}

/// The text of the row's instruction on operands of its roles' types (its list role
/// repeated as it says), its numbers sampled, defining values of its results' types.
fn instruction_text(row: &Row) -> String {
    let numbers: Vec<u32> = row.numbers.iter().map(|name| sample(name)).collect();
    let intrinsic = (row.build)(&numbers).unwrap();
    let numbers =
        (row.numbers.iter().zip(&numbers)).map(|(name, value)| format!(" {name}={value}"));
    let operands: Vec<&str> = (0..intrinsic.operand_count())
        .map(|index| match intrinsic.role(index).unwrap().kind {
            RoleKind::Address(Space::Shared) => "[%0+8]",
            RoleKind::Address(Space::Global) => "[%2+8]",
            RoleKind::Value(Ty::I32) => "%1",
            RoleKind::Value(Ty::I64) => "%2",
            RoleKind::Word => "%3",
            other => panic!("no sample operand for {other:?}: add one"),
        })
        .collect();
    let operands = if operands.is_empty() {
        String::new()
    } else {
        format!(" {}", operands.join(", "))
    };
    let words = if row.result_words {
        intrinsic.list_len()
    } else {
        0
    };
    let types = (row.results.iter().copied()).chain(std::iter::repeat_n(Ty::F32, words));
    let results: Vec<String> = (types.enumerate())
        .map(|(index, ty)| format!("%{}:{}", 10 + index, ty.name()))
        .collect();
    let results = if results.is_empty() {
        String::new()
    } else {
        format!("{} = ", results.join(", "))
    };
    format!(
        "{results}{}{}{operands}",
        row.name,
        numbers.collect::<String>()
    )
}

#[test]
fn every_row_builds_its_kind_and_is_named_once() {
    for (index, row) in ROWS.iter().enumerate() {
        let numbers: Vec<u32> = row.numbers.iter().map(|name| sample(name)).collect();
        let intrinsic = (row.build)(&numbers)
            .unwrap_or_else(|| panic!("`{}` does not build from {numbers:?}", row.name));
        assert!(std::ptr::eq(intrinsic.row(), row), "`{}`", row.name);
        assert_eq!(intrinsic.numbers(), numbers, "`{}`", row.name);
        assert!(intrinsic.is_valid());
        assert!(
            ROWS[..index].iter().all(|other| other.name != row.name),
            "`{}` names two rows",
            row.name
        );
        assert!(std::ptr::eq(Intrinsic::row_named(row.name).unwrap(), row));
    }
}

#[test]
fn every_row_verifies_and_reads_back_from_its_text() {
    for row in &ROWS {
        let text = kernel_text(&instruction_text(row));
        let kernel = from_text(&text).unwrap_or_else(|error| panic!("{error}\n{text}"));
        let printed = to_text(&kernel, &|line| line);
        let verified = verify(kernel).unwrap_or_else(|error| panic!("{error}\n{text}"));
        let Some(Op::Intrinsic { intrinsic, .. }) = verified.body.last().map(|inst| &inst.op)
        else {
            panic!("`{}` did not read as an intrinsic", row.name);
        };
        assert!(std::ptr::eq(intrinsic.row(), row));
        let again = from_text(&printed).unwrap_or_else(|error| panic!("{error}\n{printed}"));
        assert_eq!(to_text(&again, &|line| line), printed);
        assert_eq!(again.body, verified.body, "{printed}");
    }
}

#[test]
fn the_verifier_holds_operands_and_numbers_to_the_row() {
    let refused = |line: &str| -> String {
        match from_text(&kernel_text(line)) {
            Err(error) => error.to_string(),
            Ok(kernel) => verify(kernel).expect_err(line).to_string(),
        }
    };
    assert!(refused("mbarrier_init [%0+8]").contains("takes 2 operands, not 1"));
    assert!(refused("mbarrier_init [%2+8], %1").contains("operand `bar` is i32, not i64"));
    assert!(refused("mbarrier_wait [%0+8], [%1+4]").contains("takes no offset"));
    assert!(refused("prefetch_tensor_map %1").contains("`map` is i64, not i32"));
    assert!(refused("setmaxnreg_inc registers=12").contains("no form with [12]"));
    assert!(refused("named_barrier_sync id=16 threads=64").contains("no form"));
    assert!(refused("named_barrier_arrive_at threads=48 %1").contains("no form"));
    assert!(refused("tma_store rank=2 %2, [%0+0], %1").contains("takes 4 operands, not 3"));
    assert!(refused("tma_load rank=6 [%0+0], %2, [%0+8], %1").contains("no form"));
    assert!(refused("%4:i32 = cluster_wait").contains("`cluster_wait` defines the values [i32]"));
    assert!(refused("tmem_alloc columns=96 cta_group=1 [%0+0]").contains("no form"));
    assert!(refused("tmem_alloc columns=1024 cta_group=1 [%0+0]").contains("no form"));
    assert!(refused("tmem_dealloc columns=64 cta_group=3 %1").contains("no form"));
    assert!(refused("tmem_dealloc columns=64 cta_group=1 [%0+8]").contains("takes no offset"));
    assert!(refused("tcgen05_commit cta_group=0 [%0+8]").contains("no form"));
    assert!(refused("tcgen05_commit_multicast cta_group=1 [%0+8]").contains("takes 2 operands"));
    assert!(refused("wgmma_wait pending=8").contains("no form"));
    assert!(refused("%10:f32 = tmem_load lanes=32 bits=32 repetitions=3 %1").contains("no form"));
    assert!(refused("%10:f32 = tmem_load lanes=32 bits=64 repetitions=1 %1").contains("no form"));
    let two = "%10:f32, %11:f32 = tmem_load lanes=32 bits=32 repetitions=1 %1";
    assert!(refused(two).contains("defines the values [f32, f32]"));
    let half = "%10:f16 = tmem_load lanes=32 bits=32 repetitions=1 %1";
    assert!(refused(half).contains("defines the values [f16]"));
    let store = "tmem_store lanes=32 bits=32 repetitions=2 %1, %3";
    assert!(refused(store).contains("takes 3 operands, not 2"));
    let wide = "tmem_store lanes=32 bits=32 repetitions=1 %1, %2";
    assert!(refused(wide).contains("operand `words` is b32, not i64"));
    let mma = "tcgen05_mma_f16 cta_group=1 %1, %1, %2, %1, %1";
    assert!(refused(mma).contains("operand `desc_a` is i64, not i32"));
}
