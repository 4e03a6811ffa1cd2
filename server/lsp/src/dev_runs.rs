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
use faultlens_workspace::devruns::watch::{on_changes, FileWatcher, Watch};
use faultlens_workspace::devruns::DevRun;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tower_lsp_server::ls_types::MessageType;

/// A report that settles this soon after the editor said the same run
/// ended belongs to that run: it adds its verdicts, it starts nothing.
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
/// there then are history), then polled on a blocking thread; the OS's
/// file events make it look for new build directories at once when the
/// client has no file watcher to offer.
#[derive(Default, Clone)]
pub struct DevWatch {
    watch: Arc<Mutex<Option<Watch>>>,
    files: Arc<Mutex<Option<FileWatcher>>>,
    /// The program of the project's `[runner] run` command: typed in a
    /// terminal, it runs tests too.
    runner: Arc<Mutex<Option<String>>>,
}

impl DevWatch {
    fn poll(&self, root: PathBuf) -> Vec<Result<DevRun, String>> {
        let mut slot = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        let watch = slot.get_or_insert_with(|| {
            // JUnit reports the project names; a configuration that does
            // not load names none (the localization says why it fails).
            let config = faultlens_workspace::Project::load(&root)
                .map(|p| p.config)
                .ok();
            *self.runner.lock().unwrap_or_else(|p| p.into_inner()) = config
                .as_ref()
                .and_then(|c| c.runner.as_ref())
                .and_then(|r| r.run.split_whitespace().next().map(String::from));
            let junit = config.map(|c| c.watch.reports).unwrap_or_default();
            Watch::new(&root, &junit, now)
        });
        watch
            .poll(now)
            .into_iter()
            .map(|r| r.map_err(|e| e.to_string()))
            .collect()
    }

    pub fn rescan_soon(&self) {
        rescan(&self.watch);
    }

    /// The command lines that run tests: the setting's and the project's runner.
    fn test_commands(&self, configured: &[String]) -> Vec<String> {
        let runner = self
            .runner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        configured.iter().cloned().chain(runner).collect()
    }

    /// Follows the OS's file events under `root` (once); `Err` says why
    /// not (the poll goes on regardless).
    pub fn follow_file_events(&self, root: &Path) -> Result<(), String> {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        if files.is_none() {
            let watch = self.watch.clone();
            *files = Some(on_changes(root, move || rescan(&watch))?);
        }
        Ok(())
    }
}

fn rescan(watch: &Mutex<Option<Watch>>) {
    if let Some(watch) = watch.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
        watch.rescan_soon();
    }
}

impl Backend {
    /// Follows the OS's file events where the client offers no watcher.
    pub async fn follow_file_events(&self) {
        let Some(root) = self.state().root().map(Path::to_path_buf) else {
            return;
        };
        if let Err(e) = self.dev_watch().follow_file_events(&root) {
            self.client
                .log_message(
                    MessageType::INFO,
                    format!("faultlens: no file events ({e}); looking for new test reports every few seconds"),
                )
                .await;
        }
    }

    /// Checks the build directories' reports for a finished run.
    pub async fn poll_dev_runs(&self) {
        let Some(root) = self.state().root().map(Path::to_path_buf) else {
            return;
        };
        let watch = self.dev_watch().clone();
        let Ok(news) = tokio::task::spawn_blocking(move || watch.poll(root)).await else {
            return;
        };
        let mut failing = Vec::new();
        for item in news {
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
        let patterns = self
            .dev_watch()
            .test_commands(&self.state().settings().test_commands);
        let is_test = params.test_group || is_test_command(&params.command_line, &patterns);
        if !is_test || params.exit_code.is_none_or(|code| code == 0) {
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
        self.dev_run_failed(RunTrigger {
            reason: format!(
                "`{command}` {place} failed (exit code {})",
                params.exit_code.unwrap_or_default()
            ),
            runs: Vec::new(),
            from_editor: true,
            at: Instant::now(),
        })
        .await;
        // Its report, if it wrote one, settles soon: look for it then.
        self.dev_watch().rescan_soon();
    }

    async fn dev_run_failed(&self, trigger: RunTrigger) {
        let (enabled, trusted) = {
            let state = self.state();
            (state.settings().localize_after_test_runs, state.trusted())
        };
        if !enabled {
            return;
        }
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
        {
            // The report of a run the editor already announced: the same run.
            let mut state = self.state();
            let same_run = state
                .jobs()
                .running(crate::protocol::JobKind::Run)
                .is_some()
                && state.trigger().is_some_and(|t| {
                    t.from_editor && !trigger.from_editor && t.at.elapsed() < SAME_RUN
                });
            if same_run {
                state.add_trigger_runs(trigger.runs);
                return;
            }
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
