//! faultlens's own protocol messages, beyond the LSP standard.

use serde_json::Value;
use tower_lsp_server::ls_types::notification::Notification;

/// Server → client: every suspicious line's score, for heatmaps.
pub enum Scores {}

impl Notification for Scores {
    type Params = Value;
    const METHOD: &'static str = "faultlens/scores";
}

/// Server → client: what the server is doing ("running", "done", ...).
pub enum Status {}

impl Notification for Status {
    type Params = Value;
    const METHOD: &'static str = "faultlens/status";
}

/// Client → server request: the whole ranking in the CLI's JSON shape.
pub const RANKING_REQUEST: &str = "faultlens/ranking";
