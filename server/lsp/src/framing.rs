//! A guard in front of the JSON-RPC reader: splits the client's byte stream
//! into `Content-Length` frames and lets through only well-formed messages.
//!
//! tower-lsp-server's reader stops for good at the first malformed message
//! (its framed stream ends after a decode error), so one broken message from
//! a client would end the session. Here a broken message is dropped and
//! reported instead, and the stream resynchronizes at the next header.

use serde_json::Value;

/// Largest message accepted; a larger `Content-Length` is treated as garbage.
pub const MAX_MESSAGE: usize = 64 * 1024 * 1024;

#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A well-formed message, re-framed, ready for the server.
    Message(Vec<u8>),
    /// Something that was dropped, and why.
    Dropped(String),
}

#[derive(Debug, Default)]
pub struct Framer {
    buffer: Vec<u8>,
}

impl Framer {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// The next complete frame, if the buffer holds one.
    pub fn next_frame(&mut self) -> Option<Frame> {
        let header_end = find(&self.buffer, b"\r\n\r\n")?;
        let header = String::from_utf8_lossy(&self.buffer[..header_end]).into_owned();
        let length = header.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())
                .flatten()
        });
        let body_start = header_end + 4;
        let Some(length) = length.filter(|&l| l <= MAX_MESSAGE) else {
            self.buffer.drain(..body_start);
            return Some(Frame::Dropped(format!(
                "a message header without a usable Content-Length: {:?}",
                truncate(&header)
            )));
        };
        if self.buffer.len() < body_start + length {
            return None;
        }
        let body: Vec<u8> = self.buffer[body_start..body_start + length].to_vec();
        self.buffer.drain(..body_start + length);
        Some(match check(&body) {
            Ok(()) => {
                let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
                framed.extend_from_slice(&body);
                Frame::Message(framed)
            }
            Err(why) => Frame::Dropped(format!(
                "a malformed message ({why}): {:?}",
                truncate(&String::from_utf8_lossy(&body))
            )),
        })
    }
}

/// Checks a body has the shape of a JSON-RPC 2.0 request, notification or
/// response, as the server's reader expects.
pub fn check(body: &[u8]) -> Result<(), String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
    let object = value.as_object().ok_or("not a JSON object")?;
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err("\"jsonrpc\" is not \"2.0\"".into());
    }
    let id_ok = match object.get("id") {
        None | Some(Value::Null) | Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
        Some(_) => false,
    };
    if !id_ok {
        return Err("\"id\" must be a number or a string".into());
    }
    match object.get("method") {
        Some(Value::String(_)) => Ok(()),
        Some(_) => Err("\"method\" is not a string".into()),
        None if object.contains_key("id")
            && (object.contains_key("result") || object.contains_key("error")) =>
        {
            match object.get("error") {
                None | Some(Value::Null) => Ok(()),
                Some(e)
                    if e.get("code").is_some_and(Value::is_i64)
                        && e.get("message").is_some_and(Value::is_string) =>
                {
                    Ok(())
                }
                Some(_) => Err("\"error\" lacks a numeric code or a message".into()),
            }
        }
        None => Err("neither a request nor a response".into()),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn truncate(text: &str) -> String {
    text.chars().take(120).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
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
        assert_eq!(f.next_frame(), Some(Frame::Message(frame(good))));
        for _ in 0..4 {
            assert!(matches!(f.next_frame(), Some(Frame::Dropped(_))));
        }
        assert!(matches!(f.next_frame(), Some(Frame::Message(_))));
        assert_eq!(f.next_frame(), None);
    }

    #[test]
    fn waits_for_the_whole_body() {
        let mut f = Framer::default();
        let bytes = frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
        f.push(&bytes[..30]);
        assert_eq!(f.next_frame(), None);
        f.push(&bytes[30..]);
        assert!(matches!(f.next_frame(), Some(Frame::Message(_))));
    }

    #[test]
    fn absurd_lengths_are_dropped() {
        let mut f = Framer::default();
        f.push(b"Content-Length: 99999999999999\r\n\r\n");
        assert!(matches!(f.next_frame(), Some(Frame::Dropped(_))));
    }
}
