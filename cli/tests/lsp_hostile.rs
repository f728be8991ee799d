//! `cukc lsp` survives whatever arrives on its input: malformed headers, bodies
//! that are not UTF-8, not JSON or no message, lengths of 10^11, messages out of the
//! protocol's order. Each hostile input is answered with the error JSON-RPC names
//! (`ParseError`, `InvalidRequest`, `ServerNotInitialized`, ...) or logged on
//! standard error, and after each one the server still answers a hover.

#[path = "support/lsp_client.rs"]
mod lsp_client;

use lsp_client::{LspProcess, test_uri};
use serde_json::{Value, json};

/// One hostile input, and the error code it must be answered with (`None`: only
/// logged or ignored).
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    answer: Option<i64>,
}

fn raw(name: &'static str, bytes: &[u8], answer: Option<i64>) -> Case {
    Case {
        name,
        bytes: bytes.to_vec(),
        answer,
    }
}

fn framed(name: &'static str, body: &[u8], answer: Option<i64>) -> Case {
    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    bytes.extend_from_slice(body);
    Case {
        name,
        bytes,
        answer,
    }
}

const PARSE_ERROR: Option<i64> = Some(-32700);
const INVALID_REQUEST: Option<i64> = Some(-32600);
const METHOD_NOT_FOUND: Option<i64> = Some(-32601);
const INVALID_PARAMS: Option<i64> = Some(-32602);

fn cases() -> Vec<Case> {
    let deep = "[".repeat(100_000);
    let mut binary: Vec<u8> = (0..65_536u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    binary.push(b'\n');
    // An honest message just over the cap, with a fake header inside a string.
    let mut oversized = br#"{"jsonrpc":"2.0","method":"x","params":"Content-Length: 3 "#.to_vec();
    oversized.resize(16 * 1024 * 1024 + 1 - 2, b'a');
    oversized.extend_from_slice(b"\"}");
    vec![
        raw("a header line without a colon", b"Garbage\r\n\r\n", None),
        raw(
            "a header without Content-Length",
            b"Content-Type: x\r\n\r\n{}",
            None,
        ),
        raw(
            "a length that is no number",
            b"Content-Length: abc\r\n\r\n{}",
            None,
        ),
        raw("a negative length", b"Content-Length: -5\r\n\r\n{}", None),
        raw(
            "a length of 10^11",
            b"Content-Length: 100000000000\r\n\r\n{}",
            None,
        ),
        raw(
            "a length past u64",
            b"Content-Length: 99999999999999999999999\r\n\r\n",
            None,
        ),
        framed("a message over the cap", &oversized, None),
        raw(
            "a length shorter than the body",
            b"Content-Length: 5\r\n\r\n{\"a\":1}",
            PARSE_ERROR,
        ),
        raw("a header line of a megabyte", &vec![b'h'; 1 << 20], None),
        raw("binary junk", &binary, None),
        raw(
            "an unframed message",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\r\n",
            None,
        ),
        raw(
            "bare line feeds",
            b"Content-Length: 2\n\n[]",
            INVALID_REQUEST,
        ),
        framed("an empty body", b"", PARSE_ERROR),
        framed("a body that is not JSON", b"not json", PARSE_ERROR),
        framed(
            "a body that is not UTF-8",
            b"{\"a\": \"\xff\xfe\"}",
            PARSE_ERROR,
        ),
        framed("JSON nested 100,000 deep", deep.as_bytes(), PARSE_ERROR),
        framed("a JSON number", b"42", INVALID_REQUEST),
        framed(
            "a batch",
            br#"[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]"#,
            INVALID_REQUEST,
        ),
        framed(
            "a method that is a number",
            br#"{"jsonrpc":"2.0","id":9005,"method":5}"#,
            INVALID_REQUEST,
        ),
        framed(
            "an id that is an object",
            br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
            INVALID_REQUEST,
        ),
        framed(
            "an unknown method",
            br#"{"jsonrpc":"2.0","id":9006,"method":"cukc/nothing"}"#,
            METHOD_NOT_FOUND,
        ),
        framed(
            "hover without a position",
            br#"{"jsonrpc":"2.0","id":9007,"method":"textDocument/hover","params":7}"#,
            INVALID_PARAMS,
        ),
        framed(
            "an open with bad parameters",
            br#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":5}"#,
            None,
        ),
        framed(
            "a response to nothing",
            br#"{"jsonrpc":"2.0","id":99,"result":null}"#,
            None,
        ),
        framed(
            "a second initialize",
            br#"{"jsonrpc":"2.0","id":9008,"method":"initialize","params":{"capabilities":{}}}"#,
            INVALID_REQUEST,
        ),
    ]
}

fn open_document(server: &mut LspProcess, uri: &str) {
    let text = "const L = (4, 2):(2, 1);\n";
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "cuk", "version": 1, "text": text}}),
    );
}

fn hover_answers(server: &mut LspProcess, uri: &str) -> bool {
    let answer = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 6}}),
    );
    answer.to_string().contains("(4,2):(2,1)")
}

#[test]
fn every_hostile_input_is_answered_or_logged_and_the_server_goes_on() {
    let mut server = LspProcess::start();
    let uri = test_uri("hostile.cuk");
    open_document(&mut server, &uri);
    let cases = cases();
    for case in &cases {
        server.send_raw(&case.bytes);
        // A line break ends any junk line the case left open.
        server.send_raw(b"\r\n");
        if let Some(code) = case.answer {
            let error = server.wait_for(|message| message.get("error").is_some());
            assert_eq!(
                error["error"]["code"],
                json!(code),
                "{}: {error}",
                case.name
            );
        }
        assert!(
            hover_answers(&mut server, &uri),
            "{}: no hover after it",
            case.name
        );
        assert!(
            server
                .notifications
                .iter()
                .all(|message| message.get("error").is_none()),
            "{}: {:?}",
            case.name,
            server.notifications
        );
    }
    let log = server.log();
    for expected in [
        "a message of 100000000000 bytes is over the limit of 16777216",
        "`Content-Length: abc` is not a byte count",
        "a message body is not UTF-8",
        "bytes that were not a message",
        "a response to no request (id 99)",
    ] {
        assert!(log.contains(expected), "`{expected}` not logged:\n{log}");
    }
    assert!(server.shut_down().success());
    assert!(cases.len() >= 24);
}

#[test]
fn messages_out_of_the_protocols_order_are_answered_as_it_says() {
    let mut server = LspProcess::spawn();
    // Before `initialize`: requests are refused, the rest dropped.
    let early = server.request("textDocument/hover", json!({}));
    assert_eq!(early["error"]["code"], json!(-32002), "{early}");
    server.send_framed(br#"{"jsonrpc":"2.0","id":41,"result":null}"#);
    server.notify("textDocument/didOpen", json!({}));
    server.initialize();
    // Between `initialize` and `initialized`: served.
    let uri = test_uri("order.cuk");
    open_document(&mut server, &uri);
    assert!(hover_answers(&mut server, &uri));
    server.notify("initialized", json!({}));
    // After `shutdown`: requests are refused until `exit`.
    let shutdown = server.request("shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    let late = server.request("textDocument/hover", json!({}));
    assert_eq!(late["error"]["code"], json!(-32600), "{late}");
    server.notify("exit", Value::Null);
    assert!(server.log().contains("a response to no request (id 41)"));
    assert_eq!(server.exit_status().code(), Some(0));
}

#[test]
fn exit_without_shutdown_ends_the_server_unsuccessfully() {
    let mut before_initialize = LspProcess::spawn();
    before_initialize.notify("exit", Value::Null);
    assert_eq!(before_initialize.exit_status().code(), Some(1));
    let mut server = LspProcess::start();
    server.notify("exit", Value::Null);
    assert_eq!(server.exit_status().code(), Some(1));
}

/// The server's resident memory, in KiB (`VmRSS`).
fn resident_kib(server: &LspProcess) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid()))
        .expect("the server's /proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

#[test]
fn long_documents_are_checked_and_their_memory_goes_when_they_do() {
    let mut server = LspProcess::start();
    let uri = test_uri("long.cuk");
    let comments = "// x\n".repeat(300_000);
    let statements = "let x = (a + b) * c;\n".repeat(300_000);
    for (version, text) in [(1, comments), (2, statements)] {
        let method = if version == 1 {
            "textDocument/didOpen"
        } else {
            "textDocument/didChange"
        };
        let params = if version == 1 {
            json!({"textDocument": {"uri": uri, "languageId": "cuk", "version": 1, "text": text}})
        } else {
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})
        };
        server.notify(method, params);
        let expected = if version == 1 { "W0001" } else { "E0117" };
        let published = server.diagnostics_where(&uri, |diagnostics| {
            diagnostics
                .iter()
                .any(|diagnostic| diagnostic["code"] == expected)
        });
        assert_eq!(published.len(), 1, "version {version}: {published:?}");
    }
    open_document(&mut server, &test_uri("small.cuk"));
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(hover_answers(&mut server, &test_uri("small.cuk")));
    std::thread::sleep(std::time::Duration::from_millis(500));
    // The allocator keeps some freed pages (120 MB was seen on a loaded CI machine);
    // before the fix the server kept 731 MB after the close and 1.29 GB after the
    // replacement, which this bound still catches.
    let resident = resident_kib(&server);
    assert!(
        resident < 256 * 1024,
        "{resident} KiB after the document closed"
    );
    assert!(server.shut_down().success());
}
