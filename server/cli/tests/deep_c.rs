//! Deeply nested C (fine for gcc) is refused by name, never a crash: each
//! walk over C syntax or the C model recurses per level of nesting, and a
//! stack overflow aborts the process (the language server with it). The
//! programs are generated here: a 5,000-term sum, 5,000 nested parentheses,
//! 5,000 nested `if`s and 2,000 chained `||`.

mod common;

use common::lsp::{file_uri, Client};
use common::*;
use serde_json::json;
use std::path::Path;

/// The line of `prog.c` holding the deep construct.
const DEEP_LINE: u32 = 6;

/// A deep program: `construct` computes `y` from `x` (the first argument)
/// at line 6; `main` prints `y`.
fn program(construct: &str) -> String {
    format!(
        "#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {{\n  int x = atoi(argv[1]);\n  int y = 0;\n{construct}\n  printf(\"%d\\n\", y);\n  return 0;\n}}\n"
    )
}

/// The four deep programs, each with the phrase its refusal must contain.
/// Each level is on a line of its own (except the parentheses, which hold
/// no branch): gcov takes minutes over a line with thousands of branches.
fn deep_programs() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "sum",
            // 5,000 terms: y = 5000 * x, printed divided back.
            format!("  y = ({}) / 5000;", vec!["x"; 5000].join("\n    + ")),
            "an expression nested 4999 deep (a chain of `+`; ",
        ),
        (
            "parentheses",
            format!("  y = {}x{};", "(".repeat(5000), ")".repeat(5000)),
            "parentheses nested 5000 deep (",
        ),
        (
            "ifs",
            format!("{}    y = x;", "  if (x > 0)\n".repeat(5000)),
            "`if` statements nested 5000 deep (",
        ),
        (
            "ors",
            format!(
                "  if ({}) y = 1; else y = x;",
                vec!["x == 0"; 2000].join("\n      || ")
            ),
            "an expression nested 1999 deep (a chain of `||`; ",
        ),
    ]
}

/// A project around `prog.c`: test `one` passes, `two` fails (the program
/// prints 2, the test expects 3).
fn project(source: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("prog.c"), source).unwrap();
    std::fs::write(
        dir.path().join("faultlens.toml"),
        r#"[build]
sources = ["prog.c"]
program = "prog"

[[test]]
name = "one"
args = ["1"]
expected_stdout = "1\n"

[[test]]
name = "two"
args = ["2"]
expected_stdout = "3\n"
"#,
    )
    .unwrap();
    dir
}

fn path(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

#[test]
fn interpret_refuses_deep_programs_naming_the_construct_and_line() {
    for (name, construct, phrase) in deep_programs() {
        let dir = project(&program(&construct));
        let out = faultlens(&["interpret", path(dir.path()), "--test", "two"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(125), "{name}: {err}");
        assert!(
            err.contains(&format!("unsupported: {phrase}"))
                && err.contains(&format!("prog.c:{DEEP_LINE}")),
            "{name}: {err}"
        );
    }
}

#[test]
fn diagnose_refuses_deep_programs_as_outside_the_model() {
    for (name, construct, phrase) in deep_programs() {
        let dir = project(&program(&construct));
        let out = faultlens(&[&["diagnose", path(dir.path())][..], &budget("30")].concat());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(4), "{name}: {err}");
        assert!(
            err.contains("cannot diagnose")
                && err.contains(phrase)
                && err.contains(&format!("prog.c:{DEEP_LINE}")),
            "{name}: {err}"
        );
        assert!(!dir.path().join(".faultlens/diagnosis.json").exists());
    }
}

#[test]
fn blockrank_ranks_deep_programs_and_names_a_function_it_skips() {
    for (name, construct, phrase) in deep_programs() {
        let dir = project(&program(&construct));
        let out = faultlens(&["localize", path(dir.path()), "--measure", "blockrank"]);
        let (text, err) = (stdout(&out), stderr(&out));
        assert_eq!(out.status.code(), Some(0), "{name}: {err}");
        assert!(text.contains("BlockRank"), "{name}: {text}");
        // Too deep for a control-flow graph: `main` is skipped by name (its
        // lines rank below every block), the rest of the file is ranked.
        assert!(
            text.contains("`main`") && text.contains(phrase),
            "{name}: {text}"
        );
        let out = faultlens(&["rank", path(dir.path()), "--measure", "blockrank"]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert!(stdout(&out).contains(phrase), "{name}: {}", stdout(&out));
    }
}

#[test]
fn the_language_server_survives_a_deep_program_in_its_background_jobs() {
    // BlockRank builds graphs and the diagnosis loads the program, both on
    // the server's blocking threads (2 MiB of stack) after the localization.
    let (_, construct, phrase) = deep_programs().remove(2);
    let dir = project(&program(&construct));
    let root = dir.path().canonicalize().unwrap();
    let mut client = Client::start();
    client.initialize(
        &root,
        json!({"trusted": true, "measure": "blockrank", "diagnoseEffort": 30, "diagnoseTimeLimitSeconds": 3600}),
    );
    let source = root.join("prog.c");
    client.open(&source);
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    let status = client.wait_notification("faultlens/status", |s| {
        s["diagnosis"]["state"] == "error" || s["diagnosis"]["state"] == "done"
    });
    assert_eq!(status["diagnosis"]["state"], "error", "{status}");
    let message = status["diagnosis"]["message"].as_str().unwrap();
    assert!(
        message.contains(phrase) && message.contains(&format!("prog.c:{DEEP_LINE}")),
        "{message}"
    );
    // Still serving: the ranking (BlockRank, with `main` skipped) and a hover.
    let ranking = client.request("faultlens/ranking", json!({}));
    assert_eq!(ranking["measure"], "blockrank", "{ranking}");
    client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": file_uri(&source)},
               "position": {"line": DEEP_LINE - 1, "character": 2}}),
    );
    client.shutdown();
}
