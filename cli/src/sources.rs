//! Which files a command takes, and reading them. `check`, `test`, `bench` and `run`
//! expand a folder to the `.cuk` files directly in it ([`files`]); a source is read
//! through `lang::read`, only when it is a regular file of at most
//! `lang::source::MAX_FILE_BYTES` (16 MiB), so a FIFO, a device such as `/dev/zero` or
//! a huge file is refused before reading, never blocking or filling memory.

use std::fmt;
use std::path::PathBuf;

pub use lang::read::{header, read};

/// Why a command has no files to take.
#[derive(Debug)]
pub enum FilesError {
    /// A folder named on the command line could not be read.
    Folder {
        folder: PathBuf,
        error: std::io::Error,
    },
    /// There are no `.cuk` files.
    None,
}

impl fmt::Display for FilesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilesError::Folder { folder, error } => {
                write!(f, "cannot read {}: {error}", folder.display())
            }
            FilesError::None => f.write_str("no .cuk files to run"),
        }
    }
}

impl std::error::Error for FilesError {}

/// The `.cuk` files named by `paths`, folders expanded (sorted), the current folder
/// when there are none.
pub fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, FilesError> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(&path).map_err(|error| FilesError::Folder {
                folder: path.clone(),
                error,
            })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|file| file.extension().is_some_and(|extension| extension == "cuk"))
                .filter(|file| !file.is_dir())
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path);
        }
    }
    if files.is_empty() {
        return Err(FilesError::None);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::files;
    use std::path::PathBuf;

    #[test]
    fn folders_expand_to_their_cuk_files_in_order() {
        let folder = tempfile::tempdir().expect("a scratch folder");
        for name in ["b.cuk", "a.cuk", "notes.txt"] {
            std::fs::write(folder.path().join(name), "").expect("written");
        }
        std::fs::create_dir(folder.path().join("sub.cuk")).expect("a folder named .cuk");
        let named = PathBuf::from("x.cuk");
        let found = files(&[folder.path().to_owned(), named.clone()]).expect("files");
        let expected = [
            folder.path().join("a.cuk"),
            folder.path().join("b.cuk"),
            named,
        ];
        assert_eq!(found, expected);
        let empty = tempfile::tempdir().expect("a scratch folder");
        assert!(files(&[empty.path().to_owned()]).is_err());
    }
}
