//! The editor packages are well formed: the VS Code extension's manifest, language
//! configuration and TextMate grammar parse as JSON and agree on the language, and
//! both clients start `cukc lsp`. Where npm is installed, the extension is built as
//! a user would: `npm ci` from the committed lockfile, its grammar test (the real
//! TextMate engine on the examples and `test/fixtures/tricky.cuk`), and `vsce
//! package`, whose package must hold only the bundle and its data files. Without
//! npm, or without the npm registry, that test says SKIP on standard error.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn editors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../editors")
}

fn json(path: &str) -> Value {
    let text = std::fs::read_to_string(editors().join(path)).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{path}: {error}"))
}

#[test]
fn the_vscode_extension_declares_cuk_files_with_grammar_and_configuration() {
    let manifest = json("vscode/package.json");
    let language = &manifest["contributes"]["languages"][0];
    assert_eq!(language["id"], "cuk");
    assert_eq!(language["extensions"][0], ".cuk");
    assert_eq!(manifest["main"], "./dist/extension.js");
    assert_eq!(manifest["license"], "Apache-2.0");
    let grammar = &manifest["contributes"]["grammars"][0];
    assert_eq!(grammar["scopeName"], "source.cuk");
    let grammar_file = json(&format!(
        "vscode/{}",
        grammar["path"].as_str().unwrap_or_default()
    ));
    assert_eq!(grammar_file["scopeName"], "source.cuk");
    let configuration = json(&format!(
        "vscode/{}",
        language["configuration"].as_str().unwrap_or_default()
    ));
    assert_eq!(configuration["comments"]["lineComment"], "//");
    assert_eq!(configuration["brackets"].as_array().map(Vec::len), Some(3));
}

#[test]
fn the_grammar_highlights_every_keyword() {
    let grammar = std::fs::read_to_string(editors().join("vscode/syntaxes/cuk.tmLanguage.json"))
        .unwrap_or_default();
    for keyword in [
        "use", "const", "fn", "kernel", "atom", "test", "bench", "let", "mut", "return", "if",
        "else", "for", "in", "static", "while", "break", "continue", "launch", "true", "false",
        "gmem", "smem", "rmem", "tmem", "report", "against",
    ] {
        assert!(
            grammar.contains(&format!("|{keyword}|"))
                || grammar.contains(&format!("({keyword}|"))
                || grammar.contains(&format!("|{keyword})")),
            "`{keyword}` is not highlighted"
        );
    }
}

#[test]
fn both_clients_start_cukc_lsp() {
    let extension =
        std::fs::read_to_string(editors().join("vscode/extension.js")).unwrap_or_default();
    assert!(extension.contains("args: ['lsp']"));
    let neovim =
        std::fs::read_to_string(editors().join("nvim/diagnostics.lua")).unwrap_or_default();
    assert!(neovim.contains("os.getenv('CUKC'), 'lsp'"));
}

/// Runs `npm` with `args` in the extension's folder: `None` when npm is missing,
/// else whether it succeeded and what it printed.
fn npm(args: &[&str]) -> Option<(bool, String)> {
    let output = Command::new("npm")
        .args(args)
        .current_dir(editors().join("vscode"))
        .output()
        .ok()?;
    let printed = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    Some((output.status.success(), printed))
}

#[test]
fn the_vscode_extension_installs_from_its_lockfile_tokenises_and_packages() {
    let Some((installed, printed)) = npm(&["ci", "--no-audit", "--no-fund"]) else {
        eprintln!("SKIP the_vscode_extension_packages: npm is not installed");
        return;
    };
    let offline = [
        "ENOTFOUND",
        "EAI_AGAIN",
        "ECONNREFUSED",
        "ETIMEDOUT",
        "ENETUNREACH",
    ];
    if !installed && offline.iter().any(|code| printed.contains(code)) {
        eprintln!("SKIP the_vscode_extension_packages: the npm registry is unreachable\n{printed}");
        return;
    }
    assert!(installed, "npm ci failed:\n{printed}");
    let (tokenised, printed) = npm(&["test"]).unwrap_or_default();
    assert!(tokenised, "the grammar test failed:\n{printed}");
    let (packaged, printed) = npm(&["run", "package"]).unwrap_or_default();
    assert!(packaged, "vsce package failed:\n{printed}");
    assert!(printed.contains("Packaged: dist/cuk.vsix"), "{printed}");
    let (listed, printed) = npm(&["exec", "--", "vsce", "ls"]).unwrap_or_default();
    assert!(listed, "{printed}");
    let mut files: Vec<&str> = printed
        .lines()
        .filter(|line| !line.starts_with("npm "))
        .collect();
    files.sort_unstable();
    assert_eq!(
        files,
        [
            "LICENSE",
            "README.md",
            "dist/extension.js",
            "language-configuration.json",
            "package.json",
            "syntaxes/cuk.tmLanguage.json"
        ]
    );
}
