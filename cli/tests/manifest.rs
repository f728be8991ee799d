//! `cukc build --emit manifest`: the cubin, its PTX and the launch manifest beside
//! them, with the real ptxas (found as `cukc` finds it, or installed into
//! `target/cukc-cache`). The manifest names the cubin by its hash and describes every
//! kernel instantiation the file compiles to.

use std::path::PathBuf;

#[path = "support/build.rs"]
mod build;

use runtime::manifest::{AssumptionEntry, Manifest, ParamEntry};
use sha2::{Digest, Sha256};

/// `cukc build args...`, run in the repository's root.
fn build(args: &[&str]) -> std::process::Output {
    build::cukc(&[&["build"], args].concat())
}

/// A cubin built with its manifest into a scratch folder.
struct Built {
    /// The folder, removed when this is dropped.
    dir: tempfile::TempDir,
    /// The cubin's path.
    cubin: PathBuf,
    /// The manifest's text.
    text: String,
    /// The manifest, read.
    manifest: Manifest,
}

/// `cukc build source --emit manifest [--target target] -o <scratch>/{stem}.cubin`,
/// which must succeed, and the manifest it writes beside the cubin.
fn build_manifest(source: &str, target: Option<&str>, stem: &str) -> Built {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let cubin = dir.path().join(format!("{stem}.cubin"));
    let mut args = vec![source, "--emit", "manifest"];
    args.extend(target.map(|target| ["--target", target]).iter().flatten());
    args.extend(["-o", cubin.to_str().expect("a UTF-8 path")]);
    let output = build(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let text = std::fs::read_to_string(dir.path().join(format!("{stem}.manifest.json")))
        .expect("the manifest beside the cubin");
    let manifest = Manifest::from_json(&text).expect("a manifest");
    Built {
        dir,
        cubin,
        text,
        manifest,
    }
}

#[test]
fn the_manifest_describes_the_cubin_beside_it() {
    let Built {
        dir,
        cubin,
        text,
        manifest,
    } = build_manifest("cuk-examples/copy_swizzled_smem.cuk", None, "swizzled");
    let bytes = std::fs::read(&cubin).expect("the cubin");
    assert_eq!(&bytes[..4], b"\x7fELF");
    assert!(dir.path().join("swizzled.ptx").is_file());
    assert_eq!(manifest.image.file, "swizzled.cubin");
    assert_eq!(
        manifest.image.sha256,
        format!("{:x}", Sha256::digest(&bytes))
    );
    assert!(manifest.matches_image(&bytes));
    assert_eq!(manifest.target, "sm_90a");
    // The default instantiation and the one a test asks for, each an entry in the cubin.
    assert!(manifest.kernels.len() >= 2, "{text}");
    for kernel in &manifest.kernels {
        assert!(
            bytes
                .windows(kernel.entry.len())
                .any(|window| window == kernel.entry.as_bytes()),
            "{} is not in the cubin",
            kernel.entry
        );
    }
    let signatures = manifest.signatures().expect("the signatures read back");
    assert_eq!(signatures.len(), manifest.kernels.len());
}

#[test]
fn the_vectorized_copy_says_what_the_host_must_check() {
    let built = build_manifest("cuk-examples/copy_vectorized.cuk", Some("sm_80"), "v");
    let manifest = built.manifest;
    let kernel = &manifest.kernels[0];
    let names: Vec<&str> = kernel.params.iter().map(ParamEntry::name).collect();
    assert_eq!(names, ["m", "k", "a", "out"]);
    assert!(kernel.assumptions.contains(&AssumptionEntry::MultipleOf {
        param: "k".to_owned(),
        value: 8,
        reason: "a vector access moves 8 bf16 at a time, and `k` is part of its address".to_owned(),
    }));
    assert!(kernel
        .assumptions
        .iter()
        .any(|assumption| matches!(assumption, AssumptionEntry::Aligned { param, bytes: 16, .. } if param == "a")));
    assert_eq!(kernel.launch.shared_bytes, 32 * 64 * 2);
}

#[test]
fn a_manifest_is_refused_where_no_cubin_goes() {
    let output = build(&[
        "cuk-examples/copy_vectorized.cuk",
        "--emit",
        "manifest",
        "-o",
        "-",
    ]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_tma_kernel_lists_its_hidden_tensor_maps_after_its_parameters() {
    // The folder stays until the cubin is read again below.
    let Built {
        dir: _dir,
        cubin,
        manifest,
        ..
    } = build_manifest("tests/hopper/tma_tile_copy.cuk", Some("sm_90a"), "tma");
    let round_trip = manifest
        .kernels
        .iter()
        .find(|kernel| kernel.name == "tma_round_trip")
        .expect("the round trip's entry");
    let params = serde_json::to_string_pretty(&round_trip.params).expect("JSON");
    insta::assert_snapshot!(params);
    assert_eq!(
        round_trip.params[4],
        ParamEntry::TensorMap {
            name: "a_tma4".to_owned(),
            tensor: "a".to_owned(),
            modes: vec![1, 0],
            box_shape: vec![64, 64],
            swizzle: 128,
        }
    );
    // Read back, a map names its tensor by index; written again, the same manifest.
    let signatures = manifest.signatures().expect("the signatures read back");
    let kir::ParamKind::TensorMap(map) = &signatures[1].params[5].kind else {
        panic!("{:?}", signatures[1].params);
    };
    assert_eq!(map.tensor, 3);
    let again = Manifest::new(
        &manifest.source,
        &manifest.target,
        (
            &manifest.image.file,
            "cubin",
            &std::fs::read(&cubin).expect("the cubin"),
        ),
        &signatures,
    );
    assert_eq!(again.kernels, manifest.kernels);
}

#[test]
fn smem_n_is_the_shared_bytes_the_block_is_launched_with() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let source = dir.path().join("smem.cuk");
    let kir_of = |text: &str| {
        std::fs::write(&source, text).expect("written");
        let source = source.to_str().expect("a UTF-8 path");
        build(&[source, "--emit", "kir", "-o", "-"])
    };
    let output = kir_of(
        "kernel k(a: gmem f32[32:1]) launch grid(1) block(32) smem(4096) {\n    \
         let s = smem f32[32:1];\n    s[thread_idx.x] = a[thread_idx.x];\n    \
         a[thread_idx.x] = s[thread_idx.x];\n}\n",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("smem(4096 bytes)"), "{stdout}");
    let output = kir_of(
        "kernel k(a: gmem f32[32:1]) launch grid(1) block(32) smem(1073741824) { a[thread_idx.x] = 1.0; }\n",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("[E0207]"), "{stderr}");
}
