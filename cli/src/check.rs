//! `cukc check PATH...`: load, parse and typecheck files (a folder stands for its
//! `.cuk` files, as for `cukc test`), then report every diagnostic.
//!
//! Each file goes through [`lang::source::load`] (which rejects binary,
//! non-UTF-8 and oversized files), then, if it is text, through
//! [`grammar::parse`], and, if it parsed without errors, through
//! [`typecheck::check`] for the `--target` architecture; a file without items gets
//! the warning `W0001`. `--dump-types` prints every binding with its type and
//! evaluated value on standard output. Diagnostics are printed in the order the
//! files were named: human and short forms on standard error, JSON on standard
//! output. The exit code is 1 when any file has an error and 0 otherwise;
//! warnings alone do not fail the check.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use lang::render::{self, Style};
use lang::source::{self, Loaded};
use lang::{Diagnostic, Severity, SourceFile};

use crate::output::errln;
use crate::sources;

/// Arguments of `cukc check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// The `.cuk` files to check, or folders whose `.cuk` files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// How to print diagnostics: `human` (source excerpts), `short` (one
    /// `path:line:col: ...` line each) or `json` (one object per line, on stdout).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    message_format: MessageFormat,
    /// When to colour human-readable output; `auto` colours only a terminal and
    /// honours `NO_COLOR`.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
    /// The architecture to check for: `sm_80`, `sm_90a` or `sm_100a`. Atoms newer
    /// than it and shared memory beyond its limit are errors. Without it, each file's
    /// own: the one its opening comment lines name (`// target: sm_100a`), else sm_90a.
    #[arg(long, value_parser = parse_target)]
    target: Option<cute::Target>,
    /// Print every binding with its type and evaluated value (what an editor hover
    /// shows) on standard output.
    #[arg(long)]
    dump_types: bool,
}

/// `--target`'s parser, shared by the commands that take one.
pub fn parse_target(text: &str) -> Result<cute::Target, cute::UnknownTarget> {
    text.parse()
}

/// The rendering chosen with `--message-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum MessageFormat {
    Human,
    Short,
    Json,
}

/// The colour policy chosen with `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// Runs `cukc check`.
pub fn run(args: &CheckArgs) -> ExitCode {
    let style = match args.color {
        ColorWhen::Always => Style::Colored,
        ColorWhen::Never => Style::Plain,
        ColorWhen::Auto => auto_style(),
    };
    let files = match sources::files(&args.files) {
        Ok(files) => files,
        Err(message) => {
            errln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let mut tally = Tally::default();
    for path in &files {
        let target = args.target.unwrap_or_else(|| declared_target(path));
        let (file, diagnostics, bindings) = check_file(path, target);
        tally.count(&diagnostics);
        if args.dump_types {
            let line_column = |offset: u32| {
                let position = file.line_column(offset);
                (position.line, position.column)
            };
            let dump = typecheck::dump_bindings(&bindings, &line_column);
            let _ = writeln!(std::io::stdout().lock(), "{}\n{dump}", file.path());
        }
        let text = render_diagnostics(&diagnostics, &file, args.message_format, style);
        // A closed pipe is not worth a panic; the exit code still tells the story.
        let _ = match args.message_format {
            MessageFormat::Json => std::io::stdout().lock().write_all(text.as_bytes()),
            MessageFormat::Human | MessageFormat::Short => {
                std::io::stderr().lock().write_all(text.as_bytes())
            }
        };
    }
    if args.message_format == MessageFormat::Human
        && let Some(summary) = tally.summary()
    {
        let _ = writeln!(std::io::stderr().lock(), "{summary}");
    }
    if tally.errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Colour when standard error is a terminal and `NO_COLOR` is unset.
pub fn auto_style() -> Style {
    if std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        Style::Colored
    } else {
        Style::Plain
    }
}

/// A file loaded and parsed.
pub struct Parsed {
    /// The source.
    pub file: SourceFile,
    /// The diagnostics of loading and parsing.
    pub diagnostics: Vec<Diagnostic>,
    /// The module (empty when the file is not text).
    pub module: lang::ast::Module,
    /// Whether the file is text.
    pub is_text: bool,
    /// Whether it is text that parsed without errors, ready for the typechecker.
    pub parsed: bool,
}

/// Loads the file at `path` (rejecting binary, non-UTF-8 and oversized files) and
/// parses it; never fails, every problem is a diagnostic.
pub fn load_and_parse(path: &Path) -> Parsed {
    let display_path = path.display().to_string();
    let loaded = match sources::read(path) {
        Ok(bytes) => source::load(display_path, bytes),
        Err(reason) => Loaded::unreadable(display_path, &reason.to_string()),
    };
    let mut diagnostics = loaded.diagnostics;
    let mut module = lang::ast::Module::default();
    let mut parsed = false;
    if loaded.is_text {
        let (parsed_module, parse_diagnostics) = grammar::parse(loaded.file.text());
        parsed = !parse_diagnostics.iter().any(Diagnostic::is_error);
        diagnostics.extend(parse_diagnostics);
        module = parsed_module;
    }
    Parsed {
        file: loaded.file,
        diagnostics,
        module,
        is_text: loaded.is_text,
        parsed,
    }
}

/// The target `path`'s opening comment lines name (`// target: sm_100a`), sm_90a
/// without one; only the file's first bytes are read, and only from a regular file.
pub(crate) fn declared_target(path: &Path) -> cute::Target {
    cute::Target::declared_in(&sources::header(path, cute::Target::HEADER_BYTES))
        .unwrap_or(cute::Target::Sm90a)
}

/// Loads, parses, typechecks and lowers the file at `path` for `target` (so `check`
/// reports everything `build` would before ptxas); never fails, every problem becomes
/// a diagnostic against the returned file. Also returns the typechecker's bindings
/// (empty when the file did not parse).
pub fn check_file(
    path: &Path,
    target: cute::Target,
) -> (SourceFile, Vec<Diagnostic>, Vec<typecheck::Binding>) {
    let Parsed {
        file,
        mut diagnostics,
        module,
        is_text,
        parsed,
    } = load_and_parse(path);
    let mut bindings = Vec::new();
    if is_text {
        diagnostics.extend(source::no_items_warning(&module, &diagnostics));
    }
    if parsed {
        let lowered = std::thread::scope(|scope| {
            let mut lowering = lower::ConcurrentLowering::new(scope);
            let (analysis, traces) =
                typecheck::trace_each(&module, target, |trace| lowering.start(trace));
            drop(traces);
            bindings = analysis.bindings;
            lowering.finish(analysis.diagnostics)
        });
        diagnostics.extend(lowered.diagnostics);
    }
    (file, diagnostics, bindings)
}

fn render_diagnostics(
    diagnostics: &[Diagnostic],
    file: &SourceFile,
    format: MessageFormat,
    style: Style,
) -> String {
    match format {
        MessageFormat::Human if diagnostics.is_empty() => String::new(),
        MessageFormat::Human => render::human(diagnostics, file, style) + "\n",
        MessageFormat::Short => render::short(diagnostics, file),
        MessageFormat::Json => render::json(diagnostics, file),
    }
}

/// Counts of errors and warnings over all files, for the closing summary.
#[derive(Default)]
struct Tally {
    errors: usize,
    warnings: usize,
}

impl Tally {
    fn count(&mut self, diagnostics: &[Diagnostic]) {
        for diagnostic in diagnostics {
            match diagnostic.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Note => {}
            }
        }
    }

    /// `cukc check: 2 errors, 1 warning`, or `None` when there was neither.
    fn summary(&self) -> Option<String> {
        let plural = |count: usize, word: &str| {
            format!("{count} {word}{}", if count == 1 { "" } else { "s" })
        };
        match (self.errors, self.warnings) {
            (0, 0) => None,
            (errors, 0) => Some(format!("cukc check: {}", plural(errors, "error"))),
            (0, warnings) => Some(format!("cukc check: {}", plural(warnings, "warning"))),
            (errors, warnings) => Some(format!(
                "cukc check: {}, {}",
                plural(errors, "error"),
                plural(warnings, "warning")
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MessageFormat, Style, Tally, render_diagnostics};

    fn check_file(path: &std::path::Path) -> (lang::SourceFile, Vec<lang::Diagnostic>) {
        let (file, diagnostics, _) = super::check_file(path, cute::Target::Sm90a);
        (file, diagnostics)
    }

    /// A file in a per-test scratch directory, removed when the test ends.
    struct ScratchFile(std::path::PathBuf);

    impl ScratchFile {
        fn new(name: &str, bytes: &[u8]) -> Self {
            let directory =
                std::env::temp_dir().join(format!("cukc-check-{}-{name}", std::process::id()));
            let _ = std::fs::create_dir_all(&directory);
            let path = directory.join(name);
            assert!(
                std::fs::write(&path, bytes).is_ok(),
                "cannot write {}",
                path.display()
            );
            ScratchFile(path)
        }
    }

    impl Drop for ScratchFile {
        fn drop(&mut self) {
            if let Some(directory) = self.0.parent() {
                let _ = std::fs::remove_dir_all(directory);
            }
        }
    }

    fn codes_of(name: &str, bytes: &[u8]) -> Vec<&'static str> {
        let scratch = ScratchFile::new(name, bytes);
        check_file(&scratch.0)
            .1
            .iter()
            .map(|diagnostic| diagnostic.code)
            .collect()
    }

    #[test]
    fn unreadable_binary_and_non_utf8_files_become_diagnostics() {
        let missing = std::env::temp_dir().join("cukc-check-no-such-directory/missing.cuk");
        let (file, diagnostics) = check_file(&missing);
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code, "E0001");
        assert!(
            render_diagnostics(&diagnostics, &file, MessageFormat::Short, Style::Plain)
                .starts_with(&format!(
                    "{}:1:1: error[E0001]: cannot read the file",
                    missing.display()
                ))
        );
        assert_eq!(codes_of("binary.cuk", b"\x7FELF\0\0\x01"), ["E0003"]);
        assert_eq!(codes_of("latin1.cuk", b"// caf\xE9\n"), ["E0002"]);
        assert_eq!(codes_of("empty.cuk", b""), ["W0001"]);
    }

    #[test]
    fn a_directory_is_unreadable() {
        let (_, diagnostics) = check_file(&std::env::temp_dir());
        assert_eq!(
            diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
            ["E0001"]
        );
        assert!(diagnostics[0].message.contains("a folder"));
    }

    #[test]
    fn summary_counts_errors_and_warnings() {
        let mut tally = Tally::default();
        assert_eq!(tally.summary(), None);
        tally.errors = 1;
        assert_eq!(tally.summary().as_deref(), Some("cukc check: 1 error"));
        tally.warnings = 2;
        assert_eq!(
            tally.summary().as_deref(),
            Some("cukc check: 1 error, 2 warnings")
        );
    }
}
