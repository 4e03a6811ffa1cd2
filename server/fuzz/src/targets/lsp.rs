//! The language server's message dispatch: whole sessions over in-memory
//! streams, as `faultlens lsp` serves them, in an untrusted workspace (no
//! build or test ever runs) that holds the results and the diagnosis of a
//! real `faultlens localize`/`diagnose` of `fixtures/mid-args`.
//!
//! An input is a script: one JSON-RPC message per line (`$ROOT`, `$FILE`
//! and `$TEXT` stand for the workspace's URI, `mid.c`'s URI and its text as
//! a JSON string). A line that is not JSON is sent as it is, as a body. The
//! session starts with `initialize` (the script's own when its first line is
//! one; `trusted` is always forced off) and ends with a `faultlens/ranking`
//! request, `shutdown` and `exit`. Checked: no panic anywhere in the server;
//! every request the script sends with a number or string id is answered
//! (result or error) within the bound; the last ranking is answered, with
//! the stored ranking unless the script itself shut the server down or
//! chose its own `initialize`; the session ends after `exit`.

use crate::{data_dir, Rng, Target};
use faultlens_lsp::framing::{Frame, Framer};
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub fn target() -> Target {
    Target {
        name: "lsp",
        about: "language server sessions: initialize, edits, hovers, lenses, hints, commands, faultlens/ranking",
        run,
        generate,
        dictionary: DICTIONARY,
        max_len: 64 * 1024,
        hang_limit: Duration::from_secs(10),
        ci_inputs: 300,
    }
}

/// How long the whole session may take before the target reports a hang.
const SESSION_BOUND: Duration = Duration::from_secs(8);

const DICTIONARY: &[&[u8]] = &[
    b"\"line\":4294967295",
    b"\"character\":4294967295",
    b"\"line\":-1",
    b"\"line\":21",
    b"\"character\":0",
    b"\"uri\":\"$FILE\"",
    b"\"uri\":\"file:///etc/passwd\"",
    b"\"uri\":\"$ROOT/../x.c\"",
    b"\"text\":$TEXT",
    b"\"text\":\"\\n\\n\\n\"",
    b"\"version\":2147483647",
    b"\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":0,\"character\":0}}",
    b"\"measure\":\"dstar\"",
    b"\"measure\":\"blockrank\"",
    b"\"measure\":\"fusion\"",
    b"\"command\":\"faultlens.setMeasure\"",
    b"\"command\":\"faultlens.showFailingTests\"",
    b"\"arguments\":[]",
    b"\"method\":\"textDocument/hover\"",
    b"\"method\":\"textDocument/didChange\"",
    b"\"method\":\"textDocument/codeLens\"",
    b"\"method\":\"textDocument/inlayHint\"",
    b"\"method\":\"faultlens/ranking\"",
    b"\"id\":1",
    b"null",
    b"{}",
    b"[]",
    b"\n",
];

struct Workspace {
    root_uri: String,
    file_uri: String,
    text: String,
}

/// A copy of `fixtures/mid-args` with the stored results of a real run.
fn workspace() -> &'static Workspace {
    static WS: OnceLock<Workspace> = OnceLock::new();
    WS.get_or_init(|| {
        let root = tempfile::Builder::new()
            .prefix("faultlens-fuzz-lsp-")
            .tempdir()
            .expect("a temporary directory")
            .keep()
            .canonicalize()
            .unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mid-args");
        for name in ["mid.c", "faultlens.toml"] {
            std::fs::copy(fixture.join(name), root.join(name)).expect("fixtures/mid-args");
        }
        std::fs::create_dir_all(root.join(".faultlens")).unwrap();
        std::fs::copy(
            data_dir().join("mid-args-results.json"),
            root.join(".faultlens/results.json"),
        )
        .unwrap();
        std::fs::copy(
            data_dir().join("mid-args-diagnosis.json"),
            root.join(".faultlens/diagnosis.json"),
        )
        .unwrap();
        let text = std::fs::read_to_string(root.join("mid.c")).unwrap();
        Workspace {
            root_uri: format!("file://{}", root.display()),
            file_uri: format!("file://{}", root.join("mid.c").display()),
            text,
        }
    })
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// What the client has received.
#[derive(Default)]
struct Received {
    responses: HashMap<i64, Value>,
    /// Responses to ids the client did not track (the guard's, id null).
    other: usize,
    /// The states of `faultlens/status` notifications, in order.
    statuses: Vec<String>,
}

/// Reads the server's frames; answers its requests with `null`.
async fn read_server(
    mut output: tokio::io::ReadHalf<tokio::io::DuplexStream>,
    replies: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
    received: Arc<Mutex<Received>>,
    notify: Arc<tokio::sync::Notify>,
) {
    let mut buffer: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match output.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        buffer.extend_from_slice(&chunk[..n]);
        while let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let header = String::from_utf8_lossy(&buffer[..end]).to_string();
            let length: usize = header
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| {
                    panic!("the server wrote a frame without Content-Length: {header:?}")
                });
            if buffer.len() < end + 4 + length {
                break;
            }
            let body: Vec<u8> = buffer.drain(..end + 4 + length).skip(end + 4).collect();
            let message: Value = serde_json::from_slice(&body).unwrap_or_else(|e| {
                panic!(
                    "the server wrote a body that is not JSON ({e}): {}",
                    String::from_utf8_lossy(&body)
                )
            });
            let id = message.get("id").cloned().unwrap_or(Value::Null);
            if message.get("method").is_some() {
                if message["method"] == "faultlens/status" {
                    let state = message["params"]["state"]
                        .as_str()
                        .unwrap_or("?")
                        .to_string();
                    received.lock().unwrap().statuses.push(state);
                    notify.notify_waiters();
                }
                if !id.is_null() {
                    let reply = json!({"jsonrpc": "2.0", "id": id, "result": null});
                    let _ = replies.send(frame(reply.to_string().as_bytes()));
                }
                continue;
            }
            let mut r = received.lock().unwrap();
            match id.as_i64() {
                Some(id) => {
                    r.responses.insert(id, message);
                }
                None => r.other += 1,
            }
            drop(r);
            notify.notify_waiters();
        }
    }
}

/// One script line, ready to send: the bytes, and the id to await.
struct Outgoing {
    body: Vec<u8>,
    awaits: Option<i64>,
    /// The methods the server will see in it.
    methods: Vec<String>,
}

fn force_untrusted(params: &mut Value) {
    if let Some(options) = params
        .get_mut("initializationOptions")
        .and_then(Value::as_object_mut)
    {
        options.insert("trusted".into(), json!(false));
    }
}

/// The messages the server will see of `body`, as the input guard passes
/// them (a body holding a JSON value and more passes the value): each one's
/// method and whether it has an id; and whether the guard answers a request
/// of it itself (with its id).
fn delivered(body: &[u8]) -> (Vec<(Option<String>, bool)>, bool) {
    let mut framer = Framer::default();
    framer.push(&frame(body));
    let mut messages = Vec::new();
    let mut answered = false;
    while let Some(f) = framer.next_frame() {
        match f {
            Frame::Message { method, has_id, .. } => messages.push((method, has_id)),
            Frame::Problem { reply, .. } => {
                answered |= reply.is_some_and(|r| !r["id"].is_null());
            }
        }
    }
    (messages, answered)
}

fn prepare(script: &str, ws: &Workspace) -> (Vec<Outgoing>, bool) {
    let text = serde_json::to_string(&ws.text).unwrap();
    let mut out = Vec::new();
    let mut own_initialize = false;
    for (i, line) in script.lines().enumerate() {
        let line = line
            .replace("$ROOT", &ws.root_uri)
            .replace("$FILE", &ws.file_uri)
            .replace("$TEXT", &text);
        if line.is_empty() {
            continue;
        }
        let (body, awaits) = match serde_json::from_str::<Value>(&line) {
            Ok(mut value) => {
                if value.get("method").and_then(Value::as_str) == Some("initialize") {
                    own_initialize |= i == 0;
                    if let Some(params) = value.get_mut("params") {
                        force_untrusted(params);
                    }
                }
                // A request with an id gets an id of ours, to await.
                let mut awaits = None;
                if let Some(object) = value.as_object_mut() {
                    if object
                        .get("id")
                        .is_some_and(|id| id.is_i64() || id.is_string())
                    {
                        let id = 1000 + out.len() as i64;
                        object.insert("id".into(), json!(id));
                        awaits = Some(id);
                    }
                }
                (value.to_string().into_bytes(), awaits)
            }
            Err(_) => (line.into_bytes(), None),
        };
        let (seen, answered) = delivered(&body);
        // A broken line whose start is an `initialize` would get past the
        // forced `trusted: false`: not sent.
        if awaits.is_none() && seen.iter().any(|(m, _)| m.as_deref() == Some("initialize")) {
            continue;
        }
        let request = answered || seen.iter().any(|(m, has_id)| m.is_some() && *has_id);
        let methods: Vec<String> = seen.into_iter().filter_map(|(m, _)| m).collect();
        let exit = methods.iter().any(|m| m == "exit");
        out.push(Outgoing {
            body,
            awaits: awaits.filter(|_| request),
            methods,
        });
        if exit {
            break;
        }
    }
    (out, own_initialize)
}

fn initialize(ws: &Workspace) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "rootUri": ws.root_uri,
        "initializationOptions": {"trusted": false},
        "capabilities": {"window": {"workDoneProgress": true},
                         "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}},
    }})
}

const FINAL_RANKING: i64 = 900_000;
const FINAL_SHUTDOWN: i64 = 900_001;

pub fn run(data: &[u8]) -> String {
    let ws = workspace();
    let script = String::from_utf8_lossy(data);
    let (messages, own_initialize) = prepare(&script, ws);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let stage = Arc::new(Mutex::new(String::from("starting")));
    let signature = runtime.block_on(async {
        tokio::time::timeout(
            SESSION_BOUND,
            session(ws, messages, own_initialize, stage.clone()),
        )
        .await
        .unwrap_or_else(|_| {
            panic!(
                "hang: the session did not end within {} s; it was {}",
                SESSION_BOUND.as_secs(),
                stage.lock().unwrap()
            )
        })
    });
    runtime.shutdown_timeout(Duration::from_secs(2));
    signature
}

async fn session(
    ws: &Workspace,
    messages: Vec<Outgoing>,
    own_initialize: bool,
    stage: Arc<Mutex<String>>,
) -> String {
    let set = |what: String| *stage.lock().unwrap() = what;
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_in, server_out) = tokio::io::split(server);
    let serving = tokio::spawn(async move {
        let backend = faultlens_lsp::serve(server_in, server_out).await;
        backend.cancel_run();
    });
    let (client_read, mut client_write) = tokio::io::split(client);
    let received = Arc::new(Mutex::new(Received::default()));
    let notify = Arc::new(tokio::sync::Notify::new());
    let (reply_tx, mut reply_rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let reader = tokio::spawn(read_server(
        client_read,
        reply_tx,
        received.clone(),
        notify.clone(),
    ));

    // A client waits for the answer to `initialize` before it sends more.
    let mut messages = messages.into_iter().peekable();
    let first = if own_initialize {
        messages
            .next_if(|m| m.awaits.is_some())
            .map(|m| (m.body, m.awaits.unwrap_or(0)))
    } else {
        Some((initialize(ws).to_string().into_bytes(), 1))
    };
    let mut answers = BTreeSet::new();
    set("waiting for the answer to initialize".into());
    if let Some((body, id)) = first {
        let _ = client_write.write_all(&frame(&body)).await;
        let answer = answer(
            id,
            "initialize",
            &received,
            &notify,
            &mut reply_rx,
            &mut client_write,
        )
        .await;
        answers.insert(answer);
        if !own_initialize {
            let _ = client_write
                .write_all(&frame(
                    br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
                ))
                .await;
            // The stored results are read in the background: wait for them.
            set("waiting for the stored results to load".into());
            loop {
                let waiting = notify.notified();
                tokio::pin!(waiting);
                waiting.as_mut().enable();
                let last = received.lock().unwrap().statuses.last().cloned();
                match last.as_deref() {
                    Some("done") => break,
                    Some(state @ ("error" | "stale" | "noResults")) => {
                        panic!("the stored results did not load: status {state}")
                    }
                    _ => {}
                }
                tokio::select! {
                    _ = &mut waiting => {}
                    Some(reply) = reply_rx.recv() => {
                        let _ = client_write.write_all(&reply).await;
                    }
                }
            }
        }
    }

    let mut to_send: Vec<Vec<u8>> = Vec::new();
    let mut awaited: Vec<(i64, String)> = Vec::new();
    let mut exited = false;
    let mut shut_down = false;
    for m in messages {
        to_send.push(frame(&m.body));
        if let Some(id) = m.awaits {
            awaited.push((id, m.methods.first().cloned().unwrap_or_default()));
        }
        exited |= m.methods.iter().any(|m| m == "exit");
        shut_down |= m.methods.iter().any(|m| m == "shutdown");
    }
    if !exited {
        let ranking = json!({"jsonrpc": "2.0", "id": FINAL_RANKING, "method": "faultlens/ranking", "params": {"measure": "ochiai"}});
        to_send.push(frame(ranking.to_string().as_bytes()));
        awaited.push((FINAL_RANKING, "faultlens/ranking".into()));
    }
    set("sending the script".into());
    for bytes in to_send {
        // The server's requests are answered between our messages.
        while let Ok(reply) = reply_rx.try_recv() {
            let _ = client_write.write_all(&reply).await;
        }
        if client_write.write_all(&bytes).await.is_err() {
            break;
        }
    }

    // Every request answered (unless the script ended the session).
    if !exited {
        for (id, method) in &awaited {
            set(format!("waiting for the answer to {method} (request {id})"));
            let answer = answer(
                *id,
                method,
                &received,
                &notify,
                &mut reply_rx,
                &mut client_write,
            )
            .await;
            answers.insert(answer);
        }
        let last = received.lock().unwrap().responses[&FINAL_RANKING].clone();
        if !own_initialize && !shut_down {
            let ranking = last["result"]["ranking"].as_array().unwrap_or_else(|| {
                panic!("the server stopped answering faultlens/ranking with the stored ranking: {last}")
            });
            assert!(
                ranking
                    .first()
                    .is_some_and(|l| l["file"] == "mid.c" && l["line"].is_u64()),
                "faultlens/ranking lost the stored ranking: {last}"
            );
        }
        let shutdown = json!({"jsonrpc": "2.0", "id": FINAL_SHUTDOWN, "method": "shutdown"});
        let _ = client_write
            .write_all(&frame(shutdown.to_string().as_bytes()))
            .await;
        let _ = client_write
            .write_all(&frame(br#"{"jsonrpc":"2.0","method":"exit"}"#))
            .await;
    }
    // After `exit` the server ends the session by itself.
    set("waiting for the server to end after exit".into());
    let _ = serving.await;
    drop(client_write);
    reader.abort();
    let other = received.lock().unwrap().other;
    let mut signature: Vec<String> = answers.into_iter().collect();
    signature.push(format!("{} unawaited", other.min(3)));
    signature.join("\n")
}

/// Waits for the response to request `id` (answering the server's own
/// requests meanwhile); its kind, for the signature.
async fn answer(
    id: i64,
    method: &str,
    received: &Mutex<Received>,
    notify: &tokio::sync::Notify,
    replies: &mut tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
    client: &mut tokio::io::WriteHalf<tokio::io::DuplexStream>,
) -> String {
    loop {
        let waiting = notify.notified();
        tokio::pin!(waiting);
        // Registered before the look, so a response in between is not missed.
        waiting.as_mut().enable();
        if let Some(response) = received.lock().unwrap().responses.get(&id) {
            return match response.get("error") {
                Some(e) => format!("{method} error {}", e["code"]),
                None => format!("{method} ok"),
            };
        }
        tokio::select! {
            _ = &mut waiting => {}
            Some(reply) = replies.recv() => {
                let _ = client.write_all(&reply).await;
            }
        }
    }
}

// ---------- generation ----------

fn position(rng: &mut Rng) -> Value {
    let line = match rng.below(6) {
        0 => json!(u32::MAX),
        1 => json!(rng.range(0, 100)),
        2 => json!(-1),
        _ => json!(rng.range(0, 50)),
    };
    let character = match rng.below(6) {
        0 => json!(u32::MAX),
        1 => json!(-3),
        _ => json!(rng.range(0, 40)),
    };
    json!({"line": line, "character": character})
}

fn uri(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0 => json!("file:///etc/passwd"),
        1 => json!("$ROOT/../mid.c"),
        2 => json!("$ROOT/other.c"),
        3 => json!("untitled:Untitled-1"),
        4 => json!("file://%zz"),
        5 => json!("mid.c"),
        6 => json!("$ROOT"),
        _ => json!("$FILE"),
    }
}

fn text(rng: &mut Rng) -> Value {
    match rng.below(8) {
        0 => json!(""),
        1 => json!("\n".repeat(rng.range(1, 500))),
        2 => json!("é😀\u{2028}\r\n\t\u{0}x"),
        3 => json!("int x;\n".repeat(rng.range(1, 3000))),
        4 => json!("$TEXT"),
        _ => json!(rng.pick(&["x", "\n", "  ", "return c;", "{", "}\n\n"])),
    }
}

fn change(rng: &mut Rng) -> Value {
    if rng.one_in(5) {
        return json!({"text": text(rng)});
    }
    let mut c = json!({"range": {"start": position(rng), "end": position(rng)}, "text": text(rng)});
    if rng.one_in(4) {
        c["rangeLength"] = json!(rng.range(0, 1000));
    }
    c
}

fn odd(rng: &mut Rng) -> Value {
    match rng.below(9) {
        0 => json!(null),
        1 => json!(-1),
        2 => json!("x"),
        3 => json!([]),
        4 => json!({}),
        5 => json!(1e300),
        6 => json!(true),
        7 => json!([{"uri": uri(rng), "line": u32::MAX}]),
        _ => json!(rng.pick(&[
            "ochiai",
            "dstar",
            "DStar3",
            "blockrank",
            "fusion",
            "opt-2",
            "dstar99999999999",
            ""
        ])),
    }
}

fn message(rng: &mut Rng, version: &mut i64) -> Value {
    let (method, params, request) = match rng.below(22) {
        0 | 1 => {
            *version += 1;
            (
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri(rng), "version": *version},
                "contentChanges": (0..rng.range(0, 4)).map(|_| change(rng)).collect::<Vec<_>>()}),
                false,
            )
        }
        2 => (
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(rng), "languageId": "c", "version": rng.range(0, 9), "text": text(rng)}}),
            false,
        ),
        3 => (
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri(rng)}}),
            false,
        ),
        4 => (
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri(rng)}, "text": text(rng)}),
            false,
        ),
        5..=7 => (
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(rng)}, "position": position(rng)}),
            true,
        ),
        8 => (
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri(rng)}}),
            true,
        ),
        9 => (
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri(rng)}, "range": {"start": position(rng), "end": position(rng)}}),
            true,
        ),
        10 | 11 => {
            let command = rng.pick(&[
                "faultlens.setMeasure",
                "faultlens.showFailingTests",
                "faultlens.localize",
                "faultlens.diagnose",
                "faultlens.generateTests",
                "faultlens.unknown",
                "",
            ]);
            let arguments: Vec<Value> = (0..rng.range(0, 3)).map(|_| odd(rng)).collect();
            let mut p = json!({"command": command});
            if !rng.one_in(4) {
                p["arguments"] = json!(arguments);
            }
            if command == "faultlens.showFailingTests" && rng.one_in(2) {
                p["arguments"] = json!([{"uri": uri(rng), "line": position(rng)["line"]}]);
            }
            ("workspace/executeCommand", p, true)
        }
        12 | 13 => (
            "faultlens/ranking",
            if rng.one_in(3) {
                odd(rng)
            } else {
                json!({"measure": odd(rng)})
            },
            true,
        ),
        14 => (
            "workspace/didChangeConfiguration",
            json!({"settings": {"faultlens": {
            "measure": odd(rng), "topN": odd(rng), "autoRunOnSave": odd(rng), "timeoutSeconds": odd(rng),
            "diagnose": odd(rng), "diagnoseTimeLimitSeconds": odd(rng), "diagnoseEffort": odd(rng),
            "trusted": true}}}),
            false,
        ),
        15 => (
            "$/cancelRequest",
            json!({"id": rng.range(1000, 1010)}),
            false,
        ),
        16 => (
            "window/workDoneProgress/cancel",
            json!({"token": odd(rng)}),
            false,
        ),
        17 => (
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": "$ROOT/.faultlens/results.json", "type": rng.range(1, 3)}]}),
            false,
        ),
        18 => (
            "codeLens/resolve",
            json!({"range": {"start": position(rng), "end": position(rng)}}),
            true,
        ),
        19 => (
            rng.pick(&["textDocument/definition", "unknown/method", "$/unknown"]),
            json!({}),
            rng.one_in(2),
        ),
        20 => ("shutdown", json!(null), true),
        _ => (
            "textDocument/hover",
            json!({"textDocument": {"uri": "$FILE"}, "position": {"line": rng.range(0, 45), "character": rng.range(0, 30)}}),
            true,
        ),
    };
    let mut m = Map::new();
    m.insert("jsonrpc".into(), json!("2.0"));
    if request {
        m.insert("id".into(), json!(1));
    }
    m.insert("method".into(), json!(method));
    if !params.is_null() {
        m.insert("params".into(), params);
    }
    Value::Object(m)
}

fn generate(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut lines: Vec<String> = if !corpus.is_empty() && rng.one_in(2) {
        String::from_utf8_lossy(&rng.pick(corpus))
            .lines()
            .map(String::from)
            .collect()
    } else {
        Vec::new()
    };
    let mut version = 1;
    if lines.is_empty() && rng.one_in(10) {
        let options =
            json!({"trusted": true, "measure": odd(rng), "topN": odd(rng), "diagnose": odd(rng)});
        lines.push(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                          "params": {"rootUri": uri(rng), "initializationOptions": options, "capabilities": odd(rng)}}).to_string());
    }
    if !lines.iter().any(|l| l.contains("didOpen")) && rng.one_in(2) {
        lines.push(r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$FILE","languageId":"c","version":1,"text":$TEXT}}}"#.into());
    }
    for _ in 0..rng.range(1, 25) {
        let m = message(rng, &mut version).to_string();
        let at = rng.range(lines.len().min(1), lines.len());
        lines.insert(at, m);
    }
    if rng.one_in(15) {
        lines.push(r#"{"jsonrpc":"2.0","method":"exit"}"#.into());
    }
    lines.join("\n").into_bytes()
}
