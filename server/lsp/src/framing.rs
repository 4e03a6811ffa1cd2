//! A guard in front of the JSON-RPC reader: splits the client's byte stream
//! into `Content-Length` frames and lets through only messages the server's
//! reader can decode.
//!
//! tower-lsp-server's reader stops for good at the first message it cannot
//! decode (its framed stream ends after a decode error), and it finds a
//! header only at the start of what it reads, so one broken message from a
//! client would leave every later request unanswered. Here a broken message
//! is dropped and reported ([`Frame::Problem`]: a line for the client's log,
//! and the JSON-RPC error response it is owed, if any), and the stream
//! resynchronizes at the next header, wherever it starts:
//!
//! - A `Content-Length` that is too small (a client counting characters
//!   instead of UTF-8 bytes) cuts the body short: the body is not JSON
//!   (-32700), and what is left of it, up to the next header, is dropped.
//! - One that is too large swallows the start of the next message: a body
//!   that holds a whole JSON value followed by more is taken up to the end of
//!   that value, and the rest is read again as the next message. This is
//!   decided as soon as a whole header shows up inside the body, so a client
//!   that waits for an answer after the next message is not kept waiting for
//!   bytes that never come.
//! - Garbage between messages is dropped up to the next header whose name is
//!   `Content-Length` or `Content-Type` (case-insensitive), even in the middle
//!   of a line.
//!
//! Memory is bounded: a header longer than [`MAX_HEADER`] is garbage, a
//! `Content-Length` above [`MAX_MESSAGE`] is refused, and garbage without a
//! header is discarded as it comes.

use serde_json::{json, Map, Value};
use std::collections::VecDeque;

/// Largest message accepted; a larger `Content-Length` is refused.
pub const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// Longest header block (all header lines and the empty line) accepted.
pub const MAX_HEADER: usize = 8 * 1024;

/// JSON-RPC's error codes for what the guard refuses.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;

/// What the framer makes of the input, in order.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A message the server's reader can decode, re-framed, ready for it.
    Message {
        framed: Vec<u8>,
        /// Its method (requests and notifications).
        method: Option<String>,
        /// Whether it carries an id (a request; or a response).
        has_id: bool,
    },
    /// Something the server will not see, or a framing error that was
    /// worked around: what happened and why, for the client's log, and the
    /// error response the client is owed (requests only, never
    /// notifications or responses).
    Problem { what: String, reply: Option<Value> },
}

#[derive(Debug, Default)]
enum State {
    /// At a message boundary: a header is expected.
    #[default]
    Header,
    /// The header said `length` bytes of body follow; header candidates
    /// inside the body before `rescan_from` have been looked at.
    Body { length: usize, rescan_from: usize },
}

/// Bytes dropped between messages, reported together once the next header
/// is found (one log line rather than one per read).
#[derive(Debug, Default)]
struct Garbage {
    bytes: usize,
    /// The start of it, for the report.
    preview: Vec<u8>,
    /// All of it is ASCII whitespace (a stray newline): dropped silently.
    blank: bool,
    /// It follows a body that ended early: probably the body's rest.
    after_short_body: bool,
}

#[derive(Debug, Default)]
pub struct Framer {
    buffer: Vec<u8>,
    state: State,
    out: VecDeque<Frame>,
    garbage: Option<Garbage>,
    /// The last body ended before its JSON did (a `Content-Length` too small).
    short_body: bool,
}

/// Longest header name the framer looks for, less one: the bytes kept at the
/// end of garbage in case they begin a header.
const NAME_TAIL: usize = b"content-length".len() - 1;

impl Framer {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// The next frame, if the input so far decides one.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            if let Some(frame) = self.out.pop_front() {
                return Some(frame);
            }
            let progressed = match self.state {
                State::Header => self.header_step(),
                State::Body {
                    length,
                    rescan_from,
                } => self.body_step(length, rescan_from),
            };
            if !progressed {
                return self.out.pop_front();
            }
        }
    }

    /// Reads a header at the start of the buffer, or drops garbage up to the
    /// next one. False when more input is needed.
    fn header_step(&mut self) -> bool {
        if self.buffer.is_empty() {
            return false;
        }
        let header = parse_header(&self.buffer, 0);
        if let Header::Complete { length: Err(_), .. } = header {
            // Garbage glued to the front of a header reads as a header line
            // of its own ("xyzContent-Length: 5" is one name): the real
            // header inside is where the message starts.
            if let Some(at) = find_header(&self.buffer, 1, false) {
                self.discard(at);
                return true;
            }
        }
        match header {
            Header::Complete { end, length } => {
                self.report_garbage();
                self.short_body = false;
                match length {
                    Ok(length) => {
                        self.buffer.drain(..end);
                        self.state = State::Body {
                            length,
                            rescan_from: 0,
                        };
                    }
                    Err(why) => {
                        let header = preview(&self.buffer[..end]);
                        self.buffer.drain(..end);
                        self.problem(format!("dropped a message header {why}: {header:?}"), None);
                    }
                }
                true
            }
            Header::Incomplete => false,
            Header::Invalid => match find_header(&self.buffer, 1, false) {
                Some(at) => {
                    self.discard(at);
                    true
                }
                None => {
                    // No header yet: drop all but what may begin one.
                    if self.buffer.len() > NAME_TAIL {
                        self.discard(self.buffer.len() - NAME_TAIL);
                    }
                    false
                }
            },
        }
    }

    /// Takes a body of `length` bytes once it is all there, or earlier when
    /// a whole header inside it shows the count was too large.
    fn body_step(&mut self, length: usize, rescan_from: usize) -> bool {
        if self.buffer.len() >= length {
            self.take_body(length);
            return true;
        }
        // Header candidates that could still complete, looked at again
        // with more input; those found invalid or whole are not (neither
        // changes with more input), so a long body is scanned once.
        let mut pending = None;
        let mut from = rescan_from;
        while let Some(at) = find_header_start(&self.buffer, from) {
            match parse_header(&self.buffer, at) {
                Header::Complete { length: Ok(_), .. } => match first_value(&self.buffer) {
                    // The body so far is a whole JSON value and then a
                    // header: no byte still to come can make it valid, so
                    // decide now rather than wait for bytes the client may
                    // never send (it may be waiting for an answer).
                    FirstValue::Then(end) if end <= at => {
                        self.take_too_long(length, end);
                        return true;
                    }
                    // Not JSON before the header: the header starts the
                    // next message, and what precedes it is broken.
                    FirstValue::Broken { ended_early: false } => {
                        self.take_broken(length, at, false);
                        return true;
                    }
                    // A raw line break cannot be inside a JSON string, so
                    // a whole header cannot be inside a value; should the
                    // parser think otherwise, wait for the whole body.
                    _ => {}
                },
                Header::Incomplete => {
                    pending.get_or_insert(at);
                }
                _ => {}
            }
            from = at + 1;
        }
        self.state = State::Body {
            length,
            rescan_from: pending.unwrap_or(self.buffer.len().saturating_sub(NAME_TAIL)),
        };
        false
    }

    /// Decides a whole body of `length` bytes.
    fn take_body(&mut self, length: usize) {
        self.state = State::Header;
        let body = &self.buffer[..length];
        if let Ok(value) = serde_json::from_slice::<Value>(body) {
            let frame = classify(value);
            self.out.push_back(frame);
            self.buffer.drain(..length);
            return;
        }
        match first_value(body) {
            FirstValue::Then(end) => self.take_too_long(length, end),
            first => {
                let ended_early = matches!(first, FirstValue::Broken { ended_early: true });
                // The count ran on past a broken body into the next header?
                let cut = find_header(body, 0, true).unwrap_or(length);
                self.take_broken(length, cut, ended_early && cut == length);
            }
        }
    }

    /// The body's JSON ends at `end`, before its `Content-Length` does: the
    /// message is taken to there and the rest read again.
    fn take_too_long(&mut self, length: usize, end: usize) {
        let Ok(value) = serde_json::from_slice::<Value>(&self.buffer[..end]) else {
            // Parsed as a value to skip but not as a `Value` (a number out
            // of range): broken like any other body.
            self.take_broken(length, end, false);
            return;
        };
        self.state = State::Header;
        self.problem(
            format!(
                "a message's Content-Length ({length}) runs past the end of its JSON ({end} \
                 bytes) into what follows: took the message to the end of its JSON and read on \
                 from there"
            ),
            None,
        );
        let frame = classify(value);
        self.out.push_back(frame);
        self.buffer.drain(..end);
    }

    /// The first `cut` bytes of a body are not JSON: dropped, with a parse
    /// error for the client. `ended_early`: the body stopped inside its JSON.
    fn take_broken(&mut self, length: usize, cut: usize, ended_early: bool) {
        self.state = State::Header;
        let body = self.buffer[..cut].to_vec();
        let why = match serde_json::from_slice::<Value>(&body) {
            Err(e) => e.to_string(),
            Ok(_) => "not JSON".into(),
        };
        self.not_json(&body, &why, length, ended_early);
        self.short_body = ended_early;
        self.buffer.drain(..cut);
    }

    fn not_json(&mut self, body: &[u8], why: &str, length: usize, ended_early: bool) {
        let hint = if ended_early {
            format!(
                "; it ends before its JSON does: was its Content-Length ({length}) counted in \
                 characters instead of UTF-8 bytes?"
            )
        } else if body.len() < length {
            format!("; a header follows inside its Content-Length ({length}), read on from there")
        } else {
            String::new()
        };
        self.problem(
            format!(
                "dropped a message whose body is not JSON ({why}){hint}: {:?}",
                preview(body)
            ),
            Some(error_response(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {why}"),
            )),
        );
    }

    /// Drops the first `n` bytes of the buffer as garbage.
    fn discard(&mut self, n: usize) {
        let dropped = &self.buffer[..n];
        let garbage = self.garbage.get_or_insert_with(|| Garbage {
            blank: true,
            after_short_body: self.short_body,
            ..Garbage::default()
        });
        garbage.bytes += n;
        garbage.blank &= dropped.iter().all(u8::is_ascii_whitespace);
        let room = 240usize.saturating_sub(garbage.preview.len());
        garbage
            .preview
            .extend_from_slice(&dropped[..room.min(dropped.len())]);
        self.buffer.drain(..n);
    }

    fn report_garbage(&mut self) {
        let Some(garbage) = self.garbage.take() else {
            return;
        };
        if garbage.blank {
            return;
        }
        let hint = if garbage.after_short_body {
            " (probably the rest of the message before, whose Content-Length was too small)"
        } else {
            ""
        };
        self.problem(
            format!(
                "dropped {} bytes before the next message header{hint}: {:?}",
                garbage.bytes,
                preview(&garbage.preview)
            ),
            None,
        );
    }

    fn problem(&mut self, what: String, reply: Option<Value>) {
        self.out.push_back(Frame::Problem { what, reply });
    }
}

/// What a header at some position of the buffer is, so far.
#[derive(Debug, PartialEq)]
enum Header {
    /// Header lines up to an empty line, ending at `end`; `length` is the
    /// `Content-Length`, or why there is no usable one.
    Complete {
        end: usize,
        length: Result<usize, String>,
    },
    /// Header lines so far; more input may complete them.
    Incomplete,
    /// Not a header.
    Invalid,
}

fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Parses header lines (`Name: value\r\n`, ending with `\r\n`) from `start`.
fn parse_header(buf: &[u8], start: usize) -> Header {
    let mut pos = start;
    let mut length: Option<Result<usize, String>> = None;
    loop {
        if pos - start > MAX_HEADER {
            return Header::Invalid;
        }
        let rest = &buf[pos..];
        if pos > start {
            if rest.starts_with(b"\r\n") {
                let end = pos + 2;
                if end - start > MAX_HEADER {
                    return Header::Invalid;
                }
                let length = length.unwrap_or_else(|| Err("without a Content-Length".into()));
                return Header::Complete { end, length };
            }
            if rest == b"\r" {
                return incomplete(buf, start);
            }
        }
        let name_len = rest.iter().take_while(|&&b| is_token(b)).count();
        if name_len == rest.len() {
            return incomplete(buf, start);
        }
        if name_len == 0 || rest[name_len] != b':' {
            return Header::Invalid;
        }
        let name = &rest[..name_len];
        let is_length = name.eq_ignore_ascii_case(b"content-length");
        let value_start = name_len + 1;
        let line_end = rest[value_start..]
            .iter()
            .position(|&b| b == b'\r' || b == b'\n')
            .map(|i| value_start + i);
        let value = &rest[value_start..line_end.unwrap_or(rest.len())];
        if is_length
            && !value
                .iter()
                .all(|&b| b.is_ascii_digit() || b == b' ' || b == b'\t')
        {
            return Header::Invalid;
        }
        let Some(line_end) = line_end else {
            return incomplete(buf, start);
        };
        match rest.get(line_end..line_end + 2) {
            Some(b"\r\n") => {}
            None if rest[line_end] == b'\r' => return incomplete(buf, start),
            _ => return Header::Invalid,
        }
        if is_length {
            let parsed = parse_length(value);
            length = Some(match (length, parsed) {
                (None, parsed) => parsed,
                (Some(Ok(a)), Ok(b)) if a == b => Ok(a),
                _ => Err("with conflicting Content-Length headers".into()),
            });
        }
        pos += line_end + 2;
    }
}

fn incomplete(buf: &[u8], start: usize) -> Header {
    if buf.len() - start > MAX_HEADER {
        Header::Invalid
    } else {
        Header::Incomplete
    }
}

fn parse_length(value: &[u8]) -> Result<usize, String> {
    let text = String::from_utf8_lossy(value);
    let text = text.trim();
    match text.parse::<usize>() {
        Ok(n) if n <= MAX_MESSAGE && !text.is_empty() => Ok(n),
        Ok(n) => Err(format!(
            "whose Content-Length ({n}) is above the limit ({MAX_MESSAGE} bytes)"
        )),
        Err(_) => Err(format!("whose Content-Length is not a number ({text:?})")),
    }
}

/// Where a header name the framer knows (`Content-Length`, `Content-Type`,
/// any case) starts, from `from` on.
fn find_header_start(buf: &[u8], from: usize) -> Option<usize> {
    (from..buf.len()).find(|&i| {
        let rest = &buf[i..];
        starts_with_ignore_case(rest, b"content-length")
            || starts_with_ignore_case(rest, b"content-type")
    })
}

fn starts_with_ignore_case(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.len() >= needle.len() && haystack[..needle.len()].eq_ignore_ascii_case(needle)
}

/// The first header from `from` on that is whole with a usable
/// `Content-Length`, or (unless `complete_only`) may still become one.
fn find_header(buf: &[u8], from: usize, complete_only: bool) -> Option<usize> {
    let mut from = from;
    while let Some(at) = find_header_start(buf, from) {
        match parse_header(buf, at) {
            Header::Complete { length: Ok(_), .. } => return Some(at),
            Header::Incomplete if !complete_only => return Some(at),
            _ => from = at + 1,
        }
    }
    None
}

enum FirstValue {
    /// The bytes are one JSON value (and maybe whitespace).
    Whole,
    /// A JSON value ends at this offset, and something other than
    /// whitespace follows.
    Then(usize),
    /// The bytes do not begin with a JSON value; `ended_early` when they
    /// end inside one (more bytes might have completed it).
    Broken { ended_early: bool },
}

fn first_value(bytes: &[u8]) -> FirstValue {
    let mut values =
        serde_json::Deserializer::from_slice(bytes).into_iter::<serde::de::IgnoredAny>();
    match values.next() {
        Some(Ok(_)) => {
            let end = values.byte_offset();
            if bytes[end..].iter().all(u8::is_ascii_whitespace) {
                FirstValue::Whole
            } else {
                FirstValue::Then(end)
            }
        }
        Some(Err(e)) => FirstValue::Broken {
            ended_early: e.is_eof(),
        },
        None => FirstValue::Broken { ended_early: true },
    }
}

/// Sorts a parsed body into a message for the server or a problem, with
/// the error response JSON-RPC asks for when it is an invalid request.
pub fn classify(value: Value) -> Frame {
    let Some(object) = value.as_object() else {
        // Not a request, a notification nor a response; JSON-RPC answers
        // such a body (a batch, a number) with an invalid request, id null.
        let what = format!(
            "dropped a message that is not a JSON object: {:?}",
            preview_value(&value)
        );
        let reply = error_response(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: not a JSON object",
        );
        return Frame::Problem {
            what,
            reply: Some(reply),
        };
    };
    let method = object.get("method");
    let is_response =
        method.is_none() && (object.contains_key("result") || object.contains_key("error"));
    let problem = if is_response {
        response_problem(object)
    } else {
        request_problem(object)
    };
    if let Some(why) = problem {
        let kind = if is_response {
            "response"
        } else if object.contains_key("id") {
            "request"
        } else {
            "notification"
        };
        let what = format!(
            "dropped an invalid {kind} ({why}): {:?}",
            preview_value(&value)
        );
        // Requests are owed an answer; notifications and responses never
        // get one (JSON-RPC forbids it).
        let reply = (kind == "request").then(|| {
            let id = match object.get("id") {
                Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
                _ => Value::Null,
            };
            error_response(id, INVALID_REQUEST, &format!("Invalid Request: {why}"))
        });
        return Frame::Problem { what, reply };
    }
    // The last word is the reader's own: what it cannot decode would end
    // the session, so it never gets there.
    let decodes = if is_response {
        serde::Deserialize::deserialize(&value)
            .map(|_: tower_lsp_server::jsonrpc::Response| ())
            .map_err(|e| e.to_string())
    } else {
        serde::Deserialize::deserialize(&value)
            .map(|_: tower_lsp_server::jsonrpc::Request| ())
            .map_err(|e| e.to_string())
    };
    if let Err(why) = decodes {
        let what = format!(
            "dropped a message the server cannot read ({why}): {:?}",
            preview_value(&value)
        );
        let reply = (!is_response && object.contains_key("id")).then(|| {
            error_response(
                object
                    .get("id")
                    .cloned()
                    .filter(|id| id.is_number() || id.is_string())
                    .unwrap_or(Value::Null),
                INVALID_REQUEST,
                &format!("Invalid Request: {why}"),
            )
        });
        return Frame::Problem { what, reply };
    }
    let method = method.and_then(Value::as_str).map(str::to_string);
    let has_id = object.contains_key("id");
    // tower-lsp-server drops the MethodNotFound answer to every `$/`
    // method, requests included, so a client would wait forever for the
    // answer to a `$/` request (found by fuzzing). The server implements
    // none as a request: answer it here, as the LSP specification asks.
    if let (Some(m), Some(id)) = (method.as_deref(), object.get("id")) {
        if m.starts_with("$/") {
            return Frame::Problem {
                what: format!("answered a request for {m:?}, which the server does not implement, with MethodNotFound"),
                reply: Some(error_response(id.clone(), METHOD_NOT_FOUND, &format!("Method not found: {m}"))),
            };
        }
    }
    // Re-serialized from the parsed value: one key each (the reader's
    // structs refuse duplicate fields), nothing but the JSON.
    let body = serde_json::to_vec(&value).unwrap_or_default();
    let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    framed.extend_from_slice(&body);
    Frame::Message {
        framed,
        method,
        has_id,
    }
}

fn version_problem(object: &Map<String, Value>) -> Option<String> {
    match object.get("jsonrpc") {
        None => Some("no \"jsonrpc\": \"2.0\"".into()),
        Some(Value::String(v)) if v == "2.0" => None,
        Some(v) => Some(format!("\"jsonrpc\" is {v}, not \"2.0\"")),
    }
}

/// Why a request or notification is invalid, if it is.
fn request_problem(object: &Map<String, Value>) -> Option<String> {
    if let Some(why) = version_problem(object) {
        return Some(why);
    }
    match object.get("method") {
        Some(Value::String(_)) => {}
        Some(other) => return Some(format!("\"method\" is {}, not a string", kind_of(other))),
        None => return Some("neither a request (no \"method\") nor a response".into()),
    }
    match object.get("id") {
        None => {}
        Some(Value::String(_)) => {}
        Some(Value::Number(n)) if n.is_i64() => {}
        Some(Value::Number(n)) if n.is_u64() => {
            return Some(format!("\"id\" {n} is too large"));
        }
        Some(other) => {
            return Some(format!(
                "\"id\" is {}, not an integer or a string",
                kind_of(other)
            ))
        }
    }
    match object.get("params") {
        None | Some(Value::Null | Value::Object(_) | Value::Array(_)) => None,
        Some(other) => Some(format!(
            "\"params\" is {}, not an object or an array",
            kind_of(other)
        )),
    }
}

/// Why a response from the client is invalid, if it is.
fn response_problem(object: &Map<String, Value>) -> Option<String> {
    if let Some(why) = version_problem(object) {
        return Some(why);
    }
    match object.get("id") {
        None => return Some("a response without an \"id\"".into()),
        Some(Value::Null | Value::String(_)) => {}
        Some(Value::Number(n)) if n.is_i64() => {}
        Some(other) => return Some(format!("\"id\" is {}", kind_of(other))),
    }
    match object.get("error") {
        None | Some(Value::Null) => None,
        Some(Value::Object(e))
            if e.get("code").is_some_and(Value::is_i64)
                && e.get("message").is_some_and(Value::is_string)
                && e.keys()
                    .all(|k| matches!(k.as_str(), "code" | "message" | "data")) =>
        {
            None
        }
        Some(_) => Some("\"error\" is not {code, message, data?}".into()),
    }
}

fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) => format!("a number ({n})"),
        Value::String(s) => format!("a string ({s:?})"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// A JSON-RPC error response.
pub fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn preview(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).chars().take(120).collect()
}

fn preview_value(value: &Value) -> String {
    let text = value.to_string();
    text.chars().take(120).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    fn all(f: &mut Framer) -> Vec<Frame> {
        std::iter::from_fn(|| f.next_frame()).collect()
    }

    /// The bodies of the messages let through, and the problems' texts.
    fn sorted(frames: &[Frame]) -> (Vec<String>, Vec<String>) {
        let mut messages = vec![];
        let mut problems = vec![];
        for frame in frames {
            match frame {
                Frame::Message { framed, .. } => {
                    let text = String::from_utf8(framed.clone()).unwrap();
                    let (_, body) = text.split_once("\r\n\r\n").unwrap();
                    messages.push(body.to_string());
                }
                Frame::Problem { what, .. } => problems.push(what.clone()),
            }
        }
        (messages, problems)
    }

    fn reply(frame: &Frame) -> Option<&Value> {
        match frame {
            Frame::Problem { reply, .. } => reply.as_ref(),
            Frame::Message { .. } => None,
        }
    }

    fn canonical(body: &str) -> String {
        serde_json::from_str::<Value>(body).unwrap().to_string()
    }

    const HOVER: &str = r#"{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.c"},"position":{"line":0,"character":0}}}"#;

    fn did_open(text: &str) -> String {
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument":
            {"uri": "file:///a.c", "languageId": "c", "version": 1, "text": text}}})
        .to_string()
    }

    #[test]
    fn passes_good_messages_and_drops_bad_ones() {
        let mut f = Framer::default();
        let good = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        f.push(&frame(good));
        f.push(&frame("{\"jsonrpc"));
        f.push(&frame("[]"));
        f.push(b"Garbage: yes\r\n\r\n");
        f.push(&frame(r#"{"jsonrpc":"2.0","id":{"x":1},"method":"a"}"#));
        f.push(&frame(r#"{"jsonrpc":"2.0","id":7,"result":null}"#));
        let frames = all(&mut f);
        assert_eq!(
            frames[0],
            Frame::Message {
                framed: frame(&canonical(good)),
                method: Some("shutdown".into()),
                has_id: true
            }
        );
        for frame in &frames[1..5] {
            assert!(matches!(frame, Frame::Problem { .. }), "{frame:?}");
        }
        assert_eq!(reply(&frames[1]).unwrap()["error"]["code"], PARSE_ERROR);
        assert_eq!(reply(&frames[2]).unwrap()["error"]["code"], INVALID_REQUEST);
        assert_eq!(reply(&frames[3]), None, "a header alone is owed nothing");
        assert_eq!(reply(&frames[4]).unwrap()["id"], Value::Null);
        assert!(matches!(frames[5], Frame::Message { has_id: true, .. }));
        assert_eq!(frames.len(), 6);
    }

    #[test]
    fn waits_for_the_whole_body() {
        let mut f = Framer::default();
        let bytes = frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
        f.push(&bytes[..30]);
        assert_eq!(f.next_frame(), None);
        f.push(&bytes[30..]);
        assert!(matches!(f.next_frame(), Some(Frame::Message { .. })));
    }

    #[test]
    fn absurd_lengths_are_dropped() {
        let mut f = Framer::default();
        f.push(b"Content-Length: 99999999999999\r\n\r\n");
        assert!(matches!(f.next_frame(), Some(Frame::Problem { .. })));
    }

    #[test]
    fn a_length_counted_in_characters_resynchronizes_at_the_next_header() {
        let body = did_open("int café(void) { return 1; } /* ünïcödé */\n");
        let characters = body.chars().count();
        assert!(characters < body.len());
        let mut f = Framer::default();
        f.push(format!("Content-Length: {characters}\r\n\r\n{body}").as_bytes());
        f.push(&frame(HOVER));
        let frames = all(&mut f);
        let (messages, problems) = sorted(&frames);
        assert_eq!(messages, vec![canonical(HOVER)]);
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(
            problems[0].contains("not JSON") && problems[0].contains("characters instead of UTF-8"),
            "{}",
            problems[0]
        );
        assert_eq!(reply(&frames[0]).unwrap()["error"]["code"], PARSE_ERROR);
        assert!(
            problems[1].contains("before the next message header")
                && problems[1].contains("too small"),
            "{}",
            problems[1]
        );
        assert_eq!(reply(&frames[1]), None);
    }

    #[test]
    fn the_next_header_is_found_mid_line_in_any_case_after_other_headers() {
        let mut f = Framer::default();
        f.push(b"}} leftovers ");
        f.push(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n");
        f.push(format!("content-LENGTH: {}\r\n\r\n{HOVER}", HOVER.len()).as_bytes());
        let (messages, problems) = sorted(&all(&mut f));
        assert_eq!(messages, vec![canonical(HOVER)]);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("13 bytes"), "{}", problems[0]);
        // Headers at a message's start are not garbage.
        f.push(b"Content-Type: application/vscode-jsonrpc\r\n");
        f.push(&frame(HOVER));
        let (messages, problems) = sorted(&all(&mut f));
        assert_eq!((messages.len(), problems.len()), (1, 0));
    }

    #[test]
    fn a_length_too_large_takes_the_json_and_reads_the_next_message() {
        let body = did_open("int x;\n");
        let mut f = Framer::default();
        // Both messages in the buffer, the count running into the second.
        f.push(format!("Content-Length: {}\r\n\r\n{body}", body.len() + 30).as_bytes());
        f.push(&frame(HOVER));
        let (messages, problems) = sorted(&all(&mut f));
        assert_eq!(messages, vec![canonical(&body), canonical(HOVER)]);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("runs past"), "{}", problems[0]);
    }

    #[test]
    fn a_length_too_large_is_decided_without_waiting_for_more_input() {
        // A count far beyond what the client sends before it waits for the
        // hover's answer: decided once the hover's header is in.
        let body = did_open("int x;\n");
        let mut f = Framer::default();
        f.push(format!("Content-Length: {}\r\n\r\n{body}", body.len() + 5000).as_bytes());
        assert_eq!(f.next_frame(), None);
        let hover = frame(HOVER);
        f.push(&hover[..10]);
        assert_eq!(f.next_frame(), None, "the header is not whole yet");
        f.push(&hover[10..]);
        let (messages, problems) = sorted(&all(&mut f));
        assert_eq!(messages, vec![canonical(&body), canonical(HOVER)]);
        assert_eq!(problems.len(), 1);
    }

    #[test]
    fn a_broken_body_with_a_header_inside_gives_up_the_header() {
        let mut f = Framer::default();
        f.push(b"Content-Length: 500\r\n\r\n{\"jsonrpc\":\"2.0\",\"met");
        f.push(&frame(HOVER));
        let frames = all(&mut f);
        let (messages, problems) = sorted(&frames);
        assert_eq!(messages, vec![canonical(HOVER)]);
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert_eq!(reply(&frames[0]).unwrap()["error"]["code"], PARSE_ERROR);
    }

    #[test]
    fn memory_stays_bounded() {
        let mut f = Framer::default();
        // Garbage without a header is dropped as it comes.
        f.push(&vec![b'x'; 1 << 20]);
        assert_eq!(f.next_frame(), None);
        assert!(f.buffer.len() <= NAME_TAIL);
        // A header that never ends is garbage past MAX_HEADER.
        f.push(b"Content-Type: ");
        for _ in 0..64 {
            f.push(&[b'a'; 1024]);
            assert_eq!(f.next_frame(), None);
            assert!(f.buffer.len() <= MAX_HEADER + 1024 + NAME_TAIL);
        }
        f.push(&frame(HOVER));
        let (messages, problems) = sorted(&all(&mut f));
        assert_eq!(messages, vec![canonical(HOVER)]);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("bytes before"), "{}", problems[0]);
    }

    #[test]
    fn blank_lines_between_messages_are_dropped_quietly() {
        let mut f = Framer::default();
        f.push(&frame(HOVER));
        f.push(b"\r\n\n");
        f.push(&frame(HOVER));
        let (messages, problems) = sorted(&all(&mut f));
        assert_eq!((messages.len(), problems.len()), (2, 0));
    }

    fn classified(body: &str) -> Frame {
        classify(serde_json::from_str(body).unwrap())
    }

    #[test]
    fn invalid_requests_get_invalid_request_with_their_id() {
        let cases = [
            (r#"{"jsonrpc":"1.0","id":3,"method":"a"}"#, json!(3)),
            (r#"{"id":"s","method":"a"}"#, json!("s")),
            (r#"{"jsonrpc":"2.0","id":4,"method":42}"#, json!(4)),
            (r#"{"jsonrpc":"2.0","id":4.5,"method":"a"}"#, json!(4.5)),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"a"}"#,
                Value::Null,
            ),
            (r#"{"jsonrpc":"2.0","id":[1],"method":"a"}"#, Value::Null),
            (r#"{"jsonrpc":"2.0","id":true,"method":"a"}"#, Value::Null),
            (r#"{"jsonrpc":"2.0","id":null,"method":"a"}"#, Value::Null),
            (
                r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"a"}"#,
                json!(18446744073709551615u64),
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"a","params":"x"}"#,
                json!(5),
            ),
            (
                r#"{"jsonrpc":"2.0","id":6,"method":"a","params":7}"#,
                json!(6),
            ),
            (r#"{"jsonrpc":"2.0","id":8}"#, json!(8)),
            (r#"[{"jsonrpc":"2.0","id":9,"method":"a"}]"#, Value::Null),
        ];
        for (body, id) in cases {
            let frame = classified(body);
            let reply = reply(&frame).unwrap_or_else(|| panic!("no reply to {body}"));
            assert_eq!(reply["error"]["code"], INVALID_REQUEST, "{body}");
            assert_eq!(reply["id"], id, "{body}");
            assert_eq!(reply["jsonrpc"], "2.0");
        }
    }

    #[test]
    fn invalid_notifications_and_responses_get_no_reply() {
        for body in [
            r#"{"jsonrpc":"1.0","method":"a"}"#,
            r#"{"method":"a","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":42}"#,
            r#"{"jsonrpc":"2.0","method":"a","params":"x"}"#,
            r#"{"jsonrpc":"2.0","result":1}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"result":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","extra":0}}"#,
        ] {
            let frame = classified(body);
            assert!(
                matches!(frame, Frame::Problem { reply: None, .. }),
                "{body}: {frame:?}"
            );
        }
    }

    #[test]
    fn what_passes_is_what_the_reader_decodes() {
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"a","params":null}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"a","params":[1]}"#,
            r#"{"jsonrpc":"2.0","method":"exit"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m","data":1}}"#,
            // Duplicate keys: the reader's structs refuse them, so the
            // message is passed on re-serialized, with one each.
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}"#,
        ] {
            let Frame::Message { framed, .. } = classified(body) else {
                panic!("{body} was not let through");
            };
            let text = String::from_utf8(framed).unwrap();
            let (_, json) = text.split_once("\r\n\r\n").unwrap();
            let message: Result<tower_lsp_server::jsonrpc::Request, _> = serde_json::from_str(json);
            let response: Result<tower_lsp_server::jsonrpc::Response, _> =
                serde_json::from_str(json);
            assert!(message.is_ok() || response.is_ok(), "{body} → {json}");
        }
    }
}
