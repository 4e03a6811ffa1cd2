//! The byte streams between the client and tower-lsp-server.
//!
//! Input: `guard_input` passes the client's bytes through `framing`, so the
//! server's reader only ever sees messages it can decode; what is dropped is
//! told to the client (a `window/logMessage` of type Warning, and the error
//! response a request is owed) and to stderr. It also notes `shutdown` and
//! `exit`, for the exit status the LSP specification asks for.
//!
//! Output: tower-lsp-server writes into an in-memory pipe; `merge_output`
//! copies its frames to the real output whole, and writes the guard's own
//! frames only between them, so no frame is ever cut by another.

use crate::framing::{Frame, Framer};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU8, Ordering};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `exit` after a `shutdown` request.
    Exit,
    /// `exit` without a `shutdown` request before it.
    ExitWithoutShutdown,
    /// The input ended, or could not be read, before any `exit`.
    InputClosed,
}

impl Ending {
    /// The process's exit status: the LSP specification asks for 1 when
    /// `exit` comes without `shutdown`, 0 after it. A client that goes away
    /// (its end of the pipe closes) is no error of the server's: 0.
    pub fn status(self) -> u8 {
        match self {
            Ending::Exit | Ending::InputClosed => 0,
            Ending::ExitWithoutShutdown => 1,
        }
    }
}

/// What the client asked of the session's end so far. Written by the input
/// guard only, read once the session is over.
#[derive(Debug, Default)]
pub struct Lifecycle(AtomicU8);

const SHUT_DOWN: u8 = 1;
const EXITED: u8 = 2;
const EXITED_WITHOUT_SHUTDOWN: u8 = 3;

impl Lifecycle {
    fn shutdown_requested(&self) {
        self.0.store(SHUT_DOWN, Ordering::SeqCst);
    }

    fn exit_received(&self) {
        let next = match self.0.load(Ordering::SeqCst) {
            SHUT_DOWN => EXITED,
            _ => EXITED_WITHOUT_SHUTDOWN,
        };
        self.0.store(next, Ordering::SeqCst);
    }

    pub fn ending(&self) -> Ending {
        match self.0.load(Ordering::SeqCst) {
            EXITED => Ending::Exit,
            EXITED_WITHOUT_SHUTDOWN => Ending::ExitWithoutShutdown,
            _ => Ending::InputClosed,
        }
    }
}

/// Copies the messages the server can read from the client's `input` to
/// the server's reader (`sink`); sends what it drops to the client through
/// `own` (see `merge_output`). Dropping `sink` at the end of the input, or
/// after `exit`, ends the session.
pub async fn guard_input(
    mut input: impl AsyncRead + Unpin,
    mut sink: DuplexStream,
    own: mpsc::Sender<Vec<u8>>,
    lifecycle: std::sync::Arc<Lifecycle>,
) {
    let mut framer = Framer::default();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match input.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        framer.push(&chunk[..n]);
        while let Some(next) = framer.next_frame() {
            match next {
                Frame::Message {
                    framed,
                    method,
                    has_id,
                } => {
                    // Noted before the server sees the message, so the
                    // status is known by the time the session ends.
                    let exit = method.as_deref() == Some("exit");
                    match method.as_deref() {
                        Some("shutdown") if has_id => lifecycle.shutdown_requested(),
                        Some("exit") => lifecycle.exit_received(),
                        _ => {}
                    }
                    if sink.write_all(&framed).await.is_err() {
                        return;
                    }
                    if exit {
                        // The server reads nothing after `exit`.
                        return;
                    }
                }
                Frame::Problem { what, reply } => {
                    eprintln!("faultlens lsp: {what}");
                    // A closed channel means the session is over: nothing
                    // left to tell.
                    if let Some(reply) = reply {
                        let _ = own.send(frame(&reply)).await;
                    }
                    let log = json!({
                        "jsonrpc": "2.0",
                        "method": "window/logMessage",
                        "params": {"type": 2, "message": format!("faultlens: {what}")},
                    });
                    let _ = own.send(frame(&log)).await;
                }
            }
        }
    }
}

/// A message with its `Content-Length` header.
pub fn frame(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    framed.extend_from_slice(body.as_bytes());
    framed
}

/// Copies the server's frames from `server` to `output`, each whole, and
/// the guard's frames from `own` between them. Ends when the server's
/// writer is gone (the session is over), after writing what is left.
pub async fn merge_output<O: AsyncWrite + Unpin>(
    mut server: DuplexStream,
    mut own: mpsc::Receiver<Vec<u8>>,
    output: O,
) {
    let mut output = Output {
        output,
        broken: false,
    };
    let mut pending: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    let mut own_open = true;
    loop {
        tokio::select! {
            // The server's output first: it is what the client waits for.
            biased;
            read = server.read(&mut chunk) => {
                let n = match read {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                pending.extend_from_slice(&chunk[..n]);
                let whole = whole_frames(&pending);
                output.write(&pending[..whole]).await;
                pending.drain(..whole);
            }
            mine = own.recv(), if own_open => match mine {
                Some(mine) => output.write(&mine).await,
                None => own_open = false,
            },
        }
    }
    output.write(&pending).await;
    while let Ok(mine) = own.try_recv() {
        output.write(&mine).await;
    }
}

/// The real output. After a failed write (the client is gone) the rest is
/// discarded, but still read from the server, whose writer would otherwise
/// block and keep the session from ending.
struct Output<O> {
    output: O,
    broken: bool,
}

impl<O: AsyncWrite + Unpin> Output<O> {
    async fn write(&mut self, bytes: &[u8]) {
        if self.broken || bytes.is_empty() {
            return;
        }
        if self.output.write_all(bytes).await.is_err() || self.output.flush().await.is_err() {
            self.broken = true;
        }
    }
}

/// How many bytes at the start of `bytes` are whole frames
/// (`Content-Length: n\r\n\r\n` and n bytes, as tower-lsp-server writes
/// them). Something else (it never writes anything else) is passed through
/// as it is rather than held back.
fn whole_frames(bytes: &[u8]) -> usize {
    let mut at = 0;
    loop {
        let rest = &bytes[at..];
        let Some(header_end) = rest.windows(4).position(|w| w == b"\r\n\r\n") else {
            return at;
        };
        let length = String::from_utf8_lossy(&rest[..header_end])
            .split("\r\n")
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.trim()
                    .eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())
                    .flatten()
            });
        let Some(length) = length else {
            return bytes.len();
        };
        let end = header_end + 4 + length;
        if rest.len() < end {
            return at;
        }
        at += end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_frames_stops_before_a_partial_frame() {
        let a = frame(&json!({"id": 1}));
        let b = frame(&json!({"id": 2, "result": "é"}));
        let mut bytes = a.clone();
        bytes.extend_from_slice(&b);
        assert_eq!(whole_frames(&bytes), bytes.len());
        assert_eq!(whole_frames(&bytes[..bytes.len() - 1]), a.len());
        assert_eq!(whole_frames(&bytes[..a.len() + 5]), a.len());
        assert_eq!(whole_frames(&bytes[..3]), 0);
    }

    #[tokio::test]
    async fn own_frames_never_cut_the_servers() {
        let (mut server_writer, server_reader) = tokio::io::duplex(1 << 10);
        let (own_tx, own_rx) = mpsc::channel(8);
        let (output, mut client) = tokio::io::duplex(1 << 20);
        let merger = tokio::spawn(merge_output(server_reader, own_rx, output));
        let big = frame(&json!({"id": 1, "result": "x".repeat(5000)}));
        // Half a frame, then one of ours, then the other half.
        server_writer.write_all(&big[..2500]).await.unwrap();
        tokio::task::yield_now().await;
        own_tx
            .send(frame(&json!({"method": "mine"})))
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        server_writer.write_all(&big[2500..]).await.unwrap();
        drop(server_writer);
        merger.await.unwrap();
        let mut received = Vec::new();
        client.read_to_end(&mut received).await.unwrap();
        // Ours goes between the server's frames (here before the big one,
        // which was not whole when ours came), never inside one.
        let mine = frame(&json!({"method": "mine"}));
        let mut in_order = mine.clone();
        in_order.extend_from_slice(&big);
        assert_eq!(received, in_order);
    }

    #[test]
    fn exit_status_follows_shutdown() {
        let l = Lifecycle::default();
        assert_eq!(l.ending(), Ending::InputClosed);
        l.exit_received();
        assert_eq!(l.ending().status(), 1);
        let l = Lifecycle::default();
        l.shutdown_requested();
        l.exit_received();
        assert_eq!(l.ending(), Ending::Exit);
        assert_eq!(l.ending().status(), 0);
    }
}
