//! The developer's own test runs: a report settling in a build directory
//! (CTest, Meson, Automake, JUnit; see `faultlens_workspace::devruns`) or
//! a test command ending in the editor's terminal or tasks
//! (`faultlens/testRunEnded`). A failing one re-localizes in a trusted
//! workspace; in an untrusted one the user is told what trusting would do.
//! When faultlens's run then disagrees with theirs, the user is told too.

use crate::protocol::{RunSource, TestRunEndedParams};
use crate::server::Backend;
use crate::session::RunTrigger;
use faultlens_core::results::RunResults;
use faultlens_workspace::devruns::watch::{FileEvents, Watch, MAX_DIRS, QUIET};
use faultlens_workspace::devruns::DevRun;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tower_lsp_server::ls_types::MessageType;

/// The editor's word that a run ended and a report settling this close
/// together (either first) are one run: one localization, with both.
const SAME_RUN: Duration = Duration::from_secs(10);

/// Whether `line` runs tests: one of its commands (split at `&&`, `||`,
/// `;`, `|`; leading `VAR=value`, `env` and `time` skipped) starts with a
/// pattern's program (compared by file name) and holds the pattern's other
/// words in order; `*` stands for any one word. So `make -C build check`
/// is `make check`, and `/usr/bin/ctest --test-dir build` is `ctest`.
pub fn is_test_command(line: &str, patterns: &[String]) -> bool {
    let commands = line
        .split("&&")
        .flat_map(|c| c.split("||"))
        .flat_map(|c| c.split(';'))
        .flat_map(|c| c.split('|'));
    commands.into_iter().any(|command| {
        let words: Vec<&str> = command
            .split_whitespace()
            .skip_while(|w| w.contains('=') || *w == "env" || *w == "time")
            .collect();
        patterns.iter().any(|p| matches_pattern(&words, p))
    })
}

fn matches_pattern(words: &[&str], pattern: &str) -> bool {
    let mut wanted = pattern.split_whitespace();
    let (Some(program), Some(first)) = (wanted.next(), words.first()) else {
        return false;
    };
    let name = Path::new(first).file_name().and_then(|n| n.to_str());
    if *first != program && name != Some(program) {
        return false;
    }
    let mut rest = words[1..].iter();
    wanted.all(|w| rest.any(|word| w == "*" || *word == w))
}

/// The report watch of a server: made at the first poll (reports already
/// there then are history), then polled on a blocking thread. Where the
/// client offers no file watcher, the OS's file events on the walked
/// directories ask for a new walk at once.
#[derive(Default, Clone)]
pub struct DevWatch(Arc<Mutex<WatchState>>);

#[derive(Default)]
struct WatchState {
    watch: Option<Watch>,
    /// Set by file events and the client's watcher without taking the lock.
    rescan: Arc<AtomicBool>,
    /// Follow the OS's file events (the client has no watcher).
    follow_files: bool,
    files: Option<FileEvents>,
    /// Why the OS's file events are not followed.
    files_failed: Option<String>,
    /// That reason was told.
    told_files_failed: bool,
    /// The project's `[runner] run` command up to its `{name}`: typed in a
    /// terminal, it runs tests too.
    runner: Option<String>,
}

/// What a poll found, beyond the runs.
pub struct Polled {
    pub runs: Vec<Result<DevRun, String>>,
    /// Something to tell the user once (a walk cut short, no file events).
    pub notes: Vec<String>,
}

impl DevWatch {
    /// Polls the reports (blocking: call it from `spawn_blocking`).
    fn poll(&self, root: PathBuf) -> Polled {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let state = &mut *state;
        let now = Instant::now();
        let mut notes = Vec::new();
        if state.watch.is_none() {
            // JUnit reports and the runner the project names; a configuration
            // that does not load names none (the localization says why).
            let config = faultlens_workspace::Project::load(&root)
                .map(|p| p.config)
                .ok();
            state.runner = config
                .as_ref()
                .and_then(|c| c.runner.as_ref())
                .and_then(|r| runner_pattern(&r.run));
            let junit = config.map(|c| c.watch.reports).unwrap_or_default();
            let watch = Watch::new(&root, &junit, now);
            state.rescan = watch.rescan_flag();
            if watch.walk_was_cut() {
                notes.push(format!(
                    "the project has more than {MAX_DIRS} directories: test reports are looked for in the first {MAX_DIRS} (breadth first)"
                ));
            }
            state.watch = Some(watch);
        }
        let watch = state.watch.as_mut().expect("made above");
        let runs = watch
            .poll(now)
            .into_iter()
            .map(|r| r.map_err(|e| e.to_string()))
            .collect();
        if state.follow_files && state.files_failed.is_none() {
            if state.files.is_none() {
                let rescan = state.rescan.clone();
                match FileEvents::new(move || rescan.store(true, Ordering::SeqCst)) {
                    Ok(files) => state.files = Some(files),
                    Err(e) => state.files_failed = Some(e),
                }
            }
            if let Some(files) = state.files.as_mut() {
                if let Err(e) = files.follow(&root, watch) {
                    state.files_failed = Some(e);
                    state.files = None;
                }
            }
            if let (Some(e), false) = (&state.files_failed, state.told_files_failed) {
                notes.push(format!(
                    "no file events ({e}); looking for new test reports every few seconds"
                ));
                state.told_files_failed = true;
            }
        }
        Polled { runs, notes }
    }

    /// Walk the project again at the next poll (never waits for a poll).
    pub fn rescan_soon(&self) {
        let flag = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .rescan
            .clone();
        flag.store(true, Ordering::SeqCst);
    }

    /// Follow the OS's file events from the next poll on.
    pub fn follow_file_events(&self) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .follow_files = true;
    }

    /// The command lines that run tests: the setting's and the project's runner.
    fn test_commands(&self, configured: &[String]) -> Vec<String> {
        let runner = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .runner
            .clone();
        configured.iter().cloned().chain(runner).collect()
    }
}

/// The test-command pattern of a `[runner] run` command: the words before
/// `{name}` (`./run_tests.sh`, `python3 tests/run.py`); none when that is
/// only an interpreter, which runs much else.
fn runner_pattern(run: &str) -> Option<String> {
    let words: Vec<&str> = run
        .split_whitespace()
        .take_while(|w| !w.contains("{name}"))
        .collect();
    const INTERPRETERS: [&str; 8] = [
        "sh", "bash", "python", "python3", "perl", "node", "env", "exec",
    ];
    let specific = words.iter().any(|w| {
        let program = Path::new(w)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(w);
        !INTERPRETERS.contains(&program) && !w.starts_with('-')
    });
    specific.then(|| words.join(" "))
}

impl Backend {
    /// Checks the build directories' reports for a finished run.
    pub async fn poll_dev_runs(&self) {
        let Some(root) = self.state().root().map(Path::to_path_buf) else {
            return;
        };
        let watch = self.dev_watch().clone();
        let Ok(polled) = tokio::task::spawn_blocking(move || watch.poll(root)).await else {
            return;
        };
        for note in polled.notes {
            self.client
                .log_message(MessageType::INFO, format!("faultlens: {note}"))
                .await;
        }
        let mut failing = Vec::new();
        for item in polled.runs {
            match item {
                Ok(run) if run.failed().is_empty() => {
                    self.client
                        .log_message(MessageType::INFO, format!("faultlens: {}", run.describe()))
                        .await;
                }
                Ok(run) => failing.push(run),
                Err(e) => {
                    self.client
                        .log_message(
                            MessageType::WARNING,
                            format!("faultlens: cannot read a test report: {e}"),
                        )
                        .await;
                }
            }
        }
        if failing.is_empty() {
            return;
        }
        let reason = failing
            .iter()
            .map(DevRun::describe)
            .collect::<Vec<_>>()
            .join("; ");
        self.dev_run_failed(RunTrigger {
            reason,
            runs: failing,
            from_editor: false,
            at: Instant::now(),
        })
        .await;
    }

    /// `faultlens/testRunEnded`: the editor saw a command end.
    pub async fn test_run_ended(&self, params: Value) {
        let params: TestRunEndedParams = match serde_json::from_value(params) {
            Ok(p) => p,
            Err(e) => {
                self.client
                    .log_message(
                        MessageType::WARNING,
                        format!("faultlens: ignored a malformed faultlens/testRunEnded: {e}"),
                    )
                    .await;
                return;
            }
        };
        let (patterns, root) = {
            let state = self.state();
            let patterns = self
                .dev_watch()
                .test_commands(&state.settings().test_commands);
            (patterns, state.root().map(Path::to_path_buf))
        };
        let is_test = params.test_group || is_test_command(&params.command_line, &patterns);
        // A command run in another project's directory is that project's.
        let elsewhere = match (&params.cwd, &root) {
            (Some(cwd), Some(root)) => !Path::new(cwd).starts_with(root),
            _ => false,
        };
        if !is_test || elsewhere || params.exit_code.is_none_or(|code| code == 0) {
            return;
        }
        let place = match params.source {
            RunSource::Terminal => "in the terminal",
            RunSource::Task => "as a task",
        };
        let mut command = params.command_line.trim().to_string();
        if command.chars().count() > 60 {
            command = command.chars().take(57).collect::<String>() + "...";
        }
        let trigger = RunTrigger {
            reason: format!(
                "`{command}` {place} failed (exit code {})",
                params.exit_code.unwrap_or_default()
            ),
            runs: Vec::new(),
            from_editor: true,
            at: Instant::now(),
        };
        // The run's report, if it wrote one, names the failing tests (they
        // then run first): give it the time to settle and be read.
        self.dev_watch().rescan_soon();
        tokio::time::sleep(QUIET + crate::server::POLL_INTERVAL * 2).await;
        self.poll_dev_runs().await;
        self.dev_run_failed(trigger).await;
    }

    async fn dev_run_failed(&self, trigger: RunTrigger) {
        let (enabled, trusted, root) = {
            let state = self.state();
            (
                state.settings().localize_after_test_runs,
                state.trusted(),
                state.root().map(Path::to_path_buf),
            )
        };
        let Some(root) = root.filter(|_| enabled) else {
            return;
        };
        if !trusted {
            let message = format!(
                "faultlens: {}. This workspace is not trusted, so faultlens runs nothing; trust it to re-localize after each failing test run.",
                trigger.reason
            );
            let first = self.state().first_untrusted_run();
            let kind = if first {
                MessageType::INFO
            } else {
                MessageType::LOG
            };
            if first {
                self.client.show_message(kind, &message).await;
            }
            self.client.log_message(kind, message).await;
            return;
        }
        // The same run told twice (the editor's command and its report):
        // one localization, with both.
        let merged = {
            let mut state = self.state();
            let same_run = state
                .trigger()
                .is_some_and(|t| t.from_editor != trigger.from_editor && t.at.elapsed() < SAME_RUN);
            if same_run {
                state.add_to_trigger(trigger);
                None
            } else {
                Some(trigger)
            }
        };
        let Some(trigger) = merged else {
            // The status names both (that localization may have ended already).
            self.send_status().await;
            return;
        };
        // Only a project faultlens can localize (a failing `make test` of
        // another kind of project is not news).
        let loads = tokio::task::spawn_blocking(move || {
            faultlens_workspace::Project::load(&root)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
        if let Err(e) = loads {
            self.client
                .log_message(
                    MessageType::INFO,
                    format!(
                        "faultlens: {}, but this project cannot be localized: {e}",
                        trigger.reason
                    ),
                )
                .await;
            return;
        }
        let _ = self.start_run_after(Some(trigger)).await;
    }

    /// After a localization the developer's run started: say where the two
    /// runs' verdicts differ.
    pub async fn check_agreement(&self, results: &RunResults) {
        let runs = match self.state().trigger() {
            Some(t) => t.runs.clone(),
            None => return,
        };
        for run in &runs {
            let found = faultlens_ops::agreement::disagreements(run, results);
            if let Some(message) = faultlens_ops::agreement::explain(run, &found) {
                let message = format!("faultlens: {message}");
                self.client
                    .show_message(MessageType::WARNING, &message)
                    .await;
                self.client.log_message(MessageType::WARNING, message).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::DEFAULT_TEST_COMMANDS;

    fn is_test(line: &str) -> bool {
        is_test_command(line, &DEFAULT_TEST_COMMANDS.map(String::from))
    }

    #[test]
    fn test_commands_are_recognised_as_developers_type_them() {
        for line in [
            "ctest",
            "ctest --test-dir build --output-on-failure",
            "cd build && ctest -j4",
            "/usr/bin/ctest -R pop",
            "make -C build check",
            "CTEST_OUTPUT_ON_FAILURE=1 make test",
            "meson test -C builddir",
            "ninja -C build test",
            "cmake --build build --target test",
            "time env X=1 ctest | tee log",
        ] {
            assert!(is_test(line), "{line}");
        }
        for line in [
            "make",
            "cmake --build build",
            "ls ctest",
            "vim test.c",
            "echo make check",
            "",
        ] {
            assert!(!is_test(line), "{line}");
        }
        assert!(is_test_command(
            "./run-tests.sh -v",
            &["./run-tests.sh".into()]
        ));
        assert!(is_test_command(
            "tools/run-tests.sh",
            &["run-tests.sh".into()]
        ));
    }
}
