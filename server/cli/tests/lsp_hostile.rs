//! The language server in an untrusted workspace whose `.faultlens/` was
//! shipped by the repository: documents naming files outside the project
//! (or devices) are refused with a message, nothing outside is published,
//! memory stays small and the server keeps answering.

mod common;
use common::lsp::*;
use serde_json::json;

/// `.faultlens/results.json` ranking `path`, with one failing test.
fn write_results(root: &std::path::Path, path: &str) {
    let doc = json!({
        "format_version": 1, "tool_version": "0.1.0", "created_unix_ms": 0,
        "project_root": root, "suite": "io",
        "files": [{"path": path, "lines": [1, 2, 3]}],
        "tests": [
            {"name": "a", "verdict": "fail", "outcome": "failed", "duration_ms": 1,
             "coverage": [{"file": 0, "lines": [1, 2], "counts": [1, 1]}]},
            {"name": "b", "verdict": "pass", "outcome": "passed", "duration_ms": 1,
             "coverage": [{"file": 0, "lines": [2, 3], "counts": [1, 1]}]}
        ]
    });
    std::fs::create_dir_all(root.join(".faultlens")).unwrap();
    std::fs::write(root.join(".faultlens/results.json"), doc.to_string()).unwrap();
}

/// Resident memory of a process, in MiB.
fn resident_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap()
        / 1024
}

#[test]
fn hostile_results_in_an_untrusted_workspace_are_refused_and_publish_nothing_outside() {
    let (_dir, root) = fixture("mid-args");
    write_results(&root, "/dev/zero");
    let mut client = Client::start();
    client.initialize(&root, json!({}));
    let status = client.wait_notification("faultlens/status", |s| s["state"] == "error");
    let message = status["message"].as_str().unwrap();
    assert!(
        message.contains("results.json") && message.contains("/dev/zero"),
        "{status}"
    );

    for path in ["/etc/passwd", "../../../etc/passwd"] {
        write_results(&root, path);
        let results = root.join(".faultlens/results.json");
        client.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": file_uri(&results), "type": 2}]}),
        );
        let shown = client.wait_notification("window/showMessage", |m| {
            m["message"].as_str().is_some_and(|t| t.contains(path))
        });
        assert!(shown["message"].as_str().unwrap().contains("results.json"));
    }
    // A document behind a link is not read through it either.
    let results = root.join(".faultlens/results.json");
    std::fs::remove_file(&results).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &results).unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&results), "type": 2}]}),
    );
    client.wait_notification("window/showMessage", |m| {
        m["message"]
            .as_str()
            .is_some_and(|t| t.contains("symbolic link"))
    });

    // Still answering, and nothing of /etc/passwd was ever published.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": file_uri(&root.join("mid.c"))}, "position": {"line": 21, "character": 4}}),
    );
    assert!(hover.is_null(), "{hover}");
    assert!(
        client
            .log
            .iter()
            .all(|m| !m.to_string().contains("root:x:0:0")
                && m["params"]["uri"]
                    .as_str()
                    .is_none_or(|u| !u.contains("passwd"))),
        "nothing of /etc/passwd is published"
    );
    assert!(resident_mib(client.child.id()) < 200);
    client.shutdown();
}
