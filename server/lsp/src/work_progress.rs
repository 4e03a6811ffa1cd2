//! Work-done progress for the server's background jobs (localization,
//! diagnosis, test generation): begun only when the user wants it and the
//! client accepts the token; `None` otherwise, and the job runs silently.

use tower_lsp_server::ls_types::ProgressToken;
use tower_lsp_server::{Bounded, Cancellable, Client, NotCancellable, OngoingProgress, Unbounded};

/// Asks the client for a progress token; false when it refuses (or is not asked).
async fn created(client: &Client, enabled: bool, token: &str) -> bool {
    enabled
        && client
            .create_work_done_progress(ProgressToken::String(token.to_string()))
            .await
            .is_ok()
}

/// A progress with a percentage, starting at 0 ("starting").
pub async fn with_percentage(
    client: &Client,
    enabled: bool,
    token: String,
    title: &str,
) -> Option<OngoingProgress<Bounded, NotCancellable>> {
    if !created(client, enabled, &token).await {
        return None;
    }
    Some(
        client
            .progress(ProgressToken::String(token), title)
            .with_message("starting")
            .with_percentage(0)
            .begin()
            .await,
    )
}

/// A progress with a cancel button and no percentage (its length is unknown).
pub async fn cancellable(
    client: &Client,
    enabled: bool,
    token: String,
    title: &str,
    message: String,
) -> Option<OngoingProgress<Unbounded, Cancellable>> {
    if !created(client, enabled, &token).await {
        return None;
    }
    Some(
        client
            .progress(ProgressToken::String(token), title)
            .with_message(message)
            .with_cancel_button()
            .begin()
            .await,
    )
}
