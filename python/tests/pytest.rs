//! Runs the Python package's pytest suite (`python/tests/test_*.py`) as part of
//! `cargo test`, so the README's test command covers it on a machine with nothing but
//! Rust and Python.
//!
//! `cargo test` has just built this crate's extension module (`lib_cuk.so` in the
//! profile's `deps/`, beside this test); the test lays out the package as a wheel would install it (the
//! `cuk/*.py` files with the module as `cuk/_cuk.abi3.so`) in a scratch folder, installs
//! pytest and NumPy with pip into `target/python-tools` on first use (or uses
//! `CUK_PYTHON_TOOLS`), and runs pytest with the package first on `PYTHONPATH`. ptxas is
//! found (or installed) as `cukc` does, in `target/cukc-cache`. The GPU tests skip
//! themselves without a GPU and torch; the machine with one runs them through
//! `scripts/gpu-check.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The folder of this test binary, `target/<profile>/deps`, where cargo builds the
/// crate's libraries.
fn deps_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent().expect("the test binary's folder").to_owned()
}

/// A folder with pytest and NumPy importable, installing them when missing.
fn python_tools() -> PathBuf {
    if let Some(dir) = std::env::var_os("CUK_PYTHON_TOOLS") {
        return PathBuf::from(dir);
    }
    let dir = root().join("target").join("python-tools");
    let importable = Command::new("python3")
        .args(["-c", "import pytest, numpy"])
        .env("PYTHONPATH", &dir)
        .status()
        .is_ok_and(|status| status.success());
    if !importable {
        let status = Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--target",
            ])
            .arg(&dir)
            .args(["pytest", "numpy"])
            .status()
            .expect("python3 -m pip runs");
        assert!(
            status.success(),
            "pip could not install pytest and numpy into {}",
            dir.display()
        );
    }
    dir
}

/// The package as a wheel installs it, in `dir`.
fn lay_out_package(dir: &Path) {
    let package = dir.join("cuk");
    std::fs::create_dir_all(&package).expect("a package folder");
    for entry in std::fs::read_dir(root().join("python").join("cuk")).expect("python/cuk") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|extension| extension == "py") {
            let name = path.file_name().expect("a file name");
            std::fs::copy(&path, package.join(name)).expect("a copied source");
        }
    }
    let library = ["lib_cuk.so", "lib_cuk.dylib"]
        .iter()
        .map(|name| deps_dir().join(name))
        .find(|path| path.is_file())
        .expect("cargo built the extension module (lib_cuk.so) beside this test");
    std::fs::copy(library, package.join("_cuk.abi3.so")).expect("the extension module copied");
}

#[test]
fn the_pytest_suite_passes() {
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a scratch folder");
    lay_out_package(scratch.path());
    let tools = python_tools();
    let path = std::env::join_paths([scratch.path(), tools.as_path()]).expect("a PYTHONPATH");
    let output = Command::new("python3")
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "python/tests",
        ])
        .current_dir(root())
        .env("PYTHONPATH", path)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("CUKC_CACHE_DIR", root().join("target").join("cukc-cache"))
        .output()
        .expect("python3 -m pytest runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "pytest failed:\n{stdout}\n{stderr}"
    );
}
