//! The protocol edge: tower-lsp-server handlers that lock the shared state,
//! ask the pure modules what to show, unlock, and talk to the client.
//! Requests answer from the last complete results; builds and test runs
//! happen in background tasks (see `run`); commands live in `commands`.

use crate::dev_runs::DevWatch;
use crate::diagnoses::DIAGNOSE;
use crate::generate_lens::GENERATE_TESTS;
use crate::jobs::ActiveJob;
use crate::lenses::{LOCALIZE, SET_MEASURE, SHOW_FAILING_TESTS};
use crate::protocol::{JobKind, Scores, Status};
use crate::reload::{self, Loaded};
use crate::session::{Session, UNTRUSTED};
use crate::settings::{trusted_from_init, Settings};
use crate::work_progress::{JobProgress, Style};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

/// How often the results file is checked when the client does not tell us
/// about changes (and as a fallback when it does).
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Wait after an edit before republishing, so a burst of keystrokes
/// publishes once.
pub const EDIT_DEBOUNCE: Duration = Duration::from_millis(60);

/// Wait after a save before re-running, so a burst of saves runs once.
pub const SAVE_DEBOUNCE: Duration = Duration::from_millis(750);

/// The language server. Cheap to clone: background tasks hold clones.
#[derive(Clone)]
pub struct Backend {
    pub client: Client,
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<Session>,
    /// Serializes publications so diagnostics arrive in the order computed.
    publish: tokio::sync::Mutex<()>,
    /// Serializes reads of the results file.
    reload: tokio::sync::Mutex<()>,
    /// Held by the job of each kind whose work is in progress (see
    /// [`Backend::slot`]).
    slots: [tokio::sync::Mutex<()>; 3],
    /// Serializes reads of the diagnosis file.
    diagnosis_reload: tokio::sync::Mutex<()>,
    client_caps: Mutex<ClientCaps>,
    /// Set by the first `initialized`: a repeated one starts nothing twice.
    started: std::sync::atomic::AtomicBool,
    /// The reports of the developer's own test runs.
    dev_watch: DevWatch,
}

#[derive(Debug, Default, Clone, Copy)]
struct ClientCaps {
    watch_registration: bool,
    code_lens_refresh: bool,
    inlay_hint_refresh: bool,
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        Backend {
            client,
            shared: Arc::new(Shared {
                state: Mutex::new(Session::default()),
                publish: tokio::sync::Mutex::new(()),
                reload: tokio::sync::Mutex::new(()),
                slots: Default::default(),
                diagnosis_reload: tokio::sync::Mutex::new(()),
                client_caps: Mutex::new(ClientCaps::default()),
                started: std::sync::atomic::AtomicBool::new(false),
                dev_watch: DevWatch::default(),
            }),
        }
    }

    /// The watch over the developer's test reports.
    pub fn dev_watch(&self) -> &DevWatch {
        &self.shared.dev_watch
    }

    /// The state, even if a panicking thread poisoned the lock (the state
    /// stays usable: no `Session` operation leaves it half-changed, none
    /// panics midway).
    pub fn state(&self) -> MutexGuard<'_, Session> {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn caps(&self) -> ClientCaps {
        *self
            .shared
            .client_caps
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Sends what the current state shows: diagnostics, scores, status.
    pub async fn publish(&self) {
        let _order = self.shared.publish.lock().await;
        let (to_read, diag_to_read) = {
            let state = self.state();
            (state.files_to_read(), state.diag_files_to_read())
        };
        let (disk, diag_disk): (HashMap<u32, String>, HashMap<String, String>) =
            if to_read.is_empty() && diag_to_read.is_empty() {
                (HashMap::new(), HashMap::new())
            } else {
                let root = self
                    .state()
                    .root()
                    .map(Path::to_path_buf)
                    .unwrap_or_default();
                tokio::task::spawn_blocking(move || {
                    let read = |path: PathBuf| crate::reload::read_text(&root, &path);
                    (
                        to_read
                            .into_iter()
                            .filter_map(|(f, path)| read(path).map(|t| (f, t)))
                            .collect(),
                        diag_to_read
                            .into_iter()
                            .filter_map(|(f, path)| read(path).map(|t| (f, t)))
                            .collect(),
                    )
                })
                .await
                .unwrap_or_default()
            };
        let publication = {
            let mut state = self.state();
            state.diagnosed_files_read(diag_disk);
            state.publication(disk)
        };
        for (uri, diagnostics, version) in publication.diagnostics {
            self.client
                .publish_diagnostics(uri, diagnostics, version)
                .await;
        }
        if let Some(scores) = publication.scores {
            self.client.send_notification::<Scores>(scores).await;
        }
        self.client
            .send_notification::<Status>(publication.status)
            .await;
        if self.caps().code_lens_refresh {
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = client.code_lens_refresh().await;
            });
        }
    }

    /// Ranks the results again if the measure changed, outside the lock so
    /// requests keep being answered meanwhile.
    pub async fn rerank(&self) {
        let Some((results, measure, root)) = self.state().rerank_job() else {
            return;
        };
        let fresh =
            tokio::task::spawn_blocking(move || crate::reload::rank(results, measure, &root)).await;
        match fresh {
            Ok(Ok(fresh)) => {
                self.state().apply_rerank(fresh);
            }
            Ok(Err(message)) => {
                self.client
                    .show_message(MessageType::WARNING, format!("faultlens: {message}"))
                    .await
            }
            Err(e) => {
                let message = job_failed("ranking the results", e);
                self.client
                    .show_message(MessageType::ERROR, format!("faultlens: {message}"))
                    .await
            }
        }
    }

    /// Asks the client to fetch inlay hints again, when it can.
    pub fn refresh_inlay_hints(&self) {
        if self.caps().inlay_hint_refresh {
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = client.inlay_hint_refresh().await;
            });
        }
    }

    /// Sends only the status.
    pub async fn send_status(&self) {
        let status = self.state().status();
        self.client.send_notification::<Status>(status).await;
    }

    /// Reads the results file if it changed (or always, with `force`) and
    /// republishes.
    pub async fn reload(&self, force: bool) {
        let _one_at_a_time = self.shared.reload.lock().await;
        let (root, measure, known, open) = {
            let state = self.state();
            let Some(root) = state.root().map(Path::to_path_buf) else {
                return;
            };
            // A first ranking stands until its full run is in.
            if state.showing_first_ranking() && !force {
                return;
            }
            let known = if force {
                None
            } else {
                state.results_signature()
            };
            (root, state.settings().measure, known, state.open_paths())
        };
        let job = tokio::task::spawn_blocking(move || {
            let loaded = reload::load(&root, measure, known);
            let harness = matches!(loaded, Loaded::Ranked(..))
                && crate::generate_run::not_a_harness(&root).is_none();
            // The saved text of open documents: what the results describe.
            let on_disk: HashMap<Uri, String> = if matches!(loaded, Loaded::Ranked(..)) {
                open.into_iter()
                    .filter_map(|(uri, path)| Some((uri, reload::read_text(&root, &path)?)))
                    .collect()
            } else {
                HashMap::new()
            };
            (loaded, on_disk, harness)
        });
        let (loaded, on_disk, harness) = job.await.unwrap_or_else(|e| {
            (
                Loaded::Broken(job_failed("reading the results", e), None),
                HashMap::new(),
                false,
            )
        });
        match loaded {
            Loaded::Unchanged => {}
            Loaded::Missing => {
                let had = {
                    let mut state = self.state();
                    let had = state.localization().is_some();
                    state.clear_results();
                    had
                };
                if had || force {
                    self.publish().await;
                }
            }
            Loaded::Ranked(loc, signature) => {
                {
                    let mut state = self.state();
                    state.set_harness(harness);
                    state.install(*loc, Some(signature), &on_disk);
                }
                // A measure change while reading: rank again under the new one.
                self.rerank().await;
                self.publish().await;
            }
            Loaded::Broken(message, signature) => {
                // Said once per version of the file; always when the
                // reading itself failed.
                let first_time = self.state().results_broken(message.clone(), signature);
                if first_time {
                    self.client
                        .show_message(MessageType::ERROR, format!("faultlens: {message}"))
                        .await;
                }
                self.send_status().await;
            }
        }
    }

    /// Shows the first ranking of a run started by the developer's failing
    /// run, until the full run is in.
    pub async fn show_first_ranking(
        &self,
        first: faultlens_ops::first_ranking::FirstRanking,
        epoch: u64,
    ) {
        let _one_at_a_time = self.shared.reload.lock().await;
        let (root, measure, open) = {
            let state = self.state();
            let Some(root) = state.root().map(Path::to_path_buf) else {
                return;
            };
            (root, state.settings().measure, state.open_paths())
        };
        let message = first.describe();
        let job = tokio::task::spawn_blocking(move || {
            let loc = reload::rank(first.results, measure, &root)?;
            let on_disk: HashMap<Uri, String> = open
                .into_iter()
                .filter_map(|(uri, path)| Some((uri, reload::read_text(&root, &path)?)))
                .collect();
            Ok::<_, String>((loc, on_disk))
        });
        let Ok(Ok((loc, on_disk))) = job.await else {
            return;
        };
        {
            // A newer run may have started while this one was ranked.
            let mut state = self.state();
            if !state.jobs().is_current(JobKind::Run, epoch) {
                return;
            }
            state.show_first_ranking(loc, message, &on_disk);
        }
        self.publish().await;
    }

    /// Checks the results file every `POLL_INTERVAL` until the client goes.
    fn spawn_poller(&self) {
        let backend = self.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(POLL_INTERVAL);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                backend.reload(false).await;
                backend.reload_diagnosis(false).await;
                backend.poll_dev_runs().await;
            }
        });
    }

    /// Asks the client to tell us when the results file changes.
    fn spawn_watch_registration(&self) {
        if !self.caps().watch_registration {
            return;
        }
        let client = self.client.clone();
        let backend = self.clone();
        tokio::spawn(async move {
            let options = DidChangeWatchedFilesRegistrationOptions {
                watchers: [
                    "**/.faultlens/results.json",
                    "**/.faultlens/diagnosis.json",
                    "**/Testing/Temporary/LastTest.log",
                    "**/meson-logs/testlog.json",
                    "**/test-suite.log",
                ]
                .into_iter()
                .map(|glob| FileSystemWatcher {
                    glob_pattern: GlobPattern::String(glob.into()),
                    kind: None,
                })
                .collect(),
            };
            let registration = Registration {
                id: "faultlens-results-watcher".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: serde_json::to_value(options).ok(),
            };
            if let Err(e) = client.register_capability(vec![registration]).await {
                backend.dev_watch().follow_file_events();
                client
                    .log_message(
                        MessageType::INFO,
                        format!("faultlens: the client did not accept a file watcher ({e}); polling the results and diagnosis files instead"),
                    )
                    .await;
            }
        });
    }

    /// The lock a job of `kind` holds while its work is in progress: one
    /// at a time per kind (runs share the build directory; a run waits for
    /// a stopped generation to write its tests).
    pub fn slot(&self, kind: JobKind) -> &tokio::sync::Mutex<()> {
        &self.shared.slots[match kind {
            JobKind::Run => 0,
            JobKind::Diagnose => 1,
            JobKind::Generate => 2,
        }]
    }

    /// Begins the work of job `active`: shows its progress (when
    /// `progress`), then waits for the job of its kind before it to stop.
    /// `None` when `active` was replaced or cancelled meanwhile; its
    /// progress then ends with `replaced`.
    pub async fn begin_job(
        &self,
        active: &ActiveJob,
        progress: bool,
        title: &str,
        style: Style,
        replaced: &str,
    ) -> Option<(JobProgress, tokio::sync::MutexGuard<'_, ()>)> {
        let reporter =
            JobProgress::start(&self.client, progress, active.token.clone(), title, style);
        let slot = self.slot(active.kind).lock().await;
        if !self.is_current(active.kind, active.epoch) {
            drop(slot);
            reporter.finish(replaced);
            return None;
        }
        Some((reporter, slot))
    }

    /// Serializes reads of the diagnosis file.
    pub fn diagnosis_reload_lock(&self) -> &tokio::sync::Mutex<()> {
        &self.shared.diagnosis_reload
    }

    /// Waits until no pipeline job is working.
    pub async fn wait_idle(&self) {
        let _slot = self.slot(JobKind::Run).lock().await;
    }

    /// Cancels any run and diagnosis: the client is going away.
    pub fn cancel_run(&self) {
        self.state().jobs_mut().cancel_all();
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let options = params.initialization_options.as_ref();
        let mut settings = Settings::default();
        let problems = options.map(|o| settings.apply(o)).unwrap_or_default();
        let folders: Option<Vec<Uri>> = params
            .workspace_folders
            .as_ref()
            .map(|f| f.iter().map(|f| f.uri.clone()).collect());
        #[allow(deprecated)]
        let root = crate::session::root_from(
            params.root_uri.as_ref(),
            folders.as_deref(),
            params.root_path.as_deref(),
        );
        let caps = &params.capabilities;
        {
            let mut state = self.state();
            let progress = caps
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false);
            state.configure(root, trusted_from_init(options), settings, progress);
        }
        {
            let workspace = caps.workspace.as_ref();
            let mut client_caps = self
                .shared
                .client_caps
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            client_caps.watch_registration = workspace
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false);
            client_caps.code_lens_refresh = workspace
                .and_then(|w| w.code_lens.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false);
            client_caps.inlay_hint_refresh = workspace
                .and_then(|w| w.inlay_hint.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false);
        }
        if !problems.is_empty() {
            let client = self.client.clone();
            // Shown once the client is ready for messages.
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                for p in problems {
                    client
                        .show_message(MessageType::WARNING, format!("faultlens: {p}"))
                        .await;
                }
            });
        }
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "faultlens".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                            include_text: Some(false),
                        })),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                inlay_hint_provider: Some(OneOf::Left(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![
                        LOCALIZE.into(),
                        SHOW_FAILING_TESTS.into(),
                        SET_MEASURE.into(),
                        DIAGNOSE.into(),
                        GENERATE_TESTS.into(),
                    ],
                    ..Default::default()
                }),
                ..ServerCapabilities::default()
            },
            ..Default::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        if self
            .shared
            .started
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        let (trusted, has_root) = {
            let state = self.state();
            (state.trusted(), state.root().is_some())
        };
        if !has_root {
            self.client
                .show_message(
                    MessageType::WARNING,
                    "faultlens: no workspace folder; open the project's root folder to see its results",
                )
                .await;
        }
        if !trusted {
            self.client
                .show_message(MessageType::INFO, format!("faultlens: {UNTRUSTED}"))
                .await;
        }
        if !self.caps().watch_registration {
            self.dev_watch().follow_file_events();
        }
        self.spawn_watch_registration();
        // The developer's reports as they are now: runs after this are news.
        self.poll_dev_runs().await;
        self.reload(true).await;
        self.reload_diagnosis(true).await;
        self.spawn_poller();
    }

    async fn shutdown(&self) -> Result<()> {
        self.cancel_run();
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.state().open(doc.uri, doc.text, doc.version);
        self.publish().await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Update the document before the first `.await`: handlers run
        // concurrently, and the next change must see this one.
        let generation = {
            let mut state = self.state();
            if !state.change(
                &params.text_document.uri,
                params.text_document.version,
                &params.content_changes,
            ) {
                return;
            }
            state.note_edit()
        };
        // Publish once typing pauses; hovers and lenses read the state
        // directly, so they are current meanwhile.
        let backend = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(EDIT_DEBOUNCE).await;
            if backend.state().edit_generation() == generation {
                backend.publish().await;
            }
        });
    }

    async fn did_save(&self, _: DidSaveTextDocumentParams) {
        let generation = {
            let Some(generation) = self.state().note_save() else {
                return;
            };
            generation
        };
        let backend = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(SAVE_DEBOUNCE).await;
            if backend.state().save_generation() == generation {
                let _ = backend.start_run().await;
            }
        });
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.state().close(&params.text_document.uri);
        self.publish().await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let problems = self
            .state()
            .settings_mut()
            .apply_configuration(&params.settings);
        self.rerank().await;
        for p in problems {
            self.client
                .show_message(MessageType::WARNING, format!("faultlens: {p}"))
                .await;
        }
        self.publish().await;
    }

    async fn did_change_watched_files(&self, _: DidChangeWatchedFilesParams) {
        self.reload(false).await;
        self.reload_diagnosis(false).await;
        // A report in a new build directory: found at the next poll.
        self.dev_watch().rescan_soon();
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        Ok(Some(
            self.state()
                .inlay_hints(&params.text_document.uri, params.range),
        ))
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        Ok(self.state().hover(&at.text_document.uri, at.position))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        Ok(Some(self.state().lenses(&params.text_document.uri)))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        self.execute(&params.command, &params.arguments).await
    }
}

/// Why a background job (`spawn_blocking`) gave no result: a panic, which
/// is a bug, becomes an error the user reads while the server keeps serving.
pub(crate) fn job_failed(what: &str, error: tokio::task::JoinError) -> String {
    if !error.is_panic() {
        return format!("{what} was cancelled");
    }
    let payload = error.into_panic();
    let why = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    format!("{what} stopped on an internal error ({why}); please report it, with the project if you can")
}

#[cfg(test)]
mod tests {
    use super::job_failed;

    #[tokio::test]
    async fn a_panicking_job_becomes_a_message() {
        let job = tokio::task::spawn_blocking(|| -> u32 { panic!("index out of bounds") });
        let message = job_failed("the diagnosis", job.await.unwrap_err());
        assert_eq!(
            message,
            "the diagnosis stopped on an internal error (index out of bounds); please report it, with the project if you can"
        );
        let n = 7;
        let job = tokio::task::spawn_blocking(move || -> u32 { panic!("{n} is too many") });
        let message = job_failed("the run", job.await.unwrap_err());
        assert!(message.contains("(7 is too many)"), "{message}");
    }
}
