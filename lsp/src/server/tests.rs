//! The server loop's answers: a panic while answering is an error and the server goes
//! on; requests on documents that are not open answer `null`.

use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};

fn ask(client: &Connection, id: i32, method: &str, params: Value) -> Response {
    let request = Request::new(RequestId::from(id), method.to_owned(), params);
    let _ = client.sender.send(request.into());
    loop {
        match client.receiver.recv_timeout(Duration::from_secs(30)) {
            Ok(Message::Response(response)) if response.id == RequestId::from(id) => {
                return response;
            }
            Ok(_) => {}
            Err(error) => panic!("no response to {method}: {error}"),
        }
    }
}

fn hover_at(client: &Connection, id: i32, line: u32, character: u32) -> Response {
    ask(
        client,
        id,
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///t.cuk"}, "position": {"line": line, "character": character}}),
    )
}

#[test]
fn a_panic_is_answered_with_an_error_and_the_server_goes_on() {
    let (client, server) = crate::serve_in_memory(Some(json!({"target": "sm_80"})));
    let open = json!({"textDocument": {"uri": "file:///t.cuk", "languageId": "cuk", "version": 1,
        "text": "const L = (4, 2):(2, 1);\n"}});
    let _ = client
        .sender
        .send(Notification::new("textDocument/didOpen".to_owned(), open).into());
    let panicked = ask(&client, 1, "cukc/testPanic", json!({}));
    let error = panicked
        .response_result
        .err()
        .map(|error| (error.code, error.message));
    assert!(
        error.as_ref().is_some_and(
            |(code, message)| *code == -32603 && message.contains("a panic on request")
        ),
        "{error:?}"
    );
    let hover = hover_at(&client, 2, 0, 6)
        .response_result
        .unwrap_or_default();
    assert!(hover.to_string().contains("(4,2):(2,1)"), "{hover}");
    let bad_params = ask(&client, 3, "textDocument/hover", json!({"position": 7}));
    assert_eq!(
        bad_params.response_result.err().map(|error| error.code),
        Some(-32602)
    );
    let _ = ask(&client, 4, "shutdown", Value::Null);
    let _ = client
        .sender
        .send(Notification::new("exit".to_owned(), Value::Null).into());
    assert_eq!(server.join().ok(), Some(Ok(())));
}

#[test]
fn requests_on_unknown_documents_answer_null_and_the_target_is_the_clients() {
    let (client, server) = crate::serve_in_memory(Some(json!({"target": "sm_80"})));
    let unknown = hover_at(&client, 1, 0, 0);
    assert_eq!(unknown.response_result.ok(), Some(Value::Null));
    // sm_80 was asked for: an sm90 atom is an error there.
    let text = "const A = sm90::stmatrix_x4(T = bf16);\n";
    let open = json!({"textDocument": {"uri": "file:///t.cuk", "languageId": "cuk", "version": 1, "text": text}});
    let _ = client
        .sender
        .send(Notification::new("textDocument/didOpen".to_owned(), open).into());
    let published = client.receiver.recv_timeout(Duration::from_secs(30));
    let Ok(Message::Notification(notification)) = published else {
        panic!("no diagnostics: {published:?}");
    };
    assert_eq!(notification.method, "textDocument/publishDiagnostics");
    assert!(
        notification.params["diagnostics"]
            .as_array()
            .is_some_and(|diagnostics| !diagnostics.is_empty()),
        "{}",
        notification.params
    );
    drop(client);
    assert_eq!(server.join().ok(), Some(Ok(())));
}
