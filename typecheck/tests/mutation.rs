//! Seeded mutation testing through the typechecker: programs that are almost right
//! never make it panic or hang, and every diagnostic points inside the file.
//!
//! The seeds are the example kernels and the typecheck corpus. Each case splits a seed
//! into words and punctuation and applies one to three mutations aimed at the
//! typechecker rather than the parser: a number replaced by another (0, 1, 3, a
//! huge or negative one), a name replaced by another name of the same file, a token
//! deleted, duplicated or swapped with its neighbour. Every mutant is typechecked,
//! whether it parses cleanly or not (an editor checks half-written code too). A fixed
//! xorshift seed makes runs identical; a failure prints its case and input.

use std::time::Duration;

use cute::Target;
use mutation::{assert_inside_file, run_case, seed_texts, semantic_cases};

#[path = "../../tests/support/mutation.rs"]
mod mutation;

const CASES: usize = 3_000;
const CASE_TIME_LIMIT: Duration = Duration::from_secs(10);
const SEED: u64 = 0x5EED_0FC0_DE00_0004;

#[test]
fn mutated_programs_never_panic_and_diagnostics_stay_inside_the_file() {
    let seeds = seed_texts(&["cuk-examples", "tests/typecheck"]);
    assert!(seeds.len() >= 20, "too few seeds");
    for (case, input, target) in semantic_cases(&seeds, SEED, CASES, &Target::ALL) {
        let worker_input = input.clone();
        let diagnostics = run_case(&case, &input, CASE_TIME_LIMIT, move || {
            let (module, _) = grammar::parse(&worker_input);
            typecheck::check(&module, target).diagnostics
        });
        assert_inside_file(&case, &input, &diagnostics);
    }
}
