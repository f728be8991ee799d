//! Which files a command takes, and reading them. `check`, `test`, `bench` and `run`
//! expand a folder to the `.cuk` files directly in it ([`files`]); a source is read
//! only when it is a regular file of at most `lang::source::MAX_FILE_BYTES` (16 MiB),
//! so a FIFO, a device such as `/dev/zero` or a huge file is refused before reading
//! ([`read`]), never blocking or filling memory.

use std::path::{Path, PathBuf};

use lang::source::MAX_FILE_BYTES;

/// The bytes of the regular file at `path`, at most [`MAX_FILE_BYTES`] of
/// them; anything else (a folder, a FIFO, a device, a larger file) is refused
/// before it is read, so that `check` never blocks on a pipe or fills memory from
/// `/dev/zero`. The error is a sentence for `E0001`.
pub fn read(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let limit = MAX_FILE_BYTES;
    let too_large = |size: u64| {
        format!(
            "it is {size} bytes or more; source files of at most {limit} bytes (16 MiB) are read"
        )
    };
    let metadata = std::fs::metadata(path).map_err(|error| error.to_string())?;
    if !metadata.is_file() {
        let kind = if metadata.is_dir() {
            "a folder"
        } else {
            "not a regular file (a FIFO, socket or device)"
        };
        return Err(format!("it is {kind}"));
    }
    if metadata.len() > limit {
        return Err(too_large(metadata.len()));
    }
    // The size may lie (files in /proc say 0) or change: read one byte past the limit.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(limit + 1).read_to_end(&mut bytes))
        .map_err(|error| error.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit + 1));
    }
    Ok(bytes)
}

/// The first `cute::Target::HEADER_BYTES` bytes of the regular file at `path`, as
/// text, where a `// target:` line is looked for; empty for anything [`read`]
/// refuses (which `check` then reports), so that the lookup never blocks on a FIFO
/// or reads `/dev/zero`.
pub fn header(path: &Path) -> String {
    use std::io::Read;
    let regular = std::fs::metadata(path).is_ok_and(|metadata| metadata.is_file());
    let mut bytes = Vec::new();
    if regular && let Ok(file) = std::fs::File::open(path) {
        let _partial_is_enough = file
            .take(cute::Target::HEADER_BYTES as u64)
            .read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The `.cuk` files named by `paths`, folders expanded (sorted), the current folder
/// when there are none.
pub fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(&path)
                .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
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
        return Err("no .cuk files to run".to_owned());
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::{files, header, read};
    use std::path::{Path, PathBuf};

    #[test]
    fn special_and_oversized_files_are_refused_before_reading() {
        let started = std::time::Instant::now();
        let folder = tempfile::tempdir().expect("a scratch folder");
        let fifo = folder.path().join("pipe.cuk");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|status| status.success()), "mkfifo failed");
        for special in [fifo.as_path(), Path::new("/dev/zero")] {
            let refused = read(special).expect_err("not a regular file");
            assert!(refused.contains("not a regular file"), "{refused}");
        }
        assert!(
            read(folder.path())
                .expect_err("a folder")
                .contains("a folder")
        );
        let huge = folder.path().join("huge.cuk");
        let file = std::fs::File::create(&huge).expect("a scratch file");
        file.set_len(lang::source::MAX_FILE_BYTES + 1)
            .expect("a sparse file");
        for special in [fifo.as_path(), Path::new("/dev/zero"), folder.path()] {
            assert_eq!(header(special), "");
        }
        let refused = read(&huge).expect_err("too large");
        assert!(refused.contains("at most 16777216 bytes"), "{refused}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

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
