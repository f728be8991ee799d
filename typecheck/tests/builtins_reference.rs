//! `docs/builtins.md` is generated from the table of built-ins; this test fails when
//! it is stale. `CUK_BLESS=1 cargo test -p typecheck --test builtins_reference`
//! rewrites it.

use std::path::Path;

#[test]
fn the_builtins_reference_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/builtins.md");
    let expected = typecheck::builtins_reference();
    if std::env::var_os("CUK_BLESS").is_some() {
        std::fs::write(&path, &expected).expect("docs/builtins.md is writable");
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/builtins.md is stale (or missing): regenerate it with \
         `CUK_BLESS=1 cargo test -p typecheck --test builtins_reference`"
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
