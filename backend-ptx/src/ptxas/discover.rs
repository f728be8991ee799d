//! Where `ptxas` is looked for, in order, over an [`Environment`] that tests fake.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::install::{self, Progress};
use super::process::{self, Stopped};
use super::{TARGETS, Version, minimum_version};

/// Where [`find`] looks, taken from the process or built by hand in tests.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    /// `--ptxas PATH`: used as given, an error when it names no file.
    pub explicit: Option<PathBuf>,
    /// `CUKC_PTXAS`: used as given, an error when it names no file.
    pub cukc_ptxas: Option<PathBuf>,
    /// `PATH`, searched for an executable named `ptxas`.
    pub path: Option<OsString>,
    /// `CUDA_HOME`: its `bin/ptxas`.
    pub cuda_home: Option<PathBuf>,
    /// The toolkit's usual home, `/usr/local/cuda/bin`.
    pub system_cuda_bin: Option<PathBuf>,
    /// The Python interpreter (`python3`) asked for its site-packages directories
    /// and used to run pip, only when no earlier rule finds a ptxas; `None` skips
    /// both. A bare name is looked for in the absolute folders of `path` only.
    pub python: Option<OsString>,
    /// cukc's cache directory ([`cache_dir_from`]); pip installs into its
    /// `python/` subdirectory.
    pub cache_dir: Option<PathBuf>,
    /// Never install (`--offline`, `CUKC_OFFLINE=1`).
    pub offline: bool,
}

impl Environment {
    /// The environment of this process: `CUKC_PTXAS`, `PATH`, `CUDA_HOME`,
    /// `/usr/local/cuda/bin`, `python3`, the cache directory from
    /// `CUKC_CACHE_DIR` / `XDG_CACHE_HOME` / `HOME`, and `CUKC_OFFLINE`.
    /// `explicit` is the command line's `--ptxas`; `offline` its `--offline`.
    pub fn from_process(explicit: Option<PathBuf>, offline: bool) -> Environment {
        let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        let offline_var = var("CUKC_OFFLINE").is_some_and(|value| {
            !matches!(
                value.to_string_lossy().to_ascii_lowercase().as_str(),
                "0" | "false" | "no" | "off"
            )
        });
        Environment {
            explicit,
            cukc_ptxas: var("CUKC_PTXAS").map(PathBuf::from),
            path: var("PATH"),
            cuda_home: var("CUDA_HOME").map(PathBuf::from),
            system_cuda_bin: Some(PathBuf::from("/usr/local/cuda/bin")),
            python: Some(OsString::from("python3")),
            cache_dir: cache_dir_from(var("CUKC_CACHE_DIR"), var("XDG_CACHE_HOME"), var("HOME")),
            offline: offline || offline_var,
        }
    }
}

/// cukc's cache directory: `$CUKC_CACHE_DIR`, else `$XDG_CACHE_HOME/cukc`, else
/// `$HOME/.cache/cukc`; `None` when none of the three is set.
pub fn cache_dir_from(
    cukc_cache_dir: Option<OsString>,
    xdg_cache_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    cukc_cache_dir
        .map(PathBuf::from)
        .or_else(|| xdg_cache_home.map(|dir| PathBuf::from(dir).join("cukc")))
        .or_else(|| home.map(|dir| PathBuf::from(dir).join(".cache").join("cukc")))
}

/// Which rule found a ptxas, in the order they are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// `--ptxas PATH`.
    Explicit,
    /// The `CUKC_PTXAS` environment variable.
    EnvVar,
    /// A directory on `PATH`.
    Path,
    /// `$CUDA_HOME/bin`.
    CudaHome,
    /// `/usr/local/cuda/bin`.
    SystemCuda,
    /// `nvidia-cuda-nvcc-cu12` in one of python3's site-packages directories.
    SitePackages,
    /// `nvidia-cuda-nvcc-cu12` in cukc's cache directory, installed earlier.
    Cache,
    /// `nvidia-cuda-nvcc-cu12` installed into cukc's cache directory just now.
    Installed,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Explicit => "--ptxas",
            Source::EnvVar => "CUKC_PTXAS",
            Source::Path => "PATH",
            Source::CudaHome => "CUDA_HOME/bin",
            Source::SystemCuda => "/usr/local/cuda/bin",
            Source::SitePackages => "python3 site-packages (nvidia-cuda-nvcc-cu12)",
            Source::Cache => "cukc cache (nvidia-cuda-nvcc-cu12)",
            Source::Installed => "cukc cache (nvidia-cuda-nvcc-cu12, installed just now)",
        })
    }
}

/// How long `ptxas --version` may take.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// A ptxas that answered `--version`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ptxas {
    /// The executable.
    pub path: PathBuf,
    /// The rule that found it.
    pub source: Source,
    /// Its release.
    pub version: Version,
}

impl Ptxas {
    /// Runs `path --version` and reads the release from its output.
    pub fn probe(path: &Path, source: Source) -> Result<Ptxas, FindError> {
        let unusable = |detail: String| FindError::Unusable {
            source,
            path: path.to_owned(),
            detail,
        };
        let finished = process::run(Command::new(path).arg("--version"), PROBE_TIMEOUT).map_err(
            |stopped| {
                unusable(match stopped {
                    Stopped::Spawn(error) => format!("could not be run: {error}"),
                    Stopped::TimedOut(limit) => {
                        format!("did not answer within {} s", limit.as_secs())
                    }
                    Stopped::Interrupted => "was interrupted".to_owned(),
                })
            },
        )?;
        let said = finished.log.trim();
        if !finished.status.success() {
            return Err(unusable(format!("failed ({}): {said}", finished.status)));
        }
        let version = Version::parse_banner(said)
            .ok_or_else(|| unusable(format!("printed no `release X.Y, VX.Y.Z` line: {said:?}")))?;
        Ok(Ptxas {
            path: path.to_owned(),
            source,
            version,
        })
    }

    /// Whether this release assembles `target`: one of [`TARGETS`] no newer than
    /// it (`sm_100a` needs 12.8). Other targets are left to ptxas to judge: `true`.
    pub fn supports(&self, target: &str) -> bool {
        minimum_version(target).is_none_or(|minimum| self.version >= minimum)
    }

    /// [`TARGETS`] with whether this release assembles each.
    pub fn target_support(&self) -> Vec<(&'static str, bool)> {
        TARGETS
            .iter()
            .map(|(name, _)| (*name, self.supports(name)))
            .collect()
    }
}

/// Why no usable ptxas was found.
#[derive(Debug)]
pub enum FindError {
    /// `--ptxas` or `CUKC_PTXAS` named a path that is not a file.
    Missing {
        /// [`Source::Explicit`] or [`Source::EnvVar`].
        source: Source,
        /// The path given.
        path: PathBuf,
    },
    /// A ptxas was found but `--version` failed or said nothing readable.
    Unusable {
        /// The rule that found it.
        source: Source,
        /// The executable.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// None was found and installing is forbidden.
    Offline {
        /// The cache directory pip would have installed into.
        cache_dir: Option<PathBuf>,
    },
    /// None was found and installing with pip failed.
    InstallFailed {
        /// What went wrong: the pip command and its output.
        detail: String,
        /// The cache directory pip installed into.
        cache_dir: Option<PathBuf>,
    },
}

impl fmt::Display for FindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FindError::Missing { source, path } => match source {
                Source::Explicit => write!(f, "--ptxas {}: no such file", path.display()),
                _ => write!(f, "{source}={}: no such file", path.display()),
            },
            FindError::Unusable {
                source,
                path,
                detail,
            } => write!(
                f,
                "ptxas at {} (from {source}) is unusable: `ptxas --version` {detail}",
                path.display()
            ),
            FindError::Offline { cache_dir } => {
                writeln!(
                    f,
                    "ptxas not found, and cukc may not install it (offline: --offline or CUKC_OFFLINE=1)"
                )?;
                f.write_str(&how_to_get_ptxas(cache_dir.as_deref()))
            }
            FindError::InstallFailed { detail, cache_dir } => {
                writeln!(f, "ptxas not found, and installing it failed: {detail}")?;
                f.write_str(&how_to_get_ptxas(cache_dir.as_deref()))
            }
        }
    }
}

impl std::error::Error for FindError {}

/// The ways to give cukc a ptxas, in the order it looks.
fn how_to_get_ptxas(cache_dir: Option<&Path>) -> String {
    let target = cache_dir.map_or_else(
        || "<cache>/python (set CUKC_CACHE_DIR)".to_owned(),
        |dir| dir.join("python").display().to_string(),
    );
    format!(
        "get ptxas in one of these ways (cukc looks in this order):\n  \
         - pass --ptxas /path/to/ptxas, or set CUKC_PTXAS=/path/to/ptxas\n  \
         - put a directory holding ptxas on PATH\n  \
         - set CUDA_HOME to a CUDA toolkit (ptxas in $CUDA_HOME/bin), or install one in /usr/local/cuda\n  \
         - python3 -m pip install '{req}' (ptxas in site-packages/nvidia/cuda_nvcc/bin)\n  \
         - python3 -m pip install --no-deps --target {target} '{req}'\n  \
         - or drop --offline and unset CUKC_OFFLINE, and cukc runs that pip command itself",
        req = install::PIP_REQUIREMENT,
    )
}

/// The rules after `--ptxas` and `CUKC_PTXAS`, as candidate paths in order. Only
/// absolute `PATH` entries count: an empty or relative one would find a ptxas planted
/// in whatever folder cukc runs in. The site-packages rule runs `env.python` for its
/// directories only when the iteration reaches it, that is when no earlier rule found
/// a ptxas.
fn candidates(env: &Environment) -> impl Iterator<Item = (Source, PathBuf)> + '_ {
    let path_dirs = absolute_dirs(env.path.as_deref());
    let fixed = path_dirs
        .into_iter()
        .map(|dir| (Source::Path, dir.join("ptxas")))
        .chain(
            (env.cuda_home.iter()).map(|home| (Source::CudaHome, home.join("bin").join("ptxas"))),
        )
        .chain((env.system_cuda_bin.iter()).map(|bin| (Source::SystemCuda, bin.join("ptxas"))));
    let site_packages = std::iter::once(()).flat_map(move |()| {
        site_dirs(env)
            .into_iter()
            .map(|dir| (Source::SitePackages, install::ptxas_in(&dir)))
    });
    let cache = (env.cache_dir.iter())
        .map(|cache| (Source::Cache, install::ptxas_in(&cache.join("python"))));
    fixed.chain(site_packages).chain(cache)
}

/// The absolute folders of a `PATH`-like list, in order.
fn absolute_dirs(path: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
    path.map(std::env::split_paths)
        .into_iter()
        .flatten()
        .filter(|dir| dir.is_absolute())
        .collect()
}

/// The program `name` as cukc runs it: a path as given when it is absolute, else the
/// first executable file of that name in an absolute folder of `path`; `None`
/// otherwise. `Command::new("python3")` would search the process's `PATH` itself,
/// where an empty entry is the current folder: with `PATH=/usr/bin::/bin`, a `python3`
/// planted where cukc runs was run.
pub fn resolve_program(name: &std::ffi::OsStr, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let given = Path::new(name);
    if given.components().count() > 1 {
        return given.is_absolute().then(|| given.to_owned());
    }
    absolute_dirs(path)
        .into_iter()
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate).is_ok_and(|metadata| {
                metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
            })
        })
}

/// python3's site-packages directories (the user's included) and the rest of
/// `sys.path`; none when there is no python3.
fn site_dirs(env: &Environment) -> Vec<PathBuf> {
    const SCRIPT: &str = "import site, sys\n\
        dirs = []\n\
        try: dirs += site.getsitepackages()\n\
        except Exception: pass\n\
        try: dirs.append(site.getusersitepackages())\n\
        except Exception: pass\n\
        print('\\n'.join(d for d in dirs + sys.path if d))\n";
    let Some(python) =
        (env.python.as_deref()).and_then(|name| resolve_program(name, env.path.as_deref()))
    else {
        return Vec::new();
    };
    // `-I`: the current folder is not on `sys.path`, so a `site.py` planted where
    // cukc runs is not imported.
    let Ok(output) = Command::new(python).args(["-I", "-c", SCRIPT]).output() else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = Vec::new();
    if output.status.success() {
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let dir = PathBuf::from(line.trim());
            // `sys.path` holds '' (the current folder) under `-c`: a ptxas planted
            // where cukc runs must not be found, so only absolute folders count.
            if dir.is_absolute() && !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

/// The first ptxas by the rules of [`Source`], without installing anything.
/// `Ok(None)` when there is none; an error when `--ptxas` or `CUKC_PTXAS` names
/// no file, or the ptxas found does not answer `--version`.
pub fn locate(env: &Environment) -> Result<Option<Ptxas>, FindError> {
    for (source, given) in [
        (Source::Explicit, &env.explicit),
        (Source::EnvVar, &env.cukc_ptxas),
    ] {
        if let Some(path) = given {
            if !path.is_file() {
                return Err(FindError::Missing {
                    source,
                    path: path.clone(),
                });
            }
            return Ptxas::probe(path, source).map(Some);
        }
    }
    for (source, path) in candidates(env) {
        if path.is_file() {
            return Ptxas::probe(&path, source).map(Some);
        }
    }
    Ok(None)
}

/// [`locate`], and when nothing is found, `nvidia-cuda-nvcc-cu12` installed into
/// the cache directory with pip (reported through `progress`), unless
/// `env.offline`.
pub fn find(env: &Environment, progress: &mut dyn FnMut(&Progress)) -> Result<Ptxas, FindError> {
    if let Some(found) = locate(env)? {
        return Ok(found);
    }
    if env.offline {
        return Err(FindError::Offline {
            cache_dir: env.cache_dir.clone(),
        });
    }
    let failed = |detail: String| FindError::InstallFailed {
        detail,
        cache_dir: env.cache_dir.clone(),
    };
    let python =
        (env.python.as_deref()).and_then(|name| resolve_program(name, env.path.as_deref()));
    let (Some(python), Some(cache)) = (python, &env.cache_dir) else {
        return Err(failed(
            "no python3 in an absolute PATH folder, or no cache directory (set CUKC_CACHE_DIR or HOME)"
                .to_owned(),
        ));
    };
    let path = install::install(python.as_os_str(), cache, progress)?;
    let found = Ptxas::probe(&path, Source::Installed)?;
    progress(&Progress::Installed {
        path: found.path.clone(),
        version: found.version,
    });
    Ok(found)
}
