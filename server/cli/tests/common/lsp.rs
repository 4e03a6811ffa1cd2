//! A language client for the end-to-end tests: speaks JSON-RPC to a real
//! `faultlens lsp` process over stdio, the way an editor does.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_faultlens");
pub const WAIT: Duration = Duration::from_secs(60);

/// A language client speaking JSON-RPC to a `faultlens lsp` process.
pub struct Client {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Messages from the server not consumed yet (notifications, requests).
    pub seen: Vec<Value>,
    /// Every message ever received, for assertions about the past.
    pub log: Vec<Value>,
    pub next_id: i64,
    /// Whether requests from the server are answered (as editors do).
    pub answers_requests: bool,
}

impl Client {
    pub fn start() -> Client {
        Client::start_with_env(&[])
    }

    /// Starts the server with extra environment variables.
    pub fn start_with_env(vars: &[(&str, &str)]) -> Client {
        let mut child = Command::new(BIN)
            .arg("lsp")
            .envs(vars.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("faultlens lsp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            incoming,
            seen: vec![],
            log: vec![],
            next_id: 1,
            answers_requests: true,
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, message: &Value) {
        let body = message.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response (the whole response object).
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_message(
            |m| m.get("id") == Some(&json!(id)) && m.get("method").is_none(),
            WAIT,
        )
        .unwrap_or_else(|| panic!("no response to {method}"))
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    /// Pumps messages until one matches, answering the server's requests.
    pub fn wait_message(
        &mut self,
        matches: impl Fn(&Value) -> bool,
        timeout: Duration,
    ) -> Option<Value> {
        if let Some(i) = self.seen.iter().position(&matches) {
            return Some(self.seen.remove(i));
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.incoming.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => return None,
            };
            self.log.push(message.clone());
            if self.answers_requests
                && message.get("method").is_some()
                && message.get("id").is_some()
            {
                // A request from the server: accept it.
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": null});
                self.send(&reply);
            }
            if matches(&message) {
                return Some(message);
            }
            self.seen.push(message);
        }
    }

    /// Waits for a notification `method` whose params satisfy `matches`.
    pub fn wait_notification(&mut self, method: &str, matches: impl Fn(&Value) -> bool) -> Value {
        self.wait_message(
            |m| m["method"] == method && m.get("id").is_none() && matches(&m["params"]),
            WAIT,
        )
        .unwrap_or_else(|| {
            panic!(
                "no {method} notification as expected; got: {:#?}",
                self.seen
            )
        })["params"]
            .clone()
    }

    pub fn initialize(&mut self, root: &Path, options: Value) -> Value {
        self.initialize_with(
            root,
            options,
            json!({
                "window": {"workDoneProgress": true},
                "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}},
                "textDocument": {"publishDiagnostics": {"relatedInformation": true}}
            }),
        )
    }

    pub fn initialize_with(&mut self, root: &Path, options: Value, capabilities: Value) -> Value {
        let uri = file_uri(root);
        let result = self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri,
                "workspaceFolders": [{"uri": uri, "name": "fixture"}],
                "initializationOptions": options,
                "capabilities": capabilities,
            }),
        );
        self.notify("initialized", json!({}));
        result
    }

    pub fn open(&mut self, path: &Path) {
        let text = std::fs::read_to_string(path).unwrap();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": file_uri(path), "languageId": "c", "version": 1, "text": text}}),
        );
    }

    /// Sends `body` under a `Content-Length` of `length`, right or wrong.
    pub fn send_with_length(&mut self, body: &str, length: usize) {
        self.send_raw(format!("Content-Length: {length}\r\n\r\n{body}").as_bytes());
    }

    /// Waits for the response carrying `id` (a number, a string or null).
    pub fn response_to(&mut self, id: &Value) -> Value {
        self.wait_message(
            |m| m.get("id") == Some(id) && m.get("method").is_none(),
            WAIT,
        )
        .unwrap_or_else(|| panic!("no response with id {id}; got: {:#?}", self.seen))
    }

    /// Ends the session with `exit`, after `shutdown` or not; returns the
    /// server's exit status.
    pub fn exit(mut self, shutdown_first: bool) -> std::process::ExitStatus {
        if shutdown_first {
            self.request("shutdown", Value::Null);
        }
        self.notify("exit", Value::Null);
        self.stdin.take();
        wait_exit(&mut self.child, Duration::from_secs(10)).expect("server exits after exit")
    }

    pub fn shutdown(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.stdin.take();
        let status =
            wait_exit(&mut self.child, Duration::from_secs(10)).expect("server exits after exit");
        assert!(status.success(), "exit status {status}");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn wait_exit(child: &mut Child, timeout: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

pub fn read_message(reader: &mut impl BufRead) -> Option<Value> {
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
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            length = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

pub fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// A copy of a bundled fixture in a temporary directory.
pub fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join(name);
    super::copy_tree(&source, &root);
    (dir, root)
}

/// Runs the CLI; returns its standard output.
pub fn cli(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .output()
        .expect("faultlens runs");
    assert!(
        out.status.code().is_some(),
        "faultlens {args:?} was killed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub fn diagnostics_for<'a>(params: &'a Value, file: &str) -> Option<&'a Vec<Value>> {
    params["uri"]
        .as_str()?
        .ends_with(file)
        .then(|| params["diagnostics"].as_array())?
}
