//! The developer runs their own tests (CTest, Meson, `make check`, any
//! runner writing JUnit, a command in the editor's terminal) and the real
//! `faultlens lsp`, with no command sent, re-localizes when a run fails;
//! `faultlens watch` in a real terminal (tmux) does the same.

mod common;

use common::lsp::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Runs `program args` in `dir` as the developer would; returns its exit code.
fn developer(dir: &Path, program: &str, args: &[&str]) -> i32 {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    out.status.code().unwrap_or(-1)
}

/// A trusted session with the diagnosis off (these tests are about the
/// ranking), waiting until the server has looked at the project once.
fn trusted(root: &Path) -> Client {
    trusted_showing(root, "noResults")
}

fn trusted_showing(root: &Path, state: &str) -> Client {
    let mut client = Client::start();
    client.initialize(root, json!({"trusted": true, "diagnose": false}));
    client.wait_notification("faultlens/status", |s| s["state"] == state);
    client
}

/// Waits for the faulty line (0-based) of `file` to get faultlens's warning.
fn wait_fault_warning(client: &mut Client, file: &str, line: u64) -> Value {
    client.wait_notification("textDocument/publishDiagnostics", |p| {
        diagnostics_for(p, file).is_some_and(|d| {
            d.iter()
                .any(|d| d["range"]["start"]["line"] == line && d["source"] == "faultlens")
        })
    })
}

fn status_after(client: &mut Client, reason: &str) -> Value {
    client.wait_notification("faultlens/status", |s| {
        s["state"] == "done" && s["message"].as_str().unwrap().contains(reason)
    })
}

#[test]
fn a_failing_ctest_run_in_the_developers_build_directory_re_localizes() {
    let (_dir, root) = fixture("ringbuf-ctest");
    // Results of an earlier localization: the first ranking reuses them.
    cli(&["localize", root.to_str().unwrap()]);
    let mut client = trusted_showing(&root, "done");
    assert_eq!(developer(&root, "cmake", &["-S", ".", "-B", "build"]), 0);
    assert_eq!(developer(&root, "cmake", &["--build", "build"]), 0);
    assert_ne!(developer(&root.join("build"), "ctest", &[]), 0);
    let started = client.wait_notification("$/progress", |p| {
        p["value"]["kind"] == "begin"
            && p["value"]["title"] == "faultlens: ctest in build/ failed 3 of 13 tests"
    });
    assert!(started["token"]
        .as_str()
        .unwrap()
        .starts_with("faultlens/run/"));
    let status = status_after(&mut client, "after ctest in build/ failed 3 of 13 tests");
    assert_eq!(status["failing"], 3, "{status}");
    wait_fault_warning(&mut client, "/src/ringbuf.c", 80 - 1);
    // The two runs agree: nothing to warn about.
    assert!(!client.log.iter().any(|m| m["params"]["message"]
        .as_str()
        .is_some_and(|t| t.contains("disagree"))));
    client.shutdown();
}

#[test]
fn the_terminals_word_on_a_run_its_report_already_told_shows_in_the_status() {
    let (_dir, root) = fixture("ringbuf-ctest");
    let mut client = trusted(&root);
    assert_eq!(developer(&root, "cmake", &["-S", ".", "-B", "build"]), 0);
    assert_eq!(developer(&root, "cmake", &["--build", "build"]), 0);
    let code = developer(&root, "ctest", &["--test-dir", "build"]);
    assert_ne!(code, 0);
    // CTest's report is read first here and its localization may have
    // ended before the editor's notice of the same run comes in.
    status_after(&mut client, "after ctest in build/ failed 3 of 13 tests");
    client.notify(
        "faultlens/testRunEnded",
        json!({"commandLine": "ctest --test-dir build", "cwd": root.to_str().unwrap(), "exitCode": code, "source": "terminal"}),
    );
    status_after(
        &mut client,
        &format!("`ctest --test-dir build` in the terminal failed (exit code {code})"),
    );
    client.shutdown();
}

#[test]
fn a_failing_meson_test_run_re_localizes_for_a_client_without_a_file_watcher() {
    let (_dir, root) = fixture("wrap-meson");
    // No `workspace.didChangeWatchedFiles`: the server follows the OS's
    // file events itself.
    let mut client = Client::start();
    client.initialize_with(
        &root,
        json!({"trusted": true, "diagnose": false}),
        json!({"window": {"workDoneProgress": true}}),
    );
    client.wait_notification("faultlens/status", |s| s["state"] == "noResults");
    assert_eq!(developer(&root, "meson", &["setup", "builddir"]), 0);
    assert_ne!(developer(&root, "meson", &["test", "-C", "builddir"]), 0);
    status_after(
        &mut client,
        "after meson test in builddir/ failed 2 of 8 tests",
    );
    wait_fault_warning(&mut client, "/src/wrap.c", 24 - 1);
    client.shutdown();
}

#[test]
fn make_check_in_the_editors_terminal_re_localizes() {
    let (_dir, root) = fixture("csv-make-check");
    let mut client = trusted(&root);
    let code = developer(&root, "make", &["check"]);
    assert_ne!(code, 0);
    // What the VS Code extension sends when the terminal's command ends.
    client.notify(
        "faultlens/testRunEnded",
        json!({"commandLine": "make check", "cwd": root.to_str().unwrap(), "exitCode": code, "source": "terminal"}),
    );
    status_after(
        &mut client,
        "after `make check` in the terminal failed (exit code 2)",
    );
    wait_fault_warning(&mut client, "/src/csv.c", 29 - 1);
    client.shutdown();
}

#[test]
fn the_projects_own_runner_typed_in_the_terminal_counts_and_other_commands_do_not() {
    let (_dir, root) = fixture("runner-script");
    let mut client = trusted(&root);
    // Not a test command: nothing starts.
    client.notify(
        "faultlens/testRunEnded",
        json!({"commandLine": "./build.sh", "exitCode": 1, "source": "terminal"}),
    );
    // `[runner] run = "./run_tests.sh {name}"`: its program runs tests.
    assert_eq!(developer(&root, "sh", &["build.sh"]), 0);
    let code = developer(&root, "./run_tests.sh", &["touching"]);
    assert_ne!(code, 0);
    client.notify(
        "faultlens/testRunEnded",
        json!({"commandLine": "./run_tests.sh touching", "exitCode": code, "source": "terminal"}),
    );
    status_after(
        &mut client,
        "after `./run_tests.sh touching` in the terminal failed (exit code 1)",
    );
    wait_fault_warning(&mut client, "/intervals.c", 23 - 1);
    let begun: Vec<&Value> = client
        .log
        .iter()
        .filter(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin")
        .collect();
    assert_eq!(begun.len(), 1, "{begun:?}");
    client.shutdown();
}

#[test]
fn a_junit_report_the_project_names_re_localizes_and_a_disagreement_is_said() {
    let (_dir, root) = fixture("mid-args");
    let config = root.join("faultlens.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("[watch]\nreports = [\"reports/*.xml\"]\n\n{text}"),
    )
    .unwrap();
    let mut client = trusted(&root);
    // Any runner's report: `ascending` failed for the developer (it
    // passes under faultlens), `wide-first-middle` failed for both.
    std::fs::create_dir_all(root.join("reports")).unwrap();
    std::fs::write(
        root.join("reports/unit.xml"),
        r#"<testsuite><testcase name="ascending"><failure message="flaky"/></testcase>
<testcase name="wide-first-middle"><failure/></testcase><testcase name="descending"/></testsuite>"#,
    )
    .unwrap();
    status_after(
        &mut client,
        "after a JUnit report (reports/unit.xml) failed 2 of 3 tests",
    );
    let said = client.wait_notification("window/showMessage", |m| {
        m["message"].as_str().unwrap().contains("disagree")
    });
    let text = said["message"].as_str().unwrap();
    assert!(
        text.contains("on 1 test: ascending failed in your run and passed under faultlens")
            && text.contains("flaky test"),
        "{text}"
    );
    wait_fault_warning(&mut client, "/mid.c", 22 - 1);
    client.shutdown();
}

#[test]
fn an_untrusted_workspace_says_a_run_failed_and_runs_nothing() {
    let (_dir, root) = fixture("csv-make-check");
    let mut client = Client::start();
    client.initialize(&root, json!({"trusted": false}));
    client.wait_notification("faultlens/status", |s| s["state"] == "untrusted");
    assert_ne!(developer(&root, "make", &["check"]), 0);
    for _ in 0..3 {
        client.notify(
            "faultlens/testRunEnded",
            json!({"commandLine": "make check", "exitCode": 2, "source": "terminal"}),
        );
    }
    let said = client.wait_notification("window/showMessage", |m| {
        m["message"]
            .as_str()
            .unwrap()
            .contains("`make check` in the terminal failed")
    });
    assert!(
        said["message"].as_str().unwrap().contains("not trusted"),
        "{said}"
    );
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !root.join(".faultlens").exists(),
        "nothing may be built or written"
    );
    assert!(!client.log.iter().any(|m| m["method"] == "$/progress"));
    // Said once, not once per run.
    let shown = client
        .log
        .iter()
        .filter(|m| {
            m["method"] == "window/showMessage"
                && m["params"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("failed (exit code 2)")
        })
        .count();
    assert_eq!(shown, 1);
    client.shutdown();
}

#[test]
fn a_storm_of_failing_runs_localizes_one_at_a_time_and_the_last_one_wins() {
    let (_dir, root) = fixture("mid-args");
    let mut client = trusted(&root);
    // 20 failing runs in about half a second: faster than a localization
    // of this project (a reused build and 15 tests), so runs overlap.
    let start = Instant::now();
    for n in 1..=20 {
        client.notify(
            "faultlens/testRunEnded",
            json!({"commandLine": format!("ctest -R storm-{n}"), "exitCode": 8, "source": "terminal"}),
        );
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(start.elapsed() < Duration::from_secs(2));
    status_after(&mut client, "`ctest -R storm-20` in the terminal failed");
    wait_fault_warning(&mut client, "/mid.c", 22 - 1);
    // The last run's progress ends with its results.
    let last = client.wait_notification("$/progress", |p| {
        p["value"]["kind"] == "begin"
            && p["value"]["title"]
                .as_str()
                .unwrap()
                .contains("`ctest -R storm-20`")
    });
    let last_token = last["token"].clone();
    let done = client.wait_notification("$/progress", |p| {
        p["token"] == last_token && p["value"]["kind"] == "end"
    });
    assert_eq!(done["value"]["message"], "3 failing of 15 tests");
    // Every run began and ends (none is left running; a replaced run's end
    // may be sent after the last run's); a run replaced while another
    // worked was cancelled; no run finished with results after the last.
    let ends_of = |client: &Client| -> Vec<(Value, String)> {
        client
            .log
            .iter()
            .filter(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end")
            .map(|m| {
                let message = m["params"]["value"]["message"]
                    .as_str()
                    .unwrap()
                    .to_string();
                (m["params"]["token"].clone(), message)
            })
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while ends_of(&client).len() < 20 && Instant::now() < deadline {
        client.wait_message(
            |m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end",
            Duration::from_secs(1),
        );
    }
    let begun = client
        .log
        .iter()
        .filter(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin")
        .count();
    let ends = ends_of(&client);
    assert_eq!(begun, 20, "{ends:?}");
    assert_eq!(ends.len(), 20, "{ends:?}");
    assert!(
        ends.iter().any(|(_, e)| e.contains("cancelled")),
        "{ends:?}"
    );
    let last_at = ends.iter().position(|(t, _)| *t == last_token).unwrap();
    assert!(
        ends[last_at + 1..]
            .iter()
            .all(|(_, e)| e.contains("cancelled")),
        "{ends:?}"
    );
    client.shutdown();
}

/// A detached tmux session, killed when the test ends however it ends.
struct Tmux(String);

impl Tmux {
    fn start(command: &str) -> Tmux {
        let name = format!("faultlens-watch-{}", std::process::id());
        let ok = Command::new("tmux")
            .args([
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                "200",
                "-y",
                "80",
                command,
            ])
            .status()
            .expect("tmux runs")
            .success();
        assert!(ok, "tmux new-session failed");
        Tmux(name)
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.0])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn wait_for(&self, what: &str, within: Duration) -> String {
        let end = Instant::now() + within;
        loop {
            let screen = self.screen();
            if screen.contains(what) {
                return screen;
            }
            assert!(Instant::now() < end, "no {what:?} on the screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.0])
            .status();
    }
}

#[test]
fn watch_redraws_the_ranking_after_a_failing_ctest_run_in_a_real_terminal() {
    let (_dir, root) = fixture("ringbuf-ctest");
    let root = root.as_path();
    let bin = env!("CARGO_BIN_EXE_faultlens");
    // The shell keeps the pane after faultlens exits, so its last words stay readable.
    let tmux = Tmux::start(&format!(
        "{bin} watch {}; echo watch-exited-$?; sleep 60",
        root.display()
    ));
    tmux.wait_for("waiting for your test runs", Duration::from_secs(30));

    assert_eq!(developer(root, "cmake", &["-S", ".", "-B", "build"]), 0);
    assert_eq!(developer(root, "cmake", &["--build", "build"]), 0);
    assert_ne!(developer(&root.join("build"), "ctest", &[]), 0);

    let screen = tmux.wait_for(
        "localized after ctest in build/ failed 3 of 13 tests: 3 failing of 13 tests",
        Duration::from_secs(180),
    );
    // Under Ochiai the fault ties for ranks 5-8 with the rest of `rb_get`
    // (5 passing tests call it; the tests that fail all pop first).
    let fault_row = screen
        .lines()
        .find(|l| l.contains("src/ringbuf.c:80"))
        .unwrap_or_else(|| panic!("the faulty line is not in the table:\n{screen}"));
    assert!(fault_row.trim_start().starts_with("5-8"), "{fault_row}");
    // Redrawn, not scrolled: the first run's header is gone, the new one waits.
    assert!(screen.contains("waiting for your test runs"), "{screen}");
    assert!(root.join(".faultlens/results.json").exists());

    // Ctrl-C stops it cleanly.
    Command::new("tmux")
        .args(["send-keys", "-t", &tmux.0, "C-c"])
        .status()
        .unwrap();
    tmux.wait_for("watch-exited-0", Duration::from_secs(30));
}
