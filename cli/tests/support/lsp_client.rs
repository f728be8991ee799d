//! A minimal LSP client for tests: starts `cukc lsp` as a process and exchanges
//! JSON-RPC messages with it over its standard input and output, keeping what it
//! logs on standard error.

// Each test binary that includes this module uses part of it.
#![allow(dead_code)]

use std::io::Read;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any single answer may take before the test fails.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// A running `cukc lsp` and the messages it sent that nobody has read yet.
pub struct LspProcess {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    /// Everything the server wrote on standard error so far.
    log: Arc<Mutex<Vec<u8>>>,
    /// Notifications received while waiting for something else.
    pub notifications: Vec<Value>,
    next_id: i64,
}

impl LspProcess {
    /// Starts `cukc lsp` and runs the initialisation handshake.
    pub fn start() -> LspProcess {
        let mut process = LspProcess::spawn();
        process.initialize();
        process.notify("initialized", json!({}));
        process
    }

    /// Starts `cukc lsp` without initialising it.
    pub fn spawn() -> LspProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cukc"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cukc lsp starts");
        let stdin = child.stdin.take().expect("a piped stdin");
        let stdout = child.stdout.take().expect("a piped stdout");
        let mut stderr = child.stderr.take().expect("a piped stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let log_writer = Arc::clone(&log);
        std::thread::spawn(move || {
            let mut chunk = [0; 4096];
            while let Ok(read @ 1..) = stderr.read(&mut chunk) {
                if let Ok(mut log) = log_writer.lock() {
                    log.extend_from_slice(&chunk[..read]);
                }
            }
        });
        let (sender, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        LspProcess {
            child,
            stdin,
            incoming,
            log,
            notifications: Vec::new(),
            next_id: 1,
        }
    }

    /// Sends `initialize` and checks the answer.
    pub fn initialize(&mut self) {
        let result = self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        );
        assert!(
            result["result"]["capabilities"]["hoverProvider"] == json!(true),
            "{result}"
        );
    }

    /// What the server logged on standard error so far.
    pub fn log(&self) -> String {
        let log = self.log.lock().map(|log| log.clone()).unwrap_or_default();
        String::from_utf8_lossy(&log).into_owned()
    }

    /// Writes `bytes` to the server's input as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin
            .write_all(bytes)
            .and_then(|()| self.stdin.flush())
            .expect("cukc lsp reads its input");
    }

    /// Writes `body` to the server's input with a `Content-Length` header.
    pub fn send_framed(&mut self, body: &[u8]) {
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend_from_slice(body);
        self.send_raw(&framed);
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(|message| message["id"] == json!(id) && message.get("method").is_none())
    }

    /// The next `publishDiagnostics` for `uri` whose diagnostics satisfy `accept`
    /// (earlier ones are dropped).
    pub fn diagnostics_where(
        &mut self,
        uri: &str,
        accept: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let is_wanted = |message: &Value| {
            message["method"] == "textDocument/publishDiagnostics"
                && message["params"]["uri"] == uri
                && message["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|diagnostics| accept(diagnostics))
        };
        let message = self.wait_for(is_wanted);
        message["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Sends `shutdown` and `exit`, and returns the exit status.
    pub fn shut_down(mut self) -> std::process::ExitStatus {
        let response = self.request("shutdown", Value::Null);
        assert_eq!(response["result"], Value::Null, "{response}");
        self.notify("exit", Value::Null);
        self.exit_status()
    }

    /// The exit status of the server, once it exits by itself.
    pub fn exit_status(mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            assert!(Instant::now() < deadline, "cukc lsp did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The first message, received or still to come, that is `wanted`.
    pub fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(index) = self.notifications.iter().position(&wanted) {
            return self.notifications.remove(index);
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.notifications.push(message),
                Err(RecvTimeoutError::Timeout) => panic!("no answer from cukc lsp in time"),
                Err(RecvTimeoutError::Disconnected) => panic!("cukc lsp closed its output"),
            }
        }
    }

    fn send(&mut self, message: &Value) {
        self.send_framed(message.to_string().as_bytes());
    }
}

impl Drop for LspProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads one `Content-Length`-framed message.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The `file://` URI tests give their documents.
pub fn test_uri(name: &str) -> String {
    format!("file:///cukc-lsp-test/{name}")
}

/// The zero-based line and UTF-16 column of the `nth` occurrence of `needle`
/// in `text` (ASCII text assumed), as LSP position JSON.
pub fn position_of(text: &str, needle: &str, nth: usize) -> Value {
    let offset = text
        .match_indices(needle)
        .nth(nth)
        .map(|(offset, _)| offset)
        .unwrap_or_else(|| panic!("`{needle}` #{nth} is not in the text"));
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let column = before.len() - before.rfind('\n').map_or(0, |newline| newline + 1);
    json!({"line": line, "character": column})
}
