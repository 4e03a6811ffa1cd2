//! End to end in a real editor: headless Neovim with the configuration from
//! `editors/neovim`, attached to the real `faultlens lsp`, on a copy of the
//! mid-args fixture. The probes (tests/nvim/probe.lua for the ranking,
//! server/cli/tests/nvim/diagnosis_probe.lua for the diagnosis) check what
//! Neovim sees and write a JSON report.

mod common;

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_faultlens");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// True when nvim can run here. Without it the test is skipped loudly,
/// except on CI (`CI` set), where a missing nvim is a failure.
fn nvim_available() -> bool {
    let found = Command::new("nvim")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        if std::env::var_os("CI").is_some() {
            panic!("nvim is not installed but CI is set: the Neovim end-to-end test must run on CI (apt-get install neovim)");
        }
        // Written to the real stderr, past the test harness's capture, so
        // the skip is seen even when the test "passes".
        let _ = writeln!(
            std::io::stderr(),
            "\n!!! SKIPPED {}: the Neovim end-to-end test needs `nvim` on PATH (apt-get install neovim); on CI this is a failure !!!\n",
            std::thread::current().name().unwrap_or("lsp_nvim")
        );
    }
    found
}

fn copy_fixture(name: &str, to: &Path) -> PathBuf {
    let root = to.join(name);
    common::copy_tree(&repo().join("fixtures").join(name), &root);
    root
}

/// Runs the probe on `file`; returns its report, failing with the report's
/// errors when the probe failed.
fn probe(file: &Path, fault_line: u32, run: bool) -> Value {
    run_probe(&repo().join("tests/nvim/probe.lua"), file, fault_line, run)
}

/// Runs a Lua probe script in headless Neovim on `file`.
fn run_probe(script: &Path, file: &Path, fault_line: u32, run: bool) -> Value {
    let report = file.with_extension("nvim-report.json");
    let output = Command::new("timeout")
        .arg("120")
        .arg("nvim")
        .args(["--headless", "--clean", "-u", "NONE", "-c"])
        .arg(format!("luafile {}", script.display()))
        .arg(file)
        .env("FAULTLENS_BIN", BIN)
        // Neovim logs to ./.nvimlog when it cannot use its cache directory:
        // keep that out of the source tree.
        .env("NVIM_LOG_FILE", file.with_extension("nvimlog"))
        .env("FAULTLENS_REPORT", &report)
        .env("FAULTLENS_FAULT_LINE", fault_line.to_string())
        .env("FAULTLENS_RUN", if run { "1" } else { "0" })
        .output()
        .expect("nvim runs");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|_| {
        panic!(
            "the probe wrote no report (status {}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let report: Value = serde_json::from_str(&text).unwrap();
    assert!(
        output.status.success() && report["errors"].as_array().is_some_and(|e| e.is_empty()),
        "probe failed (status {}): {:#}",
        output.status,
        report
    );
    report
}

#[test]
fn neovim_shows_results_written_by_the_cli() {
    if !nvim_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = copy_fixture("mid-args", &dir.path().canonicalize().unwrap());
    let out = Command::new(BIN)
        .arg("localize")
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.code().is_some());
    let results = root.join(".faultlens/results.json");
    let written = std::fs::metadata(&results).unwrap().modified().unwrap();
    let report = probe(&root.join("mid.c"), 22, false);
    let top = &report["diagnostics"][0];
    assert_eq!(top["lnum"], 21);
    assert_eq!(top["source"], "faultlens");
    assert!(
        top["message"]
            .as_str()
            .unwrap()
            .contains("run by 3 of 3 failing"),
        "{top}"
    );
    let hover = report["hover"].as_str().unwrap();
    assert!(
        hover.contains("| Ochiai ◀ |") && hover.contains("`wide-first-middle`"),
        "{hover}"
    );
    let lenses = report["lenses"].as_array().unwrap();
    assert!(lenses
        .iter()
        .any(|l| l["line"] == 0 && l["title"].as_str().unwrap().starts_with("3 failing tests")));
    assert_eq!(report["status"]["state"], "done");
    // Untrusted: the editor session ran nothing, so the results are the CLI's.
    assert_eq!(
        std::fs::metadata(&results).unwrap().modified().unwrap(),
        written
    );
}

#[test]
fn neovim_runs_a_localization_in_a_trusted_workspace() {
    if !nvim_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = copy_fixture("mid-args", &dir.path().canonicalize().unwrap());
    assert!(!root.join(".faultlens").exists());
    let report = probe(&root.join("mid.c"), 22, true);
    assert_eq!(report["status_before_run"]["state"], "noResults");
    assert!(root.join(".faultlens/results.json").exists());
    assert!(report["lenses"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["line"] == 21));
}

fn diagnosis_probe(file: &Path, run: bool) -> Value {
    diagnosis_probe_at(file, 22, run)
}

fn diagnosis_probe_at(file: &Path, fault_line: u32, run: bool) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvim/diagnosis_probe.lua");
    run_probe(&script, file, fault_line, run)
}

#[test]
fn neovim_shows_a_stored_diagnosis_in_hover_and_inlay_hints() {
    if !nvim_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = copy_fixture("mid-args", &dir.path().canonicalize().unwrap());
    let out = Command::new(BIN)
        .arg("localize")
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.code().is_some());
    // A diagnosis as the engine writes it, with one verified angelic value.
    let doc = serde_json::json!({
        "diagnoses": [{"cost": 1, "kind": "optimal",
            "statements": [{"file": "mid.c", "line": 22, "text": "return c;"}],
            "angelic": [{"test": "wide-first-middle", "file": "mid.c", "line": 22, "instance": 1,
                         "value": 5, "text": "5", "role": "value", "verified": true}]}],
        "complete": true,
        "failing_tests": ["first-middle-last-largest", "negative-first-middle", "wide-first-middle"],
        "stats": {"first_ms": 1.0, "total_ms": 2.0, "sat_calls": 1, "variables": 1, "clauses": 1, "paths": 3}
    });
    std::fs::write(
        root.join(".faultlens/diagnosis.json"),
        serde_json::to_string_pretty(&doc).unwrap(),
    )
    .unwrap();
    let report = diagnosis_probe(&root.join("mid.c"), false);
    assert!(
        report["hover"]
            .as_str()
            .unwrap()
            .contains("mid.c:22 (1st run) = 5 makes wide-first-middle pass"),
        "{report:#}"
    );
    let hint = report["inlay_hints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["line"] == 21)
        .unwrap();
    assert_eq!(hint["label"], "⟵ 5 makes wide-first-middle pass");
    assert!(report["shown_hints"]
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["line"] == 21 && h["text"] == " ⟵ 5 makes wide-first-middle pass"));
}

#[test]
fn neovim_shows_the_angelic_values_of_the_servers_own_diagnosis() {
    if !nvim_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = copy_fixture("mid-args", &dir.path().canonicalize().unwrap());
    let report = diagnosis_probe(&root.join("mid.c"), true);
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".faultlens/diagnosis.json")).unwrap(),
    )
    .unwrap();
    // Every value in the hint is one the engine verified for mid.c:22.
    let hint = report["inlay_hints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["line"] == 21)
        .unwrap()["label"]
        .as_str()
        .unwrap()
        .to_string();
    let verified: Vec<String> = stored["diagnoses"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["angelic"].as_array().unwrap().iter())
        .filter(|a| a["verified"] == true && a["line"] == 22)
        .map(|a| a["test"].as_str().unwrap().to_string())
        .collect();
    assert!(
        verified.iter().all(|t| hint.contains(t.as_str())),
        "{hint} vs {verified:?}"
    );
}

/// restock-file reads the data file its argument names: the server gives
/// the model the files the runs open, and Neovim shows the diagnosis of
/// restock.c:19 with values verified on those files.
#[test]
fn neovim_shows_the_diagnosis_of_a_program_reading_data_files() {
    if !nvim_available() {
        return;
    }
    assert_neovim_shows_a_diagnosis("restock-file", "restock.c", 19, "shop");
}

/// Neovim, with the real server localizing and diagnosing `fixture`,
/// hovers `file:line` with a value that makes `test` pass, and draws an
/// inlay hint there.
fn assert_neovim_shows_a_diagnosis(fixture: &str, file: &str, line: u32, test: &str) {
    let dir = tempfile::tempdir().unwrap();
    let root = copy_fixture(fixture, &dir.path().canonicalize().unwrap());
    let report = diagnosis_probe_at(&root.join(file), line, true);
    let hover = report["hover"].as_str().unwrap();
    assert!(
        hover.contains(&format!("{file}:{line}")) && hover.contains(&format!("makes {test} pass")),
        "{report:#}"
    );
    assert!(
        report["inlay_hints"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["line"] == line - 1),
        "{report:#}"
    );
}

#[test]
fn neovim_shows_the_diagnosis_of_a_criterion_test_case() {
    if !nvim_available() {
        return;
    }
    // A CTest project: the server localizes one row per Criterion test and
    // diagnoses the failing ones in the C model, with the framework's model
    // in place of Criterion.
    assert_neovim_shows_a_diagnosis(
        "strbuf-criterion",
        "src/strbuf.c",
        95,
        "strbuf::trim/both_sides",
    );
}
