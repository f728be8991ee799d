//! The emulator's profile of a test block: per `.cuk` line, the thread-instructions it
//! executed (and their share), the bytes its loads and stores read and wrote in global
//! memory and moved in shared memory, and its shared-memory bank conflicts (wavefronts
//! per warp request against the fewest possible), for loads, stores and `cp.async`.
//! Other atoms (TMA, wgmma, `ldmatrix`, `stmatrix`) count as instructions; their memory
//! traffic is not counted.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::process::ExitCode;

use runtime::{CompiledKernel, Counts, Image, Outcome, Profile, Selection};

use super::{Kind, ProfileArgs, busiest, source_line};
use crate::build::Compiled;
use crate::output::{errln, outln};

/// Runs the test block on the emulator and prints its table.
pub fn profile(args: &ProfileArgs, compiled: &Compiled, kind: Kind) -> ExitCode {
    if kind == Kind::Bench {
        errln!(
            "error: `{}` is a bench, and benches are not emulated (their sizes are for a GPU): profile one of the file's tests on the emulator, or run on a GPU with Nsight Compute",
            args.block
        );
        return ExitCode::from(2);
    }
    let kernels: Vec<CompiledKernel> = (compiled.kernels.iter())
        .map(|kernel| CompiledKernel {
            signature: kernel.signature.clone(),
            image: Image::Kir(Box::new(kernel.clone())),
        })
        .collect();
    let selection = Selection::tests()
        .with_filter(args.block.clone())
        .exactly()
        .profiled();
    let mut found = None;
    runtime::run_blocks(
        &compiled.module,
        &compiled.host,
        &kernels,
        &selection,
        &mut |event| {
            if event.name == args.block {
                found = Some(event);
            }
        },
    );
    let Some(event) = found else {
        errln!("error: the test `{}` did not run", args.block);
        return ExitCode::FAILURE;
    };
    if let Outcome::Failed { message, .. } = &event.outcome {
        errln!("cukc: the test failed ({message}); its profile up to the failure follows");
    }
    let Some(profile) = event.profile else {
        errln!(
            "error: the test `{}` launched no kernel on the emulator",
            args.block
        );
        return ExitCode::FAILURE;
    };
    let lines = by_line(&profile, |offset| compiled.file.line_column(offset).line);
    outln!(
        "{}",
        table(&lines, args.top, |line| source_line(
            &compiled.file,
            line,
            60
        ))
    );
    ExitCode::SUCCESS
}

/// The profile's counts summed by the line each span starts on.
pub fn by_line(profile: &Profile, line_of: impl Fn(u32) -> u32) -> BTreeMap<u32, Counts> {
    let mut lines: BTreeMap<u32, Counts> = BTreeMap::new();
    for (span, counts) in &profile.spans {
        lines.entry(line_of(span.start)).or_default().add(counts);
    }
    lines
}

/// The table: a header, then a row per line (the `top` busiest, or every line).
pub fn table(
    lines: &BTreeMap<u32, Counts>,
    top: Option<usize>,
    source: impl Fn(u32) -> String,
) -> String {
    let total: u64 = lines.values().map(|counts| counts.executed).sum();
    let rows = busiest(
        lines
            .iter()
            .map(|(line, counts)| (*line, *counts))
            .collect(),
        top,
        |counts| counts.executed as f64,
    );
    let mut text = format!(
        "{:>5}  {:>14}  {:>6}  {:>12}  {:>12}  {:>12}  {:>9}  source\n",
        "line", "thread-insts", "share", "global read", "global write", "shared", "conflicts"
    );
    for (line, counts) in rows {
        let share = 100.0 * counts.executed as f64 / total.max(1) as f64;
        let conflicts = match counts.shared_ideal {
            0 => "-".to_owned(),
            ideal => format!("{:.2}x", counts.shared_wavefronts as f64 / ideal as f64),
        };
        let _ = writeln!(
            text,
            "{line:>5}  {:>14}  {share:>5.1}%  {:>12}  {:>12}  {:>12}  {conflicts:>9}  {}",
            counts.executed,
            bytes(counts.global_read),
            bytes(counts.global_written),
            bytes(counts.shared_bytes),
            source(line)
        );
    }
    let _ = write!(text, "{total} thread-instructions in all");
    text
}

/// `0`, `512 B`, `12.0 KiB`, `3.5 MiB`.
fn bytes(count: u64) -> String {
    match count {
        0 => "0".to_owned(),
        count if count < 1024 => format!("{count} B"),
        count if count < 1 << 20 => format!("{:.1} KiB", count as f64 / 1024.0),
        count => format!("{:.1} MiB", count as f64 / f64::from(1 << 20)),
    }
}

#[cfg(test)]
mod tests {
    use super::{Counts, bytes, table};
    use std::collections::BTreeMap;

    #[test]
    fn the_table_shows_shares_bytes_and_conflicts_and_keeps_the_busiest() {
        let mut lines = BTreeMap::new();
        lines.insert(
            3,
            Counts {
                executed: 300,
                shared_bytes: 4096,
                shared_wavefronts: 64,
                shared_ideal: 32,
                ..Counts::default()
            },
        );
        lines.insert(
            7,
            Counts {
                executed: 100,
                global_read: 2048,
                ..Counts::default()
            },
        );
        let text = table(&lines, None, |line| format!("source of {line}"));
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 4, "{text}");
        assert!(
            rows[1].contains(" 75.0%") && rows[1].contains("2.00x"),
            "{text}"
        );
        assert!(
            rows[1].ends_with("source of 3") && rows[1].contains("4.0 KiB"),
            "{text}"
        );
        assert!(
            rows[2].contains("2.0 KiB") && rows[2].contains(" -  "),
            "{text}"
        );
        assert_eq!(rows[3], "400 thread-instructions in all");
        let top = table(&lines, Some(1), |line| format!("source of {line}"));
        assert_eq!(top.lines().count(), 3, "{top}");
        assert!(top.contains("source of 3") && !top.contains("source of 7"));
        assert_eq!(
            (bytes(0), bytes(12), bytes(3 << 20)),
            ("0".to_owned(), "12 B".to_owned(), "3.0 MiB".to_owned())
        );
    }
}
