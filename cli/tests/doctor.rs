//! `cukc doctor`: exit 0 with the ptxas, version, targets, cache and GPU lines
//! when a ptxas can be had (installed into `<workspace>/target/cukc-cache` on a
//! machine without one, as the backend's tests do); exit 2 with the reason when
//! `--ptxas` names nothing or nothing is found offline.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn doctor(configure: impl FnOnce(&mut Command)) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cukc"));
    command.arg("doctor");
    configure(&mut command);
    command.output().expect("cannot run cukc doctor")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn workspace_cache() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new(".."))
        .join("target")
        .join("cukc-cache")
}

#[test]
fn doctor_reports_ptxas_and_the_cache() {
    let cache = workspace_cache();
    let output = doctor(|command| {
        command
            .env("CUKC_CACHE_DIR", &cache)
            .env_remove("CUKC_OFFLINE")
            .env_remove("CUKC_PTXAS");
    });
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        text(&output.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("ptxas:   /") && lines[0].contains("(found via "),
        "{stdout}"
    );
    assert!(lines[1].starts_with("version: 1"), "{stdout}");
    assert!(
        lines[2].starts_with("targets: sm_80 yes, sm_90a yes, sm_100a "),
        "{stdout}"
    );
    assert_eq!(lines[3], format!("cache:   {}", cache.display()));
    assert!(lines[4].starts_with("gpu:     "), "{stdout}");
}

#[test]
fn an_explicit_ptxas_that_names_nothing_is_exit_2() {
    let output = doctor(|command| {
        command.args(["--ptxas", "/nonexistent/ptxas"]);
    });
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stdout).starts_with("ptxas:   not found\n"));
    assert_eq!(
        text(&output.stderr),
        "error: --ptxas /nonexistent/ptxas: no such file\n"
    );
}

#[test]
fn offline_without_ptxas_says_how_to_get_it() {
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("doctor-empty");
    std::fs::create_dir_all(&empty).expect("cannot create an empty directory");
    let output = doctor(|command| {
        command
            .env("PATH", &empty)
            .env("CUKC_CACHE_DIR", empty.join("cache"))
            .env("CUKC_OFFLINE", "1")
            .env_remove("CUKC_PTXAS")
            .env_remove("CUDA_HOME");
    });
    if Path::new("/usr/local/cuda/bin/ptxas").is_file() {
        // A CUDA toolkit in its usual place is found before anything else offline.
        assert_eq!(output.status.code(), Some(0));
        return;
    }
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with(
            "error: ptxas not found, and cukc may not install it (offline: --offline or CUKC_OFFLINE=1)\n"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("--ptxas /path/to/ptxas"), "{stderr}");
    assert!(
        !empty.join("cache").exists(),
        "offline must install nothing"
    );
}
