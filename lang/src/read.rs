//! The one way the front ends (`cukc`, the language server, the Python package) read a
//! source file: only a regular file of at most [`MAX_FILE_BYTES`] is read, so that a
//! FIFO, a device such as `/dev/zero` or a huge file is refused before reading,
//! never blocking or filling memory. The rest of this crate does no I/O.

use std::fmt;
use std::path::Path;

use crate::source::MAX_FILE_BYTES;

/// Why a file was not read; its words finish the sentence of `E0001` ("cannot read the
/// file: ...").
#[derive(Debug)]
pub enum ReadError {
    /// The file system refused (no such file, no permission, a failed read).
    Io(std::io::Error),
    /// The path names a folder.
    Folder,
    /// The path names a FIFO, a socket or a device.
    NotRegular,
    /// The file holds `bytes` bytes or more, past the `limit`.
    TooLarge {
        /// How many bytes it was seen to hold, at least.
        bytes: u64,
        /// The most bytes read.
        limit: u64,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(error) => write!(f, "{error}"),
            ReadError::Folder => write!(f, "it is a folder"),
            ReadError::NotRegular => {
                write!(f, "it is not a regular file (a FIFO, socket or device)")
            }
            ReadError::TooLarge { bytes, limit } => write!(
                f,
                "it is {bytes} bytes or more; files of at most {limit} bytes are read"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// The bytes of the regular file at `path`, at most [`MAX_FILE_BYTES`] of
/// them; anything else (a folder, a FIFO, a device, a larger file) is refused
/// before it is read, so that `check` never blocks on a pipe or fills memory from
/// `/dev/zero`. The error's words are a sentence for `E0001`.
pub fn read(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_at_most(path, MAX_FILE_BYTES)
}

/// [`read`] with another limit than [`MAX_FILE_BYTES`]: the bytes of the regular file
/// at `path`, refused before reading when it is not one or holds more than `limit`.
pub fn read_at_most(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let too_large = |bytes: u64| ReadError::TooLarge { bytes, limit };
    let metadata = std::fs::metadata(path).map_err(ReadError::Io)?;
    if metadata.is_dir() {
        return Err(ReadError::Folder);
    }
    if !metadata.is_file() {
        return Err(ReadError::NotRegular);
    }
    if metadata.len() > limit {
        return Err(too_large(metadata.len()));
    }
    // The size may lie (files in /proc say 0) or change: read one byte past the limit.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(limit + 1).read_to_end(&mut bytes))
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit + 1));
    }
    Ok(bytes)
}

/// The first `bytes` bytes of the regular file at `path`, as text, where a
/// `// target:` line is looked for (`cute::Target::HEADER_BYTES`); empty for
/// anything [`read`] refuses (which `check` then reports), so that the lookup never
/// blocks on a FIFO or reads `/dev/zero`.
pub fn header(path: &Path, bytes: usize) -> String {
    use std::io::Read;
    let regular = std::fs::metadata(path).is_ok_and(|metadata| metadata.is_file());
    let mut text = Vec::new();
    if regular && let Ok(file) = std::fs::File::open(path) {
        let _partial_is_enough = file.take(bytes as u64).read_to_end(&mut text);
    }
    String::from_utf8_lossy(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_and_oversized_files_are_refused_before_reading() {
        let started = std::time::Instant::now();
        let folder = tempfile::tempdir().expect("a scratch folder");
        let fifo = folder.path().join("pipe.cuk");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|status| status.success()), "mkfifo failed");
        for special in [fifo.as_path(), Path::new("/dev/zero")] {
            let refused = read(special).expect_err("not a regular file");
            assert!(matches!(refused, ReadError::NotRegular), "{refused}");
            assert!(
                refused.to_string().contains("not a regular file"),
                "{refused}"
            );
        }
        let refused = read(folder.path()).expect_err("a folder");
        assert_eq!(refused.to_string(), "it is a folder");
        let huge = folder.path().join("huge.cuk");
        let file = std::fs::File::create(&huge).expect("a scratch file");
        file.set_len(MAX_FILE_BYTES + 1).expect("a sparse file");
        for special in [fifo.as_path(), Path::new("/dev/zero"), folder.path()] {
            assert_eq!(header(special, 4096), "");
        }
        let refused = read(&huge).expect_err("too large").to_string();
        assert!(refused.contains("at most 16777216 bytes"), "{refused}");
        let refused = read_at_most(&fifo, 1 << 30).expect_err("not a regular file");
        assert!(matches!(refused, ReadError::NotRegular), "{refused}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
