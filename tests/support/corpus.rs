//! Diagnostic corpora as data, shared by the parser's corpus test
//! (`grammar/tests/diagnostics.rs`, `tests/diagnostics/`) and the typechecker's
//! (`typecheck/tests/corpus.rs`, `tests/typecheck/`): the `.cuk` files of a folder, and
//! a file's diagnostics rendered the way their snapshots hold them.

use std::path::Path;

use lang::render::{Style, human, short};
use lang::{Diagnostic, SourceFile};

/// The `.cuk` files of `directory`, by name, sorted; each with its bytes.
pub fn cuk_files(directory: &Path) -> Vec<(String, Vec<u8>)> {
    let entries = std::fs::read_dir(directory)
        .map_or_else(|_| Vec::new(), |entries| entries.flatten().collect());
    let mut files: Vec<(String, Vec<u8>)> = entries
        .into_iter()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "cuk"))
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            Some((name, std::fs::read(&path).ok()?))
        })
        .collect();
    files.sort();
    files
}

/// What a corpus snapshot holds: the one-line rendering, then the terminal one
/// without colour.
pub fn rendered(diagnostics: &[Diagnostic], file: &SourceFile) -> String {
    format!(
        "{}\n{}",
        short(diagnostics, file),
        human(diagnostics, file, Style::Plain)
    )
}
