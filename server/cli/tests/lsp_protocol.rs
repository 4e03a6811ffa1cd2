//! Drives the real `faultlens lsp` binary over stdio, the way an editor does,
//! on copies of the bundled fixtures (real gcc builds, real test runs).

mod common;

use common::lsp::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The faulty line of mid-args (ground-truth.json): 1-based 22.
const MID_FAULT: u64 = 22 - 1;

fn has_fault_warning(params: &Value) -> bool {
    diagnostics_for(params, "/mid.c").is_some_and(|d| {
        d.iter().any(|d| {
            d["range"]["start"]["line"] == MID_FAULT
                && d["severity"] == 2
                && d["message"].as_str().unwrap().starts_with("#1")
        })
    })
}

#[test]
fn results_on_disk_become_diagnostics_hovers_lenses_and_the_ranking() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    let mut client = Client::start();
    let init = client.initialize(&root, json!({"trusted": false}));
    assert_eq!(init["serverInfo"]["name"], "faultlens");
    let commands = &init["capabilities"]["executeCommandProvider"]["commands"];
    assert!(commands
        .as_array()
        .unwrap()
        .contains(&json!("faultlens.localize")));

    let published = client.wait_notification("textDocument/publishDiagnostics", has_fault_warning);
    let diags = published["diagnostics"].as_array().unwrap();
    let fault = diags
        .iter()
        .find(|d| d["range"]["start"]["line"] == MID_FAULT)
        .unwrap();
    let message = fault["message"].as_str().unwrap();
    assert!(
        message.starts_with("#1 of ")
            && message.contains("suspicious lines: Ochiai ")
            && message.contains("run by 3 of 3 failing and"),
        "{message}"
    );
    assert_eq!(fault["source"], "faultlens");
    assert_eq!(fault["code"], "ochiai");
    assert!(fault["codeDescription"]["href"]
        .as_str()
        .unwrap()
        .contains("README"));
    let related = fault["relatedInformation"].as_array().unwrap();
    assert_eq!(related.len(), 3, "{related:#?}");
    assert!(related
        .iter()
        .any(|r| r["message"].as_str().unwrap().contains("wide-first-middle")));
    assert!(diags.len() >= 10 && diags.len() < 30, "{}", diags.len());

    // Status and scores for heatmaps.
    let status = client.wait_notification("faultlens/status", |s| s["state"] == "done");
    assert_eq!(status["failing"], 3);
    let scores = client.wait_notification("faultlens/scores", |_| true);
    assert_eq!(scores["measure"], "ochiai");
    let lines = scores["files"][0]["lines"].as_array().unwrap();
    let top = lines.iter().find(|l| l["line"] == MID_FAULT).unwrap();
    assert_eq!(top["heat"], 1.0);

    // Hover and lenses answer from the results.
    let mid = root.join("mid.c");
    client.open(&mid);
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": file_uri(&mid)}, "position": {"line": MID_FAULT, "character": 10}}),
    );
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.contains("#1 of"), "{md}");
    assert!(
        md.contains("| DStar |") && md.contains("| Tarantula |") && md.contains("| Ochiai ◀ |"),
        "{md}"
    );
    assert!(md.contains("`first-middle-last-largest`"), "{md}");
    assert!(md.contains("| 3 | "), "{md}");
    let nothing = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": file_uri(&mid)}, "position": {"line": 0, "character": 0}}),
    );
    assert!(nothing.is_null());

    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": file_uri(&mid)}}),
    );
    let lenses = lenses.as_array().unwrap();
    let file_lens = lenses
        .iter()
        .find(|l| {
            l["range"]["start"]["line"] == 0 && l["command"]["command"] == "faultlens.localize"
        })
        .unwrap();
    assert!(file_lens["command"]["title"]
        .as_str()
        .unwrap()
        .starts_with("3 failing tests"));
    let line_lens = lenses
        .iter()
        .find(|l| l["range"]["start"]["line"] == MID_FAULT)
        .unwrap();
    let title = line_lens["command"]["title"].as_str().unwrap();
    assert!(
        title.starts_with("#1 · Ochiai ") && title.contains("3/3 failing"),
        "{title}"
    );
    // Clicking it shows the failing tests.
    let shown = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.showFailingTests", "arguments": line_lens["command"]["arguments"]}),
    );
    assert_eq!(shown.as_array().unwrap().len(), 3);
    client.wait_notification("window/showMessage", |m| {
        m["message"].as_str().unwrap().contains("wide-first-middle")
    });

    // The ranking request matches the CLI's JSON exactly, for the current
    // measure and for another.
    let ranking = client.request("faultlens/ranking", json!({}));
    let expected: Value =
        serde_json::from_str(&cli(&["rank", root.to_str().unwrap(), "--format", "json"])).unwrap();
    assert_eq!(ranking, expected);
    let dstar = client.request("faultlens/ranking", json!({"measure": "dstar"}));
    let expected: Value = serde_json::from_str(&cli(&[
        "rank",
        root.to_str().unwrap(),
        "--format",
        "json",
        "--measure",
        "dstar",
    ]))
    .unwrap();
    assert_eq!(dstar, expected);
    let bad = client.request_raw("faultlens/ranking", json!({"measure": "nonsense"}));
    assert!(bad["error"]["message"]
        .as_str()
        .unwrap()
        .contains("unknown measure"));

    // A new measure re-ranks and republishes.
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.setMeasure", "arguments": ["dstar"]}),
    );
    client.wait_notification("textDocument/publishDiagnostics", |p| {
        diagnostics_for(p, "/mid.c").is_some_and(|d| d.iter().any(|d| d["code"] == "dstar"))
    });
    client.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"faultlens": {"measure": "tarantula", "topN": 1}}}),
    );
    let p = client.wait_notification("textDocument/publishDiagnostics", |p| {
        diagnostics_for(p, "/mid.c").is_some_and(|d| d.iter().any(|d| d["code"] == "tarantula"))
    });
    assert!(p["diagnostics"].as_array().unwrap().len() < 5);
    client.shutdown();
}

#[test]
fn results_written_by_the_cli_later_are_picked_up() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    let status = client.wait_notification("faultlens/status", |_| true);
    assert_eq!(status["state"], "untrusted", "{status}");
    assert!(status["message"].as_str().unwrap().contains("not trusted"));
    // The server asks to be told about the results file.
    let registration = client
        .wait_message(|m| m["method"] == "client/registerCapability", WAIT)
        .expect("a watcher registration");
    let registered = &registration["params"]["registrations"][0];
    assert_eq!(registered["method"], "workspace/didChangeWatchedFiles");
    assert_eq!(
        registered["registerOptions"]["watchers"][0]["globPattern"],
        "**/.faultlens/results.json"
    );

    // A run in a terminal writes results: the server picks them up by itself
    // (this client never sends didChangeWatchedFiles, so this is the poller).
    cli(&["localize", root.to_str().unwrap()]);
    let started = Instant::now();
    client.wait_notification("textDocument/publishDiagnostics", has_fault_warning);
    assert!(started.elapsed() < Duration::from_secs(10));
    client.wait_notification("faultlens/status", |s| s["state"] == "done");

    // Another run (different measure order doesn't matter) is picked up
    // through didChangeWatchedFiles too; a corrupt file is reported, not fatal.
    let results = root.join(".faultlens/results.json");
    std::fs::write(&results, "{\"format_version\": 1, \"tests\": [").unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&results), "type": 2}]}),
    );
    let shown = client.wait_notification("window/showMessage", |m| m["type"] == 1);
    assert!(
        shown["message"].as_str().unwrap().contains("results.json"),
        "{shown}"
    );
    client.wait_notification("faultlens/status", |s| s["state"] == "error");
    cli(&["localize", root.to_str().unwrap()]);
    client.wait_notification("faultlens/status", |s| s["state"] == "done");
    // Deleting the results clears what the editor shows.
    std::fs::remove_file(&results).unwrap();
    client.wait_notification("textDocument/publishDiagnostics", |p| {
        diagnostics_for(p, "/mid.c").is_some_and(|d| d.is_empty())
    });
    client.wait_notification("faultlens/status", |s| s["state"] == "untrusted");
    client.shutdown();
}

#[test]
fn edits_shift_ranked_lines_and_stale_the_edited_one() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    client.wait_notification("textDocument/publishDiagnostics", has_fault_warning);
    let mid = root.join("mid.c");
    client.open(&mid);
    let uri = file_uri(&mid);
    // Two lines inserted at the top of the file.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// one\n// two\n"}
        ]}),
    );
    let moved = client.wait_notification("textDocument/publishDiagnostics", |p| p["version"] == 2);
    let diags = moved["diagnostics"].as_array().unwrap();
    let top = diags
        .iter()
        .find(|d| d["message"].as_str().unwrap().starts_with("#1 "))
        .unwrap();
    assert_eq!(top["range"]["start"]["line"], MID_FAULT + 2);
    assert_eq!(top["severity"], 2);
    // Hover follows the line.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": MID_FAULT + 2, "character": 12}}),
    );
    assert!(hover["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("#1 of"));

    // Now fix the faulty line itself: "return c;" -> "return a;".
    let line = MID_FAULT + 2;
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
            {"range": {"start": {"line": line, "character": 15}, "end": {"line": line, "character": 16}}, "text": "a"}
        ]}),
    );
    let staled = client.wait_notification("textDocument/publishDiagnostics", |p| p["version"] == 3);
    let d = staled["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["range"]["start"]["line"] == line)
        .unwrap()
        .clone();
    assert!(d["message"].as_str().unwrap().contains("stale"), "{d}");
    assert_eq!(d["severity"], 4);
    client.wait_notification("faultlens/status", |s| s["state"] == "stale");
    let scores = client.wait_notification("faultlens/scores", |s| {
        s["files"][0]["lines"]
            .as_array()
            .is_some_and(|l| l.iter().any(|l| l["stale"] == true))
    });
    let stale_line = scores["files"][0]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["stale"] == true)
        .unwrap()
        .clone();
    assert_eq!(stale_line["line"], line);
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let lens = lenses
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["range"]["start"]["line"] == line)
        .unwrap()
        .clone();
    assert!(lens["command"]["title"]
        .as_str()
        .unwrap()
        .starts_with("stale · #1"));
    // A whole-document replacement (full sync) that deletes the two added lines.
    let original = std::fs::read_to_string(&mid).unwrap();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": original}]}),
    );
    let back = client.wait_notification("textDocument/publishDiagnostics", |p| p["version"] == 4);
    assert!(back["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["range"]["start"]["line"] == MID_FAULT));
    client.shutdown();
}

#[test]
fn a_trusted_workspace_runs_and_a_new_run_cancels_the_superseded_one() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize(&root, json!({"trusted": true, "timeoutSeconds": 5}));
    client.wait_notification("faultlens/status", |s| s["state"] == "noResults");
    let first = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    let second = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    assert_eq!(first["started"], true);
    assert_eq!(second["started"], true);
    let first_token = format!("faultlens/run/{}", first["run"]);
    let second_token = format!("faultlens/run/{}", second["run"]);
    let ended = client.wait_notification("$/progress", |p| {
        p["token"] == first_token.as_str() && p["value"]["kind"] == "end"
    });
    assert!(
        ended["value"]["message"]
            .as_str()
            .unwrap()
            .contains("cancelled"),
        "{ended}"
    );
    let done = client.wait_notification("$/progress", |p| {
        p["token"] == second_token.as_str() && p["value"]["kind"] == "end"
    });
    assert_eq!(done["value"]["message"], "3 failing of 15 tests");
    // Progress went through build and tests.
    let reports: Vec<String> = client
        .log
        .iter()
        .filter(|m| m["method"] == "$/progress" && m["params"]["token"] == second_token.as_str())
        .filter_map(|m| m["params"]["value"]["message"].as_str().map(String::from))
        .collect();
    assert!(
        reports.iter().any(|r| r.contains("building")),
        "{reports:?}"
    );
    assert!(
        reports.iter().any(|r| r.contains("running tests")),
        "{reports:?}"
    );
    assert!(client
        .log
        .iter()
        .any(|m| m["method"] == "window/workDoneProgress/create"));
    client.wait_notification("textDocument/publishDiagnostics", has_fault_warning);
    assert!(root.join(".faultlens/results.json").exists());
    client.shutdown();
}

#[test]
fn a_client_that_never_answers_progress_creation_still_gets_its_results() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize(&root, json!({"trusted": true, "timeoutSeconds": 5}));
    client.answers_requests = false;
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    let ready = client.wait_notification("faultlens/status", |s| s["state"] == "done");
    assert_eq!(ready["failing"], 3, "{ready}");
    client.wait_notification("textDocument/publishDiagnostics", has_fault_warning);
    // The token was asked for but never granted: no progress may use it.
    assert!(client
        .log
        .iter()
        .any(|m| m["method"] == "window/workDoneProgress/create"));
    assert!(!client.log.iter().any(|m| m["method"] == "$/progress"));
    client.shutdown();
}

#[test]
fn a_build_error_becomes_a_diagnostic_at_the_compilers_location() {
    let (_dir, root) = fixture("mid-args");
    let mid = root.join("mid.c");
    let broken = std::fs::read_to_string(&mid)
        .unwrap()
        .replace("long n[3];", "long n[3] = ;");
    std::fs::write(&mid, broken).unwrap();
    let mut client = Client::start();
    client.initialize(&root, json!({"trusted": true}));
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    let shown = client.wait_notification("window/showMessage", |m| m["type"] == 1);
    assert!(
        shown["message"].as_str().unwrap().contains("build failed"),
        "{shown}"
    );
    let p = client.wait_notification("textDocument/publishDiagnostics", |p| {
        diagnostics_for(p, "/mid.c").is_some_and(|d| d.iter().any(|d| d["severity"] == 1))
    });
    let error = p["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["severity"] == 1)
        .unwrap()
        .clone();
    assert_eq!(error["range"]["start"]["line"], 32, "{error}");
    assert!(error["message"].as_str().unwrap().contains("build failed"));
    client.wait_notification("faultlens/status", |s| s["state"] == "error");
    // Fixed: the next run clears the compiler's error and shows the ranking.
    let fixed = std::fs::read_to_string(&mid)
        .unwrap()
        .replace("long n[3] = ;", "long n[3];");
    std::fs::write(&mid, fixed).unwrap();
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    let p = client.wait_notification("textDocument/publishDiagnostics", has_fault_warning);
    assert!(!p["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["severity"] == 1));
    client.wait_notification("faultlens/status", |s| s["state"] == "done");
    client.shutdown();
}

#[test]
fn an_untrusted_workspace_runs_nothing_and_says_why() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize(&root, json!({"trusted": "yes please"}));
    let why = client.wait_notification("window/showMessage", |_| true);
    assert!(
        why["message"].as_str().unwrap().contains("not trusted"),
        "{why}"
    );
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    assert_eq!(answer["started"], false);
    assert!(answer["reason"].as_str().unwrap().contains("not trusted"));
    // Saving with auto-run on does not run either.
    client.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"autoRunOnSave": true}}),
    );
    client.open(&root.join("mid.c"));
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": file_uri(&root.join("mid.c"))}}),
    );
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !root.join(".faultlens").exists(),
        "nothing may be built or written"
    );
    assert!(!client.log.iter().any(|m| m["method"] == "$/progress"));
    client.shutdown();
}

#[test]
fn auto_run_on_save_is_debounced_in_a_trusted_workspace() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize(&root, json!({"trusted": true, "autoRunOnSave": true}));
    let uri = file_uri(&root.join("mid.c"));
    client.open(&root.join("mid.c"));
    for _ in 0..3 {
        client.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri}}),
        );
    }
    client.wait_notification("textDocument/publishDiagnostics", has_fault_warning);
    std::thread::sleep(Duration::from_millis(1000));
    let runs = client
        .log
        .iter()
        .filter(|m| m["method"] == "window/workDoneProgress/create")
        .count();
    assert_eq!(runs, 1, "three quick saves run once");
    client.shutdown();
}

#[test]
fn malformed_and_out_of_order_messages_do_not_crash_the_server() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    let mut client = Client::start();
    // A request before initialize is refused, not fatal.
    let early = client.request_raw(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///x.c"}, "position": {"line": 0, "character": 0}}),
    );
    assert!(early.get("error").is_some());
    client.initialize(&root, json!({"measure": 42, "topN": "many"}));
    // Bad settings are reported, defaults kept.
    client.wait_notification("window/showMessage", |m| {
        m["message"].as_str().unwrap().contains("measure")
    });
    // A second initialize is refused; initialized twice is harmless.
    let again = client.request_raw("initialize", json!({"capabilities": {}}));
    assert!(again.get("error").is_some(), "{again}");
    client.notify("initialized", json!({}));
    // A header without a length, then garbage between messages.
    client.send_raw(b"Content-Type: nothing\r\n\r\n");
    // Broken JSON, a body that is not a request, wrong params, unknown methods.
    client.send_raw(b"Content-Length: 9\r\n\r\n{\"jsonrpc");
    client.send_raw(b"Content-Length: 2\r\n\r\n[]");
    let wrong = client.request_raw("textDocument/hover", json!({"nonsense": true}));
    assert!(wrong.get("error").is_some());
    let unknown = client.request_raw("faultlens/nothing", json!({}));
    assert!(unknown.get("error").is_some());
    client.notify("faultlens/whatever", json!([1, 2]));
    // Unknown documents and edits past the end.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///nowhere.c", "version": 2}, "contentChanges": [{"text": "x"}]}),
    );
    let mid = root.join("mid.c");
    client.open(&mid);
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": file_uri(&mid), "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 900, "character": 5}, "end": {"line": 2, "character": 0}}, "text": "é\n"}
        ]}),
    );
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": "file:///never-opened.c"}}),
    );
    let bad_command = client.request_raw(
        "workspace/executeCommand",
        json!({"command": "faultlens.showFailingTests", "arguments": [{"uri": 3}]}),
    );
    assert!(bad_command.get("error").is_some());
    let unknown_command =
        client.request_raw("workspace/executeCommand", json!({"command": "rm -rf"}));
    assert!(unknown_command.get("error").is_some());
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///nowhere.c"}, "position": {"line": 5, "character": 0}}),
    );
    assert!(hover.is_null());
    // Still alive and answering from its results.
    let ranking = client.request("faultlens/ranking", json!({}));
    assert_eq!(ranking["tests"]["failed"], 3);
    client.shutdown();
}

#[test]
fn a_client_that_disappears_mid_run_does_not_leave_the_server_behind() {
    let (_dir, root) = fixture("hang-loop");
    let mut client = Client::start();
    client.initialize(&root, json!({"trusted": true}));
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    client.wait_notification("$/progress", |p| p["value"]["kind"] == "begin");
    // Wait until the hanging test is running.
    let root_text = root.to_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !processes_mentioning(&root_text)
        .iter()
        .any(|p| p.contains("tobase"))
    {
        assert!(Instant::now() < deadline, "the hanging test never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The editor crashes: its end of the pipe closes without shutdown/exit.
    client.stdin.take();
    let status = wait_exit(&mut client.child, Duration::from_secs(15));
    assert!(
        status.is_some(),
        "the server must exit when its client goes away"
    );
    // ... and it stopped the hanging test instead of leaving it running.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_mentioning(&root_text).is_empty() {
        assert!(
            Instant::now() < deadline,
            "test processes left behind: {:?}",
            processes_mentioning(&root_text)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Command lines of running processes that mention `text`.
fn processes_mentioning(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(text) {
                found.push(cmdline);
            }
        }
    }
    found
}

#[test]
fn new_results_describe_the_saved_text_not_unsaved_edits() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    let mid = root.join("mid.c");
    client.open(&mid);
    let uri = file_uri(&mid);
    // An unsaved line at the top of the file.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// unsaved\n"}
        ]}),
    );
    // A terminal run builds the saved file; its lines are one above the editor's.
    cli(&["localize", root.to_str().unwrap()]);
    let published = client.wait_notification("textDocument/publishDiagnostics", |p| {
        diagnostics_for(p, "/mid.c").is_some_and(|d| !d.is_empty())
    });
    let top = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"].as_str().unwrap().starts_with("#1 "))
        .unwrap()
        .clone();
    assert_eq!(top["range"]["start"]["line"], MID_FAULT + 1, "{top}");
    assert!(!top["message"].as_str().unwrap().contains("stale"));
    client.shutdown();
}

#[test]
fn a_file_changed_after_the_run_shows_its_results_as_stale() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    // Someone edits mid.c outside the editor after the run.
    std::thread::sleep(Duration::from_millis(20));
    let mid = root.join("mid.c");
    let text = std::fs::read_to_string(&mid).unwrap();
    std::fs::write(&mid, format!("/* edited */\n{text}")).unwrap();
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    let p = client.wait_notification("textDocument/publishDiagnostics", |p| {
        diagnostics_for(p, "/mid.c").is_some_and(|d| !d.is_empty())
    });
    let diags = p["diagnostics"].as_array().unwrap();
    assert!(
        diags
            .iter()
            .all(|d| d["severity"] == 4 && d["message"].as_str().unwrap().contains("stale")),
        "{diags:#?}"
    );
    client.wait_notification("faultlens/status", |s| s["state"] == "stale");
    client.shutdown();
}

#[test]
fn blockrank_works_in_the_editor_with_its_block_in_the_hover() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    let mut client = Client::start();
    client.initialize(&root, json!({"trusted": false, "measure": "blockrank"}));
    let published = client.wait_notification("textDocument/publishDiagnostics", |p| {
        diagnostics_for(p, "/mid.c").is_some_and(|d| d.iter().any(|d| d["code"] == "blockrank"))
    });
    let diags = published["diagnostics"].as_array().unwrap();
    let fault = diags
        .iter()
        .find(|d| d["range"]["start"]["line"] == MID_FAULT)
        .unwrap();
    assert!(
        fault["message"].as_str().unwrap().starts_with("#1 of "),
        "{fault}"
    );

    let mid = root.join("mid.c");
    client.open(&mid);
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": file_uri(&mid)}, "position": {"line": MID_FAULT, "character": 10}}),
    );
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.contains("| BlockRank ◀ |"), "{md}");
    assert!(
        md.contains("**BlockRank**: block at line 22 of `middle`"),
        "{md}"
    );
    assert!(md.contains("transition rate T 1.00"), "{md}");
    assert!(md.contains("| in: line 20 false → line 22 |"), "{md}");

    let ranking = client.request("faultlens/ranking", json!({}));
    let expected: Value = serde_json::from_str(&cli(&[
        "rank",
        root.to_str().unwrap(),
        "--format",
        "json",
        "--measure",
        "blockrank",
    ]))
    .unwrap();
    assert_eq!(ranking, expected);
    client.shutdown();
}

/// A didOpen of mid.c with multi-byte characters added at its end (so the
/// ranked lines stay where they are), as JSON.
fn did_open_with_multibyte_text(mid: &std::path::Path) -> String {
    let mut text = std::fs::read_to_string(mid).unwrap();
    text.push_str("/* café, naïve, ünïcödé: λ → ∞ */\n");
    json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument":
        {"uri": file_uri(mid), "languageId": "c", "version": 1, "text": text}}})
    .to_string()
}

fn hover_at_fault(client: &mut Client, mid: &std::path::Path, id: i64) -> Value {
    client.send(&json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover",
        "params": {"textDocument": {"uri": file_uri(mid)}, "position": {"line": MID_FAULT, "character": 10}}}));
    client.response_to(&json!(id))
}

fn warning_containing(text: &'static str) -> impl Fn(&Value) -> bool {
    move |p| p["type"] == 2 && p["message"].as_str().unwrap().contains(text)
}

#[test]
fn a_content_length_counted_in_characters_costs_one_message_not_the_session() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    client.wait_notification("faultlens/status", |s| s["state"] == "done");
    let mid = root.join("mid.c");
    let body = did_open_with_multibyte_text(&mid);
    let characters = body.chars().count();
    assert!(characters < body.len());
    // A client that counts characters: the body is cut short, its rest
    // runs into the next message's header, mid-line.
    client.send_with_length(&body, characters);
    let hover = hover_at_fault(&mut client, &mid, 1001);
    assert!(hover.get("error").is_none(), "{hover}");
    // The broken didOpen is a parse error, and the client's log says why.
    let parse_error = client.response_to(&Value::Null);
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    client.wait_notification(
        "window/logMessage",
        warning_containing("characters instead of UTF-8 bytes"),
    );
    client.wait_notification(
        "window/logMessage",
        warning_containing("before the next message header"),
    );
    // The session goes on: the same didOpen, counted right, is taken.
    client.send_with_length(&body, body.len());
    let hover = hover_at_fault(&mut client, &mid, 1002);
    let md = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(md.contains("#1 of"), "{md}");
    client.shutdown();
}

#[test]
fn a_content_length_too_large_does_not_swallow_the_next_request() {
    let (_dir, root) = fixture("mid-args");
    cli(&["localize", root.to_str().unwrap()]);
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    client.wait_notification("faultlens/status", |s| s["state"] == "done");
    let mid = root.join("mid.c");
    let body = did_open_with_multibyte_text(&mid);
    // Far more than the hover that follows: the server must not wait for
    // bytes the client will never send before it has its answer.
    client.send_with_length(&body, body.len() + 4000);
    let hover = hover_at_fault(&mut client, &mid, 1001);
    let md = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(md.contains("#1 of"), "{md}");
    client.wait_notification("window/logMessage", warning_containing("runs past"));
    // And a count a little too large.
    client.send_with_length(&body, body.len() + 7);
    let hover = hover_at_fault(&mut client, &mid, 1002);
    assert!(hover.get("error").is_none(), "{hover}");
    client.shutdown();
}

#[test]
fn invalid_requests_are_answered_with_invalid_request_and_garbage_with_parse_error() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    let cases = [
        (
            json!({"jsonrpc": "1.0", "id": 11, "method": "faultlens/ranking", "params": {}}),
            json!(11),
        ),
        (
            json!({"id": 12, "method": "faultlens/ranking", "params": {}}),
            json!(12),
        ),
        (json!({"jsonrpc": "2.0", "id": 13, "method": 42}), json!(13)),
        (
            json!({"jsonrpc": "2.0", "id": "s14", "method": ["x"]}),
            json!("s14"),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 15.5, "method": "faultlens/ranking"}),
            json!(15.5),
        ),
        (
            json!({"jsonrpc": "2.0", "id": {"n": 16}, "method": "faultlens/ranking"}),
            Value::Null,
        ),
        (
            json!({"jsonrpc": "2.0", "id": [17], "method": "faultlens/ranking"}),
            Value::Null,
        ),
        (
            json!({"jsonrpc": "2.0", "id": true, "method": "faultlens/ranking"}),
            Value::Null,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 18, "method": "textDocument/hover", "params": "x"}),
            json!(18),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 19, "method": "faultlens/ranking", "params": 7}),
            json!(19),
        ),
    ];
    for (request, id) in cases {
        client.send(&request);
        let reply = client.response_to(&id);
        assert_eq!(reply["error"]["code"], -32600, "{request} → {reply}");
        assert_eq!(reply["jsonrpc"], "2.0");
    }
    client.wait_notification(
        "window/logMessage",
        warning_containing("\"jsonrpc\" is \"1.0\""),
    );
    // A body that is not JSON: a parse error, id null.
    let broken = r#"{"jsonrpc": "2.0", "id": 20, "method""#;
    client.send_with_length(broken, broken.len());
    let reply = client.response_to(&Value::Null);
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    // An invalid notification gets no reply (JSON-RPC forbids one), only a
    // line in the log (sent after any reply, so none came before it).
    client.send(&json!({"jsonrpc": "2.0", "method": 21}));
    client.wait_notification("window/logMessage", warning_containing("notification"));
    let null_replies = client
        .log
        .iter()
        .filter(|m| m.get("id") == Some(&Value::Null) && m.get("method").is_none())
        .count();
    assert_eq!(
        null_replies, 4,
        "three ids that are not ids, one parse error"
    );
    // And the session goes on.
    let ranking = client.request_raw("faultlens/ranking", json!({}));
    assert_eq!(ranking["id"], client.next_id - 1, "{ranking}");
    client.shutdown();
}

#[test]
fn exit_without_shutdown_exits_with_status_1_and_after_it_with_0() {
    let (_dir, root) = fixture("mid-args");
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    assert_eq!(client.exit(false).code(), Some(1));
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    assert_eq!(client.exit(true).code(), Some(0));
}
