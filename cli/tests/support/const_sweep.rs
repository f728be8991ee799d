//! Sampling an example's const parameters (`cli/tests/example_const_sweep.rs`): which
//! points to try, the example's source with a point's values as the defaults, and what
//! `cukc check` and `cukc test --emulate` say of it.
//!
//! A point is a value for some of the parameters (the others keep their defaults). It
//! is written into the source by replacing each parameter's default where it is
//! declared, `const NAME: int = DEFAULT` followed by `,` `;` or `>` (a top-level const
//! or a kernel's const parameter), in every kernel or only in the one a `KERNEL::NAME`
//! names; tests that pass a parameter explicitly keep their own value. Lines stay where
//! they were, so a diagnostic's line is the example's line.

use std::path::Path;

use rand_core::{Rng, SeedableRng};
use rand_xorshift::XorShiftRng;

/// One const parameter: its default and the values to try, those the example must
/// accept (its tests pass) and those it must refuse (a `static_assert`).
#[derive(Clone, Copy)]
pub struct Param {
    /// `NAME`, or `KERNEL::NAME` for one kernel's parameter only.
    pub name: &'static str,
    pub default: &'static str,
    pub accepted: &'static [&'static str],
    pub refused: &'static [&'static str],
}

/// `Param { name, default, accepted, refused }`, in a line of the table.
pub const fn param(
    name: &'static str,
    default: &'static str,
    accepted: &'static [&'static str],
    refused: &'static [&'static str],
) -> Param {
    Param {
        name,
        default,
        accepted,
        refused,
    }
}

/// An example and its parameters.
pub struct Example<'a> {
    pub file: &'static str,
    pub params: &'a [Param],
    /// Combinations that must be accepted (a value one parameter supports only beside
    /// another's).
    pub accepted: &'a [&'a [(&'static str, &'static str)]],
    /// The test blocks (a `cukc test --filter`) a quick sweep runs; `None`: all.
    pub quick_filter: Option<&'static str>,
}

/// What a point must do: pass, be refused, or either (a random combination).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expect {
    Accepted,
    Refused,
    Either,
}

pub type Point = Vec<(&'static str, &'static str)>;

/// The points to try: each listed value of each parameter with the others at their
/// defaults, the listed combinations, and `random` combinations drawn with a fixed
/// seed, each parameter taking its default or one of its values.
pub fn points(example: &Example<'_>, random: usize) -> Vec<(Point, Expect)> {
    let mut points: Vec<(Point, Expect)> = Vec::new();
    for param in example.params {
        for value in param.accepted {
            points.push((vec![(param.name, *value)], Expect::Accepted));
        }
        for value in param.refused {
            points.push((vec![(param.name, *value)], Expect::Refused));
        }
    }
    for combination in example.accepted {
        points.push((combination.to_vec(), Expect::Accepted));
    }
    let mut rng = XorShiftRng::seed_from_u64(33);
    for _ in 0..random {
        let point: Point = example
            .params
            .iter()
            .filter_map(|param| {
                let values: Vec<&'static str> = std::iter::once(param.default)
                    .chain(param.accepted.iter().copied())
                    .chain(param.refused.iter().copied())
                    .collect();
                let value = values[(rng.next_u64() % values.len() as u64) as usize];
                (value != param.default).then_some((param.name, value))
            })
            .collect();
        if !point.is_empty() && points.iter().all(|(known, _)| *known != point) {
            points.push((point, Expect::Either));
        }
    }
    points
}

/// `source` with `point`'s values in place of the defaults.
pub fn rewrite(source: &str, example: &Example<'_>, point: &Point) -> String {
    let mut text = source.to_owned();
    for (name, value) in point {
        let param = example
            .params
            .iter()
            .find(|param| param.name == *name)
            .unwrap_or_else(|| panic!("{}: no parameter {name}", example.file));
        let (kernel, bare) = match name.split_once("::") {
            Some((kernel, bare)) => (Some(kernel), bare),
            None => (None, *name),
        };
        let (start, end) = match kernel {
            Some(kernel) => {
                let start = text
                    .find(&format!("kernel {kernel}<"))
                    .unwrap_or_else(|| panic!("{}: no kernel {kernel}", example.file));
                // Through the list's `>`, which ends the last parameter's default.
                (
                    start,
                    start + text[start..].find(">(").expect("a generic list") + 1,
                )
            }
            None => (0, text.len()),
        };
        let declaration = format!("const {bare}: int = {}", param.default);
        let mut region = text[start..end].to_owned();
        let mut replaced = 0;
        let mut at = 0;
        while let Some(found) = region[at..].find(&declaration) {
            let after = at + found + declaration.len();
            at = after;
            if region[after..].starts_with([',', ';', '>']) {
                let value_start = after - param.default.len();
                region.replace_range(value_start..after, value);
                replaced += 1;
                at = value_start + value.len();
            }
        }
        assert!(
            replaced > 0,
            "{}: no `{declaration}` to rewrite (is the table in the test stale?)",
            example.file
        );
        text.replace_range(start..end, &region);
    }
    text
}

/// `source` with its benches, its tune blocks and the test blocks whose names do not
/// contain `filter` blanked out, line for line (a block runs from its `test NAME {`,
/// `bench NAME {` or `tune NAME: ...` line to the next line that is `}`): `check` then
/// checks only the instantiations the quick sweep runs.
pub fn keep_tests(source: &str, filter: &str) -> String {
    let mut blanking = false;
    let mut lines = Vec::new();
    for line in source.lines() {
        let block = (line.strip_prefix("test "))
            .or(line.strip_prefix("bench "))
            .or(line.strip_prefix("tune "));
        if let Some(name) = block {
            // Benches go, and with them the tune blocks that name them.
            blanking = !line.starts_with("test ") || !name.contains(filter);
        }
        lines.push(if blanking { "" } else { line });
        if line == "}" {
            blanking = false;
        }
    }
    lines.join("\n") + "\n"
}

/// Why `cukc check`'s output (short format) is not a refusal by `static_assert`: it
/// must hold errors, each E0228 at a line inside a `static_assert(` call of `source`.
pub fn not_a_refusal(output: &str, source: &str) -> Option<String> {
    let lines: Vec<&str> = source.lines().collect();
    let diagnostics: Vec<&str> = output.lines().filter(|line| !line.is_empty()).collect();
    if diagnostics.is_empty() {
        return Some("no diagnostic".to_owned());
    }
    for diagnostic in diagnostics {
        if !diagnostic.contains(": error[E0228]: `static_assert` failed: ") {
            return Some(format!("not a static_assert: {diagnostic}"));
        }
        let line: usize = diagnostic
            .split(':')
            .nth(1)
            .and_then(|line| line.parse().ok())
            .unwrap_or(0);
        // The condition's line, or the line of the call it sits in when the call
        // spreads over several.
        let in_assert = (line.saturating_sub(3)..line).any(|index| {
            lines
                .get(index)
                .is_some_and(|l| l.contains("static_assert("))
        });
        if !in_assert {
            return Some(format!("not at a static_assert's line: {diagnostic}"));
        }
    }
    None
}

/// The point as `NAME=VALUE ...`.
pub fn describe(point: &Point) -> String {
    let parts: Vec<String> = point
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    parts.join(" ")
}

/// The target a file's first line names (`// target: sm_100a`), else sm_90a.
pub fn target_of(source: &str) -> &str {
    source
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("// target: "))
        .map_or("sm_90a", str::trim)
}

/// Writes `text` to `folder/name`.
pub fn write(folder: &Path, name: &str, text: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(folder).unwrap();
    let path = folder.join(name);
    std::fs::write(&path, text).unwrap();
    path
}
