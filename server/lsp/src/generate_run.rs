//! Test generation in the background (`faultlens.generateTests`):
//! the same session the CLI's `faultlens generate` runs, on a blocking
//! thread, one `$/progress` report per generated test. The client's cancel
//! button (`window/workDoneProgress/cancel`) or a new localization stops it
//! after the current round, keeping the tests written so far. Afterwards the
//! normal localization runs again, so the new tests (appended to
//! `.faultlens/generated-tests.toml`, which discovery reads) enter the ranking.

use crate::jobs::ActiveJob;
use crate::protocol::JobKind;
use crate::server::{job_failed, Backend};
use crate::session::UNTRUSTED;
use crate::work_progress::Style;
use faultlens_generate::session::{generate_project, ExplorerKind, GenerateOptions};
use faultlens_generate::Strategy;
use faultlens_workspace::Project;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tower_lsp_server::ls_types::MessageType;

/// What the command was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenerateRequest {
    pub strategy: Strategy,
    /// Tests to add at most (the session's defaults when absent).
    pub max: Option<usize>,
    /// How runs are found (the CLI's `--explorer`; enumeration by default).
    pub explorer: ExplorerKind,
}

/// Reads `[{"strategy": "sfo_p" | "sfo" | "sat-tar", "max": 20, "explorer":
/// "enumerate" | "solver"}]` (all optional; sfo_p by default).
pub fn parse_arguments(arguments: &[Value]) -> Result<GenerateRequest, String> {
    const USAGE: &str = "faultlens.generateTests takes [{\"strategy\": \"sfo_p\" | \"sfo\" | \"sat-tar\", \"max\": 20}] (both optional) or no arguments";
    let mut request = GenerateRequest {
        strategy: Strategy::SfoP,
        max: None,
        explorer: ExplorerKind::Enumerate,
    };
    let options = match arguments.first() {
        None | Some(Value::Null) => return Ok(request),
        Some(Value::Object(o)) => o,
        Some(other) => return Err(format!("{USAGE}; got {other}")),
    };
    match options.get("strategy") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => {
            request.strategy = Strategy::parse(name)
                .ok_or_else(|| format!("unknown strategy {name:?}: use sfo, sfo_p or sat-tar"))?;
        }
        Some(other) => return Err(format!("{USAGE}; got strategy {other}")),
    }
    match options.get("explorer") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => {
            request.explorer = ExplorerKind::parse(name)
                .ok_or_else(|| format!("unknown explorer {name:?}: use enumerate or solver"))?;
        }
        Some(other) => return Err(format!("{USAGE}; got explorer {other}")),
    }
    match options.get("max") {
        None | Some(Value::Null) => {}
        Some(v) => match v.as_u64() {
            Some(n) if n > 0 => request.max = Some(n as usize),
            _ => return Err(format!("max must be a positive integer, got {v}")),
        },
    }
    Ok(request)
}

/// Why the project at `root` cannot have tests generated, if it cannot:
/// it must be a harness (`[build] sources` calling `__VERIFIER_nondet_*`).
pub fn not_a_harness(root: &Path) -> Option<String> {
    let project = match Project::load(root) {
        Ok(p) => p,
        Err(e) => return Some(e.to_string()),
    };
    faultlens_generate::model::harness_sources(&project)
        .err()
        .map(|e| e.to_string())
}

/// The progress line of one round.
pub fn round_message(round: usize, name: &str, fails: bool) -> String {
    format!(
        "round {round}: {name} {}",
        if fails { "fails" } else { "passes" }
    )
}

impl Backend {
    /// Starts a test generation in the background, stopping one in
    /// progress. Refused (with a message) in an untrusted workspace, without
    /// a root, or when the project has no free inputs.
    pub async fn start_generation(&self, request: GenerateRequest) -> Result<u64, String> {
        let root = {
            let state = self.state();
            if !state.trusted() {
                Err(format!("faultlens will not generate tests: {UNTRUSTED}"))
            } else {
                state.root().map(Path::to_path_buf).ok_or_else(|| {
                    "faultlens has no workspace folder to generate tests in: open a folder (the project root) in the editor".to_string()
                })
            }
        };
        let checked = match root {
            Ok(root) => {
                let probe = root.clone();
                match tokio::task::spawn_blocking(move || not_a_harness(&probe)).await {
                    Ok(None) => Ok(root),
                    Ok(Some(why)) => Err(format!("faultlens cannot generate tests here: {why}")),
                    Err(e) => Err(format!(
                        "faultlens: {}",
                        job_failed("checking the project", e)
                    )),
                }
            }
            Err(message) => Err(message),
        };
        let root = match checked {
            Ok(root) => root,
            Err(message) => {
                self.client
                    .show_message(MessageType::WARNING, &message)
                    .await;
                return Err(message);
            }
        };
        let (active, progress) = {
            let mut state = self.state();
            let active = state.jobs_mut().start(JobKind::Generate);
            (active, state.client_supports_progress())
        };
        let epoch = active.epoch;
        self.send_status().await;
        tokio::spawn(run(self.clone(), active, root, request, progress));
        Ok(epoch)
    }

    /// `window/workDoneProgress/cancel`: the user pressed cancel on a
    /// generation's progress.
    pub async fn progress_cancel(&self, params: Value) {
        let token = match params.get("token") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return,
        };
        self.state().jobs().stop_by_token(&token);
    }
}

/// How long to wait after each round before asking whether to go on.
///
/// A round of the model takes milliseconds, so an editor's "stop" (a cancel,
/// or a new localization) almost always lands between rounds or after the
/// last. The end-to-end tests set `FAULTLENS_GENERATION_ROUND_PAUSE_MS` to
/// hold every round open long enough to land inside it; unset, it is zero.
fn round_pause() -> std::time::Duration {
    let ms = std::env::var("FAULTLENS_GENERATION_ROUND_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    std::time::Duration::from_millis(ms)
}

/// What the blocking job reports per generated test.
struct Round {
    name: String,
    fails: bool,
}

async fn run(
    backend: Backend,
    active: ActiveJob,
    root: PathBuf,
    request: GenerateRequest,
    progress: bool,
) {
    let epoch = active.epoch;
    let label = request.strategy.name();
    let style = Style::Cancellable {
        message: format!("{label}: starting"),
    };
    // One session at a time: a stopped one finishes its round first.
    let Some((reporter, slot)) = backend
        .begin_job(
            &active,
            progress,
            "faultlens test generation",
            style,
            "cancelled",
        )
        .await
    else {
        return;
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Round>();
    let cancel = active.cancel.clone();
    let pause = round_pause();
    let job = tokio::task::spawn_blocking(move || {
        let project = Project::load(&root).map_err(|e| e.to_string())?;
        let mut opts = GenerateOptions::new(request.strategy);
        opts.max = request.max;
        opts.explorer = request.explorer;
        generate_project(&project, &opts, &mut |test, _| {
            let _ = tx.send(Round {
                name: test.name.clone(),
                fails: test.run.verdict.is_fail(),
            });
            std::thread::sleep(pause);
            !cancel.is_cancelled()
        })
        .map_err(|e| e.to_string())
    });
    let mut rounds = 0;
    while let Some(round) = rx.recv().await {
        rounds += 1;
        reporter.report(round_message(rounds, &round.name, round.fails), None);
    }
    let outcome = job
        .await
        .unwrap_or_else(|e| Err(job_failed("the generation", e)));
    drop(slot);
    let stopped = active.cancel.is_cancelled();
    // Replaced by a new localization: that run reads the tests written.
    let current = backend.is_current(JobKind::Generate, epoch);
    if current {
        backend.state().jobs_mut().finish(JobKind::Generate, epoch);
        backend.send_status().await;
    }
    let (summary, message, relocalize) = match &outcome {
        Ok(found) if found.tests.is_empty() => (
            "no new test".to_string(),
            (
                MessageType::INFO,
                format!("faultlens: {label} found no run with the wanted coverage: the ranking stays as it is"),
            ),
            false,
        ),
        Ok(found) => {
            let n = found.tests.len();
            let plural = if n == 1 { "" } else { "s" };
            let file = found
                .file
                .as_ref()
                .map_or(".faultlens/generated-tests.toml".into(), |f| {
                    f.display().to_string()
                });
            let why = if stopped { " (stopped)" } else { "" };
            (
                format!("{n} test{plural} generated{why}"),
                (
                    MessageType::INFO,
                    format!("faultlens: {n} test{plural} generated with {label}{why}, written to {file}; localizing again to rank with them"),
                ),
                current,
            )
        }
        Err(e) => (
            format!("failed: {}", e.lines().next().unwrap_or(e)),
            (
                MessageType::WARNING,
                format!("faultlens: test generation failed: {e}"),
            ),
            false,
        ),
    };
    if current || outcome.is_err() {
        backend.client.show_message(message.0, message.1).await;
    }
    reporter.finish(summary);
    if relocalize {
        let _ = backend.start_run().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_default_to_sfo_p() {
        assert_eq!(
            parse_arguments(&[]).unwrap(),
            GenerateRequest {
                strategy: Strategy::SfoP,
                max: None,
                explorer: ExplorerKind::Enumerate,
            }
        );
        let asked = parse_arguments(&[json!({"strategy": "sat-tar", "max": 5})]).unwrap();
        assert_eq!(asked.strategy, Strategy::SatTar);
        assert_eq!(asked.max, Some(5));
        let solver = parse_arguments(&[json!({"explorer": "solver"})]).unwrap();
        assert_eq!(solver.explorer, ExplorerKind::Solver);
        assert!(parse_arguments(&[json!({"explorer": "guess"})]).is_err());
    }

    #[test]
    fn bad_arguments_say_what_is_expected() {
        let unknown = parse_arguments(&[json!({"strategy": "random"})]).unwrap_err();
        assert!(unknown.contains("use sfo, sfo_p or sat-tar"), "{unknown}");
        let zero = parse_arguments(&[json!({"max": 0})]).unwrap_err();
        assert!(zero.contains("positive integer"), "{zero}");
        let shape = parse_arguments(&[json!("sfo")]).unwrap_err();
        assert!(shape.contains("takes [{"), "{shape}");
    }

    #[test]
    fn a_round_says_the_test_and_its_verdict() {
        assert_eq!(
            round_message(2, "gen-sfo_p-3", true),
            "round 2: gen-sfo_p-3 fails"
        );
    }

    #[test]
    fn a_folder_without_a_harness_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("faultlens.toml"),
            "[build]\ncommand = \"make\"\nprogram = \"p\"\n\n[[test]]\nname = \"t\"\nstdin = \"1\"\n",
        )
        .unwrap();
        let why = not_a_harness(dir.path()).expect("not a harness");
        assert!(why.contains("[build] sources"), "{why}");
    }
}
