//! The words of a hang: the fault at the thread that shows why no thread can make
//! progress, then a label at each line where a group of threads waits, saying which
//! threads of which block wait there and for what (the barrier, the phase or parity,
//! what its phase still expects).

use std::fmt;

use lang::Diagnostic;

use super::{Fault, FaultKind, Waiting};

/// The most waiting groups a hang labels; the others are counted in a note.
const MOST_LABELS: usize = 12;

impl Waiting {
    /// `threads 0-31 of block (0, 0, 0) wait for ...`.
    fn describe(&self) -> String {
        let (first, last) = self.threads;
        let who = if first == last {
            format!("thread {first}")
        } else {
            format!("threads {first}-{last}")
        };
        let [x, y, z] = self.block;
        format!("{who} of block ({x}, {y}, {z}) {}", self.what)
    }
}

/// The fault of `cause` at the hang's instruction and thread.
fn cause_fault(fault: &Fault, cause: &FaultKind) -> Fault {
    Fault {
        kind: cause.clone(),
        span: fault.span,
        location: fault.location,
    }
}

/// The hang's message: its cause's, then how many groups wait.
pub(super) fn display(
    f: &mut fmt::Formatter<'_>,
    fault: &Fault,
    cause: &FaultKind,
    waiting: &[Waiting],
) -> fmt::Result {
    write!(
        f,
        "{}; no thread can make progress: {} group{} of threads wait{}",
        cause_fault(fault, cause),
        waiting.len(),
        if waiting.len() == 1 { "" } else { "s" },
        if waiting.len() == 1 { "s" } else { "" },
    )
}

/// The hang's diagnostic: its cause's, with the hang's message, a label at each waiting
/// group's line (up to [`MOST_LABELS`]) and a note counting the groups left out.
pub(super) fn diagnostic(fault: &Fault, cause: &FaultKind, waiting: &[Waiting]) -> Diagnostic {
    let mut diagnostic = cause_fault(fault, cause).to_diagnostic();
    diagnostic.message = fault.to_string();
    for group in waiting.iter().take(MOST_LABELS) {
        diagnostic = diagnostic.with_secondary(group.span, group.describe());
    }
    if waiting.len() > MOST_LABELS {
        diagnostic = diagnostic.with_note(format!(
            "{} more groups of threads wait, not shown",
            waiting.len() - MOST_LABELS
        ));
    }
    diagnostic
}
