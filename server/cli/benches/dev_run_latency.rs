//! How soon the editor shows the ranking after the developer's own failing
//! test run: the real `faultlens lsp` over stdio, trusted, with results of
//! an earlier localization on disk; the developer runs `ctest` in their
//! build directory, and we time from the moment `ctest` exits to the first
//! diagnostics on the faulty line (the first ranking: their failing tests
//! run again, with the previous results of the others) and to the final
//! ranking of the full run. Three suites: the largest fixture
//! (`compact-suite`, 275 input/output tests; the developer's runner writes
//! a JUnit report that `[watch] reports` names), the CTest fixture
//! (`ringbuf-ctest`, 13 tests) and a generated CTest suite of 1,000 tests.
//! Medians of repetitions, measured in this run.

#[path = "../tests/common/mod.rs"]
mod common;
use common::copy_tree;
use common::lsp::{diagnostics_for, Client};

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const REPEATS: usize = 3;

/// A 1,000-test CTest project: `digits N` checks its digit count of N
/// against a loop; the fault (the three-digit band ends at 990, not 1000)
/// fails the tests of the inputs 990 to 999 (one test: d990).
fn generated_suite(root: &Path) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(
        root.join("digits.c"),
        r#"#include <stdio.h>
#include <stdlib.h>

static int digits(long n)
{
    if (n < 10)
        return 1;
    if (n < 100)
        return 2;
    if (n < 990) /* fault: should be n < 1000 */
        return 3;
    return 4;
}

static int reference(long n)
{
    int d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    int got = digits(n), want = reference(n);
    if (got != want) {
        printf("digits(%ld) = %d, expected %d\n", n, got, want);
        return 1;
    }
    return 0;
}
"#,
    )
    .unwrap();
    std::fs::write(
        root.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.16)\nproject(digits C)\nenable_testing()\nadd_executable(digits digits.c)\nforeach(i RANGE 0 9999 10)\n  add_test(NAME d${i} COMMAND digits ${i})\nendforeach()\n",
    )
    .unwrap();
}

/// The line (0-based) the fault is on, in `file`.
fn fault(root: &Path, file: &str, needle: &str) -> u64 {
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    text.lines().position(|l| l.contains(needle)).unwrap() as u64
}

/// The faulty line (0-based) a fixture's ground-truth.json names.
fn fault_line(root: &Path) -> u64 {
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("ground-truth.json")).unwrap())
            .unwrap();
    truth["faults"][0]["lines"][0].as_u64().unwrap() - 1
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// How the developer runs the suite.
#[derive(Clone, Copy)]
enum DevRunner {
    /// `ctest` in `build/`.
    Ctest,
    /// A runner that writes `junit.xml` with the previous results' verdicts.
    JUnit,
}

impl DevRunner {
    /// Runs the suite as the developer; returns when it has ended.
    fn run(self, root: &Path) {
        match self {
            DevRunner::Ctest => {
                let status = Command::new("ctest")
                    .current_dir(root.join("build"))
                    .output()
                    .unwrap()
                    .status;
                assert!(!status.success(), "the developer's run should fail");
            }
            DevRunner::JUnit => {
                let results: Value = serde_json::from_str(
                    &std::fs::read_to_string(root.join(".faultlens/results.json")).unwrap(),
                )
                .unwrap();
                let cases: String = results["tests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| match t["verdict"].as_str() {
                        Some("fail") => format!(
                            "<testcase name=\"{}\"><failure/></testcase>\n",
                            t["name"].as_str().unwrap()
                        ),
                        _ => format!("<testcase name=\"{}\"/>\n", t["name"].as_str().unwrap()),
                    })
                    .collect();
                std::fs::write(
                    root.join("junit.xml"),
                    format!("<testsuite>\n{cases}</testsuite>\n"),
                )
                .unwrap();
            }
        }
    }

    fn reason(self) -> &'static str {
        match self {
            DevRunner::Ctest => "localized after ctest",
            DevRunner::JUnit => "localized after a JUnit report",
        }
    }
}

/// One developer run, then the two latencies.
fn one_run(
    client: &mut Client,
    root: &Path,
    runner: DevRunner,
    (file, line): (&str, u64),
) -> (Duration, Duration) {
    client.seen.clear();
    runner.run(root);
    let end = Instant::now();
    let wait = Duration::from_secs(600);
    client
        .wait_message(
            |m| {
                m["method"] == "faultlens/status"
                    && m["params"]["message"]
                        .as_str()
                        .is_some_and(|t| t.contains("first ranking"))
            },
            wait,
        )
        .expect("a first ranking");
    client
        .wait_message(
            |m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && diagnostics_for(&m["params"], file)
                        .is_some_and(|d| d.iter().any(|d| d["range"]["start"]["line"] == line))
            },
            wait,
        )
        .expect("diagnostics on the faulty line");
    let first = end.elapsed();
    client
        .wait_message(
            |m| {
                m["method"] == "faultlens/status"
                    && m["params"]["state"] == "done"
                    && m["params"]["message"]
                        .as_str()
                        .is_some_and(|t| t.contains(runner.reason()))
            },
            wait,
        )
        .expect("the final ranking");
    (first, end.elapsed())
}

fn main() {
    println!("time from the end of the developer's failing test run to the editor's diagnostics (medians of {REPEATS}):");
    println!(
        "{:<16} {:>6} {:>14} {:>14} {:>12}",
        "suite", "tests", "first (ms)", "final (ms)", "first/final"
    );
    let dir = tempfile::tempdir().unwrap();
    let fixture = dir.path().join("ringbuf-ctest");
    copy_tree(
        &common::repo_root().join("fixtures/ringbuf-ctest"),
        &fixture,
    );
    let generated = dir.path().join("digits-1000");
    generated_suite(&generated);
    let largest = dir.path().join("compact-suite");
    copy_tree(
        &common::repo_root().join("fixtures/compact-suite"),
        &largest,
    );
    let config = std::fs::read_to_string(largest.join("faultlens.toml")).unwrap();
    std::fs::write(
        largest.join("faultlens.toml"),
        format!("[watch]\nreports = [\"junit.xml\"]\n\n{config}"),
    )
    .unwrap();
    let suites = [
        (
            &largest,
            DevRunner::JUnit,
            ("/numfmt.c", fault_line(&largest)),
        ),
        (
            &fixture,
            DevRunner::Ctest,
            (
                "/src/ringbuf.c",
                fault(&fixture, "src/ringbuf.c", "% rb->count]"),
            ),
        ),
        (
            &generated,
            DevRunner::Ctest,
            ("/digits.c", fault(&generated, "digits.c", "n < 990")),
        ),
    ];
    for (root, runner, at) in suites {
        if let DevRunner::Ctest = runner {
            // The developer's own build.
            for args in [vec!["-S", ".", "-B", "build"], vec!["--build", "build"]] {
                let built = Command::new("cmake")
                    .args(&args)
                    .current_dir(root)
                    .output()
                    .unwrap();
                assert!(built.status.success());
            }
        }
        // faultlens's results of an earlier run.
        common::lsp::cli(&["localize", root.to_str().unwrap()]);
        let mut client = Client::start();
        client.initialize(root, json!({"trusted": true, "diagnose": false}));
        client.wait_notification("faultlens/status", |s: &Value| s["state"] == "done");
        let (mut firsts, mut finals) = (Vec::new(), Vec::new());
        for _ in 0..REPEATS {
            let (first, last) = one_run(&mut client, root, runner, at);
            firsts.push(first);
            finals.push(last);
        }
        let tests = serde_json::from_str::<Value>(
            &std::fs::read_to_string(root.join(".faultlens/results.json")).unwrap(),
        )
        .unwrap()["tests"]
            .as_array()
            .unwrap()
            .len();
        let (f, l) = (median(firsts), median(finals));
        println!(
            "{:<16} {tests:>6} {:>14.0} {:>14.0} {:>11.2}×",
            root.file_name().unwrap().to_string_lossy(),
            f.as_secs_f64() * 1000.0,
            l.as_secs_f64() * 1000.0,
            f.as_secs_f64() / l.as_secs_f64()
        );
        client.shutdown();
    }
}
