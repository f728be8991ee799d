//! KIR of the examples: the folding shows in the text (a static-layout copy has no
//! index arithmetic beyond the thread's base address), every kernel verifies, and
//! the run-time checks the host must make are recorded.

use cute::Target;

fn lower(file: &str) -> (String, lower::Lowered) {
    let path = format!("{}/../cuk-examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let (module, errors) = grammar::parse(&text);
    assert!(errors.is_empty());
    let lowered = typecheck::trace(&module, Target::Sm90a, |analysis, traces| {
        lower::lower_traces(analysis.diagnostics, &traces)
    });
    (text, lowered)
}

fn text(file: &str) -> String {
    let (source, lowered) = lower(file);
    assert!(!lowered.has_errors(), "{:#?}", lowered.diagnostics);
    let line_of =
        |offset: u32| 1 + u32::try_from(source[..offset as usize].matches('\n').count()).unwrap();
    lowered
        .kernels
        .iter()
        .map(|kernel| kir::to_text(kernel, &line_of))
        .collect()
}

#[test]
fn the_vectorized_copy_folds_to_one_shared_base_and_immediate_offsets() {
    let kir = text("copy_vectorized.cuk");
    insta::assert_snapshot!("copy_vectorized", kir);
    // Eight 128-bit loads and stores each way; shared addresses are one base register
    // plus immediates.
    assert_eq!(kir.matches("load.global").count(), 8);
    assert_eq!(kir.matches("store.shared").count(), 8);
    assert_eq!(kir.matches("shared_base").count(), 1);
    for offset in [0, 2048, 4096, 6144, 8192, 10240, 12288, 14336] {
        assert!(kir.contains(&format!("+{offset}], ")), "{offset}");
    }
    assert!(kir.contains("assume %1 is a multiple of 8"));
    assert!(kir.contains("assume %2 is aligned to 16 bytes"));
    assert!(kir.contains("assume %3 is aligned to 16 bytes"));
}

#[test]
fn elementwise_add_predicates_every_value() {
    let kir = text("elementwise_add.cuk");
    insta::assert_snapshot!("elementwise_add", kir);
    assert_eq!(kir.matches("load.global").count(), 32);
    assert_eq!(kir.matches("store.global").count(), 16);
    assert_eq!(
        kir.matches(" if %").count(),
        48,
        "every access is predicated"
    );
    assert!(kir.matches("= add %").count() >= 16);
    // A masked-off value keeps the fragment's previous value.
    assert_eq!(kir.matches("= select %").count(), 32);
}

#[test]
fn every_lowered_example_verifies() {
    for file in [
        "axpy.cuk",
        "copy_basic.cuk",
        "copy_cp_async.cuk",
        "copy_swizzled_smem.cuk",
        "copy_four_ways.cuk",
        "transpose_smem.cuk",
    ] {
        let (_, lowered) = lower(file);
        assert!(!lowered.has_errors(), "{file}: {:#?}", lowered.diagnostics);
        for kernel in &lowered.kernels {
            assert!(kir::verify(kernel.clone().into_inner()).is_ok(), "{file}");
        }
    }
}

#[test]
fn the_gemm_is_not_lowered_yet_and_says_where() {
    let (source, lowered) = lower("gemm_sm80.cuk");
    let errors: Vec<_> = lowered
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.code == "E0301")
        .collect();
    assert!(!errors.is_empty());
    let start = errors[0].span().start as usize;
    assert!(source[start..].starts_with("gemm("), "the `gemm` call");
}
