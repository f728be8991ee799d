//! `cukc build`'s outputs and its ptxas as a user meets them, with a shell script
//! standing in for ptxas: what `-o` may name, the input never overwritten, atomic
//! writes into folders made on demand, no stale cubin after a failure, and a ptxas that
//! hangs, dies by a signal or is interrupted reported as such.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Writing an executable while another test thread forks can make running it fail
/// with "text file busy": scripts are written, and cukc started, in turn.
static TURN: Mutex<()> = Mutex::new(());

fn turn() -> MutexGuard<'static, ()> {
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

const VERSION: &str = "if [ \"$1\" = --version ]; then echo 'Cuda compilation tools, release 12.9, V12.9.86'; exit 0; fi";

/// A folder with `v.cuk` (a clean example) and a fake ptxas that runs `body`.
struct Scene {
    dir: tempfile::TempDir,
    ptxas: PathBuf,
}

impl Scene {
    fn new(body: &str) -> Scene {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let example =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../cuk-examples/copy_vectorized.cuk");
        std::fs::copy(example, dir.path().join("v.cuk")).expect("the example copies");
        let ptxas = dir.path().join("bin").join("ptxas");
        std::fs::create_dir_all(ptxas.parent().expect("a folder")).expect("bin");
        let _turn = turn();
        std::fs::write(&ptxas, format!("#!/bin/sh\n{VERSION}\n{body}\n")).expect("the script");
        std::fs::set_permissions(&ptxas, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        Scene { dir, ptxas }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cukc"));
        command
            .arg("build")
            .args(args)
            .current_dir(self.dir.path())
            .env("CUKC_PTXAS", &self.ptxas)
            .env("CUKC_OFFLINE", "1")
            .env("CUKC_CACHE_DIR", self.dir.path().join("cache"))
            .env_remove("CUKC_NO_CACHE")
            .env_remove("CUKC_PTXAS_TIMEOUT")
            .stdin(Stdio::null());
        command
    }

    fn build(&self, args: &[&str]) -> (Option<i32>, String) {
        let _turn = turn();
        let Output { status, stderr, .. } = self.command(args).output().expect("cukc runs");
        (status.code(), String::from_utf8_lossy(&stderr).into_owned())
    }

    fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.dir.path())
            .expect("listed")
            .map(|entry| {
                entry
                    .expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|name| name != "bin" && name != "cache")
            .collect();
        names.sort();
        names
    }
}

const WRITES_CUBIN: &str = "printf CUBIN > kernel.cubin";

#[test]
fn a_build_writes_the_cubin_and_its_ptx_and_nothing_else() {
    let scene = Scene::new(WRITES_CUBIN);
    assert_eq!(scene.build(&["v.cuk"]).0, Some(0));
    assert_eq!(scene.files(), ["v.cubin", "v.cuk", "v.ptx"]);
    assert_eq!(
        std::fs::read(scene.path("v.cubin")).expect("cubin"),
        b"CUBIN"
    );
    let (code, _) = scene.build(&["v.cuk", "-o", "new/deeper/k.cubin"]);
    assert_eq!(code, Some(0));
    assert!(scene.path("new/deeper/k.cubin").is_file());
    assert!(scene.path("new/deeper/k.ptx").is_file());
    let (code, stderr) = scene.build(&["v.cuk", "-o", "v.cubin/k.cubin"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("cannot create the folder"), "{stderr}");
}

#[test]
fn a_second_build_of_the_same_ptx_takes_the_cubin_from_the_cache() {
    let scene = Scene::new("echo run >> \"$(dirname \"$0\")/runs\"; printf CUBIN > kernel.cubin");
    let runs = || std::fs::read_to_string(scene.path("bin/runs")).unwrap_or_default();
    assert_eq!(scene.build(&["v.cuk"]).0, Some(0));
    std::fs::remove_file(scene.path("v.cubin")).expect("the cubin");
    assert_eq!(scene.build(&["v.cuk"]).0, Some(0));
    assert_eq!(runs().lines().count(), 1, "ptxas ran once");
    assert_eq!(
        std::fs::read(scene.path("v.cubin")).expect("cubin"),
        b"CUBIN"
    );
    let _turn = turn();
    let status = scene
        .command(&["v.cuk"])
        .env("CUKC_NO_CACHE", "1")
        .output()
        .expect("cukc runs")
        .status;
    assert!(status.success());
    assert_eq!(runs().lines().count(), 2, "CUKC_NO_CACHE runs ptxas");
}

#[test]
fn outputs_that_cannot_be_meant_are_refused() {
    let scene = Scene::new(WRITES_CUBIN);
    let source = std::fs::read(scene.path("v.cuk")).expect("source");
    for args in [
        &["v.cuk", "-o", "-"][..],
        &["v.cuk", "-o", "out.ptx"],
        &["v.cuk", "-o", "v.cuk"],
        &["v.cuk", "--emit", "ptx", "-o", "./v.cuk"],
    ] {
        let (code, stderr) = scene.build(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
    assert_eq!(scene.files(), ["v.cuk"], "nothing was written");
    assert_eq!(std::fs::read(scene.path("v.cuk")).expect("source"), source);
    std::fs::write(scene.path("kernel.ptx"), "// hand-written").expect("a PTX source");
    let (code, stderr) = scene.build(&["kernel.ptx"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is the input file"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(scene.path("kernel.ptx")).expect("kept"),
        "// hand-written"
    );
}

#[test]
fn a_failed_build_leaves_no_cubin_that_looks_current() {
    let scene = Scene::new("echo 'kernel.ptx, line 3; error   : Unknown symbol' >&2; exit 255");
    std::fs::write(scene.path("v.cubin"), "old").expect("an old cubin");
    std::fs::write(scene.path("v.ptx"), "old").expect("an old PTX");
    let (code, stderr) = scene.build(&["v.cuk"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("compiler bug"), "{stderr}");
    assert!(
        stderr.contains("the PTX is in v.ptx; no cubin was written"),
        "{stderr}"
    );
    assert_eq!(scene.files(), ["v.cuk", "v.ptx"]);
    assert_ne!(
        std::fs::read_to_string(scene.path("v.ptx")).expect("ptx"),
        "old"
    );
    std::fs::write(scene.path("v.cubin"), "old").expect("an old cubin");
    std::fs::write(scene.path("v.cuk"), "kernel broken(").expect("a broken source");
    assert_eq!(scene.build(&["v.cuk"]).0, Some(1));
    assert_eq!(
        scene.files(),
        ["v.cuk"],
        "front-end errors remove old outputs too"
    );
}

#[test]
fn a_ptxas_killed_by_a_signal_is_not_called_a_compiler_bug() {
    let scene = Scene::new("kill -SEGV $$");
    let (code, stderr) = scene.build(&["v.cuk"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("ptxas was killed by signal 11"), "{stderr}");
    assert!(!stderr.contains("compiler bug"), "{stderr}");
}

#[test]
fn a_hanging_ptxas_times_out_by_flag_or_variable() {
    let scene = Scene::new("exec sleep 60");
    let start = Instant::now();
    let (code, stderr) = scene.build(&["v.cuk", "--ptxas-timeout", "0.5"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("ptxas ran longer than 0.5 s"), "{stderr}");
    let output = {
        let _turn = turn();
        scene
            .command(&["v.cuk"])
            .env("CUKC_PTXAS_TIMEOUT", "0.5")
            .output()
            .expect("cukc runs")
    };
    assert_eq!(output.status.code(), Some(1));
    assert!(start.elapsed() < Duration::from_secs(10));
    let (code, stderr) = scene.build(&["v.cuk", "--ptxas-timeout", "-1"]);
    assert_eq!(code, Some(2), "{stderr}");
}

#[test]
fn an_interrupt_stops_ptxas_and_removes_its_directory() {
    let scene = Scene::new("exec sleep 60");
    let temporary = scene.path("tmp");
    std::fs::create_dir(&temporary).expect("a private TMPDIR");
    let spawned = {
        let _turn = turn();
        scene
            .command(&["v.cuk"])
            .env("TMPDIR", &temporary)
            .stderr(Stdio::null())
            .spawn()
    };
    let mut child = spawned.expect("cukc runs");
    let start = Instant::now();
    while std::fs::read_dir(&temporary)
        .expect("listed")
        .next()
        .is_none()
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "ptxas never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let status = child.wait().expect("cukc ends");
    assert_eq!(status.code(), Some(130));
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(std::fs::read_dir(&temporary).expect("listed").count(), 0);
    assert!(!scene.path("v.cubin").exists());
}
