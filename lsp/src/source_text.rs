//! What the source text says about an item: its declaration and its doc comment,
//! for the user's file and the embedded stdlib alike, and where the stdlib's files
//! are for go-to-definition.
//!
//! A doc comment is the run of `//` lines directly above an item (the stdlib
//! documents every atom so). The stdlib is embedded in `cukc`; definitions point at
//! the repository's `stdlib/` when its files are the ones embedded, else at copies
//! written once into a directory under the system's temporary directory.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use lang::Span;
use lang::ast::{Item, ItemKind};
use lsp_types::Uri;
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
        ItemKind::Atom(_) | ItemKind::Const(_) | ItemKind::Use(_) | ItemKind::Error => {
            item.span.end
        }
    };
    let span = Span::new(item.span.start, end.max(item.span.start));
    text.get(span.range()).unwrap_or("").trim_end().to_owned()
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
        let copies = std::env::temp_dir().join(format!(
            "cukc-{}-stdlib-{}",
            env!("CARGO_PKG_VERSION"),
            content_hash()
        ));
        stdlib::modules()
            .iter()
            .map(|module| {
                let file_name = format!("{}.cuk", module.name);
                let in_repository = repository.join(&file_name);
                let path = if std::fs::read_to_string(&in_repository)
                    .is_ok_and(|text| text == module.source)
                {
                    Some(in_repository)
                } else {
                    write_copy(&copies, &file_name, module.source)
                };
                StdlibFile {
                    uri: path.and_then(|path| file_uri(&path)),
                    lines: LineMap::new(module.source),
                }
            })
            .collect()
    })
}

fn write_copy(directory: &Path, file_name: &str, source: &str) -> Option<PathBuf> {
    let path = directory.join(file_name);
    if std::fs::read_to_string(&path).is_ok_and(|text| text == source) {
        return Some(path);
    }
    std::fs::create_dir_all(directory).ok()?;
    std::fs::write(&path, source).ok()?;
    Some(path)
}

/// A short fingerprint of the embedded sources, so copies of different versions
/// never share a directory.
fn content_hash() -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (_, source) in stdlib::SOURCES {
        for byte in source.bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
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
    use super::{declaration, doc_comment, file_uri, stdlib_files};

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
        let odd = file_uri(std::path::Path::new("/tmp/a b#c.cuk")).map(|u| u.as_str().to_owned());
        assert_eq!(odd.as_deref(), Some("file:///tmp/a%20b%23c.cuk"));
    }
}
