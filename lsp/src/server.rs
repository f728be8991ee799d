//! The server loop: documents in, diagnostics and answers out.
//!
//! One thread reads messages from the connection. Documents are synchronised in
//! full (each change carries the whole text); a change marks its document stale and
//! schedules its diagnostics [`DEBOUNCE`] later, so a burst of keystrokes is
//! checked once. Opening and saving publish at once. A request on a stale document
//! analyses it first, so answers always match the text the client has.
//!
//! Nothing a client sends stops the server before `exit`: unknown requests get
//! `MethodNotFound`, bad parameters `InvalidParams`, a second `initialize` and any
//! request after `shutdown` `InvalidRequest`, and a panic while
//! analysing or answering is caught, reported on standard error and answered with
//! `InternalError`. Only the latest analysis of each open document is kept, and a
//! closed document is forgotten, so memory stays flat however long the session.
//! Requests are answered in `requests.rs`; notifications and publishing are here.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use lsp_server::{Connection, ErrorCode, Message, Notification};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::{
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, PublishDiagnosticsParams, Uri,
};
use serde_json::Value;

mod requests;

use crate::SessionError;
use crate::analysis::FileAnalysis;
use crate::diagnostics;

/// How long after the last change a document's diagnostics are published.
pub const DEBOUNCE: Duration = Duration::from_millis(10);

/// What the client chose at initialisation.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The architecture the client asked for; `None`: each file's own, the one its
    /// opening comment lines name (`// target: sm_100a`), else sm_90a, as `cukc
    /// check` picks it.
    pub target: Option<cute::Target>,
}

/// One open document.
struct Document {
    text: String,
    version: i32,
    /// The analysis of `text`, or `None` while it is stale.
    analysis: Option<Rc<FileAnalysis>>,
    /// When its diagnostics are due, if they are.
    publish_at: Option<Instant>,
}

/// The server's state.
pub struct Server<'c> {
    connection: &'c Connection,
    options: Options,
    documents: HashMap<Uri, Document>,
    /// Whether `shutdown` was answered: only `exit` is served after it.
    shut_down: bool,
}

/// Why a request failed.
type Failure = (ErrorCode, String);

impl<'c> Server<'c> {
    /// A server answering on `connection`, which has been initialised.
    pub fn new(connection: &'c Connection, options: Options) -> Server<'c> {
        Server {
            connection,
            options,
            documents: HashMap::new(),
            shut_down: false,
        }
    }

    /// Serves until `exit` (an error unless `shutdown` came first, as the protocol
    /// asks), or until the client goes away.
    pub fn run(mut self) -> Result<(), SessionError> {
        loop {
            let due = self.documents.values().filter_map(|d| d.publish_at).min();
            let received = match due {
                Some(deadline) => self.connection.receiver.recv_deadline(deadline),
                None => self
                    .connection
                    .receiver
                    .recv()
                    .map_err(|_| RecvTimeoutError::Disconnected),
            };
            let message = match received {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => {
                    self.publish_due();
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            };
            match message {
                Message::Request(request) => self.request(request),
                Message::Notification(notification) if notification.method == "exit" => {
                    return if self.shut_down {
                        Ok(())
                    } else {
                        Err(SessionError::ExitBeforeShutdown)
                    };
                }
                Message::Notification(notification) => self.notification(notification),
                Message::Response(response) => log(&format!(
                    "a response to no request (id {}) is ignored",
                    response.id
                )),
            }
        }
    }

    fn notification(&mut self, notification: Notification) {
        let Notification { method, params } = notification;
        let handled = catch_unwind(AssertUnwindSafe(|| match method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(params) = parse_params::<DidOpenTextDocumentParams>(params) {
                    let document = params.text_document;
                    self.set_text(document.uri.clone(), document.text, document.version);
                    self.publish(&document.uri);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(params) = parse_params::<DidChangeTextDocumentParams>(params)
                    && let Some(change) = params.content_changes.into_iter().last()
                {
                    let document = params.text_document;
                    self.set_text(document.uri.clone(), change.text, document.version);
                    if let Some(open) = self.documents.get_mut(&document.uri) {
                        open.publish_at = Some(Instant::now() + DEBOUNCE);
                    }
                }
            }
            DidSaveTextDocument::METHOD => {
                if let Ok(params) = parse_params::<DidSaveTextDocumentParams>(params) {
                    let uri = params.text_document.uri;
                    if let Some(text) = params.text {
                        let version = self.documents.get(&uri).map_or(0, |d| d.version);
                        self.set_text(uri.clone(), text, version);
                    }
                    self.publish(&uri);
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(params) = parse_params::<DidCloseTextDocumentParams>(params) {
                    let uri = params.text_document.uri;
                    self.documents.remove(&uri);
                    self.send_diagnostics(uri, Vec::new(), None);
                }
            }
            _ => {}
        }));
        if let Err(panic) = handled {
            log(&format!(
                "internal error while handling `{method}`: {}",
                panic_message(panic.as_ref())
            ));
        }
    }

    fn set_text(&mut self, uri: Uri, text: String, version: i32) {
        self.documents.insert(
            uri,
            Document {
                text,
                version,
                analysis: None,
                publish_at: None,
            },
        );
    }

    /// The current analysis of `uri`, made now if the document is stale.
    fn analysis(&mut self, uri: &Uri) -> Option<Rc<FileAnalysis>> {
        let document = self.documents.get_mut(uri)?;
        if document.analysis.is_none() {
            let target = (self.options.target)
                .or_else(|| cute::Target::declared_in(&document.text))
                .unwrap_or(cute::Target::Sm90a);
            document.analysis = Some(Rc::new(analyse(&document.text, target)));
        }
        document.analysis.clone()
    }

    fn publish_due(&mut self) {
        let now = Instant::now();
        let due: Vec<Uri> = self
            .documents
            .iter()
            .filter(|(_, document)| document.publish_at.is_some_and(|at| at <= now))
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in due {
            self.publish(&uri);
        }
    }

    fn publish(&mut self, uri: &Uri) {
        let Some(analysis) = self.analysis(uri) else {
            return;
        };
        let Some(document) = self.documents.get_mut(uri) else {
            return;
        };
        document.publish_at = None;
        let version = Some(document.version);
        let converted = catch_unwind(AssertUnwindSafe(|| diagnostics::to_lsp(&analysis, uri)));
        self.send_diagnostics(uri.clone(), converted.unwrap_or_default(), version);
    }

    fn send_diagnostics(
        &self,
        uri: Uri,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.send(Notification::new(PublishDiagnostics::METHOD.to_owned(), params).into());
    }

    fn send(&self, message: Message) {
        // A client that went away is noticed by the next receive.
        let _ = self.connection.sender.send(message);
    }
}

/// Analyses `text`; a panic in the typechecker leaves the parse's diagnostics.
fn analyse(text: &str, target: cute::Target) -> FileAnalysis {
    match catch_unwind(|| FileAnalysis::new(text.to_owned(), target)) {
        Ok(analysis) => analysis,
        Err(panic) => {
            log(&format!(
                "internal error while checking a document: {}; showing syntax errors only",
                panic_message(panic.as_ref())
            ));
            catch_unwind(|| FileAnalysis::parse_only(text.to_owned()))
                .unwrap_or_else(|_| FileAnalysis::parse_only(String::new()))
        }
    }
}

fn parse_params<P: serde::de::DeserializeOwned>(params: Value) -> Result<P, Failure> {
    serde_json::from_value(params).map_err(|error| (ErrorCode::InvalidParams, error.to_string()))
}

/// The text a panic carried.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

fn log(message: &str) {
    eprintln!("cukc lsp: {message}");
}

#[cfg(test)]
mod tests;
