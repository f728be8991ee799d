//! Parse snapshots: every `tests/parse/*.cuk` file (at the repository root)
//! must parse without diagnostics, and its tree, printed as S-expressions, is
//! compared with `tests/parse/snapshots/<file>.snap`.
//!
//! Update the snapshots with `INSTA_UPDATE=always cargo test -p grammar --test
//! parse` (or `cargo insta review`), then check them with `git diff`.

use std::fs;
use std::path::{Path, PathBuf};

use lang::ast::print::module_to_string;
use lang::ast::{ExprKind, ItemKind, StmtKind};

fn corpus_directory() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/parse")
}

fn corpus() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(corpus_directory())
        .expect("tests/parse exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "cuk"))
        .map(|path| {
            let stem = path
                .file_stem()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            (stem, fs::read_to_string(&path).expect("readable .cuk file"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn corpus_parses_without_diagnostics_and_matches_snapshots() {
    let files = corpus();
    assert!(files.len() >= 6, "the parse corpus went missing: {files:?}");
    for (name, text) in files {
        let (module, diagnostics) = grammar::parse(&text);
        assert!(
            diagnostics.is_empty(),
            "{name}.cuk: unexpected diagnostics {diagnostics:#?}"
        );
        insta::with_settings!({
            snapshot_path => corpus_directory().join("snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
            input_file => format!("tests/parse/{name}.cuk"),
        }, {
            insta::assert_snapshot!(name, module_to_string(&module));
        });
    }
}

#[test]
fn spans_are_byte_offsets_of_the_written_text() {
    let text = "const Größe = (4, 3):(1, 4);\nfn f() { g(x); }";
    let (module, diagnostics) = grammar::parse(text);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let [first, second] = module.items.as_slice() else {
        panic!("two items expected")
    };
    assert_eq!(&text[first.span.range()], "const Größe = (4, 3):(1, 4);");
    let ItemKind::Const(constant) = &first.kind else {
        panic!("a const item")
    };
    assert_eq!(&text[constant.pattern.span.range()], "Größe");
    let ExprKind::Layout { shape, stride } = &constant.value.kind else {
        panic!("a layout")
    };
    assert_eq!(&text[shape.span.range()], "(4, 3)");
    assert_eq!(&text[stride.span.range()], "(1, 4)");
    let ItemKind::Function(function) = &second.kind else {
        panic!("a function")
    };
    assert_eq!(&text[function.body.span.range()], "{ g(x); }");
    let StmtKind::Expr(call) = &function.body.statements[0].kind else {
        panic!("a call statement")
    };
    assert_eq!(&text[call.span.range()], "g(x)");
}

#[test]
fn grouping_parentheses_leave_no_node() {
    let (module, _) = grammar::parse("const A = ((1 + 2));");
    let ItemKind::Const(constant) = &module.items[0].kind else {
        panic!("a const item")
    };
    assert!(matches!(constant.value.kind, ExprKind::Binary { .. }));
}

#[test]
fn empty_and_comment_only_files_give_no_items_and_no_diagnostics() {
    for text in ["", "   \n\t", "// only a comment\n/* and a block */"] {
        let (module, diagnostics) = grammar::parse(text);
        assert!(
            module.items.is_empty() && diagnostics.is_empty(),
            "{text:?}"
        );
    }
}
