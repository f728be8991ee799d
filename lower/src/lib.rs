//! Lowering: a checked kernel instantiation becomes KIR.
//!
//! The typechecker has already evaluated everything const: what reaches this crate is
//! each kernel's [`trace::KernelTrace`], its run-time effects (copies, loads and
//! stores, barriers, loops and branches) over tensors whose layouts are evaluated
//! `Layout<SymInt>`s. Lowering turns them into instructions:
//!
//! - an element's address is its tensor's base plus the layout's value at its
//!   coordinate, a [`layout::SymInt`] whose constant part folds into the instruction's
//!   immediate offset and whose run-time part (thread and block indices, parameters)
//!   is computed once per kernel and shared ([`builder`]);
//! - a copy expands per atom application: a 128-bit universal copy is one vector
//!   load and one vector store, cp.async its PTX template, a predicate tensor guards
//!   each application ([`copy`]);
//! - register fragments become values, never local memory: each element of a
//!   fragment is the value last stored there, 16-bit elements in pairs per 32-bit
//!   word as tensor cores use them ([`fragments`]);
//! - swizzled shared memory is addressed from a per-thread offset computed once and
//!   an immediate where the layout allows, else by the xor and shift on the run-time
//!   index ([`swizzled`]);
//! - shared buffers are laid out at 128-byte boundaries;
//! - run-time loops and branches become KIR regions, and the locals and register
//!   fragments they change are carried through the regions' parameters
//!   ([`regions`], [`control`]).
//!
//! What lowering cannot do yet (`break`) is an `E0301` at the source line.
//! Lowering never panics; a kernel it builds passes [`kir::verify`].

mod anchors;
mod atoms;
pub mod blackwell;
mod budget;
mod builder;
mod cluster_view;
mod concurrent;
mod control;
mod copy;
mod element;
mod fp8;
mod fragments;
mod gmma;
pub mod hopper;
mod integers;
mod known;
mod likely;
mod memory;
mod placement;
mod print;
mod ranges;
mod regions;
mod signature;
mod state;
mod swizzled;
mod terms;
mod tmem_checks;
mod tmem_waits;
mod tv;
mod umma;
mod warp;

use lang::{Diagnostic, Severity, Span};
use trace::{Effect, KernelTrace};

pub use budget::MAX_EXPANDED_VALUES;
pub use concurrent::ConcurrentLowering;
pub use signature::entry_name;

/// The result of lowering a file.
#[derive(Debug, Default)]
pub struct Lowered {
    /// The typechecker's diagnostics, then lowering's.
    pub diagnostics: Vec<Diagnostic>,
    /// Every kernel instantiation the file uses, when the file has no errors.
    pub kernels: Vec<kir::Verified>,
}

impl Lowered {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|diagnostic| diagnostic.severity == Severity::Error)
    }
}

/// Lowers every kernel instantiation a file uses (`traces`, each kernel with its
/// default const parameters and with each set a test passes), after the
/// typechecker's `diagnostics`; kernels are lowered only when there is no error.
pub fn lower_traces(diagnostics: Vec<Diagnostic>, traces: &[KernelTrace]) -> Lowered {
    // The instantiations of a file allocate the same swizzled buffers; their tables
    // are numbers, not values of one kernel, so every instantiation shares them.
    let tables = builder::InnerTables::default();
    gather(
        diagnostics,
        (traces.iter()).map(|trace| lower_trace_with(trace, &tables, None)),
    )
}

/// The typechecker's `diagnostics`, then each kernel of `lowerings` or why it could not
/// be built, in order; `lowerings` is not drawn from when `diagnostics` has an error.
fn gather(
    diagnostics: Vec<Diagnostic>,
    lowerings: impl Iterator<Item = Result<kir::Verified, Vec<Diagnostic>>>,
) -> Lowered {
    let mut lowered = Lowered {
        diagnostics,
        kernels: Vec::new(),
    };
    if lowered.has_errors() {
        return lowered;
    }
    for lowering in lowerings {
        match lowering {
            Ok(kernel) => lowered.kernels.push(kernel),
            Err(diagnostics) => lowered.diagnostics.extend(diagnostics),
        }
    }
    lowered
}

/// Lowers one traced kernel instantiation.
pub fn lower_trace(trace: &KernelTrace) -> Result<kir::Verified, Vec<Diagnostic>> {
    lower_trace_with(trace, &builder::InnerTables::default(), None)
}

/// [`lower_trace`], with the swizzled allocations' tables built so far, stopping after
/// the stage `last` (`kir::passes`) when one is given.
fn lower_trace_with(
    trace: &KernelTrace,
    tables: &builder::InnerTables,
    last: Option<&str>,
) -> Result<kir::Verified, Vec<Diagnostic>> {
    let mut effects = Vec::new();
    budget::flatten(&trace.effects, &mut effects);
    let unsupported: Vec<Diagnostic> = effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Unsupported(what, span) => Some(
                Diagnostic::error(
                    "E0301",
                    format!(
                        "kernel `{}` cannot be built yet: lowering does not handle {what}",
                        trace.name
                    ),
                )
                .with_primary(*span, "not lowered yet")
                .with_note(
                    "docs/language.md lists what kernels cannot compute yet \
                     (\"What a kernel computes on the GPU\")",
                ),
            ),
            _ => None,
        })
        .collect();
    if !unsupported.is_empty() {
        return Err(dedup(unsupported));
    }
    let signature = signature::signature(trace).map_err(|message| {
        vec![
            Diagnostic::error(
                "E0301",
                format!("kernel `{}` cannot be built yet: {message}", trace.name),
            )
            .with_primary(trace.span, "in this kernel"),
        ]
    })?;
    budget::check(trace)?;
    let tmem_breaches = tmem_checks::tmem_breaches(trace);
    if !tmem_breaches.is_empty() {
        return Err(dedup(tmem_breaches));
    }
    let mut builder = builder::Builder::new(trace, signature, tables);
    for effect in &trace.effects {
        builder.effect(effect);
    }
    let mut kernel = builder.finish()?;
    let findings = kir::passes::run_passes(&mut kernel, last, kir::passes::Checks::by_build())
        .map_err(|broken| internal_error(&trace.name, trace.span, broken.to_string()))?;
    // Stopped early (to be seen): the checks after the passes are not run.
    if last.is_some() {
        return verified(kernel, &trace.name, trace.span);
    }
    let early_reads = tmem_waits::reads_before_wait(&kernel);
    if !early_reads.is_empty() {
        return Err(dedup(early_reads));
    }
    let collectives = findings.collectives;
    if !collectives.is_empty() {
        return Err(dedup(
            collectives
                .into_iter()
                .map(|collective| {
                    let unit = collective.unit;
                    Diagnostic::error(
                        "E0302",
                        format!(
                            "{} in kernel `{}` runs where the threads of a {unit} may have taken different paths",
                            collective.what, trace.name
                        ),
                    )
                    .with_primary(collective.span, format!("not every thread of the {unit} reaches this"))
                    .with_note(format!("a {unit}-collective instruction needs every thread of its {unit}; this one is under a branch or loop whose condition may differ within the {unit}"))
                    .with_help(match unit {
                        "warp" => "move it out of the branch, or make the condition the same for the whole warp (for example from `warp_idx`)",
                        _ => "move it out of the branch, or make the condition the same for the whole warpgroup (for example from `thread_idx.x / 128`)",
                    })
                })
                .collect(),
        ));
    }
    verified(kernel, &trace.name, trace.span)
}

/// `kernel` verified; a kernel lowering built wrong is an internal error at the kernel
/// named `name` (written at `span`), which no program should reach.
fn verified(kernel: kir::Kernel, name: &str, span: Span) -> Result<kir::Verified, Vec<Diagnostic>> {
    kir::verify(kernel).map_err(|problem| internal_error(name, span, problem.to_string()))
}

/// E0399: lowering the kernel named `name` (written at `span`) built invalid KIR, as
/// `problem` says.
fn internal_error(name: &str, span: Span, problem: String) -> Vec<Diagnostic> {
    vec![
        Diagnostic::error(
            "E0399",
            format!("internal compiler error: lowering `{name}` produced invalid KIR"),
        )
        .with_primary(span, "while lowering this kernel")
        .with_note(problem)
        .with_help("this is a bug in cukc, not in the program: please report it with the file"),
    ]
}

fn dedup(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = rustc_hash::FxHashSet::default();
    diagnostics.retain(|diagnostic| seen.insert((diagnostic.span(), diagnostic.message.clone())));
    diagnostics
}

#[cfg(test)]
mod tests {
    use lang::Span;

    #[test]
    fn invalid_kir_is_an_internal_error_at_the_kernel() {
        let text = "kernel k {
  param 0 x: tensor f32 shape(1) strides(1)
  launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)
  %0:i64 = param 0
  store.global [%0+0], %1
  %1:f32 = const 0.0
}
";
        let kernel = kir::from_text(text).expect("the text reads");
        let span = Span::new(7, 8);
        let errors = super::verified(kernel, "k", span).expect_err("a use before its definition");
        assert_eq!(errors[0].code, "E0399");
        assert_eq!(errors[0].span(), span);
        assert!(errors[0].message.contains("internal compiler error"));
    }
}
