//! What the checker records about names: each use's definition, as `check` resolved
//! it, and where each definition is visible.

use super::{DefinitionKind, Names, Target};
use crate::expr_types::check_for_editor;

fn names_of(source: &str) -> Names {
    let (module, diagnostics) = grammar::parse(source);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    check_for_editor(&module, cute::Target::Sm90a).names
}

/// The target of the `nth` occurrence of `needle` in `source`.
fn target_of(names: &Names, source: &str, needle: &str, nth: usize) -> Option<Target> {
    let offset = source.match_indices(needle).nth(nth)?.0 as u32;
    names.target_at(offset).map(|(_, target)| target)
}

/// Where the definition that the `nth` `needle` refers to starts, and its kind.
fn definition_of(
    names: &Names,
    source: &str,
    needle: &str,
    nth: usize,
) -> Option<(u32, DefinitionKind)> {
    match target_of(names, source, needle, nth)? {
        Target::Definition(index) => {
            let definition = names.definitions.get(index)?;
            Some((definition.span.start, definition.kind))
        }
        _ => None,
    }
}

fn at(source: &str, needle: &str) -> u32 {
    source.find(needle).map_or(u32::MAX, |offset| offset as u32)
}

#[test]
fn uses_resolve_to_the_innermost_earlier_definition() {
    let source = "const N: int = 4;\nkernel k(m: i32, a: gmem bf16[(m, N):(N, 1)]) launch grid(1) block(32) {\n    let x = m;\n    let x = x + N;\n    let y = a[x, 0];\n}\n";
    let names = names_of(source);
    let kind = |needle| definition_of(&names, source, needle, 0).map(|(_, kind)| kind);
    assert_eq!(kind("m,"), Some(DefinitionKind::Parameter));
    assert_eq!(kind("N):"), Some(DefinitionKind::Const));
    let start = |needle| definition_of(&names, source, needle, 0).map(|(start, _)| start);
    assert_eq!(start("x + N"), Some(at(source, "x = m")));
    assert_eq!(start("x, 0"), Some(at(source, "x = x")));
}

#[test]
fn stdlib_paths_imports_and_builtins_resolve() {
    let source = "use sm80::{cp_async};\nconst A = sm80::ldmatrix_x4(T = bf16);\nconst B = cp_async(T = bf16);\nconst C = size(1:0);\n";
    let names = names_of(source);
    assert!(matches!(
        target_of(&names, source, "ldmatrix_x4", 0),
        Some(Target::Stdlib { .. })
    ));
    assert!(matches!(
        target_of(&names, source, "sm80::ld", 0),
        Some(Target::StdlibModule(_))
    ));
    assert!(target_of(&names, source, "cp_async(", 0).is_some());
    assert_eq!(
        target_of(&names, source, "cp_async(", 0),
        target_of(&names, source, "cp_async}", 0)
    );
    assert_eq!(
        target_of(&names, source, "size", 0),
        Some(Target::Builtin("size"))
    );
    let imported: Vec<&str> = names
        .imports
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(imported, ["cp_async"]);
}

#[test]
fn a_glob_import_brings_every_item_of_its_module() {
    let source = "use sm80::*;\nconst B = cp_async(T = bf16);\n";
    let names = names_of(source);
    let cp_async = target_of(&names, source, "cp_async", 0);
    assert!(
        matches!(cp_async, Some(Target::Stdlib { .. })),
        "{cp_async:?}"
    );
    assert!(names.imports.iter().any(|(name, _)| name == "ldmatrix_x4"));
}

#[test]
fn scopes_end_with_their_block() {
    let source = "fn f(p: i32) {\n    { let inner = 1; }\n    let after = p;\n}\n";
    let names = names_of(source);
    let end_of_inner_block = at(source, "}\n") + 1;
    let visible: Vec<&str> = names
        .visible_at(end_of_inner_block + 2)
        .map(|definition| definition.name.as_str())
        .collect();
    assert!(
        visible.contains(&"p") && visible.contains(&"f"),
        "{visible:?}"
    );
    assert!(!visible.contains(&"inner"), "{visible:?}");
    assert!(!visible.contains(&"after"), "not yet bound: {visible:?}");
}

#[test]
fn a_shadowing_let_in_a_block_ends_with_the_block() {
    let source = "fn f(p: i32) -> i32 {\n    let x = p;\n    {\n        let x = x * 2;\n        let inner = x;\n    }\n    x + 1\n}\n";
    let names = names_of(source);
    let start = |needle, nth| definition_of(&names, source, needle, nth).map(|(start, _)| start);
    assert_eq!(start("x * 2", 0), Some(at(source, "x = p")));
    assert_eq!(start("x;", 0), Some(at(source, "x = x")));
    assert_eq!(start("x + 1", 0), Some(at(source, "x = p")));
    let shadowed: Vec<u32> = (names.visible_at(at(source, "inner = x") + 8))
        .filter(|definition| definition.name == "x")
        .map(|definition| definition.span.start)
        .collect();
    assert_eq!(
        shadowed.first(),
        Some(&at(source, "x = x")),
        "innermost first"
    );
}

#[test]
fn a_static_loop_variable_is_visible_in_its_body_only() {
    let source = "fn f(a: gmem f32[8:1]) {\n    for i in static 0..4 {\n        let j = i * 2;\n        a[j] = 1.0;\n    }\n    let after = 1;\n}\n";
    let names = names_of(source);
    let (start, kind) =
        definition_of(&names, source, "i * 2", 0).unwrap_or((0, DefinitionKind::Kernel));
    assert_eq!((start, kind), (at(source, "i in"), DefinitionKind::Local));
    let j = definition_of(&names, source, "j] =", 0).map(|(start, _)| start);
    assert_eq!(j, Some(at(source, "j = i")));
    let visible_after: Vec<&str> = (names.visible_at(at(source, "after")))
        .map(|definition| definition.name.as_str())
        .collect();
    assert!(!visible_after.contains(&"i"), "{visible_after:?}");
    let unrolled = names
        .references
        .iter()
        .filter(|r| r.span.start == at(source, "i * 2"));
    assert_eq!(
        unrolled.count(),
        1,
        "each use is recorded once, not once per iteration"
    );
}

#[test]
fn const_parameters_their_defaults_and_named_arguments_resolve() {
    let source = "kernel k<const M: int = 4, const N: int = M * 2, const T: dtype = f32>(a: gmem T[(N):(1)]) launch grid(1) block(32) {\n    a[0] = 1.0;\n}\ntest t {\n    let a = zeros(f32, (16));\n    k(a, M = 8);\n}\n";
    let names = names_of(source);
    let m = definition_of(&names, source, "M * 2", 0);
    assert_eq!(
        m,
        Some((at(source, "M: int"), DefinitionKind::ConstParameter))
    );
    let element = definition_of(&names, source, "T[", 0);
    assert_eq!(
        element,
        Some((at(source, "T: dtype"), DefinitionKind::ConstParameter))
    );
    let named = definition_of(&names, source, "M = 8", 0);
    assert_eq!(
        named,
        Some((at(source, "M: int"), DefinitionKind::ConstParameter))
    );
    let kernel = definition_of(&names, source, "k(a", 0);
    assert_eq!(kernel, Some((at(source, "k<"), DefinitionKind::Kernel)));
    let local = definition_of(&names, source, "a, M", 0);
    assert_eq!(
        local,
        Some((at(source, "a = zeros"), DefinitionKind::Local))
    );
}

#[test]
fn every_hardware_index_is_a_builtin() {
    let source = "kernel k(a: gmem i32[32:1]) launch grid(1) block(32) {\n    a[thread_idx.x] = lane_idx + warp_idx;\n}\n";
    let names = names_of(source);
    for index in ["thread_idx", "lane_idx", "warp_idx"] {
        assert_eq!(
            target_of(&names, source, index, 0),
            Some(Target::Builtin(index)),
            "{index}"
        );
    }
}
