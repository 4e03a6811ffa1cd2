//! The diagnosis in the background: after a localization with failing
//! tests (setting `diagnose`, trusted workspaces only) or on the
//! `faultlens.diagnose` command. The engine is synchronous and its solver
//! is not `Send`, so it runs whole on a blocking thread; progress comes back
//! through a channel. A new localization, an edit or a newer diagnosis
//! cancels it. Its document is written to `.faultlens/diagnosis.json` and
//! read back like one written by the CLI.

use crate::jobs::ActiveJob;
use crate::protocol::JobKind;
use crate::reload::{load_diagnosis, LoadedDiagnosis};
use crate::run::first_line;
use crate::server::{job_failed, Backend};
use crate::session::UNTRUSTED;
use crate::work_progress::{JobProgress, Style};
use faultlens_core::diagnosis::DiagnosisReport;
use faultlens_diagnose::{DiagnoseError, DiagnoseOptions, DiagnoseProgress};
use faultlens_ops::diagnose::{diagnose_and_store, start, Start};
use faultlens_workspace::store;
use faultlens_workspace::Project;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tower_lsp_server::ls_types::{MessageType, Uri};

/// Progress as (percentage, message).
pub fn progress_step(p: &DiagnoseProgress) -> (u32, String) {
    match p {
        DiagnoseProgress::Loading => (2, "loading the C model".into()),
        DiagnoseProgress::Encoding { done, total, test } => {
            let pct = 5 + (35 * *done / (*total).max(1)) as u32;
            (pct, format!("encoding failing test {done}/{total}: {test}"))
        }
        DiagnoseProgress::Solving { found } => (
            50,
            format!(
                "searching diagnoses: {found} found{}",
                if *found == 0 { "" } else { " so far" }
            ),
        ),
        DiagnoseProgress::Checking { done, total } => (
            60 + (18 * *done / (*total).max(1)) as u32,
            format!("checking the spectrum's top lines one statement at a time {done}/{total}"),
        ),
        DiagnoseProgress::Verifying { done, total } => {
            let pct = 80 + (18 * *done / (*total).max(1)) as u32;
            (
                pct,
                format!("verifying angelic values by replay {done}/{total}"),
            )
        }
    }
}

/// Who asked for a diagnosis: a click is answered with messages; the
/// automatic one after a localization only logs what it could not do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// The `faultlens.diagnose` command: starts from the stored results
    /// only when they are fresh (as `faultlens diagnose` does), else
    /// localizes again first.
    Command,
    /// The setting `diagnose`, after a localization with failing tests.
    AfterLocalization,
    /// The localization a [`Trigger::Command`] started has ended.
    CommandAfterLocalization,
}

impl Trigger {
    fn asked_by_user(self) -> bool {
        self != Trigger::AfterLocalization
    }
}

/// What the engine's thread ended with.
enum Finished {
    Diagnosed(Box<DiagnosisReport>),
    /// Localize first: the stored results are stale (the reason) or
    /// missing (`None`).
    NeedsLocalization(Option<String>),
}

impl Backend {
    /// Starts a diagnosis in the background, cancelling one in progress.
    /// Refused (with the reason) when the workspace is not trusted or has
    /// no root; the automatic one also when the setting is off.
    pub async fn start_diagnosis(&self, trigger: Trigger) -> Result<u64, String> {
        let started = {
            let mut state = self.state();
            if !state.trusted() {
                Err(format!("faultlens will not diagnose: {UNTRUSTED}"))
            } else if !trigger.asked_by_user() && !state.settings().diagnose {
                Err("the diagnose setting is off".to_string())
            } else if let Some(root) = state.root().map(Path::to_path_buf) {
                let limit = Limits {
                    time: state.settings().diagnose_time_limit,
                    effort: state.settings().diagnose_effort,
                };
                let progress = state.client_supports_progress();
                let active = state.jobs_mut().start(JobKind::Diagnose);
                Ok((active, root, limit, progress))
            } else {
                Err("faultlens has no workspace folder to diagnose: open a folder (the project root) in the editor".into())
            }
        };
        match started {
            Ok((active, root, limit, progress)) => {
                let epoch = active.epoch;
                tokio::spawn(run(self.clone(), active, root, limit, progress, trigger));
                self.send_status().await;
                Ok(epoch)
            }
            Err(message) => {
                if trigger.asked_by_user() {
                    self.client
                        .show_message(MessageType::WARNING, &message)
                        .await;
                }
                Err(message)
            }
        }
    }

    /// Reads the diagnosis file if it changed (or always, with `force`),
    /// republishes and asks the client to refresh its inlay hints.
    pub async fn reload_diagnosis(&self, force: bool) {
        let _one_at_a_time = self.diagnosis_reload_lock().lock().await;
        let (root, known, open) = {
            let state = self.state();
            let Some(root) = state.root().map(Path::to_path_buf) else {
                return;
            };
            let known = if force {
                None
            } else {
                state.diagnosis_signature()
            };
            (root, known, state.open_paths())
        };
        let job = tokio::task::spawn_blocking(move || {
            let loaded = load_diagnosis(&root, known);
            let on_disk: HashMap<Uri, String> = if matches!(loaded, LoadedDiagnosis::Read(..)) {
                open.into_iter()
                    .filter_map(|(uri, path)| Some((uri, crate::reload::read_text(&root, &path)?)))
                    .collect()
            } else {
                HashMap::new()
            };
            (loaded, on_disk)
        });
        let (loaded, on_disk) = match job.await {
            Ok(read) => read,
            Err(e) => {
                let message = job_failed("reading the diagnosis", e);
                self.state().set_diagnosis_problem(Some(message.clone()));
                self.client
                    .show_message(MessageType::ERROR, format!("faultlens: {message}"))
                    .await;
                self.send_status().await;
                return;
            }
        };
        match loaded {
            LoadedDiagnosis::Unchanged => return,
            LoadedDiagnosis::Missing => {
                let had = {
                    let mut state = self.state();
                    let had = state.has_diagnoses();
                    state.clear_diagnosis();
                    had
                };
                if !had {
                    return;
                }
            }
            LoadedDiagnosis::Read(diag, signature) => {
                self.state()
                    .install_diagnosis(*diag, Some(signature), &on_disk);
            }
            LoadedDiagnosis::Broken(message, signature) => {
                let first_time = self.state().diagnosis_broken(message.clone(), signature);
                if first_time {
                    self.client
                        .show_message(MessageType::ERROR, format!("faultlens: {message}"))
                        .await;
                }
                self.send_status().await;
                return;
            }
        }
        // Fusion follows the diagnosis: rank by its evidence now, or stop.
        self.rerank().await;
        self.publish().await;
        self.refresh_inlay_hints();
    }
}

/// The budgets of a background diagnosis, from the settings.
#[derive(Clone, Copy)]
struct Limits {
    time: Duration,
    effort: Option<f64>,
}

/// Runs the engine on a blocking thread and installs what it found.
async fn run(
    backend: Backend,
    active: ActiveJob,
    root: PathBuf,
    limits: Limits,
    progress: bool,
    trigger: Trigger,
) {
    let epoch = active.epoch;
    // One engine at a time: a cancelled one stops at its next check.
    let Some((reporter, _slot)) = backend
        .begin_job(
            &active,
            progress,
            "faultlens diagnosis",
            Style::Percentage,
            "cancelled",
        )
        .await
    else {
        return;
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<DiagnoseProgress>();
    let cancel = active.cancel.clone();
    let work_root = root.clone();
    let job = tokio::task::spawn_blocking(move || {
        let project = Project::load(&work_root)?;
        let results = match trigger {
            Trigger::Command => match start(&work_root)? {
                Start::Fresh(results) => results,
                Start::Stale(reason) => return Ok(Finished::NeedsLocalization(Some(reason))),
                Start::Missing => return Ok(Finished::NeedsLocalization(None)),
            },
            // Just made by the localization: diagnosed as they are, like
            // the CLI does (an unreadable file must not loop the two).
            _ => store::read_results(&work_root)?.ok_or(DiagnoseError::NoResults)?,
        };
        let options = DiagnoseOptions {
            time_limit: Some(limits.time),
            effort: limits.effort,
            ..DiagnoseOptions::default()
        };
        let report = |p: DiagnoseProgress| {
            let _ = tx.send(p);
        };
        let found = diagnose_and_store(&project, &results, &options, &report, &cancel)?;
        Ok(Finished::Diagnosed(Box::new(found)))
    });
    while let Some(p) = rx.recv().await {
        let (pct, message) = progress_step(&p);
        reporter.report(message, Some(pct));
    }
    let outcome = match job.await {
        Ok(Ok(Finished::NeedsLocalization(stale))) => {
            return localize_first(&backend, epoch, reporter, stale).await;
        }
        Ok(Ok(Finished::Diagnosed(report))) => Ok(*report),
        Ok(Err(e)) => Err(e),
        Err(e) => Err(DiagnoseError::Internal(job_failed("the engine", e))),
    };
    let summary = match &outcome {
        Ok(report) => format!(
            "{} diagnos{}{}",
            report.diagnoses.len(),
            if report.diagnoses.len() == 1 {
                "is"
            } else {
                "es"
            },
            report
                .stopped
                .as_ref()
                .map(|why| format!(" (stopped: {why})"))
                .unwrap_or_default()
        ),
        Err(DiagnoseError::Cancelled) => "cancelled".into(),
        Err(e) => first_line(&e.to_string()),
    };
    if backend.is_current(JobKind::Diagnose, epoch) {
        {
            let mut state = backend.state();
            state.jobs_mut().finish(JobKind::Diagnose, epoch);
            state.set_diagnosis_problem(match &outcome {
                Ok(_) | Err(DiagnoseError::Cancelled) => None,
                Err(e) => Some(first_line(&e.to_string())),
            });
        }
        match &outcome {
            Ok(_) => backend.reload_diagnosis(true).await,
            Err(DiagnoseError::Cancelled) => {}
            Err(e) => {
                let text = format!("faultlens: {e}");
                if trigger.asked_by_user() {
                    backend
                        .client
                        .show_message(MessageType::WARNING, text)
                        .await;
                } else {
                    backend.client.log_message(MessageType::INFO, text).await;
                }
            }
        }
        backend.send_status().await;
    }
    reporter.finish(summary);
}

/// The stored results are stale (`reason`) or missing: localize, and
/// diagnose when that run ends (see `run::run`), as `faultlens diagnose`
/// does.
async fn localize_first(
    backend: &Backend,
    epoch: u64,
    reporter: JobProgress,
    stale: Option<String>,
) {
    if !backend.is_current(JobKind::Diagnose, epoch) {
        reporter.finish("cancelled");
        return;
    }
    {
        let mut state = backend.state();
        state.jobs_mut().finish(JobKind::Diagnose, epoch);
        state.diagnose_after_run();
    }
    let (message, progress) = match stale {
        Some(reason) => (
            format!("faultlens: {reason}; localizing again before diagnosing"),
            format!("localizing again first: {reason}"),
        ),
        None => (
            "faultlens: there are no results yet; localizing before diagnosing".to_string(),
            "localizing first: there are no results yet".to_string(),
        ),
    };
    backend
        .client
        .show_message(MessageType::INFO, message)
        .await;
    reporter.finish(progress);
    if backend.start_run().await.is_err() {
        backend.state().take_diagnose_after_run();
    }
    backend.send_status().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_climbs_through_the_phases() {
        assert_eq!(progress_step(&DiagnoseProgress::Loading).0, 2);
        let half = DiagnoseProgress::Encoding {
            done: 1,
            total: 2,
            test: "t7".into(),
        };
        assert_eq!(
            progress_step(&half),
            (22, "encoding failing test 1/2: t7".into())
        );
        assert_eq!(
            progress_step(&DiagnoseProgress::Solving { found: 2 }).1,
            "searching diagnoses: 2 found so far"
        );
        let verifying = DiagnoseProgress::Verifying { done: 0, total: 0 };
        assert_eq!(progress_step(&verifying).0, 80);
    }
}
