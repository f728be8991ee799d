//! The standard library: `.cuk` sources under `stdlib/`, embedded in the compiler and
//! parsed once per process.

use std::sync::OnceLock;

use lang::ast::Module;

/// The stdlib modules' names and sources; the name is the path prefix (`sm80::`).
pub const SOURCES: &[(&str, &str)] = &[
    ("universal", include_str!("../../stdlib/universal.cuk")),
    ("sm80", include_str!("../../stdlib/sm80.cuk")),
    ("sm90", include_str!("../../stdlib/sm90.cuk")),
    ("sm100", include_str!("../../stdlib/sm100.cuk")),
    ("reduce", include_str!("../../stdlib/reduce.cuk")),
    ("pipeline", include_str!("../../stdlib/pipeline.cuk")),
];

/// One parsed stdlib module.
pub struct StdModule {
    /// Its name, as written before `::`.
    pub name: &'static str,
    /// Its source text.
    pub source: &'static str,
    /// The parsed items.
    pub module: Module,
}

/// Every stdlib module, parsed. The sources are part of the compiler and parse
/// without errors (a test checks); a syntax error would leave items out, never panic.
pub fn modules() -> &'static [StdModule] {
    static MODULES: OnceLock<Vec<StdModule>> = OnceLock::new();
    MODULES.get_or_init(|| {
        SOURCES
            .iter()
            .map(|&(name, source)| StdModule {
                name,
                source,
                module: crate::jumps::rewrite(&grammar::parse(source).0).into_owned(),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::SOURCES;

    #[test]
    fn every_stdlib_source_parses_without_diagnostics() {
        for (name, source) in SOURCES {
            let (module, diagnostics) = grammar::parse(source);
            assert!(diagnostics.is_empty(), "stdlib {name}: {diagnostics:?}");
            assert!(!module.items.is_empty(), "stdlib {name} is empty");
        }
    }
}
