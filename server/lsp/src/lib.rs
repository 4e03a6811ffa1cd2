//! faultlens-lsp: the faultlens language server.
//!
//! `faultlens lsp` speaks the Language Server Protocol over stdio. It shows
//! the most suspicious lines of the last localization run as diagnostics,
//! code lenses and hovers, follows the user's edits, picks up results that
//! other tools write, and (in a trusted workspace) re-runs the tests in the
//! background.
//!
//! The pure modules (`settings`, `tracking`, `document`, `localization`,
//! `placement`, `diagnostics`, `lenses`, `hover`, `scores`, `diagnoses`,
//! `state`) compute what to show; `server`, `run`, `diagnose_run` and
//! `reload` move data between them, the client and the disk; `transport`
//! and `framing` stand between tower-lsp-server and the byte streams.
//!
//! # Protocol surface
//!
//! Initialization options (all optional): `{"trusted": false, "measure":
//! "ochiai", "topN": 10, "autoRunOnSave": false, "timeoutSeconds": 10,
//! "diagnose": true, "diagnoseTimeLimitSeconds": 30}` (`timeoutSeconds`
//! defaults to the project's `[run] timeout`).
//! Only `"trusted": true` lets the server build and run code; without it,
//! results already in `.faultlens/results.json` are still shown.
//! `workspace/didChangeConfiguration` accepts the same keys (except
//! `trusted`) under `settings.faultlens` or at the top level of `settings`.
//!
//! Commands (`faultlens.localize`, `faultlens.showFailingTests`,
//! `faultlens.setMeasure`, `faultlens.diagnose`, `faultlens.generateTests`),
//! the custom messages (`faultlens/ranking`, `faultlens/scores`,
//! `faultlens/status`) and the progress tokens are the types of
//! [`protocol`], documented with an example each in
//! `editors/lsp-extensions.md` (`tests/protocol_doc.rs` holds the two
//! together). A lens "generate tests to break this tie" offers
//! `faultlens.generateTests` on the first line of a tie group holding rank 1
//! (harness projects, trusted workspaces).
//!
//! # Diagnosis
//!
//! `.faultlens/diagnosis.json` (see `faultlens_core::diagnosis`) is read at
//! startup and whenever it changes (watched and polled like the results).
//! In a trusted workspace with `diagnose` on, a successful localization with
//! failing tests starts the engine in the background (`diagnose_run`; its
//! own `$/progress`), cancelled by a new run, an edit or a newer diagnosis.
//! Diagnosed statements get diagnostics (code `diagnosis`), a hover section,
//! inlay hints with the verified angelic values (`⟵ 5 makes t7 pass`;
//! `inlayHintProvider`, `workspace/inlayHint/refresh` after new results) and
//! a lens that re-runs the diagnosis; their lines are tracked through edits
//! like ranked lines, and stale lines lose their hints.
//!
//! Progress (`window/workDoneProgress/create` + `$/progress`) is reported
//! for runs when the client supports it; failures go to `window/showMessage`
//! and compiler errors become diagnostics at the compiler's location.
//!
//! # Results and edits
//!
//! The server reads `<root>/.faultlens/results.json` (root: the first
//! workspace folder, else `rootUri`), registers a file watcher for it when
//! the client allows dynamic registration, and also polls it twice a second.
//! Results describe the files as saved; unsaved edits of open documents are
//! diffed against the saved text when results arrive. After that, ranked
//! lines move with inserted and deleted lines, and a line whose own text
//! changed is stale (Hint severity, "stale" in message, lens and scores)
//! until the next run; a closed document keeps its lines where the edits
//! left them. A file whose content differs from the digest the run recorded
//! (a checkout, another editor) shows all its results as stale. Requests (hover, lenses, ranking) answer from the last
//! complete results; runs, re-rankings and file reads happen outside the
//! state lock.
//!
//! # Malformed input and the session's end
//!
//! tower-lsp-server's reader stops for good at the first message it cannot
//! decode, so the client's bytes pass through `framing` first (see
//! `transport`), and what it drops is told to the client as a
//! `window/logMessage` of type Warning (and on stderr):
//!
//! - A `Content-Length` that does not count the body's UTF-8 bytes costs
//!   that message only. Too small (characters counted): the cut body gets a
//!   -32700 response (id null), its rest is dropped up to the next header,
//!   found wherever it starts (`Content-Length` or `Content-Type`, any case,
//!   mid-line too). Too large: the message is taken to the end of its JSON
//!   and the next message read from there, as soon as its header is in.
//!   Garbage between messages is dropped the same way; a header longer than
//!   8 KiB or a `Content-Length` above 64 MiB is refused.
//! - A body that is not JSON: -32700 (Parse error), id null.
//! - A request (it has an `id`) that is not valid JSON-RPC 2.0 (`jsonrpc`
//!   missing or not `"2.0"`, `method` not a string, an id that is not an
//!   integer or a string, `params` neither an object nor an array, a JSON
//!   value that is not an object): -32600 (Invalid Request) with the id
//!   when it is a number or a string, else null. An invalid notification or
//!   response gets no reply (JSON-RPC forbids one), only the log message.
//!
//! The server's own messages and these replies reach the output whole,
//! never one inside another. `exit` ends the process with status 0 after a
//! `shutdown` request and 1 without one (as the LSP specification asks);
//! input that ends without `exit` ends it with 0.
//!
//! See `editors/README.md` for the same surface with editor set-ups.

pub mod commands;
pub mod dev_runs;
pub mod diagnose_run;
pub mod diagnoses;
pub mod diagnostics;
pub mod document;
pub mod framing;
pub mod generate_lens;
pub mod generate_run;
pub mod hover;
pub mod jobs;
pub mod lenses;
pub mod localization;
pub mod overlay;
pub mod placement;
pub mod protocol;
pub mod ranking;
pub mod reload;
pub mod run;
pub mod scores;
pub mod server;
pub mod session;
pub mod settings;
pub mod tracking;
pub mod transport;
pub mod work_progress;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::{LspService, Server};

/// Serves the Language Server Protocol on stdin/stdout until the client
/// exits or goes away. Blocks; builds its own tokio runtime. The exit
/// status is 1 after an `exit` without `shutdown`, else 0.
pub fn run_stdio() -> std::io::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (backend, ending) =
        runtime.block_on(serve_session(tokio::io::stdin(), tokio::io::stdout()));
    // The client is gone: stop test processes of a run in progress, and do
    // not wait long for background work.
    backend.cancel_run();
    runtime.block_on(async {
        let _ = tokio::time::timeout(Duration::from_secs(3), backend.wait_idle()).await;
    });
    // Stdin may still be blocked in a read: do not wait for it.
    runtime.shutdown_background();
    Ok(ExitCode::from(ending.status()))
}

/// Serves one client over any byte streams until it exits or its input
/// ends; returns the server so the caller can stop its background work.
/// (`run_stdio` uses stdin/stdout; benchmarks use in-memory pipes.)
pub async fn serve<I, O>(input: I, output: O) -> server::Backend
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin,
{
    serve_session(input, output).await.0
}

/// `serve`, also telling how the session ended (for the exit status).
pub async fn serve_session<I, O>(input: I, output: O) -> (server::Backend, transport::Ending)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin,
{
    let (service, socket) = LspService::build(server::Backend::new)
        .custom_method(
            <protocol::Ranking as tower_lsp_server::ls_types::request::Request>::METHOD,
            server::Backend::ranking,
        )
        .custom_method(
            <protocol::TestRunEnded as tower_lsp_server::ls_types::notification::Notification>::METHOD,
            server::Backend::test_run_ended,
        )
        .custom_method(
            "window/workDoneProgress/cancel",
            server::Backend::progress_cancel,
        )
        .finish();
    let backend = service.inner().clone();
    let lifecycle = Arc::new(transport::Lifecycle::default());
    // Client → guard → server's reader.
    let (server_input, guarded) = tokio::io::duplex(1 << 16);
    // Server's writer → merger (with the guard's own frames) → client.
    let (server_output, merged) = tokio::io::duplex(1 << 16);
    let (own_tx, own_rx) = tokio::sync::mpsc::channel(64);
    tokio::spawn(transport::guard_input(
        input,
        guarded,
        own_tx,
        lifecycle.clone(),
    ));
    tokio::join!(
        Server::new(server_input, server_output, socket).serve(service),
        transport::merge_output(merged, own_rx, output),
    );
    (backend, lifecycle.ending())
}
