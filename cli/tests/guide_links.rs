//! The guide for CuTe users (`docs/guide/*.md`) stays true to the files it teaches from:
//! every relative link names a file that exists, a link to a `.cuk` file's lines
//! (`file.cuk#L45-L54`) names lines the file has, and every quoted line of a fenced
//! block written as `45 |     let gA = ...` is, character for character, line 45 of the
//! `.cuk` file the nearest link before the block names. Its `.cuk` steps run in CI with
//! the examples (`emulated.rs`).

#[path = "support/build.rs"]
mod build;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use build::root;

/// The markdown files of `docs/guide/`, sorted.
fn guide_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs/guide"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    pages
}

/// The targets of the markdown links `[text](target)` on one line.
fn link_targets(line: &str) -> Vec<&str> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find("](") {
        rest = &rest[start + 2..];
        let Some(end) = rest.find(')') else { break };
        targets.push(&rest[..end]);
        rest = &rest[end + 1..];
    }
    targets
}

/// The line range of a `#L45-L54` (or `#L45`) fragment.
fn line_range(fragment: &str) -> Option<(usize, usize)> {
    let range = fragment.strip_prefix('L')?;
    let (first, last) = match range.split_once("-L") {
        Some((first, last)) => (first, last),
        None => (range, range),
    };
    Some((first.parse().ok()?, last.parse().ok()?))
}

/// A quoted source line, `45 |     text` (or `49 |` for an empty line): its number and text.
fn quoted_line(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start();
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    let number = trimmed[..digits].parse().ok()?;
    let rest = trimmed[digits..].strip_prefix(" |")?;
    match rest {
        "" => Some((number, "")),
        _ => Some((number, rest.strip_prefix(' ')?)),
    }
}

/// The lines of a file the guide links to, read once and kept in `cache`.
fn source_lines<'a>(cache: &'a mut HashMap<PathBuf, Vec<String>>, path: &Path) -> &'a [String] {
    cache.entry(path.to_path_buf()).or_insert_with(|| {
        std::fs::read_to_string(path)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
            .lines()
            .map(str::to_owned)
            .collect()
    })
}

/// Every problem of one page: links to missing files or lines, and quotes that differ.
fn page_problems(page: &Path) -> (Vec<String>, usize) {
    let folder = page.parent().unwrap();
    let name = page.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(page).unwrap();
    let mut problems = Vec::new();
    let mut quoted = 0;
    let mut sources = HashMap::new();
    let mut last_cuk: Option<PathBuf> = None;
    let mut in_fence = false;
    for (index, line) in text.lines().enumerate() {
        let at = format!("{name}:{}", index + 1);
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            if let Some((number, quote)) = quoted_line(line) {
                let Some(source) = &last_cuk else {
                    problems.push(format!("{at}: a quoted line with no `.cuk` link before it"));
                    continue;
                };
                match source_lines(&mut sources, source).get(number.wrapping_sub(1)) {
                    Some(actual) if actual.trim_end() == quote.trim_end() => quoted += 1,
                    Some(actual) => problems.push(format!(
                        "{at}: line {number} of {} is\n    {actual}\nnot\n    {quote}",
                        source.display()
                    )),
                    None => {
                        problems.push(format!("{at}: {} has no line {number}", source.display()))
                    }
                }
            }
            continue;
        }
        for target in link_targets(line) {
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let path = folder.join(file);
            if !path.exists() {
                problems.push(format!("{at}: `{target}`: no such file"));
                continue;
            }
            if !file.ends_with(".cuk") {
                continue;
            }
            if !fragment.is_empty() {
                let lines = source_lines(&mut sources, &path).len();
                match line_range(fragment) {
                    Some((first, last)) if first >= 1 && (first..=lines).contains(&last) => {}
                    _ => problems.push(format!(
                        "{at}: `{target}`: not a line range of the file's {lines} lines"
                    )),
                }
            }
            last_cuk = Some(path);
        }
    }
    (problems, quoted)
}

#[test]
fn the_guide_links_and_quotes_the_files_as_they_are() {
    let pages = guide_pages();
    assert!(pages.len() >= 2, "docs/guide/ has only {pages:?}");
    let mut problems = Vec::new();
    let mut quoted = 0;
    for page in &pages {
        let (page_problems, page_quoted) = page_problems(page);
        problems.extend(page_problems);
        quoted += page_quoted;
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The chapters quote the lines that matter; a change to the quote form that this test
    // no longer recognises would leave it checking nothing.
    assert!(quoted >= 100, "only {quoted} quoted lines were checked");
}

#[test]
fn quoted_lines_and_ranges_parse() {
    assert_eq!(
        quoted_line(" 45 |     let x = 1;"),
        Some((45, "    let x = 1;"))
    );
    assert_eq!(quoted_line("49 |"), Some((49, "")));
    assert_eq!(quoted_line("cukc check: 1 error"), None);
    assert_eq!(quoted_line(" 52 │     let tAgA"), None);
    assert_eq!(line_range("L45-L54"), Some((45, 54)));
    assert_eq!(line_range("L7"), Some((7, 7)));
    assert_eq!(line_range("section"), None);
    assert_eq!(
        link_targets("see [a](x.cuk#L1-L2) and [b](../y.md)"),
        vec!["x.cuk#L1-L2", "../y.md"]
    );
}
