//! Registers a `tcgen05.ld` defines are not valid until the thread's
//! `tcgen05.wait::ld` (PTX ISA, `tcgen05.wait`): a kernel that reads one before a wait
//! has reached it on every path is an error at the read (E0227), naming the load.
//!
//! The walk is in program order over the structured KIR: a load's results become
//! pending, a wait clears everything pending, and an instruction (or a region's yields)
//! reading a pending value is reported once. A region may run or not (a branch, a loop
//! of no iterations), so what is pending after it is what was pending before it and
//! what is still pending at its end.

use std::collections::HashMap;

use kir::{Inst, Intrinsic, Kernel, Op, Region, ValueId};
use lang::{Diagnostic, Span};

/// E0227 for each read of a `tcgen05.ld` register before a `tcgen05.wait::ld`.
pub(crate) fn reads_before_wait(kernel: &Kernel) -> Vec<Diagnostic> {
    let mut reads = Vec::new();
    walk(&kernel.body, &mut HashMap::new(), &mut reads);
    reads
        .into_iter()
        .map(|(read, load)| {
            Diagnostic::error(
                "E0227",
                format!(
                    "kernel `{}` reads a register of a tensor-memory load before `tcgen05_wait_ld()` makes it valid",
                    kernel.signature.name
                ),
            )
            .with_primary(read, "read before the wait")
            .with_secondary(load, "loaded here")
            .with_help("call `tcgen05_wait_ld()` between the load and the first use of its registers")
        })
        .collect()
}

/// Walks `body` with the loads `pending` (value to the load's span), collecting each
/// read of a pending value with its load.
fn walk(body: &[Inst], pending: &mut HashMap<ValueId, Span>, reads: &mut Vec<(Span, Span)>) {
    for inst in body {
        read(&inst.op.operands(), inst.span, pending, reads);
        match &inst.op {
            Op::Intrinsic {
                intrinsic: Intrinsic::TmemLoad { .. },
                ..
            } => {
                pending.extend(inst.results.iter().map(|value| (*value, inst.span)));
            }
            Op::Intrinsic {
                intrinsic: Intrinsic::Tcgen05Wait { store: false },
                ..
            } => pending.clear(),
            op => {
                for region in op.regions() {
                    let mut inside = pending.clone();
                    walk_region(region, inst.span, &mut inside, reads);
                    pending.extend(inside);
                }
            }
        }
    }
}

/// A region's body, then its yields, which hand values on (a read of them).
fn walk_region(
    region: &Region,
    span: Span,
    pending: &mut HashMap<ValueId, Span>,
    reads: &mut Vec<(Span, Span)>,
) {
    walk(&region.body, pending, reads);
    read(&region.yields, span, pending, reads);
}

/// Records `values` read at `span` that are pending, once each.
fn read(
    values: &[ValueId],
    span: Span,
    pending: &mut HashMap<ValueId, Span>,
    reads: &mut Vec<(Span, Span)>,
) {
    for value in values {
        if let Some(load) = pending.remove(value) {
            reads.push((span, load));
        }
    }
}
