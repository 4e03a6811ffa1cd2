//! Shared helpers of the end-to-end tests: a private copy of a fixture (so
//! tests can run in parallel and never write into the repository) and a way
//! to run the real `faultlens` binary.

#![allow(dead_code)]

pub mod lsp;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Copies `fixtures/<name>` into a fresh temporary directory.
pub fn fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("fixtures").join(name), dir.path());
    dir
}

pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == ".faultlens" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The budget of a diagnosis a test runs: a deterministic effort, so what
/// it finds is the same on every machine however loaded, and a time limit
/// far beyond what that effort takes anywhere, which only stops a hang.
pub fn budget(effort: &str) -> [&str; 4] {
    ["--effort", effort, "--time-limit", HANG_CAP_SECONDS]
}

/// The time limit beside a test's effort: a hang's stop, never an outcome.
pub const HANG_CAP_SECONDS: &str = "3600";

pub fn faultlens(args: &[&str]) -> Output {
    faultlens_in(args, None)
}

pub fn faultlens_in(args: &[&str], cwd: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_faultlens"));
    cmd.args(args);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    cmd.output().expect("faultlens runs")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `faultlens localize DIR --format json` parsed; panics with stderr on failure.
pub fn localize_json(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["localize", dir.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let out = faultlens(&args);
    assert!(out.status.success(), "localize failed: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// The tests of a ranking document, in its order.
pub fn listed_tests(doc: &serde_json::Value) -> Vec<&serde_json::Value> {
    doc["tests"]["list"].as_array().unwrap().iter().collect()
}

/// The failing tests of a ranking document, in its order.
pub fn failing_tests(doc: &serde_json::Value) -> Vec<&serde_json::Value> {
    listed_tests(doc)
        .into_iter()
        .filter(|t| t["verdict"] == "fail")
        .collect()
}

/// The names of `tests`.
pub fn names_of<'a>(tests: &[&'a serde_json::Value]) -> Vec<&'a str> {
    tests.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

/// The ranking entry of `file:line`.
pub fn entry<'a>(doc: &'a serde_json::Value, file: &str, line: u64) -> &'a serde_json::Value {
    doc["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["file"] == file && e["line"] == line)
        .unwrap_or_else(|| panic!("{file}:{line} is not ranked"))
}

/// The results document written under `.faultlens/`.
pub fn results(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join(".faultlens/results.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

pub fn test_record<'a>(results: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}"))
}
