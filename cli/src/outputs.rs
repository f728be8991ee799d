//! Where `cukc build` writes, and writing there safely.
//!
//! [`plan`] turns the input, `-o` and `--emit` into destinations before anything is
//! compiled, and refuses what cannot be meant: `-o -` for a cubin (binary, with its
//! PTX beside it), `-o X.ptx` for a cubin (the PTX beside it would be written to the
//! same file), and any destination that is the input file itself (`build kernel.ptx`
//! would put the PTX beside the cubin over the source). [`write_atomically`] writes a
//! temporary file in the destination's folder (created when missing) and renames it
//! into place, so a reader never sees half a file; [`remove_stale`] deletes outputs
//! of an earlier build when this one fails, so nothing left behind looks current.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where one output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// Standard output (`-o -`, text forms only).
    Stdout,
    /// A file.
    File(PathBuf),
}

/// The destinations of one build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// What `--emit` asked for: the cubin, the PTX or the KIR text.
    pub main: Destination,
    /// For a cubin, the PTX written beside it (the cubin's path with `.ptx`).
    pub ptx_beside: Option<PathBuf>,
    /// With `--emit manifest`, the launch manifest written beside the cubin (the
    /// cubin's path with `.manifest.json`).
    pub manifest_beside: Option<PathBuf>,
}

impl Plan {
    /// Every file this build may write.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        let main = match &self.main {
            Destination::File(path) => Some(path.as_path()),
            Destination::Stdout => None,
        };
        main.into_iter()
            .chain(self.ptx_beside.as_deref())
            .chain(self.manifest_beside.as_deref())
    }
}

/// Why a command line's destinations cannot be followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `-o -` for a cubin.
    CubinToStdout,
    /// `-o X.ptx` for a cubin, whose PTX would go beside it in the same file.
    CubinNamedPtx(PathBuf),
    /// A destination that is the input file.
    OverInput(PathBuf),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::CubinToStdout => f.write_str(
                "`-o -` prints text, but a cubin is binary and its PTX goes beside \
                 it; use `-o FILE.cubin`, or `--emit ptx -o -` to print the PTX",
            ),
            Refusal::CubinNamedPtx(path) => write!(
                f,
                "-o {} names the cubin, and its PTX goes beside it with the extension \
                 .ptx, which is the same file; use -o FILE.cubin, or --emit ptx to \
                 write only the PTX",
                path.display()
            ),
            Refusal::OverInput(path) => write!(
                f,
                "{} is the input file; cukc will not write its output over its source \
                 (choose another name with -o)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// Why an output was not written.
#[derive(Debug)]
pub enum WriteError {
    /// Its folder could not be created.
    Folder {
        folder: PathBuf,
        error: std::io::Error,
    },
    /// The file could not be written.
    File {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Folder { folder, error } => {
                write!(f, "cannot create the folder {}: {error}", folder.display())
            }
            WriteError::File { path, error } => {
                write!(f, "cannot write {}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for WriteError {}

/// The destinations for building `input` into `extension` (`cubin`, `ptx` or `kir`)
/// with `-o output`, and with a launch manifest beside a cubin when `manifest`; the
/// error says why the command line cannot be followed.
pub fn plan(
    input: &Path,
    output: Option<&Path>,
    extension: &str,
    manifest: bool,
) -> Result<Plan, Refusal> {
    let is_cubin = extension == "cubin";
    let main = match output {
        Some(path) if path == Path::new("-") => {
            if is_cubin {
                return Err(Refusal::CubinToStdout);
            }
            Destination::Stdout
        }
        Some(path) => {
            if is_cubin && path.extension().is_some_and(|found| found == "ptx") {
                return Err(Refusal::CubinNamedPtx(path.to_owned()));
            }
            Destination::File(path.to_owned())
        }
        None => Destination::File(input.with_extension(extension)),
    };
    let ptx_beside = match (&main, is_cubin) {
        (Destination::File(_), true) => plan_beside(&main, "ptx"),
        _ => None,
    };
    let manifest_beside = match &ptx_beside {
        Some(_) if manifest => plan_beside(&main, "manifest.json"),
        _ => None,
    };
    let plan = Plan {
        main,
        ptx_beside,
        manifest_beside,
    };
    if let Some(clash) = plan.files().find(|file| same_file(file, input)) {
        return Err(Refusal::OverInput(clash.to_owned()));
    }
    Ok(plan)
}

/// The file beside a cubin with `extension` instead of `.cubin`.
fn plan_beside(main: &Destination, extension: &str) -> Option<PathBuf> {
    match main {
        Destination::File(cubin) => Some(cubin.with_extension(extension)),
        Destination::Stdout => None,
    }
}

/// Whether `a` and `b` are the same existing file (by device and inode, so links and
/// other spellings of a path count).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder, renamed over
/// `path` once complete; creates the folder when it is missing. A `path` that exists
/// and is not a regular file (`/dev/null`, `/dev/stdout`, a FIFO) is written directly,
/// never replaced. The error names the path.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let folder = folder_of(path);
    std::fs::create_dir_all(folder).map_err(|error| WriteError::Folder {
        folder: folder.to_owned(),
        error,
    })?;
    replace_atomically(path, bytes)
}

/// [`write_atomically`] into a folder that must exist: a symbolic link at `path` is
/// replaced, not followed, and a write that fails leaves `path` as it was.
pub fn replace_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    use std::os::unix::fs::PermissionsExt;
    let cannot_write = |error: std::io::Error| WriteError::File {
        path: path.to_owned(),
        error,
    };
    if std::fs::metadata(path).is_ok_and(|found| !found.is_file() && !found.is_dir()) {
        let mut special = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(cannot_write)?;
        return special.write_all(bytes).map_err(cannot_write);
    }
    let mut file = tempfile::Builder::new()
        .prefix(".cukc-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(folder_of(path))
        .map_err(cannot_write)?;
    file.write_all(bytes).map_err(cannot_write)?;
    file.persist(path)
        .map_err(|error| cannot_write(error.error))?;
    Ok(())
}

/// The folder `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Removes whatever an earlier build left at `paths` (missing files are fine), so
/// that a failed build leaves no output that looks current. Only regular files are
/// removed: a device or FIFO named as an output stays.
pub fn remove_stale<'a>(paths: impl IntoIterator<Item = &'a Path>) {
    for path in paths {
        if std::fs::symlink_metadata(path).is_ok_and(|found| found.is_file()) {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Destination, plan, remove_stale, write_atomically};
    use std::path::{Path, PathBuf};

    #[test]
    fn cubin_outputs_pair_a_ptx_and_refuse_what_clashes() {
        let built = plan(Path::new("a/v.cuk"), None, "cubin", false).expect("a plan");
        assert_eq!(built.main, Destination::File(PathBuf::from("a/v.cubin")));
        assert_eq!(built.ptx_beside, Some(PathBuf::from("a/v.ptx")));
        let named =
            plan(Path::new("v.cuk"), Some(Path::new("out/k")), "cubin", false).expect("a plan");
        assert_eq!(named.ptx_beside, Some(PathBuf::from("out/k.ptx")));
        assert!(plan(Path::new("v.cuk"), Some(Path::new("-")), "cubin", false).is_err());
        assert!(
            plan(
                Path::new("v.cuk"),
                Some(Path::new("out.ptx")),
                "cubin",
                false
            )
            .is_err()
        );
        let with_manifest = plan(Path::new("a/v.cuk"), None, "cubin", true).expect("a plan");
        let manifest = PathBuf::from("a/v.manifest.json");
        assert_eq!(with_manifest.manifest_beside, Some(manifest.clone()));
        assert!(with_manifest.files().any(|file| file == manifest));
        let printed = plan(Path::new("v.cuk"), Some(Path::new("-")), "ptx", false).expect("a plan");
        assert_eq!(
            (printed.main, printed.ptx_beside),
            (Destination::Stdout, None)
        );
    }

    #[test]
    fn the_input_is_never_an_output() {
        let folder = tempfile::tempdir().expect("a scratch folder");
        let source = folder.path().join("kernel.ptx");
        std::fs::write(&source, "// source").expect("written");
        let refused =
            plan(&source, None, "cubin", false).expect_err("PTX beside the cubin is the input");
        assert!(
            refused.to_string().contains("is the input file"),
            "{refused}"
        );
        let spelled_otherwise = folder.path().join(".").join("kernel.ptx");
        assert!(plan(&source, Some(&spelled_otherwise), "ptx", false).is_err());
        let cuk = folder.path().join("v.cuk");
        std::fs::write(&cuk, "// source").expect("written");
        assert!(plan(&cuk, Some(&cuk), "kir", false).is_err());
        assert!(plan(&cuk, None, "ptx", false).is_ok());
    }

    #[test]
    fn a_fifo_named_as_an_output_is_written_to_and_never_replaced() {
        use std::io::Read;
        use std::os::unix::fs::FileTypeExt;
        let folder = tempfile::tempdir().expect("a scratch folder");
        let fifo = folder.path().join("out.ptx");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        let reading = fifo.clone();
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(reading)
                .and_then(|mut pipe| pipe.read_to_string(&mut text))
                .expect("the FIFO reads");
            text
        });
        write_atomically(&fifo, b"// ptx").expect("written through the FIFO");
        assert_eq!(reader.join().expect("the reader ends"), "// ptx");
        remove_stale([fifo.as_path()]);
        let kind = std::fs::symlink_metadata(&fifo)
            .expect("still there")
            .file_type();
        assert!(kind.is_fifo(), "{kind:?}");
    }

    #[test]
    fn atomic_writes_create_folders_and_replace_whole_files() {
        let folder = tempfile::tempdir().expect("a scratch folder");
        let path = folder.path().join("new").join("deeper").join("k.ptx");
        write_atomically(&path, b"first").expect("written");
        write_atomically(&path, b"second").expect("rewritten");
        assert_eq!(std::fs::read(&path).expect("read back"), b"second");
        let leftovers = std::fs::read_dir(path.parent().expect("a folder"))
            .expect("listed")
            .count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
        let blocked = folder
            .path()
            .join("new")
            .join("deeper")
            .join("k.ptx")
            .join("x");
        let refused = write_atomically(&blocked, b"x").expect_err("a file is not a folder");
        assert!(
            refused.to_string().starts_with("cannot create the folder"),
            "{refused}"
        );
    }
}
