//! The example kernels typecheck clean for every target (or the one a file names on its
//! first line), their `--dump-types` output
//! shows the evaluated layouts (snapshots for a copy and the SM80 GEMM), and the two
//! edits the issue names give exactly one diagnostic each at the edited line.

use std::path::{Path, PathBuf};

use cute::Target;
use lang::{Diagnostic, LineIndex};

fn examples_directory() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cuk-examples")
}

fn example(name: &str) -> String {
    std::fs::read_to_string(examples_directory().join(name))
        .unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn check(text: &str, target: Target) -> (Vec<Diagnostic>, Vec<typecheck::Binding>) {
    let (module, parse) = grammar::parse(text);
    assert!(parse.is_empty(), "parse errors: {parse:?}");
    let analysis = typecheck::check(&module, target);
    (analysis.diagnostics, analysis.bindings)
}

fn line_of(text: &str, diagnostic: &Diagnostic) -> u32 {
    LineIndex::new(text)
        .line_column(text, diagnostic.span().start)
        .line
}

#[test]
fn every_example_typechecks_clean_for_every_target() {
    let mut names: Vec<String> = std::fs::read_dir(examples_directory())
        .expect("cuk-examples/ exists")
        .flatten()
        .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
        .filter(|name| name.ends_with(".cuk"))
        .collect();
    names.sort();
    assert!(names.len() >= 8, "examples missing: {names:?}");
    for name in names {
        let text = example(&name);
        // A file for one target says so on its first line: `// target: sm_90a`.
        let only = (text.lines().next())
            .and_then(|line| line.strip_prefix("// target: "))
            .and_then(|name| {
                Target::ALL
                    .into_iter()
                    .find(|target| target.to_string() == name)
            });
        for target in Target::ALL
            .into_iter()
            .filter(|target| only.is_none_or(|only| only == *target))
        {
            let (diagnostics, bindings) = check(&text, target);
            assert!(
                diagnostics.is_empty(),
                "{name} for {target}: {diagnostics:#?}"
            );
            assert!(!bindings.is_empty(), "{name}: no bindings recorded");
        }
    }
}

fn dump(name: &str) -> String {
    let text = example(name);
    let (_, bindings) = check(&text, Target::Sm80);
    let index = LineIndex::new(&text);
    typecheck::dump_bindings(&bindings, &|offset| {
        let position = index.line_column(&text, offset);
        (position.line, position.column)
    })
}

#[test]
fn dump_of_the_vectorized_copy_shows_the_evaluated_layouts() {
    let dump = dump("copy_vectorized.cuk");
    // The thread's partition is CuTe's ((_8,_1),_2,_1) with the row stride 16*k.
    assert!(
        dump.contains("tAgA: gmem bf16 tensor = ((8,1),2,1):((1,0),16*k,0)"),
        "{dump}"
    );
    insta::assert_snapshot!("dump_copy_vectorized", dump);
}

#[test]
fn dump_of_the_sm80_gemm_shows_the_evaluated_layouts() {
    let dump = dump("gemm_sm80.cuk");
    // (MMA, MMA_M, MMA_K) = ((2,2,2),4,4) register fragment for A; (4,8) tiles of C.
    assert!(
        dump.contains("tCrA: rmem bf16 tensor = ((2,2,2),4,4)"),
        "{dump}"
    );
    assert!(
        dump.contains("tCgC: gmem bf16 tensor = ((2,2),4,8)"),
        "{dump}"
    );
    insta::assert_snapshot!("dump_gemm_sm80", dump);
}

#[test]
fn a_run_time_tile_size_is_one_error_at_its_line_naming_the_parameter() {
    let text = example("copy_vectorized.cuk").replacen(
        "let gA = local_tile(a, (BM, BK),",
        "let gA = local_tile(a, (BM, k),",
        1,
    );
    let (diagnostics, _) = check(&text, Target::Sm80);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    let line = text
        .lines()
        .position(|line| line.contains("(BM, k)"))
        .unwrap_or(0)
        + 1;
    assert_eq!(line_of(&text, &diagnostics[0]) as usize, line);
    assert_eq!(diagnostics[0].code, "E0204");
    assert!(
        diagnostics[0].message.contains("`k` is a kernel argument"),
        "{}",
        diagnostics[0].message
    );
}

#[test]
fn a_renamed_variable_is_one_error_at_its_use() {
    let text = example("copy_vectorized.cuk").replacen("let gA = ", "let gA2 = ", 1);
    let (diagnostics, _) = check(&text, Target::Sm80);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(diagnostics[0].code, "E0201");
    let line = text
        .lines()
        .position(|line| line.contains("partition_S(gA)"))
        .unwrap_or(0)
        + 1;
    assert_eq!(line_of(&text, &diagnostics[0]) as usize, line);
    assert_eq!(diagnostics[0].help.as_deref(), Some("did you mean `gA2`?"));
}

#[test]
fn the_sm80_gemm_does_not_fit_more_stages_in_shared_memory() {
    // With 128 x 128 tiles, 4 stages of two 128 x 64 bf16 tiles are 128 KiB; 6 stages are
    // 192 KiB. (The file's default tile is 128 x 256: make the square one the default.)
    let default_tile = example("gemm_sm80.cuk")
        .replacen("const BN: int = 256,", "const BN: int = 128,", 1)
        .replacen("const WARPS_N: int = 4,", "const WARPS_N: int = 2,", 1)
        .replace(", BN = 128, WARPS_N = 2", "");
    let four = default_tile.replacen("const STAGES: int = 3,", "const STAGES: int = 4,", 1);
    assert!(check(&four, Target::Sm80).0.is_empty());
    let six = default_tile.replacen("const STAGES: int = 3,", "const STAGES: int = 6,", 1);
    let (diagnostics, _) = check(&six, Target::Sm80);
    // The kernel's own static_assert on its buffers refuses them, in the target's terms
    // (`shared_memory_limit()`), before the budget check (E0207) would.
    assert_eq!(
        diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
        ["E0228"],
        "{diagnostics:#?}"
    );
    assert!(
        diagnostics[0]
            .message
            .contains("bytes fit the target's shared memory per block"),
        "{}",
        diagnostics[0].message
    );
    assert!(
        check(&six, Target::Sm90a).0.is_empty(),
        "227 KiB on sm_90a holds 192 KiB"
    );
}
