//! The typechecker's corpus: `tests/typecheck/*.cuk`.
//!
//! Files named after a code (`e0204_dyn_where_const.cuk`) hold mistakes, each marked
//! with the diagnostic it must produce (`//~ error[E0204]`, see
//! `tests/support/markers.rs`); the file must produce exactly its markers. Files
//! named `pass_*.cuk` are correct programs and must check clean. Every file is
//! checked for sm_80 unless its first line says `// target: sm_90a` (or another
//! target). Each file with markers also has an insta snapshot of its rendered
//! diagnostics in `tests/typecheck/snapshots/`, and every typechecker code
//! (`E02xx`, `N02xx`, `E059x`) must be marked somewhere in the corpus.

use std::path::{Path, PathBuf};

use corpus::{cuk_files, rendered};
use cute::Target;
use lang::{Diagnostic, SourceFile, codes};
use markers::{compare, markers};

#[path = "../../tests/support/corpus.rs"]
mod corpus;
#[path = "../../tests/support/markers.rs"]
mod markers;

fn corpus_directory() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/typecheck")
}

/// The corpus files, sorted by name.
fn corpus() -> Vec<(String, String)> {
    let files: Vec<(String, String)> = cuk_files(&corpus_directory())
        .into_iter()
        .filter_map(|(name, bytes)| Some((name, String::from_utf8(bytes).ok()?)))
        .collect();
    assert!(files.len() >= 20, "the typecheck corpus looks incomplete");
    files
}

/// The target a file asks for on its first line, sm_80 by default.
fn target_of(text: &str) -> Target {
    Target::declared_in(text).unwrap_or(Target::Sm80)
}

/// Parses and typechecks as `cukc check` does.
fn diagnose(name: &str, text: &str) -> (SourceFile, Vec<Diagnostic>) {
    let file = SourceFile::new(format!("tests/typecheck/{name}"), text.to_owned());
    let (module, mut diagnostics) = grammar::parse(text);
    assert!(
        diagnostics.is_empty(),
        "{name} does not parse: {diagnostics:?}"
    );
    diagnostics.extend(typecheck::check(&module, target_of(text)).diagnostics);
    (file, diagnostics)
}

#[test]
fn every_file_produces_exactly_its_marked_diagnostics() {
    let mut problems = Vec::new();
    for (name, text) in corpus() {
        let expected = match markers(&text) {
            Ok(expected) => expected,
            Err(message) => {
                problems.push(format!("{name}: {message}"));
                continue;
            }
        };
        if expected.is_empty() != name.starts_with("pass_") {
            problems.push(format!("{name}: only pass_*.cuk files are without markers"));
        }
        let (file, diagnostics) = diagnose(&name, &text);
        problems.extend(compare(&name, &expected, &file, &diagnostics));
    }
    assert!(
        problems.is_empty(),
        "diagnostics differ from the markers:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_file_with_mistakes_renders_as_its_snapshot() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../../tests/typecheck/snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for (name, text) in corpus()
            .into_iter()
            .filter(|(name, _)| !name.starts_with("pass_"))
        {
            let (file, diagnostics) = diagnose(&name, &text);
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
fn every_typechecker_code_is_marked_in_the_corpus() {
    let marked: Vec<String> = corpus()
        .iter()
        .flat_map(|(_, text)| markers(text).unwrap_or_default())
        .map(|expectation| expectation.code)
        .collect();
    let uncovered: Vec<&str> = codes::REGISTRY
        .iter()
        .map(|info| info.code)
        .filter(|code| code[1..].starts_with("02") || code[1..].starts_with("059"))
        .filter(|code| !marked.iter().any(|marked| marked == code))
        .collect();
    assert!(
        uncovered.is_empty(),
        "typechecker codes without a marked input: {uncovered:?}"
    );
}
