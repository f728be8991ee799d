//! What the source text says about an item: its declaration and its doc comment,
//! for the user's file and the embedded stdlib alike, and where the stdlib's files
//! are for go-to-definition.
//!
//! A doc comment is the run of `//` lines directly above an item (the stdlib
//! documents every atom so). The stdlib is embedded in `cukc`; definitions point at
//! the repository's `stdlib/` when its files are the ones embedded, else at copies
//! written once per server into a fresh private directory (see [`stdlib_files`]),
//! removed when the server ends.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use lang::Span;
use lang::ast::{Item, ItemKind, Name, PatternKind};
use lsp_types::Uri;
use tempfile::TempDir;
use typecheck::stdlib;

use crate::position::LineMap;

/// The `//` comment lines directly above byte `start` of `text`, without the
/// slashes, joined by newlines.
pub fn doc_comment(text: &str, start: u32) -> String {
    let before = text.get(..start as usize).unwrap_or("");
    let mut lines: Vec<&str> = Vec::new();
    for line in before.lines().rev() {
        let line = line.trim();
        match line.strip_prefix("//") {
            Some(comment) => lines.push(comment.strip_prefix(' ').unwrap_or(comment)),
            None if line.is_empty() && lines.is_empty() && !before.ends_with('\n') => {}
            None => break,
        }
    }
    lines.reverse();
    lines.join("\n")
}

/// The declaration of `item` in `text`: an atom or const whole, a kernel or
/// function up to its body's `{`, a test or bench up to its `{`.
pub fn declaration(text: &str, item: &Item) -> String {
    let end = match &item.kind {
        ItemKind::Function(function) => function.body.span.start,
        ItemKind::Kernel(kernel) => kernel.body.span.start,
        ItemKind::Test(test) | ItemKind::Bench(test) => test.body.span.start,
        ItemKind::Atom(_)
        | ItemKind::Const(_)
        | ItemKind::Tune(_)
        | ItemKind::Use(_)
        | ItemKind::Error => item.span.end,
    };
    let span = Span::new(item.span.start, end.max(item.span.start));
    text.get(span.range()).unwrap_or("").trim_end().to_owned()
}

/// The name an item defines, if it defines one (a `const (A, B)` defines none).
pub fn item_name(item: &Item) -> Option<&Name> {
    match &item.kind {
        ItemKind::Kernel(kernel) => Some(&kernel.name),
        ItemKind::Function(function) => Some(&function.name),
        ItemKind::Atom(atom) => Some(&atom.name),
        ItemKind::Test(test) | ItemKind::Bench(test) => Some(&test.name),
        ItemKind::Tune(tune) => Some(&tune.name),
        ItemKind::Const(const_item) => match &const_item.pattern.kind {
            PatternKind::Name(name) => Some(name),
            PatternKind::Tuple(_) | PatternKind::Wildcard => None,
        },
        ItemKind::Use(_) | ItemKind::Error => None,
    }
}

/// The index of the stdlib module called `name`.
pub fn stdlib_module(name: &str) -> Option<usize> {
    stdlib::modules()
        .iter()
        .position(|module| module.name == name)
}

/// The first comment line of a stdlib module: what the module is for.
pub fn module_summary(module: usize) -> String {
    let source = stdlib::modules()[module].source;
    source
        .lines()
        .next()
        .and_then(|line| line.trim().strip_prefix("//"))
        .unwrap_or("")
        .trim()
        .to_owned()
}

/// A stdlib module's file: its URI (when it could be had) and its lines.
pub struct StdlibFile {
    /// The file's URI; `None` when no copy could be written.
    pub uri: Option<Uri>,
    /// The lines of the embedded source.
    pub lines: LineMap,
}

/// Every stdlib module's file, in the order of [`stdlib::modules`], found or
/// written on first use.
pub fn stdlib_files() -> &'static [StdlibFile] {
    static FILES: OnceLock<Vec<StdlibFile>> = OnceLock::new();
    FILES.get_or_init(|| {
        let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../stdlib");
        let (files, copies) = locate_stdlib(&repository);
        if let Ok(mut kept) = COPIES.lock() {
            *kept = copies;
        }
        files
    })
}

/// The private directory holding this process's copies of the stdlib, if any.
static COPIES: Mutex<Option<TempDir>> = Mutex::new(None);

/// Removes the copies [`stdlib_files`] wrote, if it wrote any: when the server ends.
pub fn remove_stdlib_copies() {
    if let Ok(mut kept) = COPIES.lock() {
        kept.take();
    }
}

/// The stdlib's files: those in `repository` when they hold the embedded text,
/// else copies written into a fresh private directory, returned to be kept for as
/// long as the files are used.
///
/// The directory is `tempfile`'s: a random name under the temporary directory,
/// made with mode 0700 by a `mkdir` that fails rather than reuse anything
/// that exists, so no other user can predict it, plant a symbolic link at it or read
/// and replace what is written there.
fn locate_stdlib(repository: &Path) -> (Vec<StdlibFile>, Option<TempDir>) {
    let in_repository = stdlib::modules().iter().all(|module| {
        // Read as every source is: a FIFO planted there is refused, not waited on.
        lang::read::read(&repository.join(format!("{}.cuk", module.name)))
            .is_ok_and(|bytes| bytes == module.source.as_bytes())
    });
    let copies = if in_repository {
        None
    } else {
        tempfile::Builder::new()
            .prefix("cukc-stdlib-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .ok()
            .filter(|directory| write_copies(directory.path()).is_ok())
    };
    let directory = match &copies {
        Some(copies) => Some(copies.path()),
        None => in_repository.then_some(repository),
    };
    let files = stdlib::modules()
        .iter()
        .map(|module| StdlibFile {
            uri: directory
                .and_then(|directory| file_uri(&directory.join(format!("{}.cuk", module.name)))),
            lines: LineMap::new(module.source),
        })
        .collect();
    (files, copies)
}

/// Writes every module into `directory` (fresh and private), each file created
/// new, so nothing that already exists there is followed or overwritten.
fn write_copies(directory: &Path) -> std::io::Result<()> {
    for module in stdlib::modules() {
        let path = directory.join(format!("{}.cuk", module.name));
        let mut file = std::fs::File::create_new(path)?;
        file.write_all(module.source.as_bytes())?;
    }
    Ok(())
}

/// The `file://` URI of an absolute `path`, percent-encoding what URIs reserve.
pub fn file_uri(path: &Path) -> Option<Uri> {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let text = path.to_str()?;
    let mut uri = String::from("file://");
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-_.~".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri.parse().ok()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    use super::{declaration, doc_comment, file_uri, locate_stdlib, stdlib_files};

    #[test]
    fn doc_comments_are_the_comment_lines_directly_above() {
        let text = "// not this\n\n// first\n//second\nconst A = 1;\n";
        let start = text.find("const").unwrap_or(0) as u32;
        assert_eq!(doc_comment(text, start), "first\nsecond");
        assert_eq!(doc_comment(text, 0), "");
    }

    #[test]
    fn declarations_stop_at_the_body() {
        let text = "kernel k(a: i32) launch grid(1) block(1) {\n    let x = a;\n}\n";
        let (module, _) = grammar::parse(text);
        assert_eq!(
            declaration(text, &module.items[0]),
            "kernel k(a: i32) launch grid(1) block(1)"
        );
    }

    #[test]
    fn stdlib_files_have_uris_with_the_embedded_text() {
        for (file, module) in stdlib_files().iter().zip(typecheck::stdlib::modules()) {
            let uri = file.uri.as_ref().map(|uri| uri.as_str().to_owned());
            let path = uri.as_deref().and_then(|uri| uri.strip_prefix("file://"));
            let text = path.and_then(|path| std::fs::read_to_string(path).ok());
            assert_eq!(text.as_deref(), Some(module.source), "{uri:?}");
        }
        let odd = file_uri(Path::new("/tmp/a b#c.cuk")).map(|u| u.as_str().to_owned());
        assert_eq!(odd.as_deref(), Some("file:///tmp/a%20b%23c.cuk"));
    }

    /// Where earlier versions wrote their copies: a name anyone could predict.
    fn old_predictable_directory() -> std::path::PathBuf {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for (_, source) in typecheck::stdlib::SOURCES {
            for byte in source.bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        let name = format!("cukc-{}-stdlib-{hash:016x}", env!("CARGO_PKG_VERSION"));
        std::env::temp_dir().join(name)
    }

    #[test]
    fn copies_go_to_a_fresh_private_directory_never_through_a_planted_link() {
        let attacker = tempfile::tempdir().expect("a scratch directory");
        let planted = old_predictable_directory();
        let _ = std::fs::remove_file(&planted);
        let planted_here = std::os::unix::fs::symlink(attacker.path(), &planted).is_ok();
        let (files, copies) = locate_stdlib(Path::new("/nonexistent/stdlib"));
        let copies = copies.expect("copies were written");
        if planted_here {
            let _ = std::fs::remove_file(&planted);
        }
        let written = std::fs::read_dir(attacker.path()).map_or(0, Iterator::count);
        assert_eq!(written, 0, "nothing is written through the link");
        let mode = std::fs::metadata(copies.path()).map(|m| m.permissions().mode() & 0o777);
        assert_eq!(mode.ok(), Some(0o700));
        for (file, module) in files.iter().zip(typecheck::stdlib::modules()) {
            let uri = file.uri.as_ref().map(|uri| uri.as_str().to_owned());
            let path = uri.as_deref().and_then(|uri| uri.strip_prefix("file://"));
            assert!(path.is_some_and(|path| Path::new(path).starts_with(copies.path())));
            let text = path.and_then(|path| std::fs::read_to_string(path).ok());
            assert_eq!(text.as_deref(), Some(module.source));
        }
        let (_, other) = locate_stdlib(Path::new("/nonexistent/stdlib"));
        assert_ne!(
            other.map(|other| other.path().to_owned()),
            Some(copies.path().to_owned())
        );
        let directory = copies.path().to_owned();
        drop(copies);
        assert!(
            !directory.exists(),
            "the copies are removed with the server"
        );
    }
}
