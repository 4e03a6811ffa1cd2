//! The language server's input guard (`faultlens_lsp::framing::Framer`),
//! on byte streams made of well-formed and broken `Content-Length` frames
//! and garbage, fed whole and in small pieces (as reads deliver them).
//!
//! Properties, besides never panicking or hanging: every message let
//! through is framed exactly (its `Content-Length` counts its body, the
//! body is a JSON object); every reply owed is a JSON-RPC error; and a
//! well-formed message sent after any input and a line break is still
//! delivered (one broken message must not silence the session).

use crate::{Rng, Target};
use faultlens_lsp::framing::{Frame, Framer};
use serde_json::Value;
use std::time::Duration;

pub fn target() -> Target {
    Target {
        name: "framing",
        about: "the LSP input guard: Content-Length framing, resynchronisation, JSON-RPC checks",
        run,
        generate,
        dictionary: DICTIONARY,
        max_len: 32 * 1024,
        hang_limit: Duration::from_secs(2),
        ci_inputs: 1000,
    }
}

const DICTIONARY: &[&[u8]] = &[
    b"Content-Length: ",
    b"content-length:",
    b"CONTENT-LENGTH:",
    b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n",
    b"\r\n\r\n",
    b"\r\n",
    b"\n\n",
    b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}}",
    b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}",
    b"\"jsonrpc\":\"1.0\"",
    b"\"id\":null",
    b"\"id\":1.5",
    b"\"params\":3",
    b"67108865",
    b"99999999999999999999",
    b"{",
    b"}",
    b"[",
    b"\"",
];

/// The message every input is followed by.
const PROBE: &str =
    r#"{"jsonrpc":"2.0","id":"fuzz-probe","method":"faultlens/ranking","params":{}}"#;

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn check(frames: &[Frame], how: &str) {
    let probe: Value = serde_json::from_str(PROBE).expect("the probe is JSON");
    let mut probes = 0;
    for f in frames {
        match f {
            Frame::Message { framed, .. } => {
                let end = framed
                    .windows(4)
                    .position(|w| w == b"\r\n\r\n")
                    .unwrap_or_else(|| panic!("{how}: a message without a header end"));
                let header = std::str::from_utf8(&framed[..end]).expect("an ASCII header");
                let length: usize = header
                    .strip_prefix("Content-Length: ")
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("{how}: an odd header {header:?}"));
                let body = &framed[end + 4..];
                assert_eq!(
                    length,
                    body.len(),
                    "{how}: Content-Length does not count the body"
                );
                let value: Value = serde_json::from_slice(body)
                    .unwrap_or_else(|e| panic!("{how}: a message let through is not JSON: {e}"));
                assert!(
                    value.is_object(),
                    "{how}: a message let through is not an object"
                );
                if value == probe {
                    probes += 1;
                }
            }
            Frame::Problem {
                reply: Some(reply), ..
            } => {
                assert_eq!(reply["jsonrpc"], "2.0", "{how}: a reply {reply}");
                assert!(reply["error"]["code"].is_i64(), "{how}: a reply {reply}");
            }
            Frame::Problem { .. } => {}
        }
    }
    assert!(
        probes >= 1,
        "{how}: a well-formed message after the input (and a line break) was not delivered"
    );
}

/// Feeds `data` in pieces of the sizes in `sizes` (cycled), then the probe
/// twice, and collects every frame.
fn feed(data: &[u8], sizes: &[usize]) -> Vec<Frame> {
    let mut framer = Framer::default();
    let mut frames = Vec::new();
    let mut tail = b"\r\n".to_vec();
    tail.extend(frame(PROBE.as_bytes()));
    tail.extend(frame(PROBE.as_bytes()));
    let mut all = data.to_vec();
    all.extend_from_slice(&tail);
    let mut at = 0;
    let mut k = 0;
    while at < all.len() {
        let n = sizes[k % sizes.len()].max(1).min(all.len() - at);
        framer.push(&all[at..at + n]);
        at += n;
        k += 1;
        while let Some(f) = framer.next_frame() {
            frames.push(f);
        }
    }
    frames
}

pub fn run(data: &[u8]) -> String {
    let whole = feed(data, &[usize::MAX]);
    check(&whole, "fed whole");
    // Reads of odd sizes, chosen by the input itself.
    let seed = crate::fnv(data);
    let sizes: Vec<usize> = (0..8)
        .map(|i| 1 + ((seed >> (i * 8)) & 0x3f) as usize)
        .collect();
    let pieces = feed(data, &sizes);
    check(&pieces, "fed in pieces");
    let messages = whole
        .iter()
        .filter(|f| matches!(f, Frame::Message { .. }))
        .count();
    let problems = whole.len() - messages;
    // The kinds of problem: their first words.
    let kinds: std::collections::BTreeSet<String> = whole
        .iter()
        .filter_map(|f| match f {
            Frame::Problem { what, .. } => Some(crate::shape(
                &what
                    .split_whitespace()
                    .take(5)
                    .collect::<Vec<_>>()
                    .join(" "),
            )),
            _ => None,
        })
        .collect();
    format!(
        "{} messages, {} problems: {kinds:?}",
        messages.min(4),
        problems.min(4)
    )
}

const BODIES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
    r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///p/mid.c"},"position":{"line":21,"character":4}}}"#,
    r#"{"jsonrpc":"2.0","id":3,"result":null}"#,
    r#"{"jsonrpc":"2.0","id":"s","method":"shutdown"}"#,
    r#"{"jsonrpc":"2.0","method":"exit"}"#,
    r#"{"jsonrpc":"1.0","id":4,"method":"x"}"#,
    r#"{"id":5,"method":"x"}"#,
    r#"{"jsonrpc":"2.0","id":[1],"method":"x"}"#,
    r#"{"jsonrpc":"2.0","id":6,"method":7}"#,
    r#"{"jsonrpc":"2.0","id":7,"method":"x","params":"s"}"#,
    r#"[1,2,3]"#,
    r#""just a string""#,
    r#"{"jsonrpc":"2.0","id":8,"method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///p/mid.c","languageId":"c","version":1,"text":"é😀\u2028"}}}"#,
    r#"{"jsonrpc":"2.0","id":9,"method":"x","params":{}} trailing"#,
    r#"{"jsonrpc":"2.0","id":10,"#,
    r#"{"jsonrpc":"2.0","id":1e400,"method":"x"}"#,
    "not json at all",
    "",
];

fn generate(rng: &mut Rng, _corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.range(1, 12) {
        let body = rng.pick(BODIES).as_bytes().to_vec();
        let body = if rng.one_in(10) {
            // A long one.
            let mut b = br#"{"jsonrpc":"2.0","method":"x","params":{"text":""#.to_vec();
            b.extend(std::iter::repeat_n(b'a', rng.range(1, 20_000)));
            b.extend_from_slice(br#""}}"#);
            b
        } else {
            body
        };
        let length = match rng.below(10) {
            // Characters instead of bytes, off by some, huge, negative, not a number.
            0 => String::from_utf8_lossy(&body).chars().count().to_string(),
            1 => (body.len() + rng.range(1, 40)).to_string(),
            2 => body.len().saturating_sub(rng.range(1, 40)).to_string(),
            3 => rng
                .pick(&[
                    "67108864",
                    "67108865",
                    "99999999999999999999",
                    "-1",
                    "x",
                    "",
                    " 5",
                    "0",
                ])
                .to_string(),
            _ => body.len().to_string(),
        };
        let name = rng.pick(&[
            "Content-Length",
            "content-length",
            "CONTENT-LENGTH",
            "Content-Length ",
            "Content-Lengthx",
        ]);
        let mut header = format!("{name}: {length}");
        if rng.one_in(5) {
            header = format!(
                "{}{header}",
                rng.pick(&[
                    "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n",
                    "X-Other: y\r\n",
                    "garbage"
                ])
            );
        }
        if rng.one_in(6) {
            header.push_str(&format!(
                "\r\nContent-Type: {}",
                "t".repeat(rng.size(9_000))
            ));
        }
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(rng.pick::<&[u8]>(&[
            b"\r\n\r\n",
            b"\r\n\r\n",
            b"\r\n\r\n",
            b"\n\n",
            b"\r\n",
            b"\r\n\r\n\r\n",
        ]));
        out.extend_from_slice(&body);
        if rng.one_in(5) {
            out.extend_from_slice(rng.pick::<&[u8]>(&[
                b"\r\n",
                b"garbage",
                b"\x00\xff",
                b"{}",
                b"Content-",
            ]));
        }
    }
    out
}
