//! The stdio transport: LSP's `Content-Length` framing, read and written here and
//! handed to lsp-server's [`Connection`] through channels.
//!
//! lsp-server's own reader ends the session at the first malformed header or body,
//! and allocates whatever `Content-Length` claims before reading it. This one never
//! gives up before the input ends:
//!
//! - a header line that is not `Name: value` is skipped; when it ends in a
//!   `Content-Length:` header (a message glued to the previous one), reading resumes
//!   there. Runs of skipped bytes are logged on standard error, one line per run;
//! - a header block without a usable `Content-Length`, or one claiming more than
//!   [`MAX_MESSAGE_BYTES`], is logged and its body is skipped as above, up to the
//!   next header, so that no claim makes the server allocate or wait for it;
//! - a body that is not UTF-8 or not JSON is answered with JSON-RPC's `ParseError`,
//!   one that is JSON but no message with `InvalidRequest`, both with the request's
//!   `id` when it has one and `null` otherwise, as JSON-RPC 2.0 asks.
//!
//! No line is held beyond [`MAX_HEADER_LINE`] bytes, so memory stays bounded by the
//! message cap whatever arrives. After `exit` is passed on, nothing more is read.

use std::fmt;
use std::io::{self, BufRead, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, bounded, select};
use lsp_server::{Connection, ErrorCode, Message};
use serde_json::{Value, json};

use crate::framing::{Frame, FrameReader};

/// The largest message body accepted, in bytes (16 MiB); larger ones are skipped.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// The longest header line kept, in bytes; longer lines are junk, skipped.
pub const MAX_HEADER_LINE: usize = 4096;

/// The threads that move messages between the streams and the [`Connection`].
pub struct IoThreads {
    writer: JoinHandle<io::Result<()>>,
}

impl IoThreads {
    /// Waits until every message the server sent has been written. The reader is
    /// not waited for: after `exit` it has stopped, and otherwise it may be blocked
    /// on input that never comes.
    pub fn join(self) -> Result<(), TransportError> {
        match self.writer.join() {
            Ok(written) => written.map_err(|error| TransportError::Write(error.to_string())),
            Err(_) => Err(TransportError::WriterPanicked),
        }
    }
}

/// Why the messages the server sent were not all written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportError {
    /// Writing to the output failed: the error, as the system reports it.
    Write(String),
    /// The writer thread panicked.
    WriterPanicked,
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Write(error) => f.write_str(error),
            TransportError::WriterPanicked => f.write_str("the writer thread panicked"),
        }
    }
}

impl std::error::Error for TransportError {}

/// A connection over standard input and output.
pub fn stdio() -> (Connection, IoThreads) {
    spawn(io::BufReader::new(io::stdin()), io::stdout())
}

/// A connection reading framed messages from `input` and writing to `output`.
pub fn spawn(
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> (Connection, IoThreads) {
    let (to_server, from_client) = bounded::<Message>(16);
    let (to_client, from_server) = bounded::<Message>(16);
    let (errors, raw_errors) = bounded::<String>(16);
    std::thread::Builder::new()
        .name("cukc-lsp-reader".to_owned())
        .spawn(move || read_loop(FrameReader::new(input), &to_server, &errors))
        .expect("the reader thread starts");
    let writer = std::thread::Builder::new()
        .name("cukc-lsp-writer".to_owned())
        .spawn(move || write_loop(output, &from_server, &raw_errors))
        .expect("the writer thread starts");
    let connection = Connection {
        sender: to_client,
        receiver: from_client,
    };
    (connection, IoThreads { writer })
}

fn read_loop(
    mut frames: FrameReader<impl BufRead>,
    server: &Sender<Message>,
    errors: &Sender<String>,
) {
    loop {
        let frame = match frames.next_frame() {
            Ok(frame) => frame,
            Err(error) => {
                log(&format!("cannot read the input: {error}"));
                return;
            }
        };
        if let Some(junk) = frames.take_junk() {
            log(&junk);
        }
        let body = match frame {
            Frame::End => return,
            Frame::Skipped(why) => {
                log(&why);
                continue;
            }
            Frame::Body(body) => body,
        };
        match decode(&body) {
            Ok(message) => {
                let is_exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if server.send(message).is_err() || is_exit {
                    return;
                }
            }
            Err((code, id, why)) => {
                log(&why);
                let error = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": code as i32, "message": why}});
                let _ = errors.send(error.to_string());
            }
        }
    }
}

/// A body as a message, or the error to answer it with: code, `id`, message.
fn decode(body: &[u8]) -> Result<Message, (ErrorCode, Value, String)> {
    let text = std::str::from_utf8(body).map_err(|error| {
        let why = format!("a message body is not UTF-8: {error}");
        (ErrorCode::ParseError, Value::Null, why)
    })?;
    let value: Value = serde_json::from_str(text).map_err(|error| {
        let why = format!("a message body is not JSON: {error}");
        (ErrorCode::ParseError, Value::Null, why)
    })?;
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        None => Value::Null,
        // lsp-server would read such a request as a notification.
        Some(other) => {
            let why = format!("a message's `id` is neither a number nor a string: {other}");
            return Err((ErrorCode::InvalidRequest, Value::Null, why));
        }
    };
    serde_json::from_value(value).map_err(|error| {
        let why = format!("a message is not a JSON-RPC request, notification or response: {error}");
        (ErrorCode::InvalidRequest, id, why)
    })
}

fn write_loop(
    mut output: impl Write,
    messages: &Receiver<Message>,
    raw_errors: &Receiver<String>,
) -> io::Result<()> {
    let mut errors_open = true;
    loop {
        if !errors_open {
            match messages.recv() {
                Ok(message) => message.write(&mut output)?,
                Err(_) => return Ok(()),
            }
            continue;
        }
        select! {
            recv(messages) -> message => match message {
                Ok(message) => message.write(&mut output)?,
                Err(_) => return Ok(()),
            },
            recv(raw_errors) -> error => match error {
                Ok(error) => {
                    write!(output, "Content-Length: {}\r\n\r\n{error}", error.len())?;
                    output.flush()?;
                }
                Err(_) => errors_open = false,
            },
        }
    }
}

fn log(message: &str) {
    eprintln!("cukc lsp: {message}");
}
