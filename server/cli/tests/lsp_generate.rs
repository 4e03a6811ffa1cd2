//! Test generation in the language server, driven over stdio like an editor
//! with the real pipeline: the tie lens on a harness, `faultlens.generateTests`
//! with its progress, the generated tests entering the ranking, the client's
//! cancel button, and the refusals (untrusted workspace, no free inputs).

mod common;

use common::lsp::*;
use serde_json::{json, Value};

/// minmax.c:33 (`r.low = c;`, the fault), 0-based.
const FAULT: u64 = 32;

fn lenses(client: &mut Client, uri: &str) -> Vec<Value> {
    client
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn tie_lens(lenses: &[Value]) -> Option<&Value> {
    lenses
        .iter()
        .find(|l| l["command"]["command"] == "faultlens.generateTests")
}

/// The rank of `file:line` in the `faultlens/ranking` answer.
fn rank(client: &mut Client, file: &str, line: u64) -> Value {
    let doc = client.request("faultlens/ranking", json!({}));
    doc["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["file"] == file && e["line"] == line)
        .unwrap_or_else(|| panic!("{file}:{line} is not ranked: {doc}"))["rank"]
        .clone()
}

fn generation_progress(p: &Value, kind: &str) -> bool {
    p["token"]
        .as_str()
        .is_some_and(|t| t.starts_with("faultlens/generate/"))
        && p["value"]["kind"] == kind
}

/// Names of the generated tests in the stored results.
fn generated_in_results(root: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join(".faultlens/results.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .filter(|n| n.starts_with("gen-"))
        .map(String::from)
        .collect()
}

/// Waits for the end of the localization the generation started (run 2).
fn rerun_end(client: &mut Client) {
    let end = client.wait_notification("$/progress", |p| {
        p["token"] == "faultlens/run/2" && p["value"]["kind"] == "end"
    });
    assert!(
        end["value"]["message"]
            .as_str()
            .unwrap()
            .contains("failing of"),
        "{end}"
    );
}

/// A server that holds each generation round open for 2 s, so that a stop
/// sent when round 1 is reported lands before round 2.
fn paused_client() -> Client {
    Client::start_with_env(&[("FAULTLENS_GENERATION_ROUND_PAUSE_MS", "2000")])
}

/// Localizes through the server and waits for the ranking.
fn localize(client: &mut Client) {
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    assert_eq!(answer["started"], true, "{answer}");
    let token = format!("faultlens/run/{}", answer["run"]);
    // The run's progress ends after it published the ranking and status.
    let end = client.wait_notification("$/progress", |p| {
        p["token"] == token.as_str() && p["value"]["kind"] == "end"
    });
    assert!(
        end["value"]["message"]
            .as_str()
            .unwrap()
            .contains("failing of"),
        "{end}"
    );
    // Later waits must not match this run's messages.
    client.seen.clear();
}

#[test]
fn the_tie_lens_generates_tests_that_put_the_fault_first() {
    let (_dir, root) = fixture("minmax-harness");
    let mut client = Client::start();
    let init = client.initialize(&root, json!({"trusted": true, "diagnose": false}));
    assert!(init["capabilities"]["executeCommandProvider"]["commands"]
        .as_array()
        .unwrap()
        .contains(&json!("faultlens.generateTests")));
    let path = root.join("minmax.c");
    let uri = file_uri(&path);
    client.open(&path);
    localize(&mut client);

    // The project's tests leave the fault tied at the top.
    let before = rank(&mut client, "minmax.c", FAULT + 1);
    assert_eq!(before["best"], 1, "{before}");
    assert!(before["worst"].as_u64().unwrap() > 1, "{before}");
    let found = lenses(&mut client, &uri);
    let lens = tie_lens(&found)
        .unwrap_or_else(|| panic!("no tie lens: {found:#?}"))
        .clone();
    let title = lens["command"]["title"].as_str().unwrap();
    assert!(
        title.starts_with("generate tests to break this tie"),
        "{title}"
    );
    assert_eq!(lens["command"]["arguments"][0]["strategy"], "sfo_p");
    // On the first line of the tie group (minmax.c:19 and :33 tie).
    let tied_first = lens["range"]["start"]["line"].as_u64().unwrap();
    assert!(tied_first <= FAULT, "{lens}");

    // Click it.
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.generateTests", "arguments": lens["command"]["arguments"]}),
    );
    assert_eq!(answer["started"], true, "{answer}");
    let begin = client.wait_notification("$/progress", |p| generation_progress(p, "begin"));
    assert_eq!(begin["value"]["title"], "faultlens test generation");
    assert_eq!(begin["value"]["cancellable"], true);
    let report = client.wait_notification("$/progress", |p| generation_progress(p, "report"));
    let message = report["value"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("round 1: gen-sfo_p-1 ")
            && (message.ends_with("fails") || message.ends_with("passes")),
        "{message}"
    );
    let end = client.wait_notification("$/progress", |p| generation_progress(p, "end"));
    let summary = end["value"]["message"].as_str().unwrap();
    assert!(summary.contains("generated"), "{summary}");
    let told = client.wait_notification("window/showMessage", |m| {
        m["message"]
            .as_str()
            .is_some_and(|t| t.contains("generated with sfo_p"))
    });
    assert!(told["message"]
        .as_str()
        .unwrap()
        .contains("generated-tests.toml"));
    assert!(root.join(".faultlens/generated-tests.toml").exists());

    // The re-localization runs them with the real binary.
    rerun_end(&mut client);
    let generated = generated_in_results(&root);
    assert!(
        !generated.is_empty(),
        "no generated test ran: {:#?}",
        client
            .log
            .iter()
            .filter(|m| m["method"] == "$/progress" || m["method"] == "window/showMessage")
            .collect::<Vec<_>>()
    );
    let after = rank(&mut client, "minmax.c", FAULT + 1);
    assert_eq!(after["best"], 1, "{after}");
    assert_eq!(after["worst"], 1, "{after}");
    // No tie at the top any more: no lens.
    assert!(tie_lens(&lenses(&mut client, &uri)).is_none());
    client.shutdown();
}

#[test]
fn with_a_diagnosis_the_tie_lens_runs_sat_tar() {
    let (_dir, root) = fixture("minmax-harness");
    let mut client = Client::start();
    // The diagnosis runs in the background after the localization. Fused
    // with it, the ranking has the fault alone on top (no tie to break), so
    // this test ranks by Ochiai alone to keep the tie the lens offers.
    client.initialize(&root, json!({"trusted": true, "fuseDiagnosis": false}));
    let path = root.join("minmax.c");
    let uri = file_uri(&path);
    client.open(&path);
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    let status = client.wait_notification("faultlens/status", |s| {
        s["diagnosis"]["state"] == "done" || s["diagnosis"]["state"] == "error"
    });
    assert_eq!(status["diagnosis"]["state"], "done", "{status}");
    let found = lenses(&mut client, &uri);
    let lens = tie_lens(&found)
        .unwrap_or_else(|| panic!("no tie lens: {found:#?}"))
        .clone();
    assert_eq!(lens["command"]["arguments"][0]["strategy"], "sat-tar");
    client.seen.clear();
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.generateTests", "arguments": lens["command"]["arguments"]}),
    );
    assert_eq!(answer["started"], true, "{answer}");
    let report = client.wait_notification("$/progress", |p| generation_progress(p, "report"));
    let message = report["value"]["message"].as_str().unwrap();
    assert!(message.starts_with("round 1: gen-sat-tar-1 "), "{message}");
    client.wait_notification("$/progress", |p| generation_progress(p, "end"));
    rerun_end(&mut client);
    assert!(generated_in_results(&root)
        .iter()
        .all(|n| n.starts_with("gen-sat-tar-")));
    let after = rank(&mut client, "minmax.c", FAULT + 1);
    assert_eq!(
        (&after["best"], &after["worst"]),
        (&json!(1), &json!(1)),
        "{after}"
    );
    client.shutdown();
}

#[test]
fn the_cancel_button_stops_after_the_round_and_keeps_its_tests() {
    let (_dir, root) = fixture("minmax-harness");
    let mut client = paused_client();
    client.initialize(&root, json!({"trusted": true, "diagnose": false}));
    localize(&mut client);
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.generateTests", "arguments": [{"strategy": "sfo_p"}]}),
    );
    assert_eq!(answer["started"], true, "{answer}");
    let begin = client.wait_notification("$/progress", |p| generation_progress(p, "begin"));
    client.wait_notification("$/progress", |p| generation_progress(p, "report"));
    client.notify(
        "window/workDoneProgress/cancel",
        json!({"token": begin["token"]}),
    );
    let end = client.wait_notification("$/progress", |p| generation_progress(p, "end"));
    let summary = end["value"]["message"].as_str().unwrap();
    assert!(summary.contains("(stopped)"), "{summary}");
    // Uncancelled, sfo_p writes 4 tests on this fixture; round 1's is kept.
    let written = std::fs::read_to_string(root.join(".faultlens/generated-tests.toml")).unwrap();
    let kept = written.matches("[[test]]").count();
    assert_eq!(kept, 1, "{written}");
    // They still enter the ranking.
    rerun_end(&mut client);
    assert_eq!(generated_in_results(&root).len(), kept);
    client.shutdown();
}

#[test]
fn a_new_localization_stops_the_generation_and_runs_its_tests() {
    let (_dir, root) = fixture("minmax-harness");
    let mut client = paused_client();
    client.initialize(&root, json!({"trusted": true, "diagnose": false}));
    localize(&mut client);
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.generateTests"}),
    );
    assert_eq!(answer["started"], true, "{answer}");
    client.wait_notification("$/progress", |p| generation_progress(p, "report"));
    let run = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    assert_eq!(run["started"], true, "{run}");
    let end = client.wait_notification("$/progress", |p| generation_progress(p, "end"));
    let summary = end["value"]["message"].as_str().unwrap();
    assert!(summary.contains("(stopped)"), "{summary}");
    // The new run waited for the tests to be written, and ran them.
    let token = format!("faultlens/run/{}", run["run"]);
    client.wait_notification("$/progress", |p| {
        p["token"] == token.as_str() && p["value"]["kind"] == "end"
    });
    let written = std::fs::read_to_string(root.join(".faultlens/generated-tests.toml")).unwrap();
    assert_eq!(written.matches("[[test]]").count(), 1, "{written}");
    assert_eq!(generated_in_results(&root).len(), 1);
    // The stopped generation does not start a run of its own.
    client.wait_message(|_| false, std::time::Duration::from_millis(500));
    let runs: std::collections::BTreeSet<&str> = client
        .log
        .iter()
        .filter_map(|m| m["params"]["token"].as_str())
        .filter(|t| t.starts_with("faultlens/run/"))
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    client.shutdown();
}

#[test]
fn an_untrusted_workspace_refuses_to_generate() {
    let (_dir, root) = fixture("minmax-harness");
    cli(&["localize", root.to_str().unwrap()]);
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    let path = root.join("minmax.c");
    let uri = file_uri(&path);
    client.open(&path);
    client.wait_notification("faultlens/scores", |s| {
        s["files"].as_array().is_some_and(|f| !f.is_empty())
    });
    // Results from disk show, but no lens offers to run anything.
    let found = lenses(&mut client, &uri);
    assert!(!found.is_empty());
    assert!(tie_lens(&found).is_none(), "{found:#?}");
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.generateTests"}),
    );
    assert_eq!(answer["started"], false);
    assert!(
        answer["reason"].as_str().unwrap().contains("not trusted"),
        "{answer}"
    );
    assert!(!root.join(".faultlens/generated-tests.toml").exists());
    client.shutdown();
}

#[test]
fn a_project_without_free_inputs_gets_no_lens_and_one_clear_message() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize(&root, json!({"trusted": true, "diagnose": false}));
    let path = root.join("mid.c");
    let uri = file_uri(&path);
    client.open(&path);
    localize(&mut client);
    assert!(tie_lens(&lenses(&mut client, &uri)).is_none());
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.generateTests", "arguments": [{"strategy": "sfo"}]}),
    );
    assert_eq!(answer["started"], false, "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(reason.contains("cannot generate tests"), "{reason}");
    let shown = client.wait_notification("window/showMessage", |m| {
        m["message"]
            .as_str()
            .is_some_and(|t| t.contains("cannot generate tests"))
    });
    assert_eq!(shown["type"], 2, "a warning: {shown}");
    // Nothing started: no progress, no tests file, no further messages.
    std::thread::sleep(std::time::Duration::from_millis(300));
    client.wait_message(|_| false, std::time::Duration::from_millis(200));
    assert!(!client.log.iter().any(|m| m["params"]["token"]
        .as_str()
        .is_some_and(|t| t.starts_with("faultlens/generate/"))));
    let messages = client
        .log
        .iter()
        .filter(|m| m["method"] == "window/showMessage")
        .filter(|m| {
            m["params"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("generate")
        })
        .count();
    assert_eq!(messages, 1);
    assert!(!root.join(".faultlens/generated-tests.toml").exists());
    client.shutdown();
}
