//! ptxas and pip as processes: pip runs isolated from the user's folder, and ptxas
//! runs under a time limit in a private temporary directory, a signal that kills it
//! reported as such. Shell scripts stand in for both.
#![cfg(unix)]

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use backend_ptx::ptxas::{AssembleOptions, Environment, PtxasFailure, Source, find, locate};
use support::{TURN, script};

/// A fake ptxas: `--version` answers 12.9, anything else runs `body`.
fn fake_ptxas(dir: &Path, body: &str) -> backend_ptx::ptxas::Ptxas {
    let path = script(
        &dir.join("ptxas"),
        &format!(
            "if [ \"$1\" = --version ]; then echo 'Cuda compilation tools, release 12.9, V12.9.86'; exit 0; fi\n{body}"
        ),
    );
    let env = Environment {
        explicit: Some(path),
        ..Environment::default()
    };
    let found = locate(&env).expect("it answers").expect("it is there");
    assert_eq!(found.source, Source::Explicit);
    found
}

fn assemble(ptxas: &backend_ptx::ptxas::Ptxas, timeout: Duration) -> Result<(), PtxasFailure> {
    let options = AssembleOptions {
        timeout: Some(timeout),
        ..AssembleOptions::default()
    };
    ptxas.assemble("// ptx", "sm_90a", &options).map(drop)
}

#[test]
fn pip_runs_isolated_in_the_cache_directory() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("temporary directory");
    let record = dir.path().join("record");
    let python = script(
        &dir.path().join("python3"),
        &format!(
            "if [ \"$1\" = -c ]; then exit 0; fi\necho \"$PWD $*\" > {}\nexit 1",
            record.display()
        ),
    );
    let cache = dir.path().join("cache");
    let env = Environment {
        python: Some(python.into_os_string()),
        cache_dir: Some(cache.clone()),
        ..Environment::default()
    };
    let error = find(&env, &mut |_| {}).expect_err("the fake pip fails");
    assert!(error.to_string().contains("-I -m pip install"), "{error}");
    let recorded = std::fs::read_to_string(&record).expect("pip ran");
    let expected = format!("{} -I -m pip install ", cache.display());
    assert!(recorded.starts_with(&expected), "{recorded}");
}

#[test]
fn a_planted_pip_py_is_never_imported() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("temporary directory");
    let cache = dir.path().join("cache");
    let marker = dir.path().join("planted-pip-ran");
    std::fs::create_dir_all(&cache).expect("cache");
    std::fs::write(
        cache.join("pip.py"),
        format!(
            "open({:?}, 'w').write('ran')\n",
            marker.display().to_string()
        ),
    )
    .expect("planted");
    // The real python3, kept off the network: pip finds no index and fails at once.
    let python = script(
        &dir.path().join("python3"),
        "export PIP_NO_INDEX=1\nexec python3 \"$@\"",
    );
    let env = Environment {
        python: Some(python.into_os_string()),
        cache_dir: Some(cache),
        ..Environment::default()
    };
    let _ = find(&env, &mut |_| {});
    assert!(!marker.exists(), "python imported the planted pip.py");
}

#[test]
fn a_relative_site_directory_is_not_searched() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("temporary directory");
    // python3 reports `sys.path`'s '' and a relative folder; neither may be searched.
    let python = script(
        &dir.path().join("python3"),
        "if [ \"$1\" = -c ]; then printf '\\nnvidia-site\\n'; exit 0; fi\nexit 1",
    );
    let env = Environment {
        python: Some(python.into_os_string()),
        offline: true,
        ..Environment::default()
    };
    assert!(matches!(locate(&env), Ok(None)));
}

#[test]
fn a_hanging_ptxas_is_stopped_at_its_limit() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("temporary directory");
    let ptxas = fake_ptxas(dir.path(), "exec sleep 60");
    let start = Instant::now();
    let failure = assemble(&ptxas, Duration::from_millis(500)).expect_err("it hangs");
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(
        matches!(failure, PtxasFailure::TimedOut { .. }),
        "{failure:?}"
    );
    assert!(failure.to_string().contains("--ptxas-timeout"), "{failure}");
}

#[test]
fn a_ptxas_killed_by_a_signal_says_so() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("temporary directory");
    let ptxas = fake_ptxas(dir.path(), "echo 'about to die' >&2\nkill -SEGV $$");
    let failure = assemble(&ptxas, Duration::from_secs(30)).expect_err("it dies");
    assert!(
        matches!(failure, PtxasFailure::Killed { signal: 11, .. }),
        "{failure:?}"
    );
    assert_eq!(
        failure.to_string(),
        "ptxas was killed by signal 11; it printed:\nabout to die"
    );
}

#[test]
fn ptxas_works_in_a_private_directory_removed_afterwards() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("temporary directory");
    let record = dir.path().join("mode");
    let ptxas = fake_ptxas(
        dir.path(),
        &format!(
            "echo \"$(stat -c %a .) $PWD\" > {}\necho fatal >&2\nexit 1",
            record.display()
        ),
    );
    let failure = assemble(&ptxas, Duration::from_secs(30)).expect_err("it fails");
    assert!(matches!(failure, PtxasFailure::Rejected { .. }));
    let recorded = std::fs::read_to_string(&record).expect("ptxas ran");
    let (mode, folder) = recorded.trim().split_once(' ').expect("mode and folder");
    assert_eq!(mode, "700");
    assert!(!Path::new(folder).exists(), "{folder} is left behind");
}
