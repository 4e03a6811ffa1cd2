//! How soon the editor shows the ranking after the developer's own failing
//! test run: the real `faultlens lsp` over stdio, trusted, with results of
//! an earlier localization on disk; the developer runs `ctest` in their
//! build directory, and we time from the moment `ctest` exits to the first
//! diagnostics on the faulty line (the first ranking: their failing tests
//! run again, with the previous results of the others) and to the final
//! ranking of the full run. Two suites: the largest fixture with a
//! CTest build (`ringbuf-ctest`, 13 tests) and a generated CTest suite of
//! 1,000 tests. Medians of interleaved repetitions, measured in this run.

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

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// One developer run: `ctest` in `build/`, then the two latencies.
fn one_run(client: &mut Client, root: &Path, file: &str, line: u64) -> (Duration, Duration) {
    client.seen.clear();
    let status = Command::new("ctest")
        .current_dir(root.join("build"))
        .output()
        .unwrap()
        .status;
    assert!(!status.success(), "the developer's run should fail");
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
                        .is_some_and(|t| t.contains("localized after ctest"))
            },
            wait,
        )
        .expect("the final ranking");
    (first, end.elapsed())
}

fn main() {
    println!("time from the end of the developer's failing `ctest` to the editor's diagnostics (medians of {REPEATS}):");
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
    let suites = [
        (
            &fixture,
            "/src/ringbuf.c",
            fault(&fixture, "src/ringbuf.c", "% rb->count]"),
        ),
        (
            &generated,
            "/digits.c",
            fault(&generated, "digits.c", "n < 990"),
        ),
    ];
    for (root, file, line) in suites {
        // The developer's own build, and faultlens's results of an earlier run.
        for args in [vec!["-S", ".", "-B", "build"], vec!["--build", "build"]] {
            assert!(Command::new("cmake")
                .args(&args)
                .current_dir(root)
                .output()
                .unwrap()
                .status
                .success());
        }
        common::lsp::cli(&["localize", root.to_str().unwrap()]);
        let mut client = Client::start();
        client.initialize(root, json!({"trusted": true, "diagnose": false}));
        client.wait_notification("faultlens/status", |s: &Value| s["state"] == "done");
        let (mut firsts, mut finals) = (Vec::new(), Vec::new());
        for _ in 0..REPEATS {
            let (first, last) = one_run(&mut client, root, file, line);
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
