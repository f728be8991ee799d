//! How long after an edit the diagnostics of a 2,000-line file arrive (the goal is
//! under 50 ms), measured through the server loop itself: `serve` on an in-memory
//! connection, each edit a `didChange` of the whole text that adds or removes a
//! mistake, timed until the `publishDiagnostics` of that version arrives. The
//! debounce delay is part of the figure.
//!
//! `cargo bench -p lsp --bench latency` (run by hand, never in CI).

use std::time::{Duration, Instant};

use lsp_server::{Message, Notification};
use serde_json::json;

const EXAMPLE: &str = include_str!("../../cuk-examples/copy_vectorized.cuk");
const EDITS: usize = 40;

/// A file of at least 2,000 lines: the example's consts once, then its kernel,
/// test and bench again and again under new names.
fn large_file() -> String {
    let body_start = EXAMPLE.find("kernel copy_vectorized").unwrap_or(0);
    let (head, body) = EXAMPLE.split_at(body_start);
    let mut text = head.to_owned();
    let mut copy = 0;
    while text.lines().count() < 2000 {
        text.push_str(&body.replace("copy_vectorized", &format!("copy_vectorized_{copy}")));
        copy += 1;
    }
    text
}

fn main() {
    let text = large_file();
    let (client, server) = lsp::serve_in_memory(None);
    let notify = |method: &str, params: serde_json::Value| {
        let _ = client
            .sender
            .send(Notification::new(method.to_owned(), params).into());
    };
    let uri = "file:///bench/large.cuk";
    notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "cuk", "version": 0, "text": text}}),
    );
    let _ = client.receiver.recv();

    let mut latencies = Vec::new();
    let mut error_counts = Vec::new();
    for version in 1..=EDITS as i32 {
        // Odd versions break one copy's partition (E0201); even ones restore it.
        let edited = if version % 2 == 1 {
            text.replacen("partition_D(sA)", "partition_D(sAx)", version as usize)
        } else {
            text.clone()
        };
        let started = Instant::now();
        notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": edited}]}),
        );
        loop {
            match client.receiver.recv_timeout(Duration::from_secs(30)) {
                Ok(Message::Notification(published))
                    if published.params["version"] == json!(version) =>
                {
                    latencies.push(started.elapsed());
                    let count = published.params["diagnostics"]
                        .as_array()
                        .map_or(0, Vec::len);
                    error_counts.push(count);
                    break;
                }
                Ok(_) => {}
                Err(error) => panic!("no diagnostics for version {version}: {error}"),
            }
        }
    }
    drop(client);
    let _ = server.join();

    latencies.sort();
    let milliseconds = |duration: Duration| duration.as_secs_f64() * 1000.0;
    println!(
        "{} lines, {} bytes, {EDITS} edits (debounce {} ms included): min {:.1} ms, median {:.1} ms, max {:.1} ms; diagnostics per version {:?}..{:?}",
        text.lines().count(),
        text.len(),
        lsp::DEBOUNCE.as_millis(),
        milliseconds(latencies[0]),
        milliseconds(latencies[latencies.len() / 2]),
        milliseconds(latencies[latencies.len() - 1]),
        error_counts.iter().min(),
        error_counts.iter().max(),
    );
}
