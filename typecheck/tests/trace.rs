//! Kernel traces: what each example kernel does at run time, as lowering receives it.

use cute::Base;
use cute::Target;
use typecheck::trace::{ConstArg, Effect, KernelTrace, LoadId, Term, TraceParamKind};

/// Runs `inspect` on the traces of an example; it runs on the checker's thread, where
/// the traces live.
fn traces(file: &str, inspect: impl FnOnce(Vec<KernelTrace>) + Send) {
    traces_requesting(file, &[], inspect);
}

/// [`traces`] with the instantiations a host requests besides the file's own.
fn traces_requesting(
    file: &str,
    requested: &[typecheck::Instantiation],
    inspect: impl FnOnce(Vec<KernelTrace>) + Send,
) {
    let path = format!("{}/../cuk-examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let (module, errors) = grammar::parse(&text);
    assert!(errors.is_empty());
    typecheck::trace_with(&module, Target::Sm90a, requested, |analysis, traces| {
        assert!(analysis.diagnostics.iter().all(|d| !d.is_error()));
        inspect(traces);
    });
}

/// The `SWIZZLE_BITS` of each trace of `copy_swizzled_smem.cuk`, in order.
fn swizzle_bits(traces: &[KernelTrace]) -> Vec<Vec<(String, Option<ConstArg>)>> {
    (traces.iter())
        .map(|trace| trace.const_args.clone())
        .collect()
}

/// `SWIZZLE_BITS = bits`, as a trace lists it.
fn swizzle(bits: i64) -> Vec<(String, Option<ConstArg>)> {
    vec![("SWIZZLE_BITS".to_owned(), Some(ConstArg::Int(bits)))]
}

#[test]
fn the_vectorized_copy_is_two_copies_around_a_barrier() {
    traces("copy_vectorized.cuk", |traces| {
        assert_eq!(traces.len(), 1);
        let trace = &traces[0];
        assert!(!trace.has_errors);
        assert_eq!(trace.name, "copy_vectorized");
        assert!(matches!(&trace.params[0].kind, TraceParamKind::Int(_, name) if name == "m"));
        assert!(matches!(trace.params[2].kind, TraceParamKind::Tensor(..)));
        assert_eq!(trace.grid.len(), 2);
        assert_eq!(trace.block[0].as_constant(), Some(128));
        assert_eq!(trace.shared.len(), 1);
        assert_eq!(trace.shared[0].bytes, 32 * 64 * 2);
        let [
            Effect::Copy {
                source,
                destination,
                ..
            },
            Effect::Barrier(_),
            Effect::Copy {
                source: back,
                destination: out,
                ..
            },
        ] = trace.effects.as_slice()
        else {
            panic!("unexpected effects {:#?}", trace.effects);
        };
        assert_eq!(source.base, Base::Param(2));
        assert_eq!(destination.base, Base::Shared(0));
        assert_eq!(back.base, Base::Shared(0));
        assert_eq!(out.base, Base::Param(3));
        assert_eq!(
            source.layout.layout.to_string(),
            "((8,1),2,1):((1,0),16*k,0)"
        );
    });
}

#[test]
fn each_instantiation_a_test_uses_is_traced() {
    traces("copy_swizzled_smem.cuk", |traces| {
        assert_eq!(swizzle_bits(&traces), vec![swizzle(3), swizzle(0)]);
    });
}

#[test]
fn a_requested_instantiation_is_traced_after_the_files_own() {
    let requested = [
        typecheck::Instantiation {
            kernel: "copy_swizzled_smem".to_owned(),
            const_args: vec![("SWIZZLE_BITS".to_owned(), typecheck::ConstArgument::Int(2))],
        },
        // A kernel the file does not declare is not traced.
        typecheck::Instantiation {
            kernel: "no_such_kernel".to_owned(),
            const_args: Vec::new(),
        },
    ];
    traces_requesting("copy_swizzled_smem.cuk", &requested, |traces| {
        assert_eq!(
            swizzle_bits(&traces),
            vec![swizzle(3), swizzle(0), swizzle(2)]
        );
        assert!(!traces[2].is_default && !traces[2].has_errors);
    });
}

#[test]
fn predicates_and_fragment_sums_carry_their_terms() {
    traces("elementwise_add.cuk", |traces| {
        let effects = &traces[0].effects;
        let stores = effects
        .iter()
        .filter(|effect| matches!(effect, Effect::StoreElement { value, .. } if matches!(**value, Term::Binary { .. })))
        .count();
        assert_eq!(stores, 16, "one predicate per value: {effects:#?}");
        let sum = effects.iter().find_map(|effect| match effect {
            Effect::StoreFragment { value, .. } => Some(value.clone()),
            _ => None,
        });
        // The sum reads the two whole-fragment loads recorded before its store.
        let loads: Vec<LoadId> = effects
            .iter()
            .filter_map(|effect| match effect {
                Effect::Load {
                    id, index: None, ..
                } => Some(*id),
                _ => None,
            })
            .collect();
        assert!(
            matches!(sum.as_deref(), Some(Term::Binary { left, right, .. })
            if **left == Term::Loaded(loads[0]) && **right == Term::Loaded(loads[1])),
            "{sum:?}"
        );
        assert!(
            effects
                .iter()
                .all(|effect| !matches!(effect, Effect::Unsupported(..)))
        );
    });
}

#[test]
fn the_gemm_is_an_effect_inside_its_k_loop() {
    traces("gemm_sm80.cuk", |traces| {
        let k_loop = traces[0].effects.iter().find_map(|effect| match effect {
            Effect::For { body, .. } => Some(body),
            _ => None,
        });
        let body = k_loop.expect("the k-loop is a run-time loop");
        let gemms = body
            .iter()
            .filter(|effect| matches!(effect, Effect::Gemm { .. }))
            .count();
        // One per k-block of the static loop inside.
        assert_eq!(gemms, 4, "{body:?}");
    });
}

#[test]
fn one_instantiation_spelled_two_ways_is_traced_once() {
    let text = std::fs::read_to_string(format!(
        "{}/../tests/control/const_args_spelled_twice.cuk",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let (module, errors) = grammar::parse(&text);
    assert!(errors.is_empty());
    typecheck::trace(&module, Target::Sm80, |_, traces| {
        let mut instances: Vec<String> = traces
            .iter()
            .map(|trace| format!("{:?} {}", trace.const_args, trace.is_default))
            .collect();
        let all = instances.len();
        instances.sort();
        instances.dedup();
        assert_eq!(instances.len(), all, "{instances:#?}");
        // The default, `V = 2` (twice) and `W = 2`.
        assert_eq!(all, 3);
    });
}
