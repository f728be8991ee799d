//! The passes lowering runs over a translated kernel, by name and in order, so that
//! every stage can be seen (`cukc build --emit kir --after PASS`), tested on its own
//! (`tests/kir/passes/`: a kernel before a pass and after it) and checked: with
//! [`Checks::Verify`], the kernel is verified after each pass and a pass that breaks it
//! is named ([`BrokenBy`]).
//!
//! The passes: `shared` computes once, before them, the pure work two or more branches
//! of a region share (`shared_work.rs`), `values` keeps one of each pure computation in scope and folds
//! conversions that change nothing (`values.rs`), `packs` folds a pack of unpacked halves to the word and an unpack of
//! packed halves to the halves (`packs.rs`), `wraps` drops wraps of narrow integers that
//! already fit (`wraps.rs`), `selects` turns small branches into
//! selects (`select.rs`), `dead` removes
//! values nothing uses (`dead.rs`), `uniform` marks the branches every thread of a warp
//! takes alike and lists the warp collectives under divergent control
//! (`uniformity.rs`). Translation itself (`translate`, the stage before them) is
//! lowering's.

use std::fmt;

use crate::ir::Kernel;
use crate::packs::fold_packs;
use crate::signature::HostExpr;
use crate::uniformity::{BlockShape, Collective, mark_uniform};
use crate::values::number_values;
use crate::wraps::drop_needless_wraps;
use crate::{branches_to_selects, hoist_shared_branch_work, remove_dead_values, verify};

/// The name of the stage before any pass: the kernel as translation built it.
pub const TRANSLATED: &str = "translate";

/// One pass.
pub struct Pass {
    /// Its name (`--after NAME`).
    pub name: &'static str,
    /// What it does, in a line.
    pub does: &'static str,
    run: fn(&mut Kernel, &mut Findings),
}

impl Pass {
    /// Runs it on `kernel`, adding to `findings`.
    pub fn apply(&self, kernel: &mut Kernel, findings: &mut Findings) {
        (self.run)(kernel, findings);
    }
}

/// What the passes found that the program must hear about.
#[derive(Default)]
pub struct Findings {
    /// Warp or warpgroup collectives under control that may split their unit.
    pub collectives: Vec<Collective>,
}

/// Every pass, in the order lowering runs them.
pub static PASSES: [Pass; 7] = [
    Pass {
        name: "shared",
        does: "pure work two or more branches of a region share is done once, before them",
        run: |kernel, _| hoist_shared_branch_work(kernel),
    },
    Pass {
        name: "values",
        does: "a pure computation done before in scope is that one's values; conversions that change nothing are folded",
        run: |kernel, _| number_values(kernel),
    },
    Pass {
        name: "packs",
        does: "a pack of a word's unpacked halves is the word, an unpack of packed halves the halves",
        run: |kernel, _| fold_packs(kernel),
    },
    Pass {
        name: "wraps",
        does: "a wrap of an 8- or 16-bit integer that already fits its width is the integer",
        run: |kernel, _| drop_needless_wraps(kernel),
    },
    Pass {
        name: "selects",
        does: "branches that only pick values become selects",
        run: |kernel, _| branches_to_selects(kernel),
    },
    Pass {
        name: "dead",
        does: "values nothing uses are removed",
        run: |kernel, _| remove_dead_values(kernel),
    },
    Pass {
        name: "uniform",
        does: "branches every thread of a warp takes alike are marked; collectives under divergent control are found",
        run: |kernel, findings| {
            let block = block_shape(kernel);
            findings.collectives = mark_uniform(kernel, block);
        },
    },
];

/// Whether to verify the kernel after each pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checks {
    /// Verify after each pass (debug builds and tests).
    Verify,
    /// Trust the passes.
    Trust,
}

impl Checks {
    /// Verify in debug builds, trust in release builds.
    pub fn by_build() -> Checks {
        if cfg!(debug_assertions) {
            Checks::Verify
        } else {
            Checks::Trust
        }
    }
}

/// A pass that left a kernel the verifier refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokenBy {
    /// The pass.
    pub pass: &'static str,
    /// What the verifier said.
    pub problem: crate::VerifyError,
}

impl fmt::Display for BrokenBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "after the `{}` pass: {}", self.pass, self.problem)
    }
}

/// Whether `name` names a stage `--after` accepts: translation or a pass.
pub fn is_stage(name: &str) -> bool {
    name == TRANSLATED || PASSES.iter().any(|pass| pass.name == name)
}

/// Every stage's name, in order, for messages.
pub fn stage_names() -> Vec<&'static str> {
    std::iter::once(TRANSLATED)
        .chain(PASSES.iter().map(|pass| pass.name))
        .collect()
}

/// Runs the passes in order on `kernel`, stopping after the one named `last` (none
/// for [`TRANSLATED`], all for `None`); what they found, or the pass that broke the
/// kernel.
pub fn run_passes(
    kernel: &mut Kernel,
    last: Option<&str>,
    checks: Checks,
) -> Result<Findings, BrokenBy> {
    let mut findings = Findings::default();
    if last == Some(TRANSLATED) {
        return Ok(findings);
    }
    for pass in &PASSES {
        pass.apply(kernel, &mut findings);
        if checks == Checks::Verify {
            verify(kernel.clone()).map_err(|problem| BrokenBy {
                pass: pass.name,
                problem,
            })?;
        }
        if last == Some(pass.name) {
            break;
        }
    }
    Ok(findings)
}

/// The block's shape as far as the launch says it: one-dimensional when y and z are 1,
/// whole warps when its constant thread count is a multiple of 32.
fn block_shape(kernel: &Kernel) -> BlockShape {
    let extents = kernel
        .signature
        .launch
        .block
        .each_ref()
        .map(|extent| match extent {
            HostExpr::Const(value) => Some(*value),
            _ => None,
        });
    let one_dimensional = extents[1..].iter().all(|extent| *extent == Some(1));
    let threads = (extents.iter()).try_fold(1_i64, |threads, extent| Some(threads * (*extent)?));
    BlockShape {
        one_dimensional,
        whole_warps: threads.is_some_and(|threads| threads % 32 == 0),
    }
}
