//! A kernel whose only errors are ones lowering finds is reported by the language
//! server as `cukc check` reports it (`cli/tests/lowering_in_check.rs`): at the
//! user's lines, for the target the file declares when the client names none. The
//! checker's own diagnostics reach it too: `print`'s format errors, at their lines.

use std::path::Path;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification};
use serde_json::{Value, json};

/// The (code, 1-based line) of each diagnostic the server publishes for the
/// repository's file `path` once opened.
fn published(client: &Connection, path: &str) -> Vec<(String, u64)> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|error| panic!("{path}: {error}"));
    let uri = format!("file:///{path}");
    let open =
        json!({"textDocument": {"uri": uri, "languageId": "cuk", "version": 1, "text": text}});
    let _ = client
        .sender
        .send(Notification::new("textDocument/didOpen".to_owned(), open).into());
    loop {
        match client.receiver.recv_timeout(Duration::from_secs(120)) {
            Ok(Message::Notification(notification))
                if notification.method == "textDocument/publishDiagnostics"
                    && notification.params["uri"] == uri =>
            {
                let diagnostics = notification.params["diagnostics"].as_array().cloned();
                return (diagnostics.unwrap_or_default().iter())
                    .map(|diagnostic: &Value| {
                        let code = diagnostic["code"].as_str().unwrap_or("").to_owned();
                        let line = diagnostic["range"]["start"]["line"].as_u64();
                        (code, line.map_or(0, |line| line + 1))
                    })
                    .collect();
            }
            Ok(_) => {}
            Err(error) => panic!("no diagnostics for {path}: {error}"),
        }
    }
}

#[test]
fn a_shuffle_under_a_divergent_branch_is_published_at_the_shuffle() {
    let (client, server) = lsp::serve_in_memory(None);
    let diagnostics = published(&client, "tests/control/divergent_shuffle.cuk");
    assert_eq!(
        diagnostics,
        [("E0302".to_owned(), 9), ("E0302".to_owned(), 28)],
        "the uniform branches (lines 18 and 31) build"
    );
    drop(client);
    assert_eq!(server.join().ok(), Some(Ok(())));
}

#[test]
fn a_tensor_memory_read_before_its_wait_is_published_for_the_declared_target() {
    let (client, server) = lsp::serve_in_memory(None);
    // `// target: sm_100a`: on the client's default sm_90a, tcgen05 would be E0212.
    let diagnostics = published(&client, "tests/blackwell/tmem_read_before_wait.cuk");
    assert_eq!(diagnostics, [("E0227".to_owned(), 24)]);
    drop(client);
    assert_eq!(server.join().ok(), Some(Ok(())));
}

#[test]
fn print_format_errors_are_published_at_their_lines_and_a_good_print_is_clean() {
    let (client, server) = lsp::serve_in_memory(None);
    let diagnostics = published(&client, "tests/typecheck/e0230_print_format.cuk");
    let expected: Vec<(String, u64)> = (3..=7).map(|line| ("E0230".to_owned(), line)).collect();
    assert_eq!(diagnostics, expected);
    assert_eq!(published(&client, "tests/control/print.cuk"), []);
    drop(client);
    assert_eq!(server.join().ok(), Some(Ok(())));
}
