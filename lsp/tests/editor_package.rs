//! The editor packages are well formed: the VS Code extension's manifest, language
//! configuration and TextMate grammar parse as JSON and agree on the language, and
//! both clients start `cukc lsp`.

use std::path::{Path, PathBuf};

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
