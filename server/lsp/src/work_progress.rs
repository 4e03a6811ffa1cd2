//! Work-done progress for the server's background jobs (localization,
//! diagnosis, test generation), shown only when the user wants it and the
//! client accepts the token.
//!
//! A job never waits for the client: it hands its reports to a
//! [`JobProgress`] and goes on. A task of the progress's own asks the
//! client for the token and, once the client has answered (the protocol
//! forbids `$/progress` before that), forwards the reports in order. A
//! client that never answers `window/workDoneProgress/create` therefore
//! costs the user the progress bar, never the run.

use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tower_lsp_server::ls_types::ProgressToken;
use tower_lsp_server::{Bounded, Cancellable, Client, NotCancellable, OngoingProgress, Unbounded};

/// How the progress looks in the client.
pub enum Style {
    /// A percentage, starting at 0 with the message "starting".
    Percentage,
    /// A cancel button and no percentage (its length is unknown).
    Cancellable { message: String },
}

enum Update {
    Report {
        message: String,
        percentage: Option<u32>,
    },
    Finish(String),
}

/// The reporting end of one job's progress; a no-op when progress is off.
pub struct JobProgress {
    updates: Option<UnboundedSender<Update>>,
}

impl JobProgress {
    /// Starts asking the client for `token` in the background.
    pub fn start(
        client: &Client,
        enabled: bool,
        token: String,
        title: &str,
        style: Style,
    ) -> JobProgress {
        if !enabled {
            return JobProgress { updates: None };
        }
        let (tx, rx) = unbounded_channel();
        tokio::spawn(forward(client.clone(), token, title.to_string(), style, rx));
        JobProgress { updates: Some(tx) }
    }

    /// A step: `percentage` is ignored by a [`Style::Cancellable`] progress.
    pub fn report(&self, message: impl Into<String>, percentage: Option<u32>) {
        self.send(Update::Report {
            message: message.into(),
            percentage,
        });
    }

    /// Ends the progress with `message`.
    pub fn finish(self, message: impl Into<String>) {
        self.send(Update::Finish(message.into()));
    }

    fn send(&self, update: Update) {
        if let Some(tx) = &self.updates {
            // The forwarder is gone only when the client refused the token.
            let _ = tx.send(update);
        }
    }
}

async fn forward(
    client: Client,
    token: String,
    title: String,
    style: Style,
    mut rx: UnboundedReceiver<Update>,
) {
    let token = ProgressToken::String(token);
    if client
        .create_work_done_progress(token.clone())
        .await
        .is_err()
    {
        return;
    }
    let begun = client.progress(token, title);
    let ongoing = match style {
        Style::Percentage => Ongoing::Percentage(
            begun
                .with_message("starting")
                .with_percentage(0)
                .begin()
                .await,
            0,
        ),
        Style::Cancellable { message } => Ongoing::Cancellable(
            begun
                .with_message(message)
                .with_cancel_button()
                .begin()
                .await,
        ),
    };
    let mut ongoing = ongoing;
    while let Some(update) = rx.recv().await {
        match update {
            Update::Report {
                message,
                percentage,
            } => ongoing.report(message, percentage).await,
            Update::Finish(message) => return ongoing.finish(Some(message)).await,
        }
    }
    // The job dropped its progress unfinished: end it all the same.
    ongoing.finish(None).await;
}

/// A begun progress of either style.
enum Ongoing {
    /// With the last percentage reported, kept for a report without one.
    Percentage(OngoingProgress<Bounded, NotCancellable>, u32),
    Cancellable(OngoingProgress<Unbounded, Cancellable>),
}

impl Ongoing {
    async fn report(&mut self, message: String, percentage: Option<u32>) {
        match self {
            Ongoing::Percentage(progress, last) => {
                *last = percentage.unwrap_or(*last);
                progress.report_with_message(message, *last).await;
            }
            Ongoing::Cancellable(progress) => progress.report_with_message(message, None).await,
        }
    }

    async fn finish(self, message: Option<String>) {
        match (self, message) {
            (Ongoing::Percentage(progress, _), Some(m)) => progress.finish_with_message(m).await,
            (Ongoing::Percentage(progress, _), None) => progress.finish().await,
            (Ongoing::Cancellable(progress), Some(m)) => progress.finish_with_message(m).await,
            (Ongoing::Cancellable(progress), None) => progress.finish().await,
        }
    }
}
