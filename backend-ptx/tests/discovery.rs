//! ptxas discovery over a faked [`Environment`]: the order of the rules, paths
//! that name nothing, the offline error, and the pip installation, with shell
//! scripts standing in for ptxas and python3.
#![cfg(unix)]

mod support;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use backend_ptx::ptxas::{Environment, FindError, Progress, Source, Version, find, locate};
use support::{TURN, script};

/// A fake ptxas at `dir/ptxas` whose `--version` says `12.<minor>.<patch>`.
fn fake_ptxas(dir: &Path, minor: u32, patch: u32) -> PathBuf {
    script(
        &dir.join("ptxas"),
        &format!(
            "echo 'ptxas: NVIDIA (R) Ptx optimizing assembler'\n\
             echo 'Cuda compilation tools, release 12.{minor}, V12.{minor}.{patch}'"
        ),
    )
}

/// A fake python3 whose site directory is `site` and whose pip installs a fake
/// package (ptxas 12.9.86) into `--target`, or fails when `pip_fails`.
fn fake_python(dir: &Path, site: &Path, pip_fails: bool) -> OsString {
    let pip = if pip_fails {
        "echo 'ERROR: No matching distribution found' >&2; exit 1".to_owned()
    } else {
        "echo 'Collecting nvidia-cuda-nvcc-cu12==12.9.*'\n\
         mkdir -p \"$target/nvidia/cuda_nvcc/bin\"\n\
         printf '#!/bin/sh\\necho \"Cuda compilation tools, release 12.9, V12.9.86\"\\n' \
           > \"$target/nvidia/cuda_nvcc/bin/ptxas\"\n\
         chmod 755 \"$target/nvidia/cuda_nvcc/bin/ptxas\"\n\
         echo 'Successfully installed nvidia-cuda-nvcc-cu12-12.9.86'"
            .to_owned()
    };
    let body = format!(
        "if [ \"$2\" = -c ]; then echo '{}'; exit 0; fi\n\
         while [ $# -gt 0 ]; do [ \"$1\" = --target ] && target=\"$2\"; shift; done\n{pip}",
        site.display()
    );
    script(&dir.join("python3"), &body).into_os_string()
}

/// Every rule given a ptxas with its own patch number.
struct World {
    dir: tempfile::TempDir,
    env: Environment,
}

fn world() -> World {
    let dir = tempfile::tempdir().expect("cannot create a temporary directory");
    let root = dir.path();
    let site = root.join("site");
    let cache = root.join("cache");
    let env = Environment {
        explicit: Some(fake_ptxas(&root.join("explicit"), 8, 1)),
        cukc_ptxas: Some(fake_ptxas(&root.join("env"), 8, 2)),
        path: Some(
            std::env::join_paths([root.join("empty-path-dir"), root.join("path")])
                .expect("test paths join"),
        ),
        cuda_home: Some(root.join("cuda-home")),
        system_cuda_bin: Some(root.join("usr-local-cuda").join("bin")),
        python: Some(fake_python(&root.join("python"), &site, true)),
        cache_dir: Some(cache.clone()),
        offline: false,
    };
    fake_ptxas(&root.join("path"), 8, 3);
    fake_ptxas(&root.join("cuda-home").join("bin"), 8, 4);
    fake_ptxas(&root.join("usr-local-cuda").join("bin"), 8, 5);
    fake_ptxas(&site.join("nvidia").join("cuda_nvcc").join("bin"), 8, 6);
    fake_ptxas(
        &cache
            .join("python")
            .join("nvidia")
            .join("cuda_nvcc")
            .join("bin"),
        8,
        7,
    );
    World { dir, env }
}

fn found(env: &Environment) -> (Source, u32) {
    let ptxas = locate(env)
        .unwrap_or_else(|error| panic!("locate failed: {error}"))
        .expect("a ptxas is there");
    assert!(ptxas.path.is_file());
    (ptxas.source, ptxas.version.patch)
}

#[test]
fn rules_are_tried_in_order() {
    let _turn = TURN.lock();
    let mut world = world();
    let root = world.dir.path().to_owned();
    let env = &mut world.env;
    assert_eq!(found(env), (Source::Explicit, 1));
    env.explicit = None;
    assert_eq!(found(env), (Source::EnvVar, 2));
    env.cukc_ptxas = None;
    assert_eq!(found(env), (Source::Path, 3));
    std::fs::remove_file(root.join("path").join("ptxas")).expect("remove");
    assert_eq!(found(env), (Source::CudaHome, 4));
    env.cuda_home = None;
    assert_eq!(found(env), (Source::SystemCuda, 5));
    env.system_cuda_bin = None;
    assert_eq!(found(env), (Source::SitePackages, 6));
    env.python = None;
    assert_eq!(found(env), (Source::Cache, 7));
    env.cache_dir = None;
    assert!(matches!(locate(env), Ok(None)));
}

#[test]
fn a_found_ptxas_knows_its_version_and_targets() {
    let _turn = TURN.lock();
    let world = world();
    let ptxas = locate(&world.env)
        .expect("locate works")
        .expect("the explicit one");
    assert_eq!(ptxas.version, Version::new(12, 8, 1));
    assert_eq!(
        ptxas.target_support(),
        vec![("sm_80", true), ("sm_90a", true), ("sm_100a", true)]
    );
    let dir = tempfile::tempdir().expect("temporary directory");
    let old = Environment {
        explicit: Some(fake_ptxas(dir.path(), 4, 131)),
        ..Environment::default()
    };
    let old = locate(&old)
        .expect("locate works")
        .expect("the explicit one");
    assert!(old.supports("sm_90a"));
    assert!(!old.supports("sm_100a"));
    let failure = old
        .assemble("", "sm_100a", &Default::default())
        .expect_err("12.4 cannot assemble sm_100a");
    assert_eq!(
        failure.to_string(),
        "ptxas 12.4.131 cannot assemble for sm_100a: it needs ptxas 12.8.0 or newer"
    );
}

#[test]
fn a_given_path_that_names_nothing_is_an_error_not_a_fall_through() {
    let _turn = TURN.lock();
    let mut world = world();
    let missing = world.dir.path().join("no").join("ptxas");
    world.env.explicit = Some(missing.clone());
    let error = locate(&world.env).expect_err("--ptxas names nothing");
    assert!(matches!(
        error,
        FindError::Missing {
            source: Source::Explicit,
            ..
        }
    ));
    assert_eq!(
        error.to_string(),
        format!("--ptxas {}: no such file", missing.display())
    );
    world.env.explicit = None;
    world.env.cukc_ptxas = Some(missing.clone());
    let error = locate(&world.env).expect_err("CUKC_PTXAS names nothing");
    assert_eq!(
        error.to_string(),
        format!("CUKC_PTXAS={}: no such file", missing.display())
    );
}

#[test]
fn a_ptxas_that_does_not_answer_is_reported() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("temporary directory");
    let env = Environment {
        path: Some(dir.path().as_os_str().to_owned()),
        ..Environment::default()
    };
    script(&dir.path().join("ptxas"), "echo 'not a ptxas'");
    let error = locate(&env).expect_err("no version line");
    assert!(matches!(
        error,
        FindError::Unusable {
            source: Source::Path,
            ..
        }
    ));
    assert!(
        error
            .to_string()
            .contains("printed no `release X.Y, VX.Y.Z` line")
    );
}

#[test]
fn offline_with_nothing_found_says_how_to_get_ptxas() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("temporary directory");
    let cache = dir.path().join("cache");
    let env = Environment {
        path: Some(dir.path().as_os_str().to_owned()),
        cache_dir: Some(cache.clone()),
        offline: true,
        ..Environment::default()
    };
    let mut reports = Vec::new();
    let error = find(&env, &mut |progress| reports.push(progress.clone()))
        .expect_err("offline, and nothing to find");
    assert!(reports.is_empty(), "offline must not try pip: {reports:?}");
    let text = error.to_string();
    for needle in [
        "ptxas not found, and cukc may not install it (offline: --offline or CUKC_OFFLINE=1)",
        "--ptxas /path/to/ptxas, or set CUKC_PTXAS=/path/to/ptxas",
        "PATH",
        "CUDA_HOME",
        "/usr/local/cuda",
        "python3 -m pip install 'nvidia-cuda-nvcc-cu12==12.9.*'",
        &format!("--target {}", cache.join("python").display()),
        "unset CUKC_OFFLINE",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
    assert!(!cache.exists(), "offline must not create the cache");
}

#[test]
fn nothing_found_installs_into_the_cache_with_progress() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("temporary directory");
    let cache = dir.path().join("cache");
    let env = Environment {
        python: Some(fake_python(dir.path(), &dir.path().join("site"), false)),
        cache_dir: Some(cache.clone()),
        ..Environment::default()
    };
    let mut reports = Vec::new();
    let ptxas = find(&env, &mut |progress| reports.push(progress.clone()))
        .unwrap_or_else(|error| panic!("install failed: {error}"));
    let installed = cache.join("python/nvidia/cuda_nvcc/bin/ptxas");
    assert_eq!(ptxas.source, Source::Installed);
    assert_eq!(ptxas.path, installed);
    assert_eq!(ptxas.version, Version::new(12, 9, 86));
    assert!(
        matches!(&reports[0], Progress::Installing { target, .. } if *target == cache.join("python"))
    );
    assert_eq!(
        reports[1],
        Progress::Pip("Collecting nvidia-cuda-nvcc-cu12==12.9.*".into())
    );
    assert_eq!(
        reports.last().map(ToString::to_string),
        Some(format!(
            "installed ptxas 12.9.86 at {}",
            installed.display()
        ))
    );
    // No staging directory is left behind, and the next search finds the cache.
    let entries: Vec<_> = std::fs::read_dir(&cache).expect("cache").collect();
    assert_eq!(entries.len(), 1);
    assert_eq!(
        locate(&env).expect("locate").map(|p| p.source),
        Some(Source::Cache)
    );
}

#[test]
fn a_failed_install_reports_pip_and_the_ways_out() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("temporary directory");
    let env = Environment {
        python: Some(fake_python(dir.path(), &dir.path().join("site"), true)),
        cache_dir: Some(dir.path().join("cache")),
        ..Environment::default()
    };
    let error = find(&env, &mut |_| {}).expect_err("pip fails");
    let text = error.to_string();
    assert!(
        text.starts_with("ptxas not found, and installing it failed: `"),
        "{text}"
    );
    assert!(
        text.contains("ERROR: No matching distribution found"),
        "{text}"
    );
    assert!(text.contains("--ptxas /path/to/ptxas"), "{text}");
}

#[test]
fn python_runs_only_when_no_earlier_rule_finds_a_ptxas_and_only_from_an_absolute_folder() {
    let _turn = TURN.lock();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path();
    let marker = root.join("python-ran");
    // A python3 that leaves a mark, alone in its folder.
    script(
        &root.join("bin").join("python3"),
        &format!("touch '{}'; exit 1", marker.display()),
    );
    fake_ptxas(&root.join("path"), 8, 3);
    let mut env = Environment {
        path: Some(
            std::env::join_paths([root.join("path"), root.join("bin")]).expect("paths join"),
        ),
        python: Some(OsString::from("python3")),
        offline: true,
        ..Environment::default()
    };
    assert_eq!(found(&env), (Source::Path, 3));
    assert!(!marker.exists(), "python3 ran though PATH had a ptxas");
    std::fs::remove_file(root.join("path").join("ptxas")).expect("removed");
    assert!(matches!(locate(&env), Ok(None)));
    assert!(
        marker.exists(),
        "python3 was not asked for its site-packages"
    );
    std::fs::remove_file(&marker).expect("removed");
    // Relative and empty entries are never searched, for python3 as for ptxas: the
    // relative entry names the folder of the marking python3 from the working folder.
    let working = std::env::current_dir().expect("a working folder");
    let up = working.components().count() - 1;
    let relative = (0..up)
        .fold(PathBuf::new(), |path, _| path.join(".."))
        .join(
            root.strip_prefix("/")
                .expect("an absolute temporary folder"),
        );
    assert!(relative.join("bin").join("python3").is_file());
    env.path = Some(OsString::from(format!(
        ":{}:.",
        relative.join("bin").display()
    )));
    assert!(matches!(locate(&env), Ok(None)));
    assert!(!marker.exists(), "a python3 in a relative PATH folder ran");
}
