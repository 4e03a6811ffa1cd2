//! Hover latency while a localization runs in the background.
//!
//! Serves the language server in process over in-memory pipes, localizes a
//! copy of the `hang-loop` fixture (one test hangs until its timeout, so a
//! run lasts a few seconds of real builds and test processes), then sends
//! hovers back to back: first with the server idle, then during a second
//! run. Prints median and p99 of each. `cargo bench -p faultlens-lsp`.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};
use tokio::sync::{mpsc, oneshot};

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>;

struct Client {
    writer: tokio::sync::Mutex<WriteHalf<DuplexStream>>,
    pending: Pending,
    next_id: Mutex<i64>,
    notifications: tokio::sync::Mutex<mpsc::UnboundedReceiver<Value>>,
}

impl Client {
    async fn write(&self, message: &Value) {
        let body = message.to_string();
        let mut w = self.writer.lock().await;
        w.write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
            .await
            .unwrap();
    }

    async fn request(&self, method: &str, params: Value) -> Value {
        let id = {
            let mut n = self.next_id.lock().unwrap();
            *n += 1;
            *n
        };
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let response = tokio::time::timeout(Duration::from_secs(60), rx)
            .await
            .expect("response in time")
            .unwrap();
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    async fn notify(&self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// The next status notification in `states`.
    async fn wait_status(&self, states: &[&str]) -> Value {
        let mut rx = self.notifications.lock().await;
        loop {
            let n = tokio::time::timeout(Duration::from_secs(120), rx.recv())
                .await
                .expect("status in time")
                .expect("server alive");
            if n["method"] == "faultlens/status"
                && states.iter().any(|s| n["params"]["state"] == *s)
            {
                return n["params"].clone();
            }
        }
    }

    /// Whether a status in `states` arrived since the last look.
    async fn saw_status(&self, states: &[&str]) -> bool {
        let mut rx = self.notifications.lock().await;
        let mut seen = false;
        while let Ok(n) = rx.try_recv() {
            if n["method"] == "faultlens/status"
                && states.iter().any(|s| n["params"]["state"] == *s)
            {
                seen = true;
            }
        }
        seen
    }
}

async fn read_loop(
    reader: tokio::io::ReadHalf<DuplexStream>,
    pending: Pending,
    notifications: mpsc::UnboundedSender<Value>,
    replies: mpsc::UnboundedSender<Value>,
) {
    let mut reader = BufReader::new(reader);
    loop {
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                length = v.parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).await.unwrap();
        let message: Value = serde_json::from_slice(&body).unwrap();
        match (
            message.get("id").and_then(Value::as_i64),
            message.get("method"),
        ) {
            (Some(id), None) => {
                if let Some(tx) = pending.lock().unwrap().remove(&id) {
                    let _ = tx.send(message);
                }
            }
            (_, Some(_)) if message.get("id").is_some() => {
                let _ =
                    replies.send(json!({"jsonrpc": "2.0", "id": message["id"], "result": null}));
            }
            _ => {
                let _ = notifications.send(message);
            }
        }
    }
}

fn copy_fixture(name: &str, to: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name);
    let root = to.join(name);
    std::fs::create_dir_all(&root).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), root.join(entry.file_name())).unwrap();
        }
    }
    root
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "hover latency {label}: n = {}, median = {:.1} µs, p99 = {:.1} µs, max = {:.1} µs",
        samples.len(),
        percentile(&samples, 0.5).as_secs_f64() * 1e6,
        percentile(&samples, 0.99).as_secs_f64() * 1e6,
        samples.last().map_or(0.0, |d| d.as_secs_f64() * 1e6),
    );
}

fn main() {
    // `cargo test --benches` runs benches once with --bench absent: keep it quick then.
    if !std::env::args().any(|a| a == "--bench") {
        println!("hover_latency: run with `cargo bench -p faultlens-lsp` to measure");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = copy_fixture("hang-loop", &dir.path().canonicalize().unwrap());
    let source = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "c"))
        .unwrap();

    // The server gets its own runtime and threads, as in `faultlens lsp`.
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let server = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (input, output) = tokio::io::split(server_end);
        let backend = rt.block_on(faultlens_lsp::serve(input, output));
        backend.cancel_run();
        rt.shutdown_timeout(Duration::from_secs(5));
    });

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (read_half, write_half) = tokio::io::split(client_end);
        let pending: Pending = Arc::default();
        let (ntx, nrx) = mpsc::unbounded_channel();
        let (rtx, mut rrx) = mpsc::unbounded_channel::<Value>();
        tokio::spawn(read_loop(read_half, pending.clone(), ntx, rtx));
        let client = Arc::new(Client {
            writer: tokio::sync::Mutex::new(write_half),
            pending,
            next_id: Mutex::new(0),
            notifications: tokio::sync::Mutex::new(nrx),
        });
        let replier = client.clone();
        tokio::spawn(async move {
            while let Some(reply) = rrx.recv().await {
                replier.write(&reply).await;
            }
        });

        let uri = format!("file://{}", root.display());
        client
            .request(
                "initialize",
                json!({"rootUri": uri, "initializationOptions": {"trusted": true},
                       "capabilities": {"window": {"workDoneProgress": true}}}),
            )
            .await;
        client.notify("initialized", json!({})).await;
        client.wait_status(&["noResults"]).await;
        client
            .request("workspace/executeCommand", json!({"command": "faultlens.localize"}))
            .await;
        let first = Instant::now();
        client.wait_status(&["done"]).await;
        println!("first localization of hang-loop: {:.2} s", first.elapsed().as_secs_f64());

        let ranking = client.request("faultlens/ranking", json!({})).await;
        let top = &ranking["ranking"][0];
        let line = top["line"].as_u64().unwrap() - 1;
        let file_uri = format!("file://{}", source.display());
        let text = std::fs::read_to_string(&source).unwrap();
        client
            .notify(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": file_uri, "languageId": "c", "version": 1, "text": text}}),
            )
            .await;
        let hover = json!({"textDocument": {"uri": file_uri}, "position": {"line": line, "character": 4}});
        let result = client.request("textDocument/hover", hover.clone()).await;
        assert!(result["contents"]["value"].as_str().unwrap().contains("#1"));

        let mut idle = Vec::new();
        for _ in 0..500 {
            let t = Instant::now();
            client.request("textDocument/hover", hover.clone()).await;
            idle.push(t.elapsed());
        }

        client.saw_status(&[]).await;
        client
            .request("workspace/executeCommand", json!({"command": "faultlens.localize"}))
            .await;
        let run_start = Instant::now();
        let mut busy = Vec::new();
        loop {
            let t = Instant::now();
            let result = client.request("textDocument/hover", hover.clone()).await;
            busy.push(t.elapsed());
            assert!(result["contents"]["value"].as_str().unwrap().contains("#1"));
            if client.saw_status(&["done", "error"]).await {
                break;
            }
        }
        println!("second localization (hovers sent throughout): {:.2} s", run_start.elapsed().as_secs_f64());
        report("idle", idle);
        report("during localization", busy);
        client.request("shutdown", Value::Null).await;
        client.notify("exit", Value::Null).await;
    });
    server.join().unwrap();
}
