//! The report of a tuned block: one row per point (its configuration, its resources,
//! and per bench its time and rate, or why it was rejected or failed), the text that
//! `cukc tune` prints and saves and `cuk.autotune` returns, and where it is saved.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use lang::ast::TuneBlock;

use crate::compile::{Built, Rejected};
use crate::timing::{Measured, Measurements};

/// The report: one row per point (its configuration, resources, and per bench its
/// time and rate, or why it was rejected), then the winners.
pub fn table(built: &[Built], benches: &[String], measured: &Measurements) -> String {
    let mut text = String::new();
    let width = (built.iter())
        .map(|built| built.point.to_string().len())
        .max()
        .unwrap_or(0)
        .max("configuration".len());
    let _ = write!(
        text,
        "{:>5}  {:<width$}  {:>4}  {:>8}  {:>6}",
        "#", "configuration", "regs", "smem", "spill"
    );
    for bench in benches {
        let _ = write!(text, "  {bench:>24}");
    }
    text.push('\n');
    for (index, (built, results)) in built.iter().zip(measured).enumerate() {
        let _ = write!(
            text,
            "{:>5}  {:<width$}",
            index + 1,
            built.point.to_string()
        );
        match &built.outcome {
            Err(Rejected(reason)) => {
                let _ = write!(text, "  rejected: {reason}");
            }
            Ok(ready) => {
                let _ = write!(
                    text,
                    "  {:>4}  {:>8}  {:>6}",
                    ready.registers, ready.shared_bytes, ready.spilled_bytes
                );
                match results {
                    None => text.push_str("  compiled, not timed"),
                    Some(results) => {
                        for result in results {
                            let _ = write!(text, "  {:>24}", cell(result));
                        }
                    }
                }
            }
        }
        text.push('\n');
    }
    text
}

/// `0.4123 ms 712.3 TFLOP/s`, or `failed: ...`.
pub fn cell(result: &Measured) -> String {
    match result {
        Measured::Timed(timed) => match timed.metric {
            Some(metric) => format!(
                "{:.4} ms {:.1} {}",
                timed.kernel_ms,
                metric.rate(timed.kernel_ms),
                metric.unit()
            ),
            None => format!("{:.4} ms", timed.kernel_ms),
        },
        Measured::Failed(reason) => format!("failed: {}", reason.lines().next().unwrap_or("")),
    }
}

/// `<stem>.<block>.tune.txt` in the current folder: where the report goes unless the
/// caller names a path.
pub fn default_path(file: &Path, block: &TuneBlock) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or_else(|| "tune".into(), |stem| stem.to_string_lossy().into_owned());
    PathBuf::from(format!("{stem}.{}.tune.txt", block.name.text))
}
