//! A background localization run: build, run the tests, write the results
//! file, republish. Reports progress to the client; a newer run cancels it.

use crate::diagnose_run::Trigger;
use crate::diagnostics::{build_diagnostics, CompilerMessage};
use crate::jobs::ActiveJob;
use crate::protocol::JobKind;
use crate::server::{job_failed, Backend};
use crate::work_progress::Style;
use faultlens_ops::first_ranking::FirstRanking;
use faultlens_ops::localize::localize_and_store_in_stages;
use faultlens_pipeline::{PipelineError, Progress, RunOptions};
use faultlens_workspace::Project;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use tower_lsp_server::ls_types::{MessageType, Uri};

/// Progress as (percentage, message): building and discovery take the first
/// tenth, test runs most of the rest.
pub fn progress_step(p: &Progress) -> (u32, String) {
    match p {
        Progress::Building => (2, "building with coverage".into()),
        Progress::Discovering => (8, "finding the tests".into()),
        Progress::Running { done, total, test } => {
            let pct = 10 + (80 * *done / (*total).max(1)) as u32;
            (pct, format!("running tests {done}/{total}: {test}"))
        }
        Progress::Collecting => (92, "collecting coverage".into()),
        Progress::Note(note) => (8, note.to_string()),
    }
}

/// Runs the pipeline in a blocking thread and reports what happened.
/// Boxed, with its type spelled out: a run may start a diagnosis, which
/// may start a run, and the compiler cannot prove such a cycle of opaque
/// futures `Send`.
pub fn run(
    backend: Backend,
    active: ActiveJob,
    root: PathBuf,
    timeout: Option<Duration>,
    request: RunRequest,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    Box::pin(async move {
        let RunRequest {
            progress,
            title,
            first,
        } = request;
        let epoch = active.epoch;
        // Wait for a stopped test generation to write its tests: discovery
        // reads them.
        drop(backend.slot(JobKind::Generate).lock().await);
        // Wait for a superseded run to stop: runs share the build directory.
        let Some((reporter, _slot)) = backend
            .begin_job(
                &active,
                progress,
                &title,
                Style::Percentage,
                "cancelled: a newer run replaced this one",
            )
            .await
        else {
            return;
        };
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<RunEvent>();
        let cancel = active.cancel.clone();
        let work_root = root.clone();
        let job = tokio::task::spawn_blocking(move || {
            let project = Project::load(&work_root)?;
            let options = RunOptions {
                timeout,
                ..RunOptions::default()
            };
            let report = |p: Progress| {
                let _ = tx.send(RunEvent::Progress(p));
            };
            let on_first = |f: FirstRanking| {
                let _ = tx.send(RunEvent::First(Box::new(f)));
            };
            localize_and_store_in_stages(&project, &options, &first, &on_first, &report, &cancel)
        });
        while let Some(event) = rx.recv().await {
            let p = match event {
                RunEvent::Progress(p) => p,
                RunEvent::First(f) => {
                    if backend.is_current(JobKind::Run, epoch) {
                        reporter.report(f.describe(), None);
                        backend.show_first_ranking(*f, epoch).await;
                        backend.send_status().await;
                    }
                    continue;
                }
            };
            if let Progress::Note(note) = &p {
                // Said where it stays, not only in a passing progress message.
                backend
                    .client
                    .log_message(MessageType::WARNING, format!("faultlens: {note}"))
                    .await;
            }
            let (pct, message) = progress_step(&p);
            reporter.report(message, Some(pct));
        }
        let outcome = match job.await {
            Ok(outcome) => outcome.map_err(RunFailure::Pipeline),
            Err(e) => Err(RunFailure::Crashed(job_failed("the run", e))),
        };

        let current = backend.is_current(JobKind::Run, epoch);
        let summary = match &outcome {
            Ok(results) => {
                reporter.report("ranking", Some(96));
                format!(
                    "{} failing of {} tests",
                    results.failed_count(),
                    results.tests.len()
                )
            }
            Err(RunFailure::Pipeline(PipelineError::Cancelled)) => {
                "cancelled: a newer run replaced this one".into()
            }
            Err(e) => format!("failed: {}", first_line(&e.to_string())),
        };
        if current {
            let mut state = backend.state();
            state.jobs_mut().finish(JobKind::Run, epoch);
            match &outcome {
                Ok(_) => state.run_succeeded(),
                Err(RunFailure::Pipeline(PipelineError::Cancelled)) => state.run_stopped(),
                // A run the developer's run started found faultlens running
                // already (`faultlens watch` beside the editor): that run's
                // results will be read when it writes them.
                Err(e) if busy_after_developers_run(e, state.trigger().is_some()) => {
                    state.run_stopped()
                }
                Err(e) => {
                    let mut build_errors = BTreeMap::new();
                    if let RunFailure::Pipeline(PipelineError::Build { diagnostics, .. }) = e {
                        let messages: Vec<CompilerMessage> = diagnostics
                            .iter()
                            .map(|d| CompilerMessage {
                                file: d.file.clone(),
                                line: d.line,
                                column: d.column,
                                severity: d.severity.clone(),
                                message: d.message.clone(),
                            })
                            .collect();
                        for (file, list) in build_diagnostics(&messages) {
                            if let Some(uri) = Uri::from_file_path(root.join(&file)) {
                                build_errors.insert(uri.as_str().to_string(), list);
                            }
                        }
                    }
                    state.run_failed(first_line(&e.to_string()), build_errors);
                }
            }
        }
        if current {
            match &outcome {
                Ok(results) => {
                    backend.reload(false).await;
                    backend.check_agreement(results).await;
                    let asked = backend.state().take_diagnose_after_run();
                    if results.failed_count() > 0 {
                        let trigger = if asked {
                            Trigger::CommandAfterLocalization
                        } else {
                            Trigger::AfterLocalization
                        };
                        let _ = backend.start_diagnosis(trigger).await;
                    } else if asked {
                        backend
                            .client
                            .show_message(
                                MessageType::INFO,
                                format!(
                                    "faultlens: all {} tests passed: there is no failure to diagnose",
                                    results.tests.len()
                                ),
                            )
                            .await;
                    }
                }
                Err(RunFailure::Pipeline(PipelineError::Cancelled)) => {
                    backend.reload(true).await;
                }
                Err(e) if busy_after_developers_run(e, backend.state().trigger().is_some()) => {
                    backend
                        .client
                        .log_message(MessageType::INFO, format!("faultlens: {e}"))
                        .await;
                    backend.reload(true).await;
                }
                Err(e) => {
                    // The stored results again, in place of a first ranking.
                    backend.reload(true).await;
                    // A diagnosis waiting for this run has nothing to start from.
                    backend.state().take_diagnose_after_run();
                    backend
                        .client
                        .show_message(MessageType::ERROR, format!("faultlens: {e}"))
                        .await;
                    backend.publish().await;
                }
            }
            backend.send_status().await;
        }
        reporter.finish(summary);
    })
}

/// Whether `e` is another faultlens run holding the project, for a run the
/// developer's own run started: not worth an error.
fn busy_after_developers_run(e: &RunFailure, after_developers_run: bool) -> bool {
    after_developers_run
        && matches!(
            e,
            RunFailure::Pipeline(PipelineError::Workspace(
                faultlens_workspace::WorkspaceError::Busy(_)
            ))
        )
}

/// What a run is asked to do beyond localizing.
pub struct RunRequest {
    /// Report work-done progress (the client supports it).
    pub progress: bool,
    /// The progress title ("faultlens: ctest in build/ failed 3 of 13 tests").
    pub title: String,
    /// Tests to run first, ranked with the previous results while the rest
    /// runs (the developer's failing tests).
    pub first: Vec<String>,
}

/// What the run's thread tells the async side.
enum RunEvent {
    Progress(Progress),
    First(Box<FirstRanking>),
}

/// Why a run produced no results.
#[derive(Debug, thiserror::Error)]
enum RunFailure {
    #[error(transparent)]
    Pipeline(PipelineError),
    /// The run's thread stopped unexpectedly (a bug; the message says where).
    #[error("{0}")]
    Crashed(String),
}

/// An error's first line: what a status line or a progress report shows.
pub(crate) fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_climbs_with_the_tests() {
        assert_eq!(progress_step(&Progress::Building).0, 2);
        let half = Progress::Running {
            done: 5,
            total: 10,
            test: "t".into(),
        };
        assert_eq!(progress_step(&half), (50, "running tests 5/10: t".into()));
        let none = Progress::Running {
            done: 0,
            total: 0,
            test: "t".into(),
        };
        assert_eq!(progress_step(&none).0, 10);
    }
}
