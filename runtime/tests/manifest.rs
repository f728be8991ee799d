//! The launch manifest of every example: valid against `docs/manifest.schema.json`,
//! read back to the very signatures the compiler made, and snapshotted for one file;
//! likewise for a kernel with float and bool parameters.

use cute::Target;
use runtime::manifest::Manifest;

/// Every kernel instantiation the example compiles to, as `cukc build` lowers it.
fn signatures(file: &str) -> Vec<kir::Signature> {
    let path = format!("{}/../cuk-examples/{file}", env!("CARGO_MANIFEST_DIR"));
    signatures_of(&std::fs::read_to_string(path).unwrap())
}

/// Every kernel instantiation `text` compiles to, for the target its first line names
/// (`// target: sm_100a`), sm_90a without one.
fn signatures_of(text: &str) -> Vec<kir::Signature> {
    let (module, errors) = grammar::parse(text);
    assert!(errors.is_empty(), "{errors:?}");
    let target = Target::declared_in(text).unwrap_or(Target::Sm90a);
    let lowered = typecheck::trace(&module, target, |analysis, traces| {
        lower::lower_traces(analysis.diagnostics, &traces)
    });
    lowered
        .kernels
        .into_iter()
        .map(|kernel| kernel.into_inner().signature)
        .collect()
}

/// The examples.
fn buildable_examples() -> Vec<String> {
    let folder = format!("{}/../cuk-examples", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.ends_with(".cuk"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    files
}

fn manifest(file: &str, image: &[u8]) -> Manifest {
    Manifest::new(
        &format!("cuk-examples/{file}"),
        "sm_90a",
        (&file.replace(".cuk", ".cubin"), "cubin", image),
        &signatures(file),
    )
}

fn schema() -> jsonschema::Validator {
    let path = format!(
        "{}/../docs/manifest.schema.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

/// Checks `written` against the schema and reads it back to `signatures`.
fn assert_valid_and_reads_back(written: &str, signatures: &[kir::Signature], what: &str) {
    let json: serde_json::Value = serde_json::from_str(written).unwrap();
    let validator = schema();
    let errors: Vec<String> = validator
        .iter_errors(&json)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
    let read = Manifest::from_json(written).unwrap();
    assert_eq!(read.signatures().unwrap(), signatures, "{what}");
}

#[test]
fn every_example_manifest_is_valid_and_reads_back_to_its_signatures() {
    for file in buildable_examples() {
        let signatures = signatures(&file);
        assert!(!signatures.is_empty(), "{file}");
        let written = manifest(&file, b"image bytes").to_json();
        assert_valid_and_reads_back(&written, &signatures, &file);
    }
}

#[test]
fn float_and_bool_parameters_are_listed_with_their_dtype() {
    let signatures = signatures_of(
        "kernel axpy(n: i32, alpha: f32, half_alpha: bf16, flag: bool, x: gmem f32[n:1], y: gmem f32[n:1])
            launch grid(n / 128) block(128) {
            let i = block_idx.x * 128 + thread_idx.x;
            if flag {
                y[i] = alpha * x[i] + half_alpha.to(f32) * y[i];
            }
        }",
    );
    let written = Manifest::new(
        "axpy.cuk",
        "sm_90a",
        ("axpy.cubin", "cubin", b""),
        &signatures,
    )
    .to_json();
    assert_valid_and_reads_back(&written, &signatures, "axpy");
    let compact: String = written.split_whitespace().collect();
    for param in [
        r#"{"kind":"scalar","name":"alpha","dtype":"f32"}"#,
        r#"{"kind":"scalar","name":"half_alpha","dtype":"bf16"}"#,
        r#"{"kind":"scalar","name":"flag","dtype":"bool"}"#,
    ] {
        assert!(compact.contains(param), "{param} missing:\n{written}");
    }
    let wrong = written.replacen("\"dtype\": \"bool\"", "\"dtype\": \"i1\"", 1);
    let error = Manifest::from_json(&wrong)
        .and_then(|manifest| manifest.signatures())
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`i1` is not a float dtype or `bool`"),
        "{error}"
    );
}

#[test]
fn offsets_requirements_are_listed_with_and_without_their_largest_step() {
    let signatures = signatures_of(
        "kernel packed(batch: i32, total: i32, longest: i32, cu: gmem i32[(batch + 1):1], cu_k: gmem i32[(batch + 1):1], out: gmem i32[(batch + 1):1])
            launch grid(1) block(32) {
            require_offsets(cu, total, longest);
            require_offsets(cu_k, 2 * total);
            require_range(cu_k, 0, total + 1);
            out[thread_idx.x] = cu[thread_idx.x] + cu_k[thread_idx.x];
        }",
    );
    let written = Manifest::new(
        "packed.cuk",
        "sm_90a",
        ("packed.cubin", "cubin", b""),
        &signatures,
    )
    .to_json();
    assert_valid_and_reads_back(&written, &signatures, "packed");
    let compact: String = written.split_whitespace().collect();
    for assumption in [
        r#"{"kind":"offsets","param":"cu","total":"total","max_step":"longest","span":["#,
        r#"{"kind":"offsets","param":"cu_k","total":{"op":"mul","args":[2,"total"]},"span":["#,
        r#"{"kind":"elements_in","param":"cu_k","low":0,"high":{"op":"add","args":["total",1]},"span":["#,
    ] {
        assert!(
            compact.contains(assumption),
            "{assumption} missing:\n{written}"
        );
    }
}

#[test]
fn the_vectorized_copy_manifest() {
    let manifest = manifest("copy_vectorized.cuk", b"image bytes");
    let text = manifest
        .to_json()
        .replace(env!("CARGO_PKG_VERSION"), "VERSION");
    insta::assert_snapshot!(text);
    assert!(manifest.matches_image(b"image bytes"));
    assert!(!manifest.matches_image(b"other bytes"));
}

#[test]
fn a_manifest_that_does_not_describe_its_kernels_is_refused() {
    let written = manifest("copy_vectorized.cuk", b"image").to_json();
    let cases = [
        (
            written.replace("\"cuk-manifest\"", "\"other\""),
            "format `other`",
        ),
        (
            written.replace("\"version\": 1", "\"version\": 2"),
            "version 2",
        ),
        (
            written.replace("\"dtype\": \"bf16\"", "\"dtype\": \"bf17\""),
            "`bf17` is not a tensor dtype",
        ),
        (
            written.replace("\"dtype\": \"i32\"", "\"dtype\": \"i31\""),
            "`i31` is not an integer dtype",
        ),
        (
            written.replace("\"param\": \"k\"", "\"param\": \"kk\""),
            "`kk` is not an integer parameter",
        ),
        (
            written.replace("\"param\": \"a\"", "\"param\": \"m\""),
            "`m` is not a tensor parameter",
        ),
        (
            written.replace("\"format\"", "\"unknown\": 1, \"format\""),
            "unknown field `unknown`",
        ),
    ];
    for (text, expected) in cases {
        let error = Manifest::from_json(&text)
            .and_then(|manifest| manifest.signatures().map(|_| ()))
            .unwrap_err();
        assert!(error.to_string().contains(expected), "{expected}: {error}");
    }
}

#[test]
fn tma_tensor_maps_are_valid_and_read_back_to_their_signatures() {
    for file in ["tma_tile_copy.cuk", "gemm_sm90_ws.cuk"] {
        let path = format!("{}/../tests/hopper/{file}", env!("CARGO_MANIFEST_DIR"));
        let signatures = signatures_of(&std::fs::read_to_string(path).unwrap());
        assert!(
            signatures.iter().any(|signature| signature
                .params
                .iter()
                .any(|param| matches!(param.kind, kir::ParamKind::TensorMap(_)))),
            "{file} has a tensor map"
        );
        let written = Manifest::new(
            &format!("tests/hopper/{file}"),
            "sm_90a",
            ("hopper.cubin", "cubin", b""),
            &signatures,
        )
        .to_json();
        assert_valid_and_reads_back(&written, &signatures, file);
        let wrong = written.replacen("\"tensor\": \"a\"", "\"tensor\": \"m\"", 1);
        let error = Manifest::from_json(&wrong)
            .and_then(|manifest| manifest.signatures())
            .unwrap_err();
        assert!(
            error.to_string().contains("`m` is not a tensor parameter"),
            "{error}"
        );
    }
}
