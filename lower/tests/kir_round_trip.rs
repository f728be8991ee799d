//! The KIR text form reads back: every kernel that lowers from the examples and the
//! control-flow tests prints, reads and prints again to the same text, and verifies.

use cute::Target;

/// Every kernel that lowers from the examples and the control-flow tests (a kernel
/// lowering cannot build yet, such as the GEMM's, is left out).
#[test]
fn every_lowered_example_reads_back() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files: Vec<_> = ["cuk-examples", "tests/control"]
        .into_iter()
        .flat_map(|folder| std::fs::read_dir(root.join(folder)).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "cuk"))
        .collect();
    files.sort();
    let (mut kernels, mut with_regions) = (0, 0);
    for path in files {
        let source = std::fs::read_to_string(&path).unwrap();
        let (module, errors) = grammar::parse(&source);
        assert!(errors.is_empty(), "{}", path.display());
        let lowered = typecheck::trace(&module, Target::Sm90a, |analysis, traces| {
            lower::lower_traces(analysis.diagnostics, &traces)
        });
        let line_of = |offset: u32| {
            1 + u32::try_from(source[..offset as usize].matches('\n').count()).unwrap()
        };
        for kernel in &lowered.kernels {
            let text = kir::to_text(kernel, &line_of);
            let read = kir::from_text(&text).unwrap_or_else(|error| panic!("{error}\n{text}"));
            assert_eq!(
                kir::to_text(&read, &|line| line),
                text,
                "{}",
                path.display()
            );
            assert!(kir::verify(read).is_ok(), "{}", path.display());
            kernels += 1;
            with_regions += usize::from(text.contains(" yield"));
        }
    }
    assert!(kernels >= 7, "only {kernels} kernels lowered");
    assert!(
        with_regions >= 2,
        "only {with_regions} kernels have regions"
    );
}
