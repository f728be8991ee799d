//! The CuK language server, `cukc lsp`: live diagnostics, hovers that show
//! evaluated layouts, go to definition, document symbols and completion.
//!
//! It speaks LSP over standard input and output through rust-analyzer's
//! `lsp-server` scaffold and `lsp-types`. Every document is analysed by the same
//! crates as `cukc check` ([`grammar`], [`typecheck`]), in [`analysis`]; the other
//! modules answer requests from that analysis:
//!
//! - [`position`]: byte offsets to UTF-16 positions and back, the only place
//!   UTF-16 is counted;
//! - [`diagnostics`]: `lang::Diagnostic` to the protocol's, notes and labels as
//!   related information;
//! - [`resolve`]: definitions and what each use of a name refers to;
//! - [`hover`], [`navigation`] (definitions, symbols), [`completion`];
//! - [`source_text`]: declarations and doc comments, and the stdlib's files;
//! - [`server`]: the loop, debouncing, and the guard that turns panics into
//!   error responses.
//!
//! The client may pass `{"target": "sm_80" | "sm_90a" | "sm_100a"}` as
//! `initializationOptions`; files are checked for `sm_90a` otherwise.

pub mod analysis;
pub mod completion;
pub mod diagnostics;
pub mod hover;
pub mod navigation;
pub mod position;
pub mod resolve;
pub mod server;
pub mod source_text;

use lsp_server::Connection;
use lsp_types::{
    CompletionOptions, HoverProviderCapability, InitializeParams, OneOf, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions,
};

pub use server::{DEBOUNCE, Options, Server};

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

/// Runs the initialisation handshake on `connection`, then serves until `exit`.
pub fn serve(connection: &Connection) -> Result<(), String> {
    let (id, params) = connection
        .initialize_start()
        .map_err(|error| error.to_string())?;
    let params: Option<InitializeParams> = serde_json::from_value(params).ok();
    let options = Options {
        target: params
            .and_then(|params| params.initialization_options)
            .and_then(|options| options.get("target")?.as_str()?.parse().ok())
            .unwrap_or(cute::Target::Sm90a),
    };
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "cukc lsp", "version": env!("CARGO_PKG_VERSION") },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|error| error.to_string())?;
    Server::new(connection, options).run()
}

/// Serves over standard input and output: what `cukc lsp` runs.
pub fn run_stdio() -> Result<(), String> {
    let (connection, io_threads) = Connection::stdio();
    let served = serve(&connection);
    drop(connection);
    let joined = io_threads.join().map_err(|error| error.to_string());
    served.and(joined)
}
