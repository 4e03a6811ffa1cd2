//! Workspace commands and the `faultlens/ranking` request: starting runs,
//! showing failing tests, switching measures.

use crate::diagnose_run::Trigger;
use crate::protocol::{
    JobKind, MeasureSet, RankingDocument, RankingParams, ShowFailingTestsArgs, Started, DIAGNOSE,
    GENERATE_TESTS, LOCALIZE, SET_MEASURE, SHOW_FAILING_TESTS,
};
use crate::server::{job_failed, Backend};
use crate::session::{RunTrigger, UNTRUSTED};
use crate::{ranking, run};
use faultlens_core::measures::Ranker;
use serde_json::{json, Value};
use std::path::Path;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{MessageType, Uri};

/// A command's typed answer as the JSON `executeCommand` returns.
fn answer(value: &impl serde::Serialize) -> Result<Option<Value>> {
    serde_json::to_value(value)
        .map(Some)
        .map_err(|e| request_failed(&format!("serializing the answer: {e}")))
}

impl Backend {
    /// Runs a `workspace/executeCommand`.
    pub async fn execute(&self, command: &str, arguments: &[Value]) -> Result<Option<Value>> {
        match command {
            LOCALIZE => answer(&Started::from(self.start_run().await)),
            SHOW_FAILING_TESTS => self.show_failing_tests(arguments).await,
            SET_MEASURE => self.set_measure(arguments).await,
            DIAGNOSE => answer(&Started::from(
                self.start_diagnosis(Trigger::Command).await,
            )),
            GENERATE_TESTS => {
                let request = match crate::generate_run::parse_arguments(arguments) {
                    Ok(r) => r,
                    Err(problem) => {
                        self.client
                            .show_message(MessageType::WARNING, format!("faultlens: {problem}"))
                            .await;
                        return Err(Error::invalid_params(problem));
                    }
                };
                answer(&Started::from(self.start_generation(request).await))
            }
            other => Err(Error::invalid_params(format!(
                "unknown command {other:?}; faultlens offers {LOCALIZE}, {SHOW_FAILING_TESTS}, {SET_MEASURE}, {DIAGNOSE} and {GENERATE_TESTS}"
            ))),
        }
    }

    /// Starts a build-and-run in the background, cancelling one in progress.
    /// Refused (with the reason) when the workspace is not trusted.
    pub async fn start_run(&self) -> std::result::Result<u64, String> {
        self.start_run_after(None).await
    }

    /// Starts a localization; `trigger` is the developer's failing run
    /// that asked for it (said in the status and the progress).
    pub async fn start_run_after(
        &self,
        trigger: Option<RunTrigger>,
    ) -> std::result::Result<u64, String> {
        let title = match &trigger {
            Some(t) => format!("faultlens: {}", t.reason),
            None => "faultlens".to_string(),
        };
        // The developer's failing tests run first and are ranked at once.
        let first: Vec<String> = trigger
            .iter()
            .flat_map(|t| &t.runs)
            .flat_map(|run| run.failed())
            .map(String::from)
            .collect();
        let started = {
            let mut state = self.state();
            if !state.trusted() {
                Err(format!("faultlens will not run anything: {UNTRUSTED}"))
            } else if let Some(root) = state.root().map(Path::to_path_buf) {
                let (timeout, progress) =
                    (state.settings().timeout, state.client_supports_progress());
                let jobs = state.jobs_mut();
                // The diagnosis would describe the results this run replaces.
                jobs.cancel(JobKind::Diagnose);
                // A generation stops after its round; the run waits for it
                // to write its tests (see `run`).
                jobs.cancel(JobKind::Generate);
                let active = jobs.start(JobKind::Run);
                state.run_starting(trigger);
                Ok((active, root, timeout, progress))
            } else {
                Err("faultlens has no workspace folder to run in: open a folder (the project root) in the editor".into())
            }
        };
        match started {
            Ok((active, root, timeout, progress)) => {
                let epoch = active.epoch;
                tokio::spawn(run::run(
                    self.clone(),
                    active,
                    root,
                    timeout,
                    run::RunRequest {
                        progress,
                        title,
                        first,
                    },
                ));
                self.send_status().await;
                Ok(epoch)
            }
            Err(message) => {
                self.client
                    .show_message(MessageType::WARNING, &message)
                    .await;
                Err(message)
            }
        }
    }

    /// Whether job `epoch` of `kind` is still the current one.
    pub fn is_current(&self, kind: JobKind, epoch: u64) -> bool {
        self.state().jobs().is_current(kind, epoch)
    }

    /// The `faultlens/ranking` request.
    pub async fn ranking(&self, params: Option<RankingParams>) -> Result<RankingDocument> {
        let params = params.unwrap_or_default();
        let (loc, measure) = {
            let state = self.state();
            let Some(loc) = state.localization() else {
                return Err(request_failed(
                    "no results yet: run `faultlens localize` or the faultlens.localize command",
                ));
            };
            let shown = loc.measure;
            (loc, shown)
        };
        // Without a measure: the ranking the editor shows (fused with the
        // diagnosis when one describes these results).
        let measure = match &params.measure {
            None => measure,
            Some(name) => Ranker::parse(name).map_err(Error::invalid_params)?,
        };
        tokio::task::spawn_blocking(move || ranking::ranking_document(&loc, measure))
            .await
            .map_err(|e| request_failed(&job_failed("the ranking", e)))?
            .map_err(Error::invalid_params)
    }

    async fn show_failing_tests(&self, arguments: &[Value]) -> Result<Option<Value>> {
        let place = match arguments.first() {
            None | Some(Value::Null) => None,
            Some(arg) => {
                let parsed = serde_json::from_value::<ShowFailingTestsArgs>(arg.clone())
                    .ok()
                    .and_then(|a| Some((a.uri.parse::<Uri>().ok()?, a.line)));
                match parsed {
                    Some(place) => Some(place),
                    None => {
                        return Err(Error::invalid_params(
                            "faultlens.showFailingTests takes [{\"uri\": \"file:///...\", \"line\": <0-based>}] or no arguments",
                        ))
                    }
                }
            }
        };
        let tests = self
            .state()
            .failing_tests(place.as_ref().map(|(u, l)| (u, *l)));
        let text = if tests.is_empty() {
            "faultlens: no failing test ran this line".to_string()
        } else {
            let lines: Vec<String> = tests
                .iter()
                .map(|t| match &t.reason {
                    Some(reason) => format!("{}: {reason}", t.name),
                    None => t.name.clone(),
                })
                .collect();
            format!(
                "faultlens: failing tests that ran this line:\n{}",
                lines.join("\n")
            )
        };
        self.client.show_message(MessageType::INFO, text).await;
        answer(&tests)
    }

    async fn set_measure(&self, arguments: &[Value]) -> Result<Option<Value>> {
        let Some(name) = arguments.first().and_then(Value::as_str) else {
            return Err(Error::invalid_params(
                "faultlens.setMeasure takes the measure's name, e.g. [\"dstar\"]",
            ));
        };
        let mut settings = self.state().settings().clone();
        let problems = settings.apply(&json!({ "measure": name }));
        if let Some(problem) = problems.first() {
            self.client
                .show_message(MessageType::WARNING, problem)
                .await;
            return Err(Error::invalid_params(problem.clone()));
        }
        self.state().settings_mut().measure = settings.measure;
        self.rerank().await;
        self.publish().await;
        answer(&MeasureSet {
            measure: settings.measure.name(),
        })
    }
}

fn request_failed(message: &str) -> Error {
    Error {
        code: tower_lsp_server::jsonrpc::ErrorCode::ServerError(-32803),
        message: message.to_string().into(),
        data: None,
    }
}
