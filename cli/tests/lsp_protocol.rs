//! `cukc lsp` as an editor sees it: the binary started as a process, JSON-RPC over
//! its standard input and output. Diagnostics appear and disappear with edits,
//! hovers show evaluated layouts, definitions, symbols and completion answer, the
//! server survives a thousand random edits with its memory flat, and it exits
//! cleanly after `shutdown` and `exit`.

#[path = "support/lsp_client.rs"]
mod lsp_client;

use lsp_client::{LspProcess, position_of, test_uri};
use serde_json::{Value, json};

const EXAMPLE: &str = include_str!("../../cuk-examples/copy_vectorized.cuk");

fn open(server: &mut LspProcess, uri: &str, text: &str) {
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "cuk", "version": 1, "text": text}}),
    );
}

fn change(server: &mut LspProcess, uri: &str, version: i64, text: &str) {
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
    );
}

fn hover(server: &mut LspProcess, uri: &str, position: Value) -> Value {
    server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position}),
    )
}

fn hover_text(response: &Value) -> String {
    response["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn diagnostics_hover_definition_symbols_and_completion_over_stdio() {
    let mut server = LspProcess::start();
    let uri = test_uri("copy_vectorized.cuk");

    // An unknown name in the kernel: one error, at its line.
    let broken = EXAMPLE.replace("partition_D(sA)", "partition_D(sAx)");
    open(&mut server, &uri, &broken);
    let diagnostics = server.diagnostics_where(&uri, |diagnostics| !diagnostics.is_empty());
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "E0201");
    assert_eq!(diagnostics[0]["severity"], 1);
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|message| message.starts_with("cannot find `sAx` in this scope")),
        "{diagnostics:?}"
    );
    assert_eq!(
        diagnostics[0]["range"]["start"],
        position_of(&broken, "sAx", 0)
    );

    // A syntax error replaces it; fixing the text clears every diagnostic.
    let syntax_error = EXAMPLE.replace("let thr_copy =", "let thr_copy = = ");
    change(&mut server, &uri, 2, &syntax_error);
    let diagnostics = server.diagnostics_where(&uri, |diagnostics| {
        diagnostics.iter().any(|diagnostic| {
            diagnostic["code"]
                .as_str()
                .is_some_and(|c| c.starts_with("E01"))
        })
    });
    assert_eq!(
        diagnostics[0]["range"]["start"]["line"],
        position_of(&syntax_error, "= = ", 0)["line"]
    );
    change(&mut server, &uri, 3, EXAMPLE);
    server.diagnostics_where(&uri, <[Value]>::is_empty);

    // Hover on a partitioned tensor (at its use) and on a const layout.
    let tensor = hover(&mut server, &uri, position_of(EXAMPLE, "tAgA", 1));
    let tensor_text = hover_text(&tensor);
    assert!(
        tensor_text.contains("let tAgA: gmem bf16 tensor = ((8,1),2,1):((1,0),16*k,0) @ offset "),
        "{tensor}"
    );
    assert_eq!(
        tensor["result"]["range"]["start"],
        position_of(EXAMPLE, "tAgA", 1)
    );
    let layout = hover(&mut server, &uri, position_of(EXAMPLE, "THREAD_LAYOUT", 1));
    assert!(
        hover_text(&layout).contains("const THREAD_LAYOUT: layout = (16,8):(8,1)"),
        "{layout}"
    );

    // Go to definition: a local and a stdlib atom.
    let definition = server.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": position_of(EXAMPLE, "tAgA", 1)}),
    );
    assert_eq!(definition["result"]["uri"], json!(uri));
    assert_eq!(
        definition["result"]["range"]["start"],
        position_of(EXAMPLE, "tAgA", 0)
    );
    let stdlib = server.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": position_of(EXAMPLE, "copy(T", 0)}),
    );
    assert!(
        stdlib["result"]["uri"].as_str().is_some_and(
            |target| target.starts_with("file://") && target.ends_with("universal.cuk")
        ),
        "{stdlib}"
    );

    // Symbols: the consts, the kernel, the test and the bench.
    let symbols = server.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let names: Vec<&str> = symbols["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|symbol| symbol["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "BM",
            "BK",
            "VALUES_PER_THREAD",
            "THREADS",
            "THREAD_LAYOUT",
            "VALUE_LAYOUT",
            "copy_vectorized",
            "copy_vectorized_is_exact",
            "copy_vectorized_bandwidth"
        ]
    );

    // Completion: stdlib members after `sm80::`, and names in scope in the kernel.
    let with_path = EXAMPLE.replace("universal::copy(", "sm80::copy(");
    change(&mut server, &uri, 4, &with_path);
    let members = server.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": position_of(&with_path, "copy(T", 0)}),
    );
    let labels = completion_labels(&members);
    assert!(labels.contains(&"cp_async".to_owned()), "{labels:?}");
    assert!(labels.contains(&"ldmatrix_x4".to_owned()), "{labels:?}");
    change(&mut server, &uri, 5, EXAMPLE);
    let in_scope = server.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": position_of(EXAMPLE, "copy(tiled_copy, tAsA", 0)}),
    );
    let labels = completion_labels(&in_scope);
    for expected in ["tAgA", "tAsA", "thr_copy", "gA", "BM", "local_tile", "sm80"] {
        assert!(
            labels.contains(&expected.to_owned()),
            "{expected}: {labels:?}"
        );
    }

    // An unknown request is an error, not the end of the server.
    let unknown = server.request("cukc/noSuchRequest", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let again = hover(&mut server, &uri, position_of(EXAMPLE, "tAgA", 1));
    assert!(hover_text(&again).contains("((8,1),2,1)"));

    // Closing the document clears its diagnostics.
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    server.diagnostics_where(&uri, <[Value]>::is_empty);
    let status = server.shut_down();
    assert!(status.success(), "{status:?}");
}

fn completion_labels(response: &Value) -> Vec<String> {
    response["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["label"].as_str().map(str::to_owned))
        .collect()
}

/// A small deterministic generator (xorshift), so a failure replays.
struct Random(u64);

impl Random {
    fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound.max(1) as u64) as usize
    }
}

/// One random edit of `text`: a deletion, an insertion of code-like or garbage
/// text, or a replacement of a range.
fn mutate(text: &str, random: &mut Random) -> String {
    const PIECES: &[&str] = &[
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ":",
        "::",
        ";",
        ",",
        "let ",
        "kernel ",
        "0",
        "-1",
        "9999999999999999999999",
        "_",
        "tAgA",
        "sm80::",
        "\"",
        "//",
        "/*",
        "é",
        "𝔸",
        "\u{0}",
        "\r\n",
        "\t",
        "(((((((((",
        "@",
        "..",
        "static ",
        "x.y.z",
        "1:0",
        "((8,1),8):((1,0),16)",
    ];
    let mut start = random.below(text.len() + 1);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + random.below(12)).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let insert = match random.below(3) {
        0 => String::new(),
        1 => PIECES[random.below(PIECES.len())].to_owned(),
        _ => (0..random.below(8))
            .map(|_| char::from_u32(random.below(0x3000) as u32).unwrap_or('?'))
            .collect(),
    };
    format!("{}{insert}{}", &text[..start], &text[end..])
}

/// Resident memory of a process, in kB, from `/proc` (Linux only).
fn resident_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_thousand_random_edits_leave_hover_right_and_memory_flat() {
    let mut server = LspProcess::start();
    let uri = test_uri("edited.cuk");
    open(&mut server, &uri, EXAMPLE);
    server.diagnostics_where(&uri, <[Value]>::is_empty);
    let mut random = Random(0x5eed_cafe_f00d_d00d);
    let mut text = EXAMPLE.to_owned();
    let mut memory_after_warm_up = None;
    for version in 2..1002 {
        text = if version % 100 == 0 {
            EXAMPLE.to_owned()
        } else {
            mutate(&text, &mut random)
        };
        change(&mut server, &uri, version, &text);
        // A hover anywhere forces an analysis of this very text; it must answer, and so
        // must the other requests now and then.
        let line = random.below(70);
        let character = random.below(60);
        let response = hover(
            &mut server,
            &uri,
            json!({"line": line, "character": character}),
        );
        assert!(
            response.get("result").is_some(),
            "edit {version}: {response}"
        );
        if version % 10 == 0 {
            let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
            for method in ["textDocument/completion", "textDocument/definition"] {
                let response = server.request(method, at.clone());
                assert!(
                    response.get("result").is_some(),
                    "edit {version}: {response}"
                );
            }
            let symbols = server.request(
                "textDocument/documentSymbol",
                json!({"textDocument": {"uri": uri}}),
            );
            assert!(symbols.get("result").is_some(), "edit {version}: {symbols}");
        }
        if version == 200 {
            memory_after_warm_up = resident_kb(server.pid());
        }
    }
    change(&mut server, &uri, 2000, EXAMPLE);
    let tensor = hover(&mut server, &uri, position_of(EXAMPLE, "tAgA", 1));
    assert!(
        hover_text(&tensor).contains("let tAgA: gmem bf16 tensor = ((8,1),2,1):((1,0),16*k,0)"),
        "{tensor}"
    );
    server.diagnostics_where(&uri, <[Value]>::is_empty);
    if let (Some(before), Some(after)) = (memory_after_warm_up, resident_kb(server.pid())) {
        eprintln!("cukc lsp resident memory: {before} kB after 200 edits, {after} kB after 1000");
        assert!(
            after < before + before / 2 + 8 * 1024,
            "memory grew from {before} kB to {after} kB"
        );
    }
    let status = server.shut_down();
    assert!(status.success(), "{status:?}");
}
