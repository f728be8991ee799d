//! Printing from kernels (`tests/control/print.cuk`): the emulator's text is exactly
//! what C's `printf` writes for each value, by block, then thread, then program order;
//! the KIR holds one `print` per call (a snapshot); the PTX calls `vprintf` and ptxas
//! assembles it for every target.

#[path = "support/build.rs"]
mod build;

use build::{TARGETS, assemble, cukc, emit};

const FILE: &str = "tests/control/print.cuk";

/// What `cukc test --emulate` prints for the file: the kernels' lines, each block's
/// before its result line.
const EXPECTED: &str = "\
b0 t0 x[0] = -2.000000 (-2.00) h 0.000000 flags 0 big false
(2,4):(4,1)
(2,4):(4,1) holds 8 values; 100% {literal} text
b0 t1 x[1] = -0.750000 (-0.75) h 1.000000 flags 33 big false
b0 t2 x[2] = 0.500000 (0.50) h 2.000000 flags 66 big false
b0 t3 x[3] = 1.750000 (1.75) h 3.000000 flags 99 big true
b1 t0 x[4] = 3.000000 (3.00) h 4.000000 flags cc big true
b1 t1 x[5] = 4.250000 (4.25) h 5.000000 flags ff big true
test values_print_per_thread ... ok
gmem f32 (2,4):(4,1):
  0.000000 1.000000 2.000000 3.000000
  4.000000 5.000000 6.000000 7.000000
smem i32 (2,4):(4,1):
  0 1 -1 1048576
  10 11 -1 1048576
rmem f32 (2,4):(1,2):
  0.000000 1.000000 2.000000 3.000000
  4.000000 5.000000 6.000000 7.000000
test tensors_print_by_rows ... ok
";

#[test]
fn the_emulator_prints_what_printf_writes_by_block_thread_and_program_order() {
    let output = cukc(&["test", "--emulate", FILE]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    // The result lines end with timings, which vary.
    let text: String = stdout
        .lines()
        .take_while(|line| !line.starts_with("2 passed"))
        .map(|line| match line.split_once(" ... ok") {
            Some((head, _)) => format!("{head} ... ok\n"),
            None => format!("{line}\n"),
        })
        .collect();
    assert_eq!(text, EXPECTED);
}

#[test]
fn each_print_is_one_kir_print_and_vprintf_call_that_ptxas_assembles() {
    let kir = emit(FILE, "sm_90a", "kir");
    insta::assert_snapshot!("print_kir", kir);
    for target in TARGETS {
        let ptx = emit(FILE, target, "ptx");
        // Three prints in show_values; three print_tensor headers and six rows.
        assert_eq!(
            ptx.matches("call (print_status), vprintf").count(),
            3 + 9,
            "{ptx}"
        );
        assert!(ptx.contains(".extern .func (.param .b32 status) vprintf"));
        assemble(&ptx, target, FILE, false);
    }
}
