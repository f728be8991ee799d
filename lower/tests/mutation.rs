//! Seeded mutation testing through lowering: almost-right programs that typecheck
//! (loops, branches, shuffles, cells and copies in odd combinations) never make
//! lowering panic or hang, every diagnostic points inside the file, and every kernel
//! built passes the verifier (`lower_traces` returns only verified kernels).

use std::time::Duration;

use cute::Target;
use mutation::{assert_inside_file, run_case, seed_texts, semantic_cases};

#[path = "../../tests/support/mutation.rs"]
mod mutation;

const CASES: usize = 1_500;
const CASE_TIME_LIMIT: Duration = Duration::from_secs(10);
const SEED: u64 = 0x5EED_0FC0_DE00_0015;

#[test]
fn mutated_programs_lower_without_panics_and_diagnostics_stay_inside_the_file() {
    let seeds = seed_texts(&["cuk-examples", "tests/control", "tests/miscompiles"]);
    assert!(seeds.len() >= 15, "too few seeds");
    let mut built = 0;
    for (case, input, target) in semantic_cases(&seeds, SEED, CASES, &Target::ALL) {
        let worker_input = input.clone();
        let (diagnostics, kernels) = run_case(&case, &input, CASE_TIME_LIMIT, move || {
            let (module, _) = grammar::parse(&worker_input);
            let lowered = typecheck::trace(&module, target, |analysis, traces| {
                lower::lower_traces(analysis.diagnostics, &traces)
            });
            (lowered.diagnostics, lowered.kernels.len())
        });
        built += kernels;
        assert_inside_file(&case, &input, &diagnostics);
    }
    assert!(
        built >= CASES / 4,
        "only {built} kernels were built: the mutants are too broken to reach lowering"
    );
}
