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
//! `reload` move data between them, the client and the disk.
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
//! Commands (`workspace/executeCommand`):
//! - `faultlens.localize`: build, run the tests, rank; cancels a run in
//!   progress. Answers `{"started": true, "run": n}` or `{"started": false,
//!   "reason": "..."}` (untrusted workspace).
//! - `faultlens.showFailingTests`, arguments `[{"uri", "line"}]` (0-based
//!   line) or none: shows the failing tests that ran the line and answers
//!   `[{"name", "reason", "location"?}]` (`location` is an LSP Location).
//! - `faultlens.setMeasure`, arguments `["dstar"]`: re-ranks.
//! - `faultlens.diagnose`: diagnoses the failing tests of the stored results
//!   in the background (trusted only); answers like `faultlens.localize`.
//! - `faultlens.generateTests`, arguments `[{"strategy": "sfo_p" | "sfo" |
//!   "sat-tar", "max": 20}]` (optional): generates tests on a harness with
//!   free inputs (`generate_run`; trusted only), one `$/progress` report per
//!   round (`round k: gen-sfo_p-3 fails`), cancellable with
//!   `window/workDoneProgress/cancel` or by a new localization, then
//!   localizes again. Answers like `faultlens.localize`; a project without
//!   free inputs answers `started: false` with the reason (also shown).
//!   A lens "generate tests to break this tie" offers it on the first line
//!   of a tie group holding rank 1 (harness projects, trusted workspaces).
//!
//! Custom messages:
//! - request `faultlens/ranking`, params `{}` or `{"measure": "dstar"}`: the
//!   CLI's `--format json` document.
//! - notification `faultlens/scores`: `{"measure", "files": [{"uri",
//!   "lines": [{"line" (0-based), "score", "heat" (0..1), "rank", "ef", "ep",
//!   "stale"}]}]}`, after every (re)ranking and edit.
//! - notification `faultlens/status`: `{"state": "idle" | "running" | "done"
//!   | "error" | "untrusted" | "stale" | "noResults", "message", "failing",
//!   "total", "diagnosis": {"state": "running" | "done" | "error" | "none",
//!   "message"}, "generation": {"state": "running" | "idle", "message"}}`.
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
//! See `editors/README.md` for the same surface with editor set-ups.

pub mod commands;
pub mod diagnose_run;
pub mod diagnoses;
pub mod diagnostics;
pub mod document;
pub mod framing;
pub mod generate_lens;
pub mod generate_run;
pub mod hover;
pub mod lenses;
pub mod localization;
pub mod placement;
pub mod protocol;
pub mod ranking;
pub mod reload;
pub mod run;
pub mod scores;
pub mod server;
pub mod settings;
pub mod state;
pub mod tracking;
pub mod work_progress;

use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tower_lsp_server::{LspService, Server};

/// Serves the Language Server Protocol on stdin/stdout until the client
/// exits or goes away. Blocks; builds its own tokio runtime.
pub fn run_stdio() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let backend = runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // The client is gone: stop test processes of a run in progress, and do
    // not wait long for background work.
    backend.cancel_run();
    runtime.block_on(async {
        let _ = tokio::time::timeout(Duration::from_secs(3), backend.wait_idle()).await;
    });
    // Stdin may still be blocked in a read: do not wait for it.
    runtime.shutdown_background();
    Ok(())
}

/// Serves one client over any byte streams until it exits or its input
/// ends; returns the server so the caller can stop its background work.
/// (`run_stdio` uses stdin/stdout; benchmarks use in-memory pipes.)
pub async fn serve<I, O>(input: I, output: O) -> server::Backend
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin,
{
    let (service, socket) = LspService::build(server::Backend::new)
        .custom_method(protocol::RANKING_REQUEST, server::Backend::ranking)
        .custom_method(
            "window/workDoneProgress/cancel",
            server::Backend::progress_cancel,
        )
        .finish();
    let backend = service.inner().clone();
    let (reader, writer) = tokio::io::duplex(1 << 16);
    tokio::spawn(guard_input(input, writer));
    Server::new(reader, output, socket).serve(service).await;
    backend
}

/// Copies well-formed messages from the client to the server's reader (see
/// `framing`); dropping `sink` at the end of the input ends the session.
async fn guard_input(mut input: impl AsyncRead + Unpin, mut sink: tokio::io::DuplexStream) {
    let mut framer = framing::Framer::default();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match input.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        framer.push(&chunk[..n]);
        while let Some(frame) = framer.next_frame() {
            match frame {
                framing::Frame::Message(bytes) => {
                    if sink.write_all(&bytes).await.is_err() {
                        return;
                    }
                }
                framing::Frame::Dropped(why) => eprintln!("faultlens lsp: ignored {why}"),
            }
        }
    }
}
