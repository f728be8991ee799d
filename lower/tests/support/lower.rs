//! Lowering a source text for sm_90a, shared by the tests that read its KIR.

use cute::Target;

/// What `source` lowers to for sm_90a; panics on a syntax error.
pub fn lowered(source: &str) -> lower::Lowered {
    let (module, errors) = grammar::parse(source);
    assert!(errors.is_empty(), "{errors:?}");
    typecheck::trace(&module, Target::Sm90a, |analysis, traces| {
        lower::lower_traces(analysis.diagnostics, &traces)
    })
}

/// The KIR text of the one kernel `source` lowers to, with its source lines; panics
/// on a diagnostic or another number of kernels.
pub fn kir_text(source: &str) -> String {
    let lowered = lowered(source);
    assert!(!lowered.has_errors(), "{:#?}", lowered.diagnostics);
    let [kernel] = lowered.kernels.as_slice() else {
        panic!("one kernel, not {}", lowered.kernels.len());
    };
    let line_of = |offset: u32| 1 + source[..offset as usize].matches('\n').count() as u32;
    kir::to_text(kernel, &line_of)
}
