//! Requests: `shutdown`, and hover, go-to-definition, completion and document symbols
//! on an open document, analysed first when stale. A request after `shutdown`, a second
//! `initialize` or an unknown method is refused with its error code; a panic while
//! answering is caught, logged and answered with `InternalError`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use lsp_server::{ErrorCode, Request, Response};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest, Initialize, Request as _,
    Shutdown,
};
use lsp_types::{
    CompletionResponse, DocumentSymbolResponse, GotoDefinitionResponse, Position,
    TextDocumentPositionParams, Uri,
};
use serde_json::Value;

use super::{Failure, Server, log, panic_message, parse_params};
use crate::analysis::FileAnalysis;
use crate::{completion, hover, navigation};

impl Server<'_> {
    pub(super) fn request(&mut self, request: Request) {
        let id = request.id.clone();
        let method = request.method.clone();
        let answer = match method.as_str() {
            _ if self.shut_down => Ok(Err((
                ErrorCode::InvalidRequest,
                format!("`{method}` after `shutdown`"),
            ))),
            Shutdown::METHOD => {
                self.shut_down = true;
                Ok(Ok(Value::Null))
            }
            Initialize::METHOD => Ok(Err((
                ErrorCode::InvalidRequest,
                "`initialize` was already answered".to_owned(),
            ))),
            _ => catch_unwind(AssertUnwindSafe(|| self.answer(request))),
        };
        let response = match answer {
            Ok(Ok(result)) => Response::new_ok(id, result),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(panic) => {
                let message = format!(
                    "internal error while answering `{method}`: {}",
                    panic_message(panic.as_ref())
                );
                log(&message);
                Response::new_err(id, ErrorCode::InternalError as i32, message)
            }
        };
        self.send(response.into());
    }

    /// The result of `request`.
    fn answer(&mut self, request: Request) -> Result<Value, Failure> {
        let Request { method, params, .. } = request;
        match method.as_str() {
            HoverRequest::METHOD => to_json(
                self.at_position(params, |analysis, _, offset| hover::hover(analysis, offset)),
            ),
            GotoDefinition::METHOD => to_json(self.at_position(params, |analysis, uri, offset| {
                navigation::definition(analysis, uri, offset).map(GotoDefinitionResponse::Scalar)
            })),
            Completion::METHOD => to_json(self.at_position(params, |analysis, _, offset| {
                Some(CompletionResponse::Array(completion::complete(
                    analysis, offset,
                )))
            })),
            DocumentSymbolRequest::METHOD => {
                let params: lsp_types::DocumentSymbolParams = parse_params(params)?;
                let symbols = self.analysis(&params.text_document.uri).map(|analysis| {
                    DocumentSymbolResponse::Nested(navigation::document_symbols(&analysis))
                });
                to_json(Ok(symbols))
            }
            #[cfg(test)]
            "cukc/testPanic" => panic!("a panic on request"),
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("cukc lsp does not answer `{method}`"),
            )),
        }
    }

    /// Answers a request made at a position of a document: `None` (JSON `null`) when
    /// the document is not open.
    fn at_position<T>(
        &mut self,
        params: Value,
        answer: impl FnOnce(&FileAnalysis, &Uri, u32) -> Option<T>,
    ) -> Result<Option<T>, Failure> {
        let params: TextDocumentPositionParams = parse_params(params)?;
        let uri = params.text_document.uri;
        let Some(analysis) = self.analysis(&uri) else {
            return Ok(None);
        };
        let offset = offset_of(&analysis, params.position);
        Ok(answer(&analysis, &uri, offset))
    }
}

/// A result as JSON.
fn to_json<T: serde::Serialize>(result: Result<T, Failure>) -> Result<Value, Failure> {
    result.and_then(|value| {
        serde_json::to_value(value).map_err(|error| (ErrorCode::InternalError, error.to_string()))
    })
}

fn offset_of(analysis: &FileAnalysis, position: Position) -> u32 {
    analysis.lines.offset(&analysis.text, position)
}
