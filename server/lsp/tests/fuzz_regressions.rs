//! What the fuzz targets (`server/fuzz`, targets `framing` and `lsp`) found
//! in the language server, each kept as a test.

use faultlens_lsp::framing::{Frame, Framer, METHOD_NOT_FOUND};

fn frames(body: &str) -> Vec<Frame> {
    let mut framer = Framer::default();
    framer.push(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    std::iter::from_fn(|| framer.next_frame()).collect()
}

#[test]
fn a_dollar_request_is_answered_with_method_not_found() {
    // tower-lsp-server drops the answer to any `$/` method, so a client
    // that sent `$/unknown` with an id waited forever.
    let got = frames(r#"{"jsonrpc":"2.0","id":7,"method":"$/unknown","params":{}}"#);
    match got.as_slice() {
        [Frame::Problem {
            reply: Some(reply), ..
        }] => {
            assert_eq!(reply["id"], 7);
            assert_eq!(reply["error"]["code"], METHOD_NOT_FOUND);
        }
        other => panic!("{other:?}"),
    }
    // Notifications stay the server's (`$/cancelRequest`, `$/setTrace`).
    let got = frames(r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#);
    assert!(
        matches!(got.as_slice(), [Frame::Message { has_id: false, .. }]),
        "{got:?}"
    );
}
