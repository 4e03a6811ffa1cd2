//! `faultlens watch` in a real terminal (tmux): the developer builds and
//! runs their CTest suite, one test fails, and the watch redraws the
//! ranking with the faulty line on top, with no other command.

mod common;

use common::fixture;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

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

fn developer(dir: &Path, program: &str, args: &[&str]) -> i32 {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    out.status.code().unwrap_or(-1)
}

#[test]
fn watch_redraws_the_ranking_after_a_failing_ctest_run_in_a_real_terminal() {
    let dir = fixture("ringbuf-ctest");
    let root = dir.path();
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
