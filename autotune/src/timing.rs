//! Timing the points that compiled, and what comes of it: the winners.
//!
//! A [`Timer`] runs a point's benches and gives each one's kernel time. Every point is
//! first surveyed (one untimed launch, the median of 5), then each bench's
//! [`FINALISTS`] fastest are timed again carefully (5 untimed launches, the median of
//! 20), and those measurements replace the survey's. On a GPU, [`GpuTimer`] runs the
//! benches with the harness in one context kept open across points, with L2 flushed
//! before every launch, the benches' references (cuBLAS, memcpy) not timed, and each
//! created tensor drawn once and copied on the GPU for later points. The choice of
//! winners and the table are plain functions of the measurements, tested with made-up
//! ones (never shown as measurements); [`crate::report`] makes the table.

use crate::compile::{Built, Ready};
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

/// How many of each bench's fastest points the survey sends to the careful timing.
pub const FINALISTS: usize = 8;

/// Which timing a point gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Quick: ranks the points.
    Survey,
    /// Careful: decides among the survey's fastest.
    Final,
}

/// Runs a point's benches (on a thread of its own: the Python package lets go of the
/// GIL while it times).
pub trait Timer: Send {
    /// Each bench of `benches` timed at `point` as `pass` says, or why it could not be.
    fn time(&mut self, point: &Ready, benches: &[String], pass: Pass) -> Vec<Measured>;
}

/// Times on the GPU through the harness.
pub struct GpuTimer {
    session: GpuSession,
    survey: Selection,
    careful: Selection,
}

impl GpuTimer {
    /// A timer whose launches may each run `kernel_timeout` (the default when `None`).
    pub fn new(kernel_timeout: Option<std::time::Duration>) -> GpuTimer {
        let selection = |warmup: u32, runs: u32| {
            let mut selection = Selection::benches();
            selection.bench = BenchConfig {
                warmup,
                runs,
                flush_l2: true,
                references: false,
            };
            match kernel_timeout {
                Some(limit) => selection.with_kernel_timeout(limit),
                None => selection,
            }
        };
        let careful = BenchConfig::default();
        GpuTimer {
            session: GpuSession::keeping_created(),
            survey: selection(1, 5),
            careful: selection(careful.warmup, careful.runs),
        }
    }
}

impl Timer for GpuTimer {
    fn time(&mut self, point: &Ready, benches: &[String], pass: Pass) -> Vec<Measured> {
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
        let selection = match pass {
            Pass::Survey => &self.survey,
            Pass::Final => &self.careful,
        };
        self.session.run_blocks(
            &point.module,
            &point.host,
            &point.kernels,
            selection,
            &mut record,
        );
        results
    }
}

/// The points' measurements: for each compiled point, one result per bench (`None`
/// for a point that was rejected, or when nothing was timed).
pub type Measurements = Vec<Option<Vec<Measured>>>;

/// What timing found: every compiled point's survey, with the finalists' careful
/// measurements in their place, and which points those are (in order).
pub struct Timings {
    /// One entry a point (see [`Measurements`]).
    pub measured: Measurements,
    /// The points timed carefully.
    pub finalists: Vec<usize>,
}

/// Surveys every point that compiled, calling `progress` with the number surveyed so
/// far after each, then times each bench's [`FINALISTS`] fastest again carefully.
pub fn time_all(
    built: &[Built],
    benches: &[String],
    timer: &mut dyn Timer,
    progress: &mut dyn FnMut(usize),
) -> Timings {
    let mut timed = 0;
    let mut measured: Measurements = built
        .iter()
        .map(|built| {
            let ready = built.outcome.as_ref().ok()?;
            let measured = timer.time(ready, benches, Pass::Survey);
            timed += 1;
            progress(timed);
            Some(measured)
        })
        .collect();
    let finalists = finalists(benches.len(), &measured);
    for &index in &finalists {
        if let Ok(ready) = &built[index].outcome {
            measured[index] = Some(timer.time(ready, benches, Pass::Final));
        }
    }
    Timings {
        measured,
        finalists,
    }
}

/// The points among each bench's [`FINALISTS`] fastest, in order.
fn finalists(benches: usize, measured: &Measurements) -> Vec<usize> {
    let mut chosen = std::collections::BTreeSet::new();
    for bench in 0..benches {
        let mut times: Vec<(f64, usize)> = (measured.iter().enumerate())
            .filter_map(|(index, results)| match results.as_ref()?.get(bench)? {
                Measured::Timed(timed) => Some((timed.kernel_ms, index)),
                Measured::Failed(_) => None,
            })
            .collect();
        times.sort_by(|a, b| a.0.total_cmp(&b.0));
        chosen.extend(times.iter().take(FINALISTS).map(|(_, index)| *index));
    }
    chosen.into_iter().collect()
}

/// The fastest point of each bench by the careful timings: its index in `built` and
/// its measurement.
pub fn winners(benches: &[String], timings: &Timings) -> Vec<Option<(usize, Timed)>> {
    (0..benches.len())
        .map(|bench| {
            let mut best: Option<(usize, Timed)> = None;
            for &index in &timings.finalists {
                let results = timings.measured.get(index).and_then(Option::as_ref);
                let Some(Measured::Timed(timed)) = results.map(|results| &results[bench]) else {
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

#[cfg(test)]
mod tests {
    use super::{FINALISTS, Measured, Pass, Timed, Timer, Timings, time_all, winners};
    use crate::compile::{Built, Ready, Rejected};
    use crate::report::table;
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

    /// Kernel times made up from the registers and the bench's index, for the tests:
    /// the survey's are the careful ones, and points with registers 200 to 299 are
    /// surveyed 200 ms faster than they time carefully.
    struct MadeUp;

    impl Timer for MadeUp {
        fn time(&mut self, point: &Ready, benches: &[String], pass: Pass) -> Vec<Measured> {
            let flattered = (200..300).contains(&point.registers) && pass == Pass::Survey;
            (0..benches.len())
                .map(|bench| match (point.registers, bench) {
                    (99, 1) => Measured::Failed("the launch failed".to_owned()),
                    (registers, bench) => Measured::Timed(Timed {
                        kernel_ms: f64::from(registers) / (bench as f64 + 1.0)
                            - if flattered { 200.0 } else { 0.0 },
                        metric: Some(Metric::Flops(4_000_000_000)),
                    }),
                })
                .collect()
        }
    }

    /// Records which points each pass timed.
    struct Recording(Vec<(u32, Pass)>);

    impl Timer for Recording {
        fn time(&mut self, point: &Ready, benches: &[String], pass: Pass) -> Vec<Measured> {
            self.0.push((point.registers, pass));
            MadeUp.time(point, benches, pass)
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
        let timings = time_all(&built, &benches, &mut MadeUp, &mut |timed| {
            reported.push(timed)
        });
        assert_eq!(reported, [1, 2, 3], "one call a compiled point");
        assert!(timings.measured[1].is_none());
        assert_eq!(timings.finalists, [0, 2, 3]);
        let won = winners(&benches, &timings);
        assert_eq!(won[0].map(|(index, _)| index), Some(2));
        assert_eq!(won[1].map(|(index, _)| index), Some(2));
        let nothing = Timings {
            measured: vec![None; built.len()],
            finalists: Vec::new(),
        };
        assert_eq!(winners(&benches, &nothing), vec![None, None]);
    }

    #[test]
    fn each_benchs_fastest_survey_points_are_timed_again_and_their_careful_times_decide() {
        // Registers 210..=219 (surveyed 200 ms fast) and 100..=119: by the survey the ten
        // flattered points lead, but carefully 100 is the fastest.
        let built: Vec<Built> = (210..220)
            .chain(100..120)
            .map(|registers| Built {
                point: point(i64::from(registers)),
                outcome: Ok(ready(registers)),
            })
            .collect();
        let benches = vec!["only".to_owned()];
        let mut timer = Recording(Vec::new());
        let timings = time_all(&built, &benches, &mut timer, &mut |_| {});
        let careful: Vec<u32> = (timer.0.iter())
            .filter(|(_, pass)| *pass == Pass::Final)
            .map(|(registers, _)| *registers)
            .collect();
        assert_eq!(timer.0.len(), built.len() + FINALISTS);
        assert_eq!(timings.finalists.len(), FINALISTS);
        assert_eq!(careful, (210..210 + FINALISTS as u32).collect::<Vec<_>>());
        // The finalists' careful times replaced their survey times.
        assert_eq!(
            timings.measured[0],
            Some(vec![Measured::Timed(Timed {
                kernel_ms: 210.0,
                metric: Some(Metric::Flops(4_000_000_000)),
            })])
        );
        // Only careful times decide: 218 and 219 keep their flattering survey times
        // in the table, and 100 (index 10) was never a finalist.
        let won = winners(&benches, &timings);
        assert_eq!(won[0].map(|(index, _)| index), Some(0));
    }

    #[test]
    fn the_table_has_a_row_per_point_with_rates_and_reasons() {
        let built = built();
        let benches = vec!["small".to_owned(), "large".to_owned()];
        let timings = time_all(&built, &benches, &mut MadeUp, &mut |_| {});
        let text = table(&built, &benches, &timings.measured);
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
        let untimed: super::Measurements = vec![None; built.len()];
        assert!(table(&built, &benches, &untimed).contains("compiled, not timed"));
    }
}
