//! Installing ptxas from PyPI: `python3 -I -m pip install --target <cache>/python
//! nvidia-cuda-nvcc-cu12==12.9.*`, with pip's lines passed on as progress.
//!
//! Python runs isolated (`-I`: neither the current folder nor `PYTHON*` variables nor
//! the user's site-packages on `sys.path`) and in the cache directory, so a `pip.py`
//! planted in the folder the user runs cukc from is never imported.
//!
//! pip installs into a fresh temporary directory beside `<cache>/python`, which is
//! then renamed into place, so that two cukc processes installing at once never
//! see (or leave) a half-written package.

use std::ffi::OsStr;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

use super::process::spawn_piped;
use super::{FindError, Version};

/// The Python package that ships ptxas.
pub const PIP_PACKAGE: &str = "nvidia-cuda-nvcc-cu12";

/// The requirement cukc installs: a release that knows sm_80, sm_90a and sm_100a.
pub const PIP_REQUIREMENT: &str = "nvidia-cuda-nvcc-cu12==12.9.*";

/// What an installation reports while it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// pip is starting.
    Installing {
        /// The directory the package goes into.
        target: PathBuf,
        /// The command line, for the user to rerun by hand.
        command: String,
    },
    /// A line pip printed (`Collecting ...`, `Downloading ...`).
    Pip(String),
    /// The package is in place and its ptxas answered.
    Installed {
        /// The executable.
        path: PathBuf,
        /// Its release.
        version: Version,
    },
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Progress::Installing { target, command } => write!(
                f,
                "ptxas not found; installing {PIP_REQUIREMENT} into {} (about 40 MB): {command}",
                target.display()
            ),
            Progress::Pip(line) => write!(f, "  pip: {line}"),
            Progress::Installed { path, version } => {
                write!(f, "installed ptxas {version} at {}", path.display())
            }
        }
    }
}

/// Where the package puts ptxas under a site-packages (or `--target`) directory.
pub(super) fn ptxas_in(site: &Path) -> PathBuf {
    site.join("nvidia")
        .join("cuda_nvcc")
        .join("bin")
        .join("ptxas")
}

/// Installs the package into `<cache>/python` and returns its ptxas. The error is
/// [`FindError::InstallFailed`], whose detail is a sentence with pip's command and
/// output.
pub(super) fn install(
    python: &OsStr,
    cache: &Path,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PathBuf, FindError> {
    let failed = |detail: String| FindError::InstallFailed {
        detail,
        cache_dir: Some(cache.to_owned()),
    };
    let target = cache.join("python");
    std::fs::create_dir_all(cache)
        .map_err(|error| failed(format!("cannot create {}: {error}", cache.display())))?;
    let staging = tempfile::Builder::new()
        .prefix("python.partial-")
        .tempdir_in(cache)
        .map_err(|error| {
            failed(format!(
                "cannot create a directory in {}: {error}",
                cache.display()
            ))
        })?;
    let mut command = Command::new(python);
    command
        .current_dir(cache)
        .args(["-I", "-m", "pip", "install", "--no-deps", "--no-input"])
        .args(["--disable-pip-version-check", "--progress-bar", "off"])
        .arg("--target")
        .arg(staging.path())
        .arg(PIP_REQUIREMENT);
    let shown = format!(
        "{} -I -m pip install --no-deps --target {} '{PIP_REQUIREMENT}'",
        python.to_string_lossy(),
        target.display()
    );
    progress(&Progress::Installing {
        target: target.clone(),
        command: shown.clone(),
    });
    run_pip(&mut command, progress).map_err(|failure| failed(format!("`{shown}` {failure}")))?;
    if !ptxas_in(staging.path()).is_file() {
        return Err(failed(format!(
            "`{shown}` succeeded but left no nvidia/cuda_nvcc/bin/ptxas"
        )));
    }
    let staged = staging.keep();
    if let Err(error) = std::fs::rename(&staged, &target) {
        // Another process may have won the race; its copy is as good as ours.
        let _ = std::fs::remove_dir_all(&staged);
        if !ptxas_in(&target).is_file() {
            return Err(failed(format!(
                "cannot move the package into {}: {error}",
                target.display()
            )));
        }
    }
    Ok(ptxas_in(&target))
}

/// How running pip failed.
enum PipFailure {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It could not be waited for.
    Wait(std::io::Error),
    /// It exited unsuccessfully, with this standard error.
    Exited { status: ExitStatus, stderr: String },
}

impl fmt::Display for PipFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipFailure::Spawn(error) => write!(f, "could not be run: {error}"),
            PipFailure::Wait(error) => write!(f, "could not be waited for: {error}"),
            PipFailure::Exited { status, stderr } => {
                write!(f, "failed ({status}):\n{}", stderr.trim_end())
            }
        }
    }
}

/// Runs pip, passing each line of its standard output on as it comes; the error
/// says how it failed, with its standard error.
fn run_pip(command: &mut Command, progress: &mut dyn FnMut(&Progress)) -> Result<(), PipFailure> {
    let mut child = spawn_piped(command).map_err(PipFailure::Spawn)?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let stderr_text = std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut text = String::new();
            if let Some(mut stderr) = stderr {
                let _ = stderr.read_to_string(&mut text);
            }
            text
        });
        if let Some(stdout) = stdout {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if !line.trim().is_empty() {
                    progress(&Progress::Pip(line.trim_end().to_owned()));
                }
            }
        }
        reader.join().unwrap_or_default()
    });
    let status = child.wait().map_err(PipFailure::Wait)?;
    if status.success() {
        Ok(())
    } else {
        Err(PipFailure::Exited {
            status,
            stderr: stderr_text,
        })
    }
}
