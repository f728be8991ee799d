//! One `tune` block tuned, start to end, as `cukc tune` and `cuk.autotune` both do it:
//! the space's points compiled on every core, those that compiled surveyed and the
//! fastest timed again carefully (when there is a timer: a GPU), the table made, and
//! each bench's winner chosen. The caller says how far it got ([`Progress`]), prints,
//! saves the table and stores the winners.

use std::time::{Duration, Instant};

use lang::Diagnostic;
use lang::ast::TuneBlock;

use crate::compile::{Built, Compiler};
use crate::report;
use crate::timing::{self, Timed, Timer, Timings};

/// How far tuning a block has got.
#[derive(Clone, Copy, Debug)]
pub enum Progress {
    /// Every point kept by the conditions was compiled.
    Compiled {
        /// The points the conditions kept.
        kept: usize,
        /// The points of the space before its conditions.
        total: u64,
        /// The points that compiled within the limits.
        ready: usize,
        /// How long compiling took.
        elapsed: Duration,
    },
    /// A point was surveyed (every 100th and the last are reported).
    Surveyed {
        /// Points surveyed so far.
        timed: usize,
        /// Points to survey.
        ready: usize,
        /// Since timing began.
        elapsed: Duration,
    },
    /// The finalists were timed again carefully.
    Finalists {
        /// How many.
        count: usize,
        /// Since timing began.
        elapsed: Duration,
    },
}

/// A block tuned.
pub struct Tuned {
    /// Every point the conditions kept, compiled or rejected.
    pub built: Vec<Built>,
    /// The benches the block names.
    pub benches: Vec<String>,
    /// Their measurements (none without a timer).
    pub timings: Timings,
    /// The report's text.
    pub table: String,
}

impl Tuned {
    /// How many points compiled within the limits.
    pub fn ready(&self) -> usize {
        (self.built.iter())
            .filter(|built| built.outcome.is_ok())
            .count()
    }

    /// Each bench's fastest point (its index in `built`) and time; `None` when nothing
    /// was timed.
    pub fn winners(&self) -> Option<Vec<Option<(usize, Timed)>>> {
        self.timings.measured.iter().flatten().next()?;
        Some(timing::winners(&self.benches, &self.timings))
    }
}

/// Tunes `compiler`'s block, timing with `timer` when there is one; `None` when the
/// block's space is not valid (the checker reports why when the file is built).
pub fn tune(
    compiler: &Compiler<'_>,
    timer: Option<&mut dyn Timer>,
    progress: &mut dyn FnMut(Progress),
) -> Option<Tuned> {
    let block = compiler.block;
    let space = tune::check(compiler.module, block).space?;
    let (built, elapsed) = compiler.compile_all(&space.points);
    let ready = built.iter().filter(|built| built.outcome.is_ok()).count();
    progress(Progress::Compiled {
        kept: space.points.len(),
        total: space.total,
        ready,
        elapsed,
    });
    let benches: Vec<String> = (block.benches.iter())
        .map(|bench| bench.text.clone())
        .collect();
    let timings = match timer {
        Some(timer) if ready > 0 => {
            let started = Instant::now();
            let mut surveyed = |timed: usize| {
                if timed.is_multiple_of(100) || timed == ready {
                    progress(Progress::Surveyed {
                        timed,
                        ready,
                        elapsed: started.elapsed(),
                    });
                }
            };
            let timings = timing::time_all(&built, &benches, timer, &mut surveyed);
            progress(Progress::Finalists {
                count: timings.finalists.len(),
                elapsed: started.elapsed(),
            });
            timings
        }
        _ => Timings {
            measured: vec![None; built.len()],
            finalists: Vec::new(),
        },
    };
    let table = report::table(&built, &benches, &timings.measured);
    Some(Tuned {
        built,
        benches,
        timings,
        table,
    })
}

/// The error for a block every point of which was rejected (E0236).
pub fn no_valid_point(block: &TuneBlock) -> Diagnostic {
    Diagnostic::error(
        "E0236",
        format!("the space of `{}` has no valid point", block.name.text),
    )
    .with_primary(block.name.span, "every point was rejected")
    .with_note("the table says why each point was rejected")
}

#[cfg(test)]
mod tests {
    use super::Tuned;
    use crate::compile::{Built, Ready, Rejected};
    use crate::timing::{Measured, Timed, Timings};
    use tune::{ConstValue, Point};

    fn built(bm: i64, compiled: bool) -> Built {
        let outcome = if compiled {
            Ok(Ready {
                module: lang::ast::Module::default(),
                host: trace::HostFacts::default(),
                kernels: Vec::new(),
                registers: 32,
                shared_bytes: 0,
                spilled_bytes: 0,
            })
        } else {
            Err(Rejected("line 3: static_assert failed".to_owned()))
        };
        Built {
            point: Point::new(vec![("BM".to_owned(), ConstValue::Int(bm))]),
            outcome,
        }
    }

    fn timed(kernel_ms: f64) -> Measured {
        Measured::Timed(Timed {
            kernel_ms,
            metric: None,
        })
    }

    #[test]
    fn a_block_has_winners_only_when_something_was_timed() {
        let untimed = Tuned {
            built: vec![built(64, true), built(128, false)],
            benches: vec!["only".to_owned()],
            timings: Timings {
                measured: vec![None, None],
                finalists: Vec::new(),
            },
            table: String::new(),
        };
        assert_eq!(untimed.ready(), 1);
        assert!(untimed.winners().is_none(), "a dry run has no winner");
        let timed = Tuned {
            built: vec![built(64, true), built(128, false), built(192, true)],
            timings: Timings {
                measured: vec![Some(vec![timed(2.0)]), None, Some(vec![timed(1.0)])],
                finalists: vec![0, 2],
            },
            ..untimed
        };
        let winners = timed.winners().expect("points were timed");
        assert_eq!(winners.len(), 1);
        assert_eq!(winners[0].map(|(index, _)| index), Some(2));
    }
}
