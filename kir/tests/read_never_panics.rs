//! `from_text` never panics: every truncation of a kernel's text and random edits of
//! it are read to a kernel or an error naming a line, and whatever reads back can be
//! verified and printed.

use kir::{from_text, to_text, verify};
use proptest::prelude::*;

/// A kernel's text with a loop, a branch, a do-while loop and an atom template.
const KERNEL: &str = r#"kernel k {                                                 ; line 1
  param 0 n: i32
  param 1 out: tensor f32 shape(%0) strides(1)
  launch grid(ceil_div(%0, 128), 1, 1) block(128, 1, 1) smem(0 bytes)
  assume %0 is a multiple of 4: a vector access
  %0:i64 = param 1                                         ; line 3
  %1:i32 = param 0                                         ; line 3
  %2:i32 = const 0                                         ; line 4
  %3:f32 = const 0.0                                       ; line 4
  %4:f32 = for %5:i32 in %2..%1 carry(%6:f32 = %3) uniform { ; line 5
    %7:f32 = convert %5                                    ; line 6
    %8:pred = cmp.lt %7, %6                                ; line 6
    %9:f32 = if %8 {                                       ; line 7
      yield %7
    } else {
      %10:f32 = add %6, %7                                 ; line 8
      yield %10
    }
    yield %9
  }
  %11:f32 = loop carry(%12:f32 = %4) {                     ; line 10
    %13:f32 = shuffle.down %12, %1                         ; line 11
    %14:pred = cmp.ne %13, %12                             ; line 11
    yield %13 while %14
  }
  atom "st.global.f32 [{a}], {v};" a=%0+0, v=%11+0 if %8   ; line 12
  atomic.add.global [%0+4], %11                            ; line 13
}
"#;

/// Reads `text`; what reads back is verified and printed, neither may panic.
fn read_all_the_way(text: &str) {
    match from_text(text) {
        Ok(kernel) => {
            let printed = to_text(&kernel, &|offset| offset);
            let _ = verify(kernel);
            assert!(printed.starts_with("kernel "));
        }
        Err(error) => assert!(error.line >= 1 && !error.problem.is_empty(), "{error}"),
    }
}

#[test]
fn the_sample_reads_and_verifies() {
    let kernel = from_text(KERNEL).unwrap();
    assert_eq!(to_text(&kernel, &|offset| offset), KERNEL);
    assert!(verify(kernel).is_err(), "%8 is used outside its region");
    let fixed = KERNEL.replace("%11+0 if %8", "%11+0");
    assert!(verify(from_text(&fixed).unwrap()).is_ok());
}

#[test]
fn every_truncation_is_an_error_or_a_kernel() {
    for (end, _) in KERNEL.char_indices() {
        read_all_the_way(&KERNEL[..end]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn edits_never_panic(
        at in 0..KERNEL.len(),
        removed in 0usize..12,
        inserted in "[%:0-9a-z ,.=+\\-(){}\\[\\]\"\\\\;\n]{0,8}",
    ) {
        let start = (0..=at).rev().find(|i| KERNEL.is_char_boundary(*i)).unwrap_or(0);
        let end = (start + removed..=KERNEL.len())
            .find(|i| KERNEL.is_char_boundary(*i))
            .unwrap_or(KERNEL.len());
        let edited = format!("{}{inserted}{}", &KERNEL[..start], &KERNEL[end..]);
        read_all_the_way(&edited);
    }

    #[test]
    fn any_text_never_panics(text in "\\PC{0,200}") {
        read_all_the_way(&text);
    }
}
