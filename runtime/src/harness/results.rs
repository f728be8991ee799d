//! What a harness run reports: one [`Event`] per block with its [`Outcome`] (a bench's
//! [`BenchResult`]: its time, the rates of what `report` gave, and the reference's),
//! and the run's [`Summary`].

use std::fmt;
use std::time::Duration;

use lang::Span;

use crate::device::Emulated;

/// A `test` or a `bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// A `test` block.
    Test,
    /// A `bench` block.
    Bench,
}

/// One block's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Test or bench.
    pub kind: BlockKind,
    /// The block's name.
    pub name: String,
    /// The block's span.
    pub span: Span,
    /// What happened.
    pub outcome: Outcome,
    /// Wall-clock time the block took, data creation and reference math included.
    pub elapsed: Duration,
    /// What the emulator ran, when the block's kernels ran there.
    pub emulated: Option<Emulated>,
    /// What its emulated kernels printed (on the GPU, the driver writes their text to
    /// standard output when the launch is waited for).
    pub printed: String,
    /// What each source span of its emulated kernels did, when the selection asked.
    pub profile: Option<emulator::Profile>,
}

/// What happened to a block.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A test ran and every `assert_close` held.
    Passed,
    /// A bench ran.
    Measured(BenchResult),
    /// It failed: the message, and the span of the statement or expression that failed.
    Failed {
        /// What went wrong.
        message: String,
        /// Where.
        span: Span,
        /// An emulator fault as a diagnostic: its code, labels at the kernel's lines
        /// (both sides of a race) and at the call.
        diagnostic: Option<Box<lang::Diagnostic>>,
    },
    /// It could not run here.
    Skipped(String),
}

/// What a bench measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// The median time of its kernel calls, in milliseconds (summed over the calls).
    pub kernel_ms: f64,
    /// What `report` said one run does: the amount its reference is compared by, when
    /// it names one, else the first it gives.
    pub metric: Option<Metric>,
    /// The other amount `report` gave, if it gave both (`flops` and `bytes`): its rate
    /// is shown too.
    pub also: Option<Metric>,
    /// The reference measured in the same run.
    pub reference: Option<Reference>,
    /// A remark, such as a reference that is not available.
    pub note: Option<String>,
}

/// A reported amount of work per run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Bytes moved (read plus written).
    Bytes(u64),
    /// Floating-point operations.
    Flops(u64),
}

/// A reference measurement: the same amount of work done by something known to be fast.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// `memcpy` or `cuBLAS`.
    pub name: String,
    /// Its median time in milliseconds.
    pub ms: f64,
}

impl Metric {
    /// A report's amounts in the order a bench shows them: the one its reference
    /// (`memcpy` or `cublas`, if any) is compared by, then the other; without a
    /// reference, as written.
    pub fn lead(
        mut metrics: Vec<Metric>,
        reference: Option<&str>,
    ) -> (Option<Metric>, Option<Metric>) {
        if let Some(reference) = reference {
            let by_flops = reference == "cublas";
            metrics.sort_by_key(|metric| matches!(metric, Metric::Flops(_)) != by_flops);
        }
        (metrics.first().copied(), metrics.get(1).copied())
    }

    /// The rate for a run of `ms` milliseconds: GB/s for bytes, TFLOP/s for flops.
    pub fn rate(self, ms: f64) -> f64 {
        match self {
            Metric::Bytes(bytes) => bytes as f64 / (ms * 1e-3) / 1e9,
            Metric::Flops(flops) => flops as f64 / (ms * 1e-3) / 1e12,
        }
    }

    /// The unit of [`Metric::rate`].
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Bytes(_) => "GB/s",
            Metric::Flops(_) => "TFLOP/s",
        }
    }
}

impl BenchResult {
    /// The kernel's time over the reference's: 1.0 means as fast.
    pub fn ratio(&self) -> Option<f64> {
        self.reference
            .as_ref()
            .map(|reference| reference.ms / self.kernel_ms)
    }
}

impl fmt::Display for BenchResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.4} ms", self.kernel_ms)?;
        if let Some(metric) = self.metric {
            write!(f, ", {:.1} {}", metric.rate(self.kernel_ms), metric.unit())?;
            if let Some(also) = self.also {
                write!(f, ", {:.1} {}", also.rate(self.kernel_ms), also.unit())?;
            }
            if let (Some(reference), Some(ratio)) = (&self.reference, self.ratio()) {
                write!(
                    f,
                    "; {} {:.1} {} ({:.4} ms); {:.1}% of {}",
                    reference.name,
                    metric.rate(reference.ms),
                    metric.unit(),
                    reference.ms,
                    ratio * 100.0,
                    reference.name
                )?;
            }
        }
        if let Some(note) = &self.note {
            write!(f, " ({note})")?;
        }
        Ok(())
    }
}

/// Counts of a run: a bench that measured counts as passed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Blocks that passed.
    pub passed: usize,
    /// Blocks that failed.
    pub failed: usize,
    /// Blocks that could not run here.
    pub skipped: usize,
    /// Blocks (passed or failed) whose kernels ran on the emulator.
    pub emulated: usize,
    /// Whether a kernel passed its time limit: it may still be running on the GPU,
    /// whose context this process must not touch again (not even to exit through the
    /// driver's exit handler, which would wait for it).
    pub hung: bool,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)?;
        if self.skipped > 0 {
            write!(f, ", {} skipped", self.skipped)?;
        }
        if self.emulated > 0 {
            let blocks = if self.emulated == 1 {
                "block"
            } else {
                "blocks"
            };
            write!(f, " ({} {blocks} emulated)", self.emulated)?;
        }
        Ok(())
    }
}
