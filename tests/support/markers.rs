//! Inline expectation markers for diagnostic corpora, shared by the parser's
//! corpus (`tests/diagnostics/`) and the typechecker's (`tests/typecheck/`).
//!
//! `//~ SEVERITY[CODE]` expects a diagnostic of that severity and code whose
//! primary span starts on the marker's line; each `^` right after `//~` moves
//! the expectation one line up. The markers are read from the raw text, so they
//! work inside unterminated strings and comments too.

use std::collections::BTreeMap;

use lang::render::short;
use lang::{Diagnostic, SourceFile};

/// One expected or actual diagnostic, as the markers describe it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[allow(missing_docs)]
pub struct Expectation {
    pub line: u32,
    pub severity: String,
    pub code: String,
}

/// The markers of a file, or a description of the first malformed one.
pub fn markers(text: &str) -> Result<Vec<Expectation>, String> {
    let mut expectations = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = u32::try_from(index + 1).map_err(|_| "too many lines".to_owned())?;
        for marker in line.split("//~").skip(1) {
            let carets = marker
                .chars()
                .take_while(|&character| character == '^')
                .count();
            let rest = marker[carets..].trim_start();
            let malformed = || {
                format!(
                    "line {line_number}: malformed marker `//~{}`",
                    marker.trim_end()
                )
            };
            let (severity, after_severity) = rest.split_once('[').ok_or_else(malformed)?;
            let (code, _) = after_severity.split_once(']').ok_or_else(malformed)?;
            let target = line_number
                .checked_sub(u32::try_from(carets).map_err(|_| malformed())?)
                .filter(|&target| target >= 1)
                .ok_or_else(malformed)?;
            if !matches!(severity, "error" | "warning" | "note") {
                return Err(malformed());
            }
            expectations.push(Expectation {
                line: target,
                severity: severity.to_owned(),
                code: code.to_owned(),
            });
        }
    }
    Ok(expectations)
}

fn actual(file: &SourceFile, diagnostics: &[Diagnostic]) -> Vec<Expectation> {
    diagnostics
        .iter()
        .map(|diagnostic| {
            let start = u32::try_from(file.clamp_span(diagnostic.span()).start).unwrap_or(u32::MAX);
            Expectation {
                line: file.line_column(start).line,
                severity: diagnostic.severity.as_str().to_owned(),
                code: diagnostic.code.to_owned(),
            }
        })
        .collect()
}

/// The difference between expected and actual, as readable lines; empty when
/// they match.
pub fn compare(
    name: &str,
    expected: &[Expectation],
    file: &SourceFile,
    diagnostics: &[Diagnostic],
) -> Vec<String> {
    let mut remaining: BTreeMap<&Expectation, usize> = BTreeMap::new();
    for expectation in expected {
        *remaining.entry(expectation).or_default() += 1;
    }
    let mut problems = Vec::new();
    for (found, diagnostic) in actual(file, diagnostics).iter().zip(diagnostics) {
        match remaining.get_mut(found) {
            Some(count) if *count > 0 => *count -= 1,
            _ => problems.push(format!(
                "{name}: unexpected {}",
                short(std::slice::from_ref(diagnostic), file).trim_end()
            )),
        }
    }
    for (expectation, count) in remaining {
        for _ in 0..count {
            let Expectation {
                line,
                severity,
                code,
            } = expectation;
            problems.push(format!("{name}:{line}: missing {severity}[{code}]"));
        }
    }
    problems
}
