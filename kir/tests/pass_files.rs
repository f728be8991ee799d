//! Each pass on a kernel of its own: `tests/kir/passes/NAME.kir` (whose first line,
//! `// pass: PASS`, names the pass) is read, verified, given to that pass alone, and
//! verified again; its text after the pass must be `NAME.after.kir`. After a
//! deliberate change to a pass, rewrite the goldens and review the diff:
//! `CUK_BLESS=1 cargo test -p kir --test pass_files`.

use std::path::{Path, PathBuf};

use kir::passes::{Findings, PASSES};
use kir::{from_text, to_text, verify};

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/kir/passes")
}

/// The input files, sorted.
fn inputs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.to_string_lossy();
            name.ends_with(".kir") && !name.ends_with(".after.kir")
        })
        .collect();
    files.sort();
    files
}

#[test]
fn each_pass_turns_its_input_into_its_golden() {
    let bless = std::env::var_os("CUK_BLESS").is_some();
    let mut tested = Vec::new();
    let mut stale = Vec::new();
    for input in inputs() {
        let text = std::fs::read_to_string(&input).unwrap();
        let name = (text.lines().next())
            .and_then(|line| line.strip_prefix("// pass: "))
            .unwrap_or_else(|| panic!("{}: no `// pass: NAME` first line", input.display()));
        let pass = (PASSES.iter())
            .find(|pass| pass.name == name)
            .unwrap_or_else(|| panic!("{}: no pass named `{name}`", input.display()));
        let mut kernel = from_text(&text).unwrap_or_else(|error| panic!("{error}"));
        verify(kernel.clone()).unwrap_or_else(|error| panic!("{}: {error}", input.display()));
        let before = to_text(&kernel, &|line| line);
        pass.apply(&mut kernel, &mut Findings::default());
        verify(kernel.clone()).unwrap_or_else(|error| panic!("after `{name}`: {error}"));
        let after = to_text(&kernel, &|line| line);
        assert_ne!(
            before,
            after,
            "{}: `{name}` changed nothing",
            input.display()
        );
        let golden = input.with_extension("after.kir");
        if bless {
            std::fs::write(&golden, &after).unwrap();
        } else if std::fs::read_to_string(&golden).ok().as_deref() != Some(after.as_str()) {
            stale.push(golden.display().to_string());
        }
        tested.push(pass.name);
    }
    assert!(
        stale.is_empty(),
        "stale or missing goldens; check the change and rewrite them with \
         `CUK_BLESS=1 cargo test -p kir --test pass_files`:\n{}",
        stale.join("\n")
    );
    tested.sort_unstable();
    tested.dedup();
    let mut every: Vec<&str> = PASSES.iter().map(|pass| pass.name).collect();
    every.sort_unstable();
    assert_eq!(
        tested, every,
        "tests/kir/passes/ holds an input for every pass"
    );
}

#[test]
fn the_passes_run_in_order_and_stop_where_asked() {
    use kir::passes::{Checks, TRANSLATED, run_passes};
    let input = folder().join("early_return.kir");
    let text = std::fs::read_to_string(input).unwrap();
    let translated = from_text(&text).unwrap();
    let mut untouched = translated.clone();
    run_passes(&mut untouched, Some(TRANSLATED), Checks::Verify).unwrap();
    assert_eq!(untouched, translated);
    let mut stopped = translated.clone();
    run_passes(&mut stopped, Some(PASSES[0].name), Checks::Verify).unwrap();
    let mut one = translated.clone();
    PASSES[0].apply(&mut one, &mut Findings::default());
    assert_eq!(stopped, one);
    let mut whole = translated;
    let findings = run_passes(&mut whole, None, Checks::Verify).unwrap();
    assert!(findings.collectives.is_empty());
    assert_ne!(whole, stopped);
}
