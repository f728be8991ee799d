//! Timing the points that compiled, and what comes of it: the table and the winners.
//!
//! A [`Timer`] runs a point's benches and gives each one's kernel time. On a GPU,
//! [`GpuTimer`] runs them with the harness in one context kept open across points,
//! each kernel launch after 5 untimed ones, the median of 20, with L2 flushed before
//! every launch; the benches' references (cuBLAS, memcpy) are not timed. The choice of winners and the table are plain functions of the
//! measurements, tested with made-up ones (never shown as measurements).

use std::fmt::Write;

use super::points::{Built, Ready, Rejected};
use runtime::{BenchConfig, GpuSession, Metric, Outcome, Selection};

/// One bench's measurement at a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timed {
    /// The median kernel time, in milliseconds (summed over the bench's calls).
    pub kernel_ms: f64,
    /// The work the bench reports for one run.
    pub metric: Option<Metric>,
}

/// What became of one bench at a point.
#[derive(Clone, Debug, PartialEq)]
pub enum Measured {
    /// It ran and was timed.
    Timed(Timed),
    /// It could not be timed: why.
    Failed(String),
}

/// Runs a point's benches.
pub trait Timer {
    /// Each bench of `benches` timed at `point`, or why it could not be.
    fn time(&mut self, point: &Ready, benches: &[String]) -> Vec<Measured>;
}

/// Times on the GPU through the harness.
pub struct GpuTimer {
    session: GpuSession,
    selection: Selection,
}

impl GpuTimer {
    /// A timer whose launches may each run `kernel_timeout` (the default when `None`).
    pub fn new(kernel_timeout: Option<std::time::Duration>) -> GpuTimer {
        let mut selection = Selection::benches();
        selection.bench = BenchConfig {
            flush_l2: true,
            references: false,
            ..BenchConfig::default()
        };
        if let Some(limit) = kernel_timeout {
            selection = selection.with_kernel_timeout(limit);
        }
        GpuTimer {
            session: GpuSession::default(),
            selection,
        }
    }
}

impl Timer for GpuTimer {
    fn time(&mut self, point: &Ready, benches: &[String]) -> Vec<Measured> {
        let mut results = vec![Measured::Failed("the bench did not run".to_owned()); benches.len()];
        let mut record = |event: runtime::Event| {
            let Some(index) = benches.iter().position(|bench| *bench == event.name) else {
                return;
            };
            results[index] = match event.outcome {
                Outcome::Measured(result) => Measured::Timed(Timed {
                    kernel_ms: result.kernel_ms,
                    metric: result.metric,
                }),
                Outcome::Failed { message, .. } => Measured::Failed(message),
                Outcome::Skipped(reason) => Measured::Failed(reason),
                Outcome::Passed => Measured::Failed("the bench reported nothing".to_owned()),
            };
        };
        self.session.run_blocks(
            &point.module,
            &point.host,
            &point.kernels,
            &self.selection,
            &mut record,
        );
        results
    }
}

/// The points' measurements: for each compiled point, one result per bench (`None`
/// for a point that was rejected, or when nothing was timed).
pub type Measurements = Vec<Option<Vec<Measured>>>;

/// Times every point that compiled, calling `progress` with the number timed so far
/// after each.
pub fn time_all(
    built: &[Built],
    benches: &[String],
    timer: &mut dyn Timer,
    progress: &mut dyn FnMut(usize),
) -> Measurements {
    let mut timed = 0;
    built
        .iter()
        .map(|built| {
            let ready = built.outcome.as_ref().ok()?;
            let measured = timer.time(ready, benches);
            timed += 1;
            progress(timed);
            Some(measured)
        })
        .collect()
}

/// The fastest point of each bench: its index in `built` and its measurement.
pub fn winners(benches: &[String], measured: &Measurements) -> Vec<Option<(usize, Timed)>> {
    (0..benches.len())
        .map(|bench| {
            let mut best: Option<(usize, Timed)> = None;
            for (index, results) in measured.iter().enumerate() {
                let Some(Measured::Timed(timed)) = results.as_ref().map(|results| &results[bench])
                else {
                    continue;
                };
                if best.is_none_or(|(_, fastest)| timed.kernel_ms < fastest.kernel_ms) {
                    best = Some((index, *timed));
                }
            }
            best
        })
        .collect()
}

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
fn cell(result: &Measured) -> String {
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

#[cfg(test)]
mod tests {
    use super::{Measured, Measurements, Timed, Timer, table, time_all, winners};
    use crate::tune::points::{Built, Ready, Rejected};
    use runtime::Metric;
    use tune::{ConstValue, Point};

    fn point(bm: i64) -> Point {
        Point::new(vec![("BM".to_owned(), ConstValue::Int(bm))])
    }

    fn ready(registers: u32) -> Ready {
        Ready {
            module: lang::ast::Module::default(),
            host: trace::HostFacts::default(),
            kernels: Vec::new(),
            registers,
            shared_bytes: 1024,
            spilled_bytes: 0,
        }
    }

    /// Kernel times made up from the registers and the bench's index, for the tests.
    struct MadeUp;

    impl Timer for MadeUp {
        fn time(&mut self, point: &Ready, benches: &[String]) -> Vec<Measured> {
            (0..benches.len())
                .map(|bench| match (point.registers, bench) {
                    (99, 1) => Measured::Failed("the launch failed".to_owned()),
                    (registers, bench) => Measured::Timed(Timed {
                        kernel_ms: f64::from(registers) / (bench as f64 + 1.0),
                        metric: Some(Metric::Flops(4_000_000_000)),
                    }),
                })
                .collect()
        }
    }

    fn built() -> Vec<Built> {
        vec![
            Built {
                point: point(64),
                outcome: Ok(ready(40)),
            },
            Built {
                point: point(128),
                outcome: Err(Rejected("line 9: static_assert failed".to_owned())),
            },
            Built {
                point: point(192),
                outcome: Ok(ready(30)),
            },
            Built {
                point: point(256),
                outcome: Ok(ready(99)),
            },
        ]
    }

    #[test]
    fn the_fastest_timed_point_of_each_bench_wins_and_rejected_points_are_not_timed() {
        let built = built();
        let benches = vec!["small".to_owned(), "large".to_owned()];
        let mut reported = Vec::new();
        let measured = time_all(&built, &benches, &mut MadeUp, &mut |timed| {
            reported.push(timed)
        });
        assert_eq!(reported, [1, 2, 3], "one call a compiled point");
        assert!(measured[1].is_none());
        let won = winners(&benches, &measured);
        assert_eq!(won[0].map(|(index, _)| index), Some(2));
        assert_eq!(won[1].map(|(index, _)| index), Some(2));
        let nothing: Measurements = vec![None; built.len()];
        assert_eq!(winners(&benches, &nothing), vec![None, None]);
    }

    #[test]
    fn the_table_has_a_row_per_point_with_rates_and_reasons() {
        let built = built();
        let benches = vec!["small".to_owned(), "large".to_owned()];
        let measured = time_all(&built, &benches, &mut MadeUp, &mut |_| {});
        let text = table(&built, &benches, &measured);
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 5, "{text}");
        assert!(
            rows[0].contains("configuration") && rows[0].contains("large"),
            "{text}"
        );
        // 4 GFLOP in 40 ms is 0.1 TFLOP/s.
        assert!(rows[1].contains("40.0000 ms 0.1 TFLOP/s"), "{text}");
        assert!(
            rows[2].contains("BM=128")
                && rows[2].contains("rejected: line 9: static_assert failed"),
            "{text}"
        );
        assert!(rows[4].contains("failed: the launch failed"), "{text}");
        let untimed: Measurements = vec![None; built.len()];
        assert!(table(&built, &benches, &untimed).contains("compiled, not timed"));
    }
}
