//! KIR of the examples: the folding shows in the text (a static-layout copy has no
//! index arithmetic beyond the thread's base address), every kernel verifies.

use typecheck::Target;

fn lower(file: &str, target: Target) -> lower::Lowered {
    let path = format!("{}/../cuk-examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let (module, errors) = grammar::parse(&text);
    assert!(errors.is_empty());
    lower::lower_file(&module, target)
}

fn text(file: &str) -> String {
    let path = format!("{}/../cuk-examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(path).unwrap();
    let lowered = lower(file, Target::Sm90a);
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
fn print() {
    println!("{}", text("copy_vectorized.cuk"));
    println!("{}", text("elementwise_add.cuk"));
}
