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

#[test]
fn a_language_server_killed_outright_leaves_no_test_process_running() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("p");
    let pids = dir.path().join("pids");
    std::fs::create_dir_all(&root).unwrap();
    let script = root.join("t.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho $$ >> {p}\nsh -c 'echo $$ >> {p}; exec sleep 300' &\n\
             setsid -f sh -c 'echo $$ >> {p}; exec sleep 300' < /dev/null > /dev/null 2>&1\nsleep 300\n",
            p = pids.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        root.join("faultlens.toml"),
        "[runner]\nlist = \"printf 'a\\\\nb\\\\n'\"\nrun = \"./t.sh {name}\"\n[run]\ntimeout = 600\njobs = 2\n",
    )
    .unwrap();

    let mut client = Client::start();
    client.initialize(&root, json!({"trusted": true, "diagnose": false}));
    client.request(
        "workspace/executeCommand",
        json!({"command": "faultlens.localize"}),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let running: Vec<i32> = loop {
        let listed: Vec<i32> = std::fs::read_to_string(&pids)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.parse().ok())
            .collect();
        if listed.len() >= 6 {
            break listed;
        }
        assert!(std::time::Instant::now() < deadline, "the tests started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    client.child.kill().unwrap(); // SIGKILL: no code of the server runs.
    client.child.wait().unwrap();
    let alive = |pid: &i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while running.iter().any(alive) {
        assert!(
            std::time::Instant::now() < deadline,
            "still running: {:?}",
            running.iter().filter(|p| alive(p)).collect::<Vec<_>>()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
