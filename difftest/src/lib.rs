//! The differential tester: random well-typed scalar kernels from a seed
//! ([`generate`]), what C computes for each ([`reference`], written from C's rules and
//! docs/language.md, not from the compiler), and a harness that compiles each program
//! in-process, runs it on the emulator or a GPU and compares every stored value bit for
//! bit ([`harness`]); a program that disagrees is printed with its seed and shrunk to a
//! small one that still disagrees ([`minimise`]).
//!
//! `cargo test -p difftest` runs thousands of programs on the emulator with the
//! [`Feature`]s the compiler gets right; `cuk-difftest --seed S --count N [--gpu]` runs
//! any number, on either device (`scripts/gpu-check.sh` runs it on the GPU).

pub mod dtype;
pub mod features;
pub mod float;
pub mod generate;
pub mod harness;
pub mod minimise;
pub mod program;
pub mod reference;

use std::collections::BTreeMap;
use std::fmt::Write;

pub use features::{Feature, Features};
use harness::{Runner, Verdict};
use program::Program;

/// A program that disagreed.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its index in the run.
    pub index: u64,
    /// The program.
    pub program: Program,
    /// How it disagreed.
    pub verdict: Verdict,
    /// The smallest program found that disagrees the same way, with its verdict.
    pub minimised: Option<(Program, Verdict)>,
}

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Programs run.
    pub programs: u64,
    /// Programs whose every stored value is the reference's.
    pub agreements: u64,
    /// Disagreements by class (`wrong value`, `refused E0301`, ...).
    pub classes: BTreeMap<String, u64>,
    /// The disagreements, the first `keep` of each class minimised.
    pub failures: Vec<Failure>,
}

/// How a run goes.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The run's seed.
    pub seed: u64,
    /// The first program's index.
    pub first: u64,
    /// How many programs.
    pub count: u64,
    /// What the generator may use.
    pub features: Features,
    /// Programs compiled together in one module.
    pub batch: usize,
    /// Disagreements minimised per class.
    pub minimise_per_class: usize,
}

/// Runs programs `first..first + count` of `seed` on `runner`.
pub fn run(
    runner: &mut Runner<'_>,
    config: &RunConfig,
    mut progress: impl FnMut(&Summary),
) -> Summary {
    let mut summary = Summary::default();
    let end = config.first + config.count;
    let mut next = config.first;
    while next < end {
        let last = (next + config.batch as u64).min(end);
        let programs: Vec<Program> = (next..last)
            .map(|index| generate::generate(config.seed, index, &config.features))
            .collect();
        let verdicts = runner.run(&programs);
        for ((index, program), verdict) in (next..last).zip(programs).zip(verdicts) {
            summary.programs += 1;
            if verdict == Verdict::Agree {
                summary.agreements += 1;
                continue;
            }
            let class = verdict.class();
            let seen = summary.classes.entry(class).or_default();
            *seen += 1;
            let minimised = (*seen as usize <= config.minimise_per_class)
                .then(|| minimise::minimise(runner, &program, &verdict));
            summary.failures.push(Failure {
                index,
                program,
                verdict,
                minimised,
            });
        }
        next = last;
        progress(&summary);
    }
    summary
}

/// A disagreement written out: seed, index, program, values, and the minimised one.
pub fn describe(seed: u64, failure: &Failure) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "program {} of seed {seed} ({}):",
        failure.index,
        failure.verdict.class()
    );
    let _ = writeln!(text, "{}", verdict_text(&failure.verdict));
    let _ = writeln!(text, "{}", with_inputs(&failure.program));
    if let Some((program, verdict)) = &failure.minimised {
        let _ = writeln!(text, "minimised: {}", verdict_text(verdict));
        let _ = writeln!(text, "{}", with_inputs(program));
    }
    text
}

/// A verdict in words.
pub fn verdict_text(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Agree => "agrees".to_owned(),
        Verdict::Wrong {
            tensor,
            row,
            got,
            want,
        } => format!("{tensor}[{row}]: CuK stored {got}, C computes {want}"),
        Verdict::Refused { code, message } => format!("refused: {code}: {message}"),
        Verdict::Panicked(message) => format!("compiler panic: {message}"),
        Verdict::Faulted { code, message } => format!("launch failed: {code}: {message}"),
    }
}

/// The program's source, after a comment giving its inputs' values.
pub fn with_inputs(program: &Program) -> String {
    let mut text = String::new();
    for input in &program.inputs {
        let var = &program.vars[input.var];
        let values: Vec<String> = match input.source {
            program::Source::Argument => vec![harness::show(input.values[0], var.dtype)],
            program::Source::Tensor => (input.values.iter())
                .map(|value| harness::show(*value, var.dtype))
                .collect(),
        };
        let _ = writeln!(text, "// {} = [{}]", var.name, values.join(", "));
    }
    text.push_str(&program.to_source());
    text
}
