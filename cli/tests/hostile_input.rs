//! Inputs that once crashed, hung or exhausted memory (issue 34), each run through
//! `cukc` under a 1 GiB address-space limit (`ulimit -v`): every one ends promptly
//! with a diagnostic, never a signal.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

#[path = "support/build.rs"]
mod support;

/// `cukc ARGS` under `ulimit -v 1048576` (1 GiB), in the repository's root; the
/// output and how long it took.
fn capped_cukc(args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_cukc"))
        .args(args)
        .current_dir(support::root())
        .env("NO_COLOR", "1")
        .output()
        .expect("cukc runs");
    (output, started.elapsed())
}

fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn write(folder: &Path, name: &str, text: &str) -> String {
    let path = folder.join(name);
    std::fs::write(&path, text).expect("written");
    path.display().to_string()
}

#[test]
fn three_hundred_thousand_comment_lines_check_and_build() {
    let folder = tempfile::tempdir().expect("a scratch folder");
    let comments = write(folder.path(), "comments.cuk", &"// x\n".repeat(300_000));
    let (output, _) = capped_cukc(&["check", &comments]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(stderr_of(&output).contains("W0001"));
    let kernel = format!(
        "{}kernel k(a: gmem f32[32:1]) launch grid(1) block(32) {{ a[thread_idx.x] = 1.0; }}\n",
        "// x\n".repeat(300_000)
    );
    let kernel = write(folder.path(), "kernel.cuk", &kernel);
    let (output, _) = capped_cukc(&["build", &kernel, "--emit", "kir", "-o", "-"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
}

#[test]
fn sixteen_mebibytes_of_stray_characters_stop_at_the_error_limit() {
    let folder = tempfile::tempdir().expect("a scratch folder");
    let strays = write(folder.path(), "strays.cuk", &"@\n".repeat(8 << 20));
    let (output, elapsed) = capped_cukc(&["check", &strays]);
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("[E0116]"), "{stderr}");
    assert!(stderr.contains("cukc check: 101 errors"), "{stderr}");
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
}

#[test]
fn six_megabytes_of_statements_are_refused_past_the_token_limit() {
    let folder = tempfile::tempdir().expect("a scratch folder");
    let statements = "let x = (a + b) * c;\n".repeat(300_000);
    let path = write(folder.path(), "statements.cuk", &statements);
    let (output, _) = capped_cukc(&["check", &path]);
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("[E0117]"), "{stderr}");
}

#[test]
fn a_fifo_and_dev_zero_are_refused_promptly_by_every_command() {
    let folder = tempfile::tempdir().expect("a scratch folder");
    let fifo = folder.path().join("pipe.cuk");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|status| status.success()), "mkfifo failed");
    let fifo = fifo.display().to_string();
    for special in [fifo.as_str(), "/dev/zero"] {
        for args in [
            vec!["check", special],
            vec!["build", special, "--emit", "kir", "-o", "-"],
            vec!["test", "--emulate", special],
        ] {
            let (output, elapsed) = capped_cukc(&args);
            let stderr = stderr_of(&output);
            assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(
                stderr.contains("not a regular file") || stderr.contains("does not build"),
                "{args:?}: {stderr}"
            );
            assert!(elapsed < Duration::from_secs(10), "{args:?}: {elapsed:?}");
        }
    }
}

#[test]
fn a_huge_tcgen05_operand_is_an_error_not_an_allocation() {
    let (output, _) = capped_cukc(&["check", "tests/hostile/umma_huge_operand.cuk"]);
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("[E0227]"), "{stderr}");
    assert!(stderr.contains("more than any MMA operand"), "{stderr}");
}

#[test]
fn a_target_on_the_second_comment_line_is_the_files_target() {
    let folder = support::root().join("tests/emulator");
    let mut declared = 0;
    for entry in std::fs::read_dir(folder).expect("tests/emulator") {
        let path = entry.expect("an entry").path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if text
            .lines()
            .nth(1)
            .is_none_or(|line| !line.starts_with("// target: "))
        {
            continue;
        }
        declared += 1;
        let (output, _) = capped_cukc(&["check", &path.display().to_string()]);
        let stderr = stderr_of(&output);
        assert!(!stderr.contains("[E0212]"), "{}: {stderr}", path.display());
    }
    assert!(
        declared >= 7,
        "only {declared} files declare a target on line 2"
    );
}

#[test]
fn an_empty_path_entry_runs_nothing_planted_in_the_working_folder() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().expect("a scratch folder");
    let cache = tempfile::tempdir().expect("an empty cache");
    let marker = folder.path().join("planted-ran");
    for name in ["python3", "ptxas"] {
        let planted = folder.path().join(name);
        std::fs::write(
            &planted,
            format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
        )
        .expect("planted");
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755))
            .expect("executable");
    }
    let source = support::root().join("cuk-examples").join("copy_basic.cuk");
    let output = Command::new(env!("CARGO_BIN_EXE_cukc"))
        .args([
            "build",
            &source.display().to_string(),
            "--emit",
            "cubin",
            "-o",
        ])
        .arg(folder.path().join("out.cubin"))
        .current_dir(folder.path())
        .env("PATH", "::/usr/bin:/bin:.")
        .env("CUKC_CACHE_DIR", cache.path())
        .env("CUKC_OFFLINE", "1")
        .env_remove("CUKC_PTXAS")
        .env_remove("CUDA_HOME")
        .output()
        .expect("cukc runs");
    assert!(!marker.exists(), "{}", stderr_of(&output));
}

#[test]
fn a_two_gibibyte_host_tensor_under_a_three_gigabyte_limit_is_a_failed_test() {
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 3000000 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_cukc"))
        .args(["test", "--emulate", "tests/hostile/host_tensor_2gib.cuk"])
        .current_dir(support::root())
        .env("NO_COLOR", "1")
        .output()
        .expect("cukc runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("more than the"), "{stdout}\n{stderr}");
    assert!(stdout.contains("1 failed"), "{stdout}");
}

#[test]
fn sigint_and_sigterm_end_a_long_emulated_run_at_once() {
    for signal in ["INT", "TERM"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cukc"))
            .args(["test", "--emulate", "tests/hostile/endless_emulation.cuk"])
            .current_dir(support::root())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("cukc runs");
        std::thread::sleep(Duration::from_millis(1500));
        assert!(
            child.try_wait().expect("a status").is_none(),
            "cukc ended early"
        );
        let sent = Instant::now();
        let killed = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status();
        assert!(killed.is_ok_and(|status| status.success()));
        let status = loop {
            if let Some(status) = child.try_wait().expect("a status") {
                break status;
            }
            if sent.elapsed() > Duration::from_secs(5) {
                let _ = child.kill();
                panic!("SIG{signal}: cukc still ran 5 s later");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert_eq!(status.code(), Some(130), "SIG{signal}");
        assert!(
            sent.elapsed() < Duration::from_secs(1),
            "SIG{signal}: {:?}",
            sent.elapsed()
        );
    }
}

#[test]
fn a_cluster_whose_block_count_overflows_is_an_error_not_a_panic() {
    // Found by scripts/fuzz-cli.py (seed 3402): the product of the extents overflowed.
    let folder = tempfile::tempdir().expect("a scratch folder");
    let path = write(
        folder.path(),
        "cluster.cuk",
        "kernel k(a: gmem f32[32:1]) launch grid(2) block(32) cluster(4611686018427387904, 4) {\n    \
         a[thread_idx.x] = 1.0;\n}\n",
    );
    let (output, _) = capped_cukc(&["check", &path]);
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("[E0227]"), "{stderr}");
}

#[test]
fn a_kernel_timeout_must_be_seconds_above_zero() {
    let file = "tests/emulator/spin_on_a_global_flag.cuk";
    for limit in ["0", "-2", "soon", "inf"] {
        let flag = format!("--kernel-timeout={limit}");
        let (output, _) = capped_cukc(&["test", "--emulate", file, &flag]);
        assert_eq!(output.status.code(), Some(2), "{limit}");
        assert!(
            stderr_of(&output).contains("--kernel-timeout"),
            "{limit}: {}",
            stderr_of(&output)
        );
    }
    let output = Command::new(env!("CARGO_BIN_EXE_cukc"))
        .args(["test", "--emulate", file])
        .env("CUKC_KERNEL_TIMEOUT", "later")
        .current_dir(support::root())
        .output()
        .expect("cukc runs");
    assert_eq!(output.status.code(), Some(2));
    // A good limit is accepted (the emulator reports the spin; the limit is the GPU's).
    let (output, _) = capped_cukc(&["test", "--emulate", file, "--kernel-timeout", "0.5"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr_of(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("E0416"));
}
