//! Diagnoses in the language server, driven over stdio like an editor:
//! first from a hand-written `.faultlens/diagnosis.json` (every view, edits,
//! reloads), then with the real engine running in the background after a
//! localization in a trusted workspace.

mod common;

use common::lsp::*;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// mid.c:22 (`return c;`), 0-based.
const FAULT: u64 = 21;

fn capabilities() -> Value {
    json!({
        "window": {"workDoneProgress": true},
        "workspace": {
            "didChangeWatchedFiles": {"dynamicRegistration": true},
            "inlayHint": {"refreshSupport": true}
        },
        "textDocument": {"publishDiagnostics": {"relatedInformation": true}, "inlayHint": {}}
    })
}

fn diagnosis_document(value: i64) -> Value {
    let angelic = |test: &str, value: i64, verified: bool| {
        json!({"test": test, "file": "mid.c", "line": 22, "instance": 1, "value": value,
               "text": value.to_string(), "role": "value", "verified": verified})
    };
    json!({
        "diagnoses": [
            {"cost": 1, "kind": "optimal",
             "statements": [{"file": "mid.c", "line": 22, "text": "return c;"}],
             "angelic": [angelic("wide-first-middle", value, true),
                         angelic("negative-first-middle", 99, false)]},
            {"cost": 2, "kind": "minimal",
             "statements": [{"file": "mid.c", "line": 20, "text": "if (a > c)"},
                            {"file": "mid.c", "line": 22, "text": "return c;"}],
             "angelic": []}
        ],
        "complete": true,
        "failing_tests": ["first-middle-last-largest", "negative-first-middle", "wide-first-middle"],
        "stats": {"first_ms": 1.0, "total_ms": 2.0, "sat_calls": 3, "variables": 4, "clauses": 5, "paths": 3}
    })
}

fn write_diagnosis(root: &Path, doc: &Value) {
    let path = root.join(".faultlens/diagnosis.json");
    let tmp = root.join(".faultlens/diagnosis.json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(doc).unwrap()).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

fn diagnosis_diagnostics(params: &Value) -> Vec<Value> {
    params["diagnostics"]
        .as_array()
        .map(|d| {
            d.iter()
                .filter(|d| d["code"] == "diagnosis")
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// Waits for diagnostics that mark a line stale; returns the one on `line` (0-based).
fn stale_diagnostic(client: &mut Client, line: u64) -> Value {
    let staled = client.wait_notification("textDocument/publishDiagnostics", |p| {
        diagnosis_diagnostics(p)
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("stale"))
    });
    diagnosis_diagnostics(&staled)
        .into_iter()
        .find(|d| d["range"]["start"]["line"] == line)
        .unwrap()
}

fn hints(client: &mut Client, uri: &str) -> Vec<Value> {
    client
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri},
                   "range": {"start": {"line": 0, "character": 0}, "end": {"line": 100, "character": 0}}}),
        )
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn hover(client: &mut Client, uri: &str, line: u64) -> String {
    client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 6}}),
    )["contents"]["value"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_diagnosis_on_disk_shows_as_diagnostics_hover_inlay_hints_and_lenses() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    write_diagnosis(&root, &diagnosis_document(5));
    let mut client = Client::start();
    let init = client.initialize_with(&root, json!({}), capabilities());
    let caps = &init["capabilities"];
    assert_eq!(caps["inlayHintProvider"], true);
    assert!(caps["executeCommandProvider"]["commands"]
        .as_array()
        .unwrap()
        .contains(&json!("faultlens.diagnose")));
    let path = root.join("mid.c");
    let uri = file_uri(&path);
    client.open(&path);

    let published = client.wait_notification("textDocument/publishDiagnostics", |p| {
        !diagnosis_diagnostics(p).is_empty()
    });
    let ours = diagnosis_diagnostics(&published);
    let at_fault = ours
        .iter()
        .find(|d| d["range"]["start"]["line"] == FAULT)
        .expect("a diagnosis diagnostic on mid.c:22");
    let message = at_fault["message"].as_str().unwrap();
    assert!(
        message.starts_with("diagnosis #1 (cost 1, optimal")
            && message.contains("explains all 3 failing tests")
            && message.contains("5 makes wide-first-middle pass")
            && message.contains("also in diagnosis #2"),
        "{message}"
    );
    assert_eq!(at_fault["severity"], 2);

    let text = hover(&mut client, &uri, FAULT);
    assert!(
        text.contains("mid.c:22 (1st run) = 5 makes wide-first-middle pass")
            && text.contains("**diagnosis #2 (cost 2, minimal)**")
            && !text.contains("99"),
        "{text}"
    );

    let found = hints(&mut client, &uri);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["label"], "⟵ 5 makes wide-first-middle pass");
    assert_eq!(found[0]["position"]["line"], FAULT);
    let line22 = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .nth(21)
        .unwrap()
        .len();
    assert_eq!(found[0]["position"]["character"], line22 as u64);

    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(lenses.as_array().unwrap().iter().any(|l| {
        l["range"]["start"]["line"] == FAULT && l["command"]["command"] == "faultlens.diagnose"
    }));
    // Untrusted: the command says why it runs nothing.
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.diagnose"}),
    );
    assert_eq!(answer["started"], false);
    assert!(answer["reason"].as_str().unwrap().contains("not trusted"));

    // A new document (another tool wrote it): picked up, hints refreshed.
    client
        .seen
        .retain(|m| m["method"] != "workspace/inlayHint/refresh");
    write_diagnosis(&root, &diagnosis_document(7));
    client
        .wait_message(
            |m| m["method"] == "workspace/inlayHint/refresh",
            Duration::from_secs(20),
        )
        .expect("the server asks the client to refresh its inlay hints");
    assert_eq!(
        hints(&mut client, &uri)[0]["label"],
        "⟵ 7 makes wide-first-middle pass"
    );

    // Editing the diagnosed line: its hint goes, its diagnostic turns stale.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": FAULT, "character": 15},
                                             "end": {"line": FAULT, "character": 16}},
                                   "text": "a"}]}),
    );
    let stale = stale_diagnostic(&mut client, FAULT);
    assert_eq!(stale["severity"], 4);
    assert!(hints(&mut client, &uri).is_empty());
    client.shutdown();
}

#[test]
fn a_refined_statement_is_underlined_at_its_sub_expression() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    // mid.c:20 is `        if (a > c)`; its `c` is at columns 17-18.
    let mut doc = diagnosis_document(5);
    doc["diagnoses"][0]["statements"] = json!([{
        "file": "mid.c", "line": 20, "text": "if (a > c)",
        "subexpression": {"text": "c", "line": 20, "start_column": 17,
                          "end_line": 20, "end_column": 18}
    }]);
    write_diagnosis(&root, &doc);
    let mut client = Client::start();
    client.initialize_with(&root, json!({}), capabilities());
    let path = root.join("mid.c");
    let uri = file_uri(&path);
    client.open(&path);
    let published = client.wait_notification("textDocument/publishDiagnostics", |p| {
        !diagnosis_diagnostics(p).is_empty()
    });
    let line20 = diagnosis_diagnostics(&published)
        .into_iter()
        .find(|d| d["range"]["start"]["line"] == 19)
        .expect("a diagnosis diagnostic on mid.c:20");
    assert_eq!(
        line20["range"],
        json!({"start": {"line": 19, "character": 16}, "end": {"line": 19, "character": 17}})
    );
    assert!(
        line20["message"]
            .as_str()
            .unwrap()
            .contains("changing `c` in this statement"),
        "{line20}"
    );
    // An edit on the line: the text there is no longer the diagnosis's, so
    // the (stale) diagnostic covers the line.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 19, "character": 12},
                                             "end": {"line": 19, "character": 12}},
                                   "text": " "}]}),
    );
    let stale = stale_diagnostic(&mut client, 19);
    assert_eq!(stale["range"]["start"]["character"], 8, "{stale}");
    client.shutdown();
}

#[test]
fn a_trusted_workspace_diagnoses_in_the_background_after_localizing() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize_with(
        &root,
        json!({"trusted": true, "diagnoseEffort": 30, "diagnoseTimeLimitSeconds": 3600}),
        capabilities(),
    );
    let path = root.join("mid.c");
    let uri = file_uri(&path);
    client.open(&path);
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    let begin = client.wait_notification("$/progress", |p| {
        p["token"]
            .as_str()
            .is_some_and(|t| t.starts_with("faultlens/diagnose/"))
            && p["value"]["kind"] == "begin"
    });
    assert_eq!(begin["value"]["title"], "faultlens diagnosis");
    let status = client.wait_notification("faultlens/status", |s| {
        s["diagnosis"]["state"] == "done" || s["diagnosis"]["state"] == "error"
    });
    assert_eq!(status["diagnosis"]["state"], "done", "{status}");
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".faultlens/diagnosis.json")).unwrap(),
    )
    .unwrap();
    let published = client.wait_notification("textDocument/publishDiagnostics", |p| {
        diagnosis_diagnostics(p)
            .iter()
            .any(|d| d["range"]["start"]["line"] == FAULT)
    });
    assert!(!diagnosis_diagnostics(&published).is_empty());
    let text = hover(&mut client, &uri, FAULT);
    assert!(text.contains("**faultlens diagnosis**"), "{text}");
    // Every verified angelic value at mid.c:22 is in the hover and the hint.
    let values: Vec<(String, String)> = stored["diagnoses"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["angelic"].as_array().unwrap().iter())
        .filter(|a| a["verified"] == true && a["file"] == "mid.c" && a["line"] == 22)
        .map(|a| {
            (
                a["text"].as_str().unwrap().to_string(),
                a["test"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        !values.is_empty(),
        "the engine found no verified angelic value at mid.c:22: {stored:#}"
    );
    let found = hints(&mut client, &uri);
    let label = found
        .iter()
        .find(|h| h["position"]["line"] == FAULT)
        .map(|h| h["label"].as_str().unwrap().to_string())
        .unwrap_or_default();
    for (value, test) in &values {
        assert!(
            text.contains(&format!("= {value} makes {test} pass")),
            "{text}"
        );
        assert!(
            label.contains(value) && label.contains(test.as_str()),
            "{label}"
        );
    }
    client.shutdown();
}

#[test]
fn with_the_setting_off_only_the_command_diagnoses() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize_with(
        &root,
        json!({"trusted": true, "diagnose": false, "diagnoseEffort": 5, "diagnoseTimeLimitSeconds": 3600}),
        capabilities(),
    );
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    client.wait_notification("faultlens/status", |s| s["state"] == "done");
    // Give a (wrongly started) diagnosis time to show up.
    std::thread::sleep(Duration::from_millis(500));
    assert!(!client
        .log
        .iter()
        .chain(client.seen.iter())
        .any(|m| m["params"]["token"]
            .as_str()
            .is_some_and(|t| t.starts_with("faultlens/diagnose/"))));
    assert!(!root.join(".faultlens/diagnosis.json").exists());
    // The command runs it on demand, from the stored results.
    diagnose_to_the_end(&mut client);
    assert!(root.join(".faultlens/diagnosis.json").exists());
    client.shutdown();
}

/// Runs the `faultlens.diagnose` command and waits until the status says
/// the diagnosis is done; returns the command's answer.
fn diagnose_to_the_end(client: &mut Client) -> Value {
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.diagnose"}),
    );
    assert_eq!(answer["started"], true, "{answer}");
    let status = client.wait_notification("faultlens/status", |s| {
        s["diagnosis"]["state"] == "done" || s["diagnosis"]["state"] == "error"
    });
    assert_eq!(status["diagnosis"]["state"], "done", "{status}");
    answer
}

/// Whether a `$/progress` of a localization (`faultlens/run/N`) was seen.
fn localized(client: &Client) -> bool {
    client.log.iter().any(|m| {
        m["method"] == "$/progress"
            && m["params"]["token"]
                .as_str()
                .is_some_and(|t| t.starts_with("faultlens/run/"))
    })
}

#[test]
fn the_command_localizes_again_when_the_sources_changed_as_the_cli_does() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    let mut client = Client::start();
    client.initialize_with(
        &root,
        json!({"trusted": true, "diagnose": false, "diagnoseEffort": 5, "diagnoseTimeLimitSeconds": 3600}),
        capabilities(),
    );
    // Fresh results: diagnosed as stored, nothing is run.
    let answer = diagnose_to_the_end(&mut client);
    assert!(!localized(&client));
    client.wait_notification("$/progress", |p| {
        p["token"] == format!("faultlens/diagnose/{}", answer["run"]).as_str()
            && p["value"]["kind"] == "end"
    });

    // Saved outside the editor: the results no longer describe mid.c.
    let mid = root.join("mid.c");
    let text = std::fs::read_to_string(&mid).unwrap();
    std::fs::write(&mid, format!("{text}\n/* touched */\n")).unwrap();
    std::fs::remove_file(root.join(".faultlens/diagnosis.json")).unwrap();
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.diagnose"}),
    );
    client.wait_notification("window/showMessage", |m| {
        m["message"]
            .as_str()
            .is_some_and(|t| t.contains("mid.c changed since the last run; localizing again"))
    });
    let ended = |kind: &'static str| {
        move |p: &Value| {
            p["value"]["kind"] == "end"
                && p["token"]
                    .as_str()
                    .is_some_and(|t| t.starts_with(&format!("faultlens/{kind}/")))
        }
    };
    let run = client.wait_notification("$/progress", ended("run"));
    assert_eq!(run["value"]["message"], "3 failing of 15 tests", "{run}");
    let first = client.wait_notification("$/progress", ended("diagnose"));
    assert!(
        first["value"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("localizing again first")),
        "{first}"
    );
    let diagnosis = client.wait_notification("$/progress", ended("diagnose"));
    assert!(
        diagnosis["value"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("diagnos")),
        "{diagnosis}"
    );
    assert!(root.join(".faultlens/diagnosis.json").exists());
    // The new results describe the edited file.
    let results: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".faultlens/results.json")).unwrap(),
    )
    .unwrap();
    let lines = std::fs::read_to_string(&mid).unwrap().lines().count();
    assert!(results["files"][0]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| l.as_u64().unwrap() as usize <= lines));
    client.shutdown();
}

#[test]
fn the_command_localizes_first_when_there_are_no_results() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize_with(
        &root,
        json!({"trusted": true, "diagnose": false, "diagnoseEffort": 5, "diagnoseTimeLimitSeconds": 3600}),
        capabilities(),
    );
    diagnose_to_the_end(&mut client);
    client.wait_notification("window/showMessage", |m| {
        m["message"]
            .as_str()
            .is_some_and(|t| t.contains("there are no results yet; localizing before diagnosing"))
    });
    assert!(localized(&client));
    assert!(root.join(".faultlens/results.json").exists());
    assert!(root.join(".faultlens/diagnosis.json").exists());
    client.shutdown();
}

#[test]
fn an_edit_cancels_a_diagnosis_in_progress() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    let mut client = Client::start();
    client.initialize_with(
        &root,
        json!({"trusted": true, "diagnoseTimeLimitSeconds": 600}),
        capabilities(),
    );
    let path = root.join("mid.c");
    let uri = file_uri(&path);
    client.open(&path);
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.diagnose"}),
    );
    assert_eq!(answer["started"], true, "{answer}");
    let token = format!("faultlens/diagnose/{}", answer["run"]);
    client.wait_notification("$/progress", |p| {
        p["token"] == token.as_str() && p["value"]["kind"] == "report"
    });
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                             "end": {"line": 0, "character": 0}},
                                   "text": "\n"}]}),
    );
    let end = client.wait_notification("$/progress", |p| {
        p["token"] == token.as_str() && p["value"]["kind"] == "end"
    });
    assert_eq!(end["value"]["message"], "cancelled", "{end}");
    assert!(!root.join(".faultlens/diagnosis.json").exists());
    client.shutdown();
}
