//! `cukc profile` without a GPU: a test block runs on the emulator with its profile on,
//! and the table gives each line's thread-instructions, bytes and shared-memory bank
//! conflicts; a bench or an unknown block is refused, naming the blocks there are.
//! (The Nsight Compute side runs in `scripts/gpu-check.sh`; its CSV parsing has unit
//! tests in `cli/src/profile/ncu.rs`.)

#[path = "support/build.rs"]
mod build;

use build::cukc;

/// The row of `table` whose source column is `source`.
fn row<'t>(table: &'t str, source: &str) -> &'t str {
    table
        .lines()
        .find(|line| line.ends_with(source))
        .unwrap_or_else(|| panic!("no row for `{source}` in\n{table}"))
}

#[test]
fn a_column_read_of_a_dense_tile_is_a_32_way_conflict_and_a_padded_one_is_none() {
    let output = cukc(&[
        "profile",
        "--emulate",
        "tests/profile/bank_conflicts.cuk",
        "columns_read_back",
    ]);
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{table}");
    let dense = row(&table, "y[0, lane] = dense[lane, 0];");
    let padded = row(&table, "y[1, lane] = padded[lane, 0];");
    assert!(
        dense.contains("32.00x") && dense.contains("128 B"),
        "{dense}"
    );
    assert!(padded.contains("1.00x"), "{padded}");
    // Filling: 32 lanes x 32 elements x 4 bytes read from global, and stored to shared.
    let fill = row(&table, "dense[lane, j] = x[lane, j];");
    assert!(
        fill.contains("4.0 KiB") && fill.contains("32.00x"),
        "{fill}"
    );
    assert!(
        table.trim_end().ends_with("thread-instructions in all"),
        "{table}"
    );
}

#[test]
fn the_attention_example_has_an_emulator_profile() {
    let output = cukc(&[
        "profile",
        "--emulate",
        "cuk-examples/attention_fwd_sm90.cuk",
        "attention_hd64_128",
        "--top",
        "6",
    ]);
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{table}");
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 8, "a header, 6 lines and the total:\n{table}");
    let shares: f64 = (rows[1..7].iter())
        .map(|row| {
            let share = row.split_whitespace().nth(2).unwrap();
            share.trim_end_matches('%').parse::<f64>().unwrap()
        })
        .sum();
    assert!(shares > 50.0 && shares <= 100.0, "{table}");
    // The causal mask's comparison is the busiest line at this size.
    assert!(table.contains("if key >= s"), "{table}");
}

#[test]
fn a_bench_or_an_unknown_block_is_refused() {
    let refused = |block: &str| {
        let file = "tests/profile/bank_conflicts.cuk";
        let output = cukc(&["profile", "--emulate", file, block]);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        stderr
    };
    let stderr = refused("columns_bench");
    assert!(stderr.contains("benches are not emulated"), "{stderr}");
    let stderr = refused("column");
    assert!(
        stderr.contains("test columns_read_back, bench columns_bench"),
        "{stderr}"
    );
}
