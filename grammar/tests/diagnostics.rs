//! The diagnostics corpus: `tests/diagnostics/*.cuk`, one file per mistake.
//!
//! Each file states the diagnostics it must produce with inline markers in
//! comments:
//!
//! ```text
//! const HALF: int = TILE $ 2; //~ error[E0101]
//! let x = (1, 2
//! //~^ error[E0111]
//! ```
//!
//! `//~ SEVERITY[CODE]` expects a diagnostic of that severity and code whose
//! primary span starts on the marker's line; each `^` right after `//~` moves
//! the expectation one line up. A line may carry several markers. The markers
//! are read from the raw bytes, so they work inside unterminated strings and
//! comments too. The file's diagnostics (from loading, parsing and the
//! empty-file check) must match the markers exactly, as a multiset of
//! (line, severity, code); a mismatch fails with the list of missing and
//! unexpected diagnostics, each with its rendered message.
//!
//! Each file also has an insta snapshot of its renderings, short form then
//! the ariadne report (no colour), in `tests/diagnostics/snapshots/`. Run
//! `cargo insta review` (or set `INSTA_UPDATE=always`) after a deliberate change.
//!
//! Every registered diagnostic code must have at least one marker in the
//! corpus; the few that need an environment rather than a file (an unreadable
//! path, a file over 4 GiB) are listed in [`CODES_TESTED_ELSEWHERE`] with the
//! test that covers them.

use std::path::{Path, PathBuf};

use corpus::{cuk_files, rendered};
use lang::render::short;
use lang::{Diagnostic, SourceFile, codes, source};
use markers::{compare, markers};

#[path = "../../tests/support/corpus.rs"]
mod corpus;
#[path = "../../tests/support/markers.rs"]
mod markers;

/// Codes whose input cannot be a file in the corpus, and where they are tested.
const CODES_TESTED_ELSEWHERE: &[(&str, &str)] = &[
    (
        "N0001",
        "more diagnostics than are shown: lang/tests/render.rs, a_file_shows_at_most_two_hundred_diagnostics_then_how_many_more",
    ),
    (
        "E0301",
        "not lowered yet: cli/tests/ptx_golden.rs, what_lowering_cannot_build_is_an_error_at_its_line_from_check_and_build",
    ),
    (
        "E0302",
        "a warp collective under divergent control: cli/tests/control_flow.rs, a_shuffle_under_a_divergent_branch_is_an_error_at_the_shuffle",
    ),
    (
        "E0303",
        "no ptxas: cli/tests/ptx_golden.rs, a_missing_ptxas_is_an_error_naming_it",
    ),
    (
        "E0399",
        "an internal compiler error, which no program should reach: lower/src/lib.rs, tests::invalid_kir_is_an_internal_error_at_the_kernel",
    ),
    (
        "E0401",
        "a global access out of bounds: emulator/tests/planted.rs, an_unpredicated_copy_on_a_ragged_shape_reads_past_its_tensor",
    ),
    (
        "E0402",
        "a shared access out of bounds: emulator/tests/checks.rs, shared_accesses_past_the_block_s_memory_are_out_of_bounds",
    ),
    (
        "E0403",
        "a misaligned access: emulator/tests/checks.rs, misaligned_accesses_are_faults",
    ),
    (
        "E0404",
        "a shared-memory race: emulator/tests/planted.rs, a_transpose_without_its_barrier_is_a_race_naming_both_lines",
    ),
    (
        "E0405",
        "uninitialized shared memory: emulator/tests/planted.rs, a_read_before_cp_async_lands_reads_unwritten_shared_memory",
    ),
    (
        "E0406",
        "a barrier not every thread reaches: emulator/tests/planted.rs, a_barrier_half_the_block_skips_is_never_reached",
    ),
    (
        "E0407",
        "a partial warp at a collective: emulator/tests/checks.rs, a_shuffle_part_of_a_warp_skips_never_completes",
    ),
    (
        "E0408",
        "an atom without a model: emulator/tests/checks.rs, an_atom_without_a_model_is_named",
    ),
    (
        "E0409",
        "a launch the emulator cannot run: emulator/tests/checks.rs, a_launch_that_does_not_fit_the_kernel_is_refused",
    ),
    (
        "E0410",
        "the instruction budget: emulator/tests/checks.rs, an_endless_loop_stops_at_the_budget",
    ),
    (
        "E0412",
        "a cluster misused: emulator/tests/planted.rs, an_arrival_on_an_exited_peer_of_the_cluster_is_reported",
    ),
    (
        "E0413",
        "tensor memory misused: emulator/tests/planted.rs, tensor_memory_still_allocated_at_exit_is_reported_at_its_allocation",
    ),
    (
        "E0414",
        "a TMA store outliving its block: emulator/tests/planted.rs, a_block_exiting_before_its_tma_store_is_waited_for_is_reported_at_the_store",
    ),
    (
        "E0415",
        "asynchronous data used before it is handed over: cli/tests/emulated.rs, planted_bugs_fail_with_the_expected_diagnostic (tests/emulator/tma_read_without_wait.cuk and the other E0415 files)",
    ),
    (
        "E0416",
        "a spin on memory nothing changes: emulator/tests/protocol.rs, a_spin_on_a_flag_nothing_sets_is_reported_as_soon_as_no_thread_moves (tests/emulator/spin_on_unset_flag.cuk)",
    ),
    (
        "E0417",
        "one named barrier with two counts: emulator/tests/protocol.rs, two_roles_counting_one_named_barrier_differently_are_reported_at_both (tests/emulator/named_barrier_counts_differ.cuk)",
    ),
    (
        "E0418",
        "a wgmma with no fence before it: cli/tests/emulated.rs, planted_bugs_fail_with_the_expected_diagnostic (tests/emulator/wgmma_without_fence.cuk)",
    ),
    (
        "E0419",
        "a wgmma reading registers written after the last fence: cli/tests/emulated.rs, planted_bugs_fail_with_the_expected_diagnostic (tests/emulator/wgmma_register_a_without_fence.cuk)",
    ),
    (
        "E0423",
        "a cross-device race: cli/tests/emulated.rs, planted_bugs_fail_with_the_expected_diagnostic (tests/emulator/allreduce_without_release.cuk, allreduce_without_acquire.cuk)",
    ),
    (
        "E0424",
        "offsets not starting at 0: cli/tests/varlen_bad_input.rs, query_offsets_not_starting_at_zero_are_refused_before_the_launch",
    ),
    (
        "E0425",
        "decreasing offsets: cli/tests/varlen_bad_input.rs, decreasing_key_offsets_are_refused_before_the_launch",
    ),
    (
        "E0426",
        "offsets ending off the total: cli/tests/varlen_bad_input.rs, query_offsets_past_or_short_of_the_packed_tokens_are_refused_before_the_launch",
    ),
    (
        "E0427",
        "an offsets step past the largest: cli/tests/varlen_bad_input.rs, a_query_sequence_longer_than_max_seqlen_q_is_refused_before_the_launch",
    ),
    (
        "E0428",
        "an integer tensor's element outside its `require_range`: cli/tests/decode_bad_input.rs, a_block_table_entry_past_the_cache_or_negative_is_refused_before_the_launch",
    ),
    (
        "E0429",
        "a race in global memory between blocks: cli/tests/emulated.rs, planted_bugs_fail_with_the_expected_diagnostic (tests/emulator/last_block_without_release_fence.cuk and the other E0429 files)",
    ),
    (
        "W0301",
        "ptxas's wgmma serialization advice: cli/tests/hopper.rs, accumulators_touched_in_the_k_loop_are_a_warning_at_the_kernel",
    ),
    (
        "E0411",
        "an mbarrier no thread can complete: emulator/tests/planted.rs, a_tma_load_whose_barrier_expects_nothing_never_completes_its_phase",
    ),
    (
        "E0116",
        "a file past the lexical error limit: grammar/tests/limits.rs, a_file_of_stray_characters_stops_at_the_lexical_error_limit",
    ),
    (
        "E0117",
        "a file of more than 2^20 tokens: grammar/tests/limits.rs, a_file_past_the_token_limit_is_refused_at_the_first_token_past_it",
    ),
    (
        "E0001",
        "an unreadable path: cli/src/check.rs, unreadable_binary_and_non_utf8_files_become_diagnostics",
    ),
    (
        "E0004",
        "a file over 4 GiB: lang/src/source.rs, files_beyond_four_gibibytes_are_rejected_by_size",
    ),
];

fn corpus_directory() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/diagnostics")
}

/// The corpus files, sorted by name.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let files = cuk_files(&corpus_directory());
    assert!(
        files.len() >= 20,
        "the diagnostics corpus at {} looks incomplete",
        corpus_directory().display()
    );
    files
}

/// Loads, parses and checks `bytes` as `cukc check` does.
fn diagnose(name: &str, bytes: Vec<u8>) -> (SourceFile, Vec<Diagnostic>) {
    let loaded = source::load(format!("tests/diagnostics/{name}"), bytes);
    let mut diagnostics = loaded.diagnostics;
    if loaded.is_text {
        let (module, parse_diagnostics) = grammar::parse(loaded.file.text());
        diagnostics.extend(parse_diagnostics);
        diagnostics.extend(source::no_items_warning(&module, &diagnostics));
    }
    (loaded.file, diagnostics)
}

#[test]
fn every_file_produces_exactly_its_marked_diagnostics() {
    let mut problems = Vec::new();
    for (name, bytes) in corpus() {
        let expected = match markers(&String::from_utf8_lossy(&bytes)) {
            Ok(expected) => expected,
            Err(message) => {
                problems.push(format!("{name}: {message}"));
                continue;
            }
        };
        if expected.is_empty() {
            problems.push(format!("{name}: has no `//~` marker"));
        }
        let (file, diagnostics) = diagnose(&name, bytes);
        problems.extend(compare(&name, &expected, &file, &diagnostics));
    }
    assert!(
        problems.is_empty(),
        "diagnostics differ from the markers:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_file_renders_as_its_snapshot() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../../tests/diagnostics/snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for (name, bytes) in corpus() {
            let (file, diagnostics) = diagnose(&name, bytes);
            let rendered = rendered(&diagnostics, &file);
            let stem = name.trim_end_matches(".cuk");
            let mut file_settings = insta::Settings::clone_current();
            file_settings.set_input_file(corpus_directory().join(&name));
            file_settings.set_omit_expression(true);
            file_settings.bind(|| insta::assert_snapshot!(stem, rendered));
        }
    });
}

#[test]
fn every_registered_code_has_an_input_file() {
    let mut marked: Vec<String> = Vec::new();
    for (name, bytes) in corpus() {
        let expected = markers(&String::from_utf8_lossy(&bytes)).unwrap_or_default();
        for expectation in expected {
            assert!(
                codes::summary(&expectation.code).is_some(),
                "{name}: {} is not registered",
                expectation.code
            );
            marked.push(expectation.code);
        }
    }
    // The typechecker's codes (`E02xx`, `N02xx`, `E059x`) have their own corpus in
    // tests/typecheck/.
    let uncovered: Vec<&str> = codes::REGISTRY
        .iter()
        .map(|info| info.code)
        .filter(|code| !code[1..].starts_with("02") && !code[1..].starts_with("059"))
        .filter(|code| !marked.iter().any(|marked_code| marked_code == code))
        .filter(|code| {
            !CODES_TESTED_ELSEWHERE
                .iter()
                .any(|(exempt, _)| exempt == code)
        })
        .collect();
    assert!(
        uncovered.is_empty(),
        "registered codes without an input in tests/diagnostics/: {uncovered:?}"
    );
}

#[test]
fn recovery_reports_each_independent_mistake_once() {
    for (name, count) in [
        ("recovery_three_mistakes.cuk", 3),
        ("recovery_five_mistakes.cuk", 5),
        ("recovery_after_brackets.cuk", 4),
    ] {
        let bytes = std::fs::read(corpus_directory().join(name)).unwrap_or_default();
        let (file, diagnostics) = diagnose(name, bytes);
        assert_eq!(
            diagnostics.len(),
            count,
            "{name}:\n{}",
            short(&diagnostics, &file)
        );
    }
}

#[test]
fn a_zero_byte_file_is_empty_and_a_warning_only() {
    let (_, diagnostics) = diagnose("zero_bytes.cuk", Vec::new());
    let codes: Vec<&str> = diagnostics
        .iter()
        .map(|diagnostic| diagnostic.code)
        .collect();
    assert_eq!(codes, ["W0001"]);
    assert!(!diagnostics.iter().any(Diagnostic::is_error));
}

#[test]
fn ten_thousand_open_brackets_give_a_diagnostic_not_a_stack_overflow() {
    for opener in ["(", "[", "{", "f("] {
        let text = format!("const X: int = {};\n", opener.repeat(10_000));
        let (_, diagnostics) = grammar::parse(&text);
        assert!(
            diagnostics
                .iter()
                .any(|diagnostic| diagnostic.code == "E0110"),
            "{opener}: {:?}",
            diagnostics
                .iter()
                .map(|diagnostic| diagnostic.code)
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn markers_are_read_with_carets_and_several_per_line() {
    let text = "a //~ error[E0101] //~ warning[W0001]\nb\n//~^^ note[E0107]\n";
    let expected = markers(text).unwrap_or_default();
    let lines: Vec<(u32, &str)> = expected.iter().map(|e| (e.line, e.code.as_str())).collect();
    assert_eq!(lines, [(1, "E0101"), (1, "W0001"), (1, "E0107")]);
    assert!(
        markers("x\n//~^ error[E0101]\n//~^^^ error[E0101]\n").is_err(),
        "a caret above line 1"
    );
    assert!(markers("//~ mistake[E0101]").is_err());
}
