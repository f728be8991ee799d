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
    // Two 128-bit loads and stores each way (a 32 x 64 tile, 16 rows of threads); shared
    // addresses are one base register plus immediates.
    assert_eq!(kir.matches("load.global").count(), 2);
    assert_eq!(kir.matches("store.shared").count(), 2);
    assert_eq!(kir.matches("shared_base").count(), 1);
    for offset in [0, 2048] {
        assert!(kir.contains(&format!("+{offset}], ")), "{offset}");
    }
    assert!(kir.contains("assume %1 is a multiple of 8"));
    assert!(kir.contains("assume %2 is aligned to 16 bytes"));
    assert!(kir.contains("assume %3 is aligned to 16 bytes"));
}

#[test]
fn elementwise_add_predicates_every_vector() {
    let kir = text("elementwise_add.cuk");
    insta::assert_snapshot!("elementwise_add", kir);
    // A thread's 4 x 4 values of each tensor are 4 rows of one 16-byte access.
    assert_eq!(kir.matches("load.global").count(), 8);
    assert_eq!(kir.matches("store.global").count(), 4);
    assert_eq!(
        kir.matches(" if %").count(),
        12,
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
fn the_gemm_lowers_to_ldmatrix_and_mma_with_accumulators_carried_by_the_k_loop() {
    let (source, lowered) = lower("gemm_sm80.cuk");
    assert!(!lowered.has_errors(), "{:#?}", lowered.diagnostics);
    let line_of =
        |offset: u32| 1 + u32::try_from(source[..offset as usize].matches('\n').count()).unwrap();
    let text = kir::to_text(&lowered.kernels[0], &line_of);
    let count = |needle: &str| text.matches(needle).count();
    // 4 k-blocks of MMA_M x MMA_N = 4 x 8 atoms per k-tile, all inside the k-loop.
    assert_eq!(
        count("atom.warp \"mma.sync.aligned.m16n8k16"),
        4 * 4 * 8,
        "{text}"
    );
    assert!(
        count("atom.warp \"ldmatrix.sync.aligned.m8n8.x4") >= 8,
        "{text}"
    );
    // The 4 x 8 x 4 f32 accumulators of each thread live in registers the loop carries.
    let header = text
        .lines()
        .find(|line| line.contains(" = for %"))
        .expect("the k-loop");
    assert!(header.matches(":f32 = %").count() >= 128, "{header}");
}
