//! `report` in a bench: the amounts of work it names (`bytes`, `flops`), the kernels'
//! median time, and the reference it is compared against (`memcpy`, a device-to-device
//! copy of the same traffic, or `cublas(a, b)`, `gemm.rs`), timed in the same run.

use kir::Element;
use lang::Span;
use lang::ast::{Argument, Expr, ExprKind, ReportPart};

use super::{Eval, Interpreter, Stop};
use crate::device::Device;
use crate::harness::{BenchResult, Metric, Reference};
use crate::random::{Distribution, fill};

impl Interpreter<'_> {
    /// `report bytes = ..., against memcpy;` or `report flops = ..., against cublas(a, b);`:
    /// the bench's result.
    pub(super) fn report(&mut self, parts: &[ReportPart], span: Span) -> Eval<()> {
        if self.bench.is_none() {
            return Err(Stop::error(span, "`report` belongs in a `bench` block"));
        }
        let mut metrics = Vec::new();
        let mut against = None;
        for part in parts {
            match part {
                ReportPart::Metric { name, value } => {
                    let amount = self.int(value)?;
                    let amount = u64::try_from(amount)
                        .ok()
                        .filter(|amount| *amount > 0)
                        .ok_or_else(|| {
                            Stop::error(
                                value.span,
                                format!("a reported amount is positive, not {amount}"),
                            )
                        })?;
                    metrics.push(match name.text.as_str() {
                        "bytes" => Metric::Bytes(amount),
                        "flops" => Metric::Flops(amount),
                        other => {
                            return Err(Stop::error(
                                name.span,
                                format!("a bench reports `bytes` or `flops`, not `{other}`"),
                            ));
                        }
                    });
                }
                ReportPart::Against(reference) => {
                    against = Some(reference_form(reference).ok_or_else(|| {
                        Stop::error(
                            reference.span,
                            "a bench is measured against `memcpy` or `cublas(a, b)`",
                        )
                    })?);
                }
            }
        }
        let (metric, also) = Metric::lead(metrics, against.map(|(name, ..)| name));
        let Some(bench) = &self.bench else {
            return Ok(());
        };
        if bench.kernel_ms.is_empty() {
            return Err(Stop::error(
                span,
                "`report` reports the kernels the bench ran, but it ran none before this",
            ));
        }
        let kernel_ms = bench.kernel_ms.iter().map(|(_, ms)| ms).sum();
        let config = bench.config;
        let mut reference = None;
        let mut note = None;
        let against = against.filter(|_| config.references);
        match (against, metric) {
            (Some(("memcpy", None, _)), Some(Metric::Bytes(bytes))) => {
                let Ok(Device::Gpu(gpu) | Device::GpuRank(gpu, ..)) = &mut self.device else {
                    return Err(Stop::Skip("no GPU for the memcpy reference".to_owned()));
                };
                // A copy reads and writes each byte: half the bytes, copied, move them all.
                let half = usize::try_from(bytes / 2)
                    .map_err(|_| Stop::error(span, "the reported amount is too large"))?;
                let source = fill(Element::U8, half.max(1), Distribution::Uniform, self.seed);
                let ms = gpu
                    .time_memcpy(half, &source, config.warmup, config.runs)
                    .map_err(|message| Stop::error(span, message))?;
                reference = Some(Reference {
                    name: "memcpy".to_owned(),
                    ms,
                });
            }
            (Some(("cublas", Some(args), reference_span)), Some(Metric::Flops(flops))) => {
                (reference, note) = self.cublas_reference(args, flops, reference_span)?;
            }
            (Some(("cublas", None, reference_span)), _) => {
                return Err(Stop::error(
                    reference_span,
                    "`cublas` needs the GEMM's operands, as `matmul` takes them: `against cublas(a, transpose(b))`",
                ));
            }
            (Some((name, _, reference_span)), _) => {
                return Err(Stop::error(
                    reference_span,
                    format!(
                        "`{name}` is not a reference for this metric: `memcpy` goes with `bytes`, `cublas(a, b)` with `flops`"
                    ),
                ));
            }
            (None, _) => {}
        }
        if let Some(bench) = &mut self.bench {
            bench.result = Some(BenchResult {
                kernel_ms,
                metric,
                also,
                reference,
                note,
            });
        }
        Ok(())
    }
}

/// The name of a reference, its arguments when it is a call, and its span: `memcpy`,
/// `cublas(a, b)`.
fn reference_form(reference: &Expr) -> Option<(&str, Option<&[Argument]>, Span)> {
    let (callee, args) = match &reference.kind {
        ExprKind::Call { callee, args } => (callee.as_ref(), Some(args.as_slice())),
        _ => (reference, None),
    };
    match &callee.kind {
        ExprKind::Path(path) => match path.segments.as_slice() {
            [name] => Some((name.text.as_str(), args, reference.span)),
            _ => None,
        },
        _ => None,
    }
}
