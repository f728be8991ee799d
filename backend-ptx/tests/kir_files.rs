//! KIR to PTX as data: each `tests/kir/NAME.kir` (KIR's text form, written by hand)
//! is read, verified and emitted for every target (or those a `// targets: ...` comment
//! line names), with line info whose lines are the `.kir` file's, and must equal its
//! golden `tests/kir/NAME.TARGET.ptx`; every golden is assembled by the real ptxas for
//! its target, with no local memory (but `vprintf`'s buffer in a kernel that prints). `intrinsics.kir` and `intrinsics_sm100.kir` hold
//! every intrinsic row. Each
//! `tests/kir/reject/NAME.kir` must fail to read or verify with the message its first
//! line gives after `// error: `.
//!
//! `CUK_BLESS=1 cargo test -p backend-ptx --test kir_files` rewrites the goldens (and
//! removes those whose `.kir` is gone).

#[path = "../../tests/support/ptxas.rs"]
mod support_ptxas;

use std::path::{Path, PathBuf};

use backend_ptx::{EmitOptions, emit_module};
use cute::Target;

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/kir")
}

/// The files of `dir` whose names end in `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    files
}

fn stem(path: &Path) -> String {
    let name = path.file_name().unwrap().to_string_lossy();
    name.split('.').next().unwrap_or_default().to_owned()
}

/// The PTX of the kernel in the `.kir` file `path` for `target`.
fn emit(path: &Path, target: Target) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let kernel =
        kir::from_text(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let verified =
        kir::verify(kernel).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let line_of = |offset: u32| (offset, 1);
    let options = EmitOptions {
        source_name: Some(format!("{}.kir", stem(path))),
        line_info_path: None,
        line_info: Some(&line_of),
    };
    emit_module(&[verified], target, &options)
        .unwrap_or_else(|error| panic!("{} for {target}: {error}", path.display()))
}

#[test]
fn every_kir_file_emits_its_golden_ptx_which_ptxas_assembles() {
    let bless = std::env::var_os("CUK_BLESS").is_some();
    let kir_files = files(&folder(), ".kir");
    assert!(kir_files.len() >= 10, "{kir_files:?}");
    let mut stale = Vec::new();
    for path in &kir_files {
        for target in targets(path) {
            let ptx = emit(path, target);
            let golden = folder().join(format!("{}.{}.ptx", stem(path), target.name()));
            if bless {
                std::fs::write(&golden, &ptx).unwrap();
            } else if std::fs::read_to_string(&golden).ok().as_deref() != Some(ptx.as_str()) {
                stale.push(golden.display().to_string());
            }
            // A kernel that prints packs `vprintf`'s values in a local buffer.
            let prints = std::fs::read_to_string(path)
                .unwrap()
                .contains("\n  print ");
            support_ptxas::assemble(&ptx, target.name(), &path.display().to_string(), !prints);
        }
    }
    for golden in files(&folder(), ".ptx") {
        if !folder().join(format!("{}.kir", stem(&golden))).exists() {
            if bless {
                std::fs::remove_file(&golden).unwrap();
            } else {
                stale.push(format!("{} (no .kir)", golden.display()));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "these goldens are stale or missing; check the change and rewrite them with \
         `CUK_BLESS=1 cargo test -p backend-ptx --test kir_files`:\n{}",
        stale.join("\n")
    );
}

/// The targets the file's `// targets: sm_90a sm_100a` line names, else every target.
fn targets(path: &Path) -> Vec<Target> {
    let text = std::fs::read_to_string(path).unwrap();
    let Some(names) = text
        .lines()
        .find_map(|line| line.strip_prefix("// targets: "))
    else {
        return Target::ALL.to_vec();
    };
    let targets: Vec<Target> = Target::ALL
        .into_iter()
        .filter(|target| names.split_whitespace().any(|name| name == target.name()))
        .collect();
    assert_eq!(
        targets.len(),
        names.split_whitespace().count(),
        "{}: `{names}` names a target cukc does not have",
        path.display()
    );
    targets
}

#[test]
fn every_intrinsic_row_has_a_golden_ptxas_assembles() {
    let mut named: Vec<&str> = Vec::new();
    for file in [
        "intrinsics.kir",
        "intrinsics_sm100.kir",
        "intrinsics_wgmma.kir",
        "intrinsics_ordered.kir",
    ] {
        let text = std::fs::read_to_string(folder().join(file)).unwrap();
        let kernel = kir::from_text(&text).unwrap();
        named.extend(kernel.body.iter().filter_map(|inst| match &inst.op {
            kir::Op::Intrinsic { intrinsic, .. } => Some(intrinsic.row().name),
            _ => None,
        }));
    }
    named.sort_unstable();
    named.dedup();
    let mut rows: Vec<&str> = kir::intrinsic::ROWS.iter().map(|row| row.name).collect();
    rows.sort_unstable();
    assert_eq!(
        named, rows,
        "tests/kir/intrinsics*.kir hold every row (some in several forms)"
    );
}

#[test]
fn an_intrinsic_the_target_lacks_is_not_emitted() {
    let text = std::fs::read_to_string(folder().join("intrinsics.kir")).unwrap();
    let verified = kir::verify(kir::from_text(&text).unwrap()).unwrap();
    let options = EmitOptions {
        source_name: None,
        line_info_path: None,
        line_info: None,
    };
    let error = emit_module(&[verified], Target::Sm80, &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`fence_barrier_init` needs sm_90 or newer, not sm_80"
    );
}

#[test]
fn every_rejected_kir_file_fails_with_its_message() {
    let rejects = files(&folder().join("reject"), ".kir");
    assert!(rejects.len() >= 5, "{rejects:?}");
    for path in rejects {
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = text
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("// error: "))
            .unwrap_or_else(|| panic!("{}: no `// error: ` first line", path.display()));
        let error = match kir::from_text(&text) {
            Ok(kernel) => kir::verify(kernel).err().map(|error| error.to_string()),
            Err(error) => Some(error.to_string()),
        };
        let error = error.unwrap_or_else(|| panic!("{} was accepted", path.display()));
        assert!(
            error.contains(expected),
            "{}: expected `{expected}`, got `{error}`",
            path.display()
        );
    }
}
