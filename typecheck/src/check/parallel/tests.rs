//! The parallel check gives what the serial check gives, on every example and test file.

use std::path::{Path, PathBuf};

use cute::Target;

use crate::check::Checker;

/// The `.cuk` files under `folder`, recursively.
fn cuk_files(folder: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            cuk_files(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "cuk") {
            files.push(path);
        }
    }
}

#[test]
fn every_file_checked_in_parallel_is_checked_as_serially() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    cuk_files(&root.join("cuk-examples"), &mut files);
    cuk_files(&root.join("tests"), &mut files);
    files.sort();
    let mut parallel_files = 0;
    for path in &files {
        // Files the driver refuses (not UTF-8) and files that do not parse are not checked.
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let (module, errors) = grammar::parse(&text);
        if !errors.is_empty() {
            continue;
        }
        let target = Target::declared_in(&text).unwrap_or(Target::Sm90a);
        let checker = || Checker::new(&module, target).with_tracing();
        let (parallel, serial) = crate::stack::on_checker_stack(|| {
            (checker().run_in_parallel(), checker().run_traced())
        });
        // Only a file whose instantiations report diagnostics is left to the serial check.
        let Some(parallel) = parallel else {
            assert!(!serial.0.diagnostics.is_empty(), "{}", path.display());
            continue;
        };
        parallel_files += 1;
        let (parallel, serial) = ((parallel.0, parallel.1), (serial.0, serial.1));
        assert_eq!(
            parallel.0.diagnostics,
            serial.0.diagnostics,
            "diagnostics of {}",
            path.display()
        );
        assert_eq!(
            parallel.0.bindings,
            serial.0.bindings,
            "bindings of {}",
            path.display()
        );
        assert_eq!(
            parallel.0.host.consts,
            serial.0.host.consts,
            "consts of {}",
            path.display()
        );
        assert_eq!(
            parallel.0.host.instantiated,
            serial.0.host.instantiated,
            "instantiations of {}",
            path.display()
        );
        assert_eq!(parallel.1, serial.1, "traces of {}", path.display());
    }
    assert!(
        parallel_files > 50,
        "{parallel_files} files checked in parallel"
    );
}
