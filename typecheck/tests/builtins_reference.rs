//! `docs/builtins.md` is generated from the table of built-ins, and
//! `docs/guide/cute-names.md` from the table of CuTe's names; these tests fail when one
//! is stale. `CUK_BLESS=1 cargo test -p typecheck --test builtins_reference` rewrites
//! them.

use std::path::Path;

/// Fails when `file` (from the repository root) is not `expected`; rewrites it with
/// `CUK_BLESS=1`.
fn generated_file_is_current(file: &str, expected: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file);
    if std::env::var_os("CUK_BLESS").is_some() {
        std::fs::write(&path, expected).expect("the generated file is writable");
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "{file} is stale (or missing): regenerate it with \
         `CUK_BLESS=1 cargo test -p typecheck --test builtins_reference`"
    );
}

#[test]
fn the_builtins_reference_is_current() {
    generated_file_is_current("docs/builtins.md", &typecheck::builtins_reference());
}

#[test]
fn the_table_of_cute_names_is_current() {
    generated_file_is_current(
        "docs/guide/cute-names.md",
        &typecheck::cute_names::guide_table(),
    );
}

#[test]
fn every_builtin_has_one_row_and_a_sentence() {
    let mut names: Vec<&str> = typecheck::BUILTINS
        .iter()
        .map(|builtin| builtin.name)
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(
        names.len(),
        typecheck::BUILTINS.len(),
        "a built-in is listed twice"
    );
    for builtin in typecheck::BUILTINS {
        assert!(builtin.doc.ends_with('.'), "{}: one sentence", builtin.name);
        if let typecheck::Arity::Between(least, most) = builtin.arity {
            assert!(least <= most, "{}: arity", builtin.name);
        }
    }
}
