//! The CuK language server, `cukc lsp`: live diagnostics, hovers that show
//! evaluated layouts, go to definition, document symbols and completion.
//!
//! It speaks LSP over standard input and output, through rust-analyzer's
//! `lsp-server` message types (framed by our own [`transport`]) and `lsp-types`. Every document is analysed by the same
//! crates as `cukc check` ([`grammar`], [`typecheck`], whose checker also records what
//! each name refers to), in [`analysis`]; the other
//! modules answer requests from that analysis:
//!
//! - [`position`]: byte offsets to UTF-16 positions and back, the only place
//!   UTF-16 is counted;
//! - [`diagnostics`]: `lang::Diagnostic` to the protocol's, notes and labels as
//!   related information;
//! - [`hover`], [`navigation`] (definitions, symbols), [`completion`];
//! - [`source_text`]: declarations and doc comments, and the stdlib's files;
//! - [`server`]: the loop, debouncing, and the guard that turns panics into
//!   error responses;
//! - [`transport`] and [`framing`]: the stdio streams, read so that no input ends
//!   the session, with messages capped at [`transport::MAX_MESSAGE_BYTES`].
//!
//! The client may pass `{"target": "sm_80" | "sm_90a" | "sm_100a"}` as
//! `initializationOptions`; otherwise each file is checked, as `cukc check` checks
//! it, for the target its opening comment lines name (`// target: sm_100a`), else
//! for `sm_90a`.

pub mod analysis;
pub mod completion;
pub mod diagnostics;
pub mod framing;
pub mod hover;
pub mod navigation;
pub mod position;
pub mod server;
pub mod source_text;
pub mod transport;

use std::fmt;
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CompletionOptions, HoverProviderCapability, InitializeParams, OneOf, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions,
};

pub use server::{DEBOUNCE, Options, Server};
pub use transport::TransportError;

/// What the server can do, as told to the client.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".to_owned()]),
            ..CompletionOptions::default()
        }),
        ..ServerCapabilities::default()
    }
}

/// Waits for `initialize`, answers it, then serves until `exit`.
///
/// Before `initialize`, requests are answered with `ServerNotInitialized`, and
/// notifications and responses are dropped (`exit` ends the session, as
/// unsuccessful). Nothing waits for `initialized`: requests that come before it are
/// served, as they would be after.
pub fn serve(connection: &Connection) -> Result<(), SessionError> {
    let (id, params) = loop {
        let Ok(message) = connection.receiver.recv() else {
            return Ok(());
        };
        match message {
            Message::Request(request) if request.method == "initialize" => {
                break (request.id, request.params);
            }
            Message::Request(request) => {
                let message = format!("`{}` before `initialize`", request.method);
                let response =
                    Response::new_err(request.id, ErrorCode::ServerNotInitialized as i32, message);
                let _ = connection.sender.send(response.into());
            }
            Message::Notification(notification) if notification.method == "exit" => {
                return Err(SessionError::ExitBeforeInitialize);
            }
            Message::Notification(_) => {}
            Message::Response(response) => {
                eprintln!(
                    "cukc lsp: a response to no request (id {}) is ignored",
                    response.id
                );
            }
        }
    };
    let params: Option<InitializeParams> = serde_json::from_value(params).ok();
    let options = Options {
        target: params
            .and_then(|params| params.initialization_options)
            .and_then(|options| options.get("target")?.as_str()?.parse().ok()),
    };
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "cukc lsp", "version": env!("CARGO_PKG_VERSION") },
    });
    let _ = connection.sender.send(Response::new_ok(id, result).into());
    Server::new(connection, options).run()
}

/// A server on an in-memory connection, initialised (with `initialization_options`
/// when given) and told `initialized`, and the client's end: how the tests and the
/// latency bench drive the server loop without standard input and output. The
/// server's thread ends once the client's end is dropped.
pub fn serve_in_memory(
    initialization_options: Option<serde_json::Value>,
) -> (Connection, JoinHandle<Result<(), SessionError>>) {
    let (server_end, client) = Connection::memory();
    let server = std::thread::spawn(move || serve(&server_end));
    let mut params = serde_json::json!({"capabilities": {}});
    if let Some(options) = initialization_options {
        params["initializationOptions"] = options;
    }
    let initialize = Request::new(RequestId::from(0), "initialize".to_owned(), params);
    let _ = client.sender.send(initialize.into());
    let _ = client.receiver.recv_timeout(Duration::from_secs(30));
    let initialized = Notification::new("initialized".to_owned(), serde_json::json!({}));
    let _ = client.sender.send(initialized.into());
    (client, server)
}

/// Serves over standard input and output: what `cukc lsp` runs.
pub fn run_stdio() -> Result<(), SessionError> {
    let (connection, io_threads) = transport::stdio();
    let served = serve(&connection);
    source_text::remove_stdlib_copies();
    drop(connection);
    let joined = io_threads.join().map_err(SessionError::Transport);
    served.and(joined)
}

/// Why a session ended unsuccessfully.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionError {
    /// The client said `exit` before `initialize`.
    ExitBeforeInitialize,
    /// The client said `exit` before `shutdown`.
    ExitBeforeShutdown,
    /// What the server sent was not all written.
    Transport(TransportError),
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::ExitBeforeInitialize => f.write_str("`exit` before `initialize`"),
            SessionError::ExitBeforeShutdown => f.write_str("`exit` before `shutdown`"),
            SessionError::Transport(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for SessionError {}
