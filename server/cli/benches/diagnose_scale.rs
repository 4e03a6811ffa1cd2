//! A diagnosis at scale, on two programs of our own with over 100 failing
//! tests each:
//! - compact-suite's `numfmt.c` (124 lines: string loops) with a test table
//!   drawn large enough that over 100 tests fail (`gen_tests.py --cases
//!   SCALE_CASES`, default 330: 111 of 346 fail);
//! - `bench/scale/climate/climate.c` (204 lines: a controller's decision,
//!   branches over twelve integer arguments, loop-free but for their
//!   parsing), whose committed table has 102 failing tests of 1,105.
//!
//! Each is diagnosed as `faultlens diagnose` does (30 s budget)
//! `SCALE_REPEATS` times (default 3; `SCALE_ONLY=numfmt` or `climate` runs
//! one). Reports the medians of the time to the first
//! diagnosis and to the end, whether the search completed, how many failing
//! tests every diagnosis explains and why the others were left out, how
//! many the fault's diagnosis explains (the left-out tests checked alone
//! included), the formula's size, and the fault's rank among the diagnoses.
//!
//! `cargo bench -p faultlens --bench diagnose_scale` (needs python3 and gcc).

#[path = "../tests/common/mod.rs"]
mod common;
use common::copy_tree;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// A program diagnosed, and where its fault is (`ground-truth.json`).
struct Suite {
    name: &'static str,
    /// Its project, relative to the repository.
    dir: &'static str,
    file: &'static str,
    lines: usize,
    fault_line: u64,
    /// Draws its test table first (`gen_tests.py --cases N`).
    draw: bool,
}

const SUITES: [Suite; 2] = [
    Suite {
        name: "numfmt",
        dir: "fixtures/compact-suite",
        file: "numfmt.c",
        lines: 124,
        fault_line: 54,
        draw: true,
    },
    Suite {
        name: "climate",
        dir: "bench/scale/climate",
        file: "climate.c",
        lines: 204,
        fault_line: 51,
        draw: false,
    },
];

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn faultlens(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args(args)
        .arg(dir)
        .args(["--format", "json"])
        .output()
        .unwrap()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One diagnosis's figures.
struct Run {
    first_ms: Option<f64>,
    total_ms: f64,
    complete: bool,
    stopped: String,
    explained: usize,
    left_out: BTreeMap<String, usize>,
    clauses: u64,
    paths: u64,
    fault_rank: Option<usize>,
    /// Failing tests the fault's diagnosis explains: those every
    /// diagnosis explains, and the left-out ones checked alone.
    fault_explains: Option<usize>,
    diagnoses: usize,
}

fn diagnose(dir: &Path, fault_line: u64) -> Run {
    let out = faultlens(dir, &["diagnose"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "diagnose printed no report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let diagnoses = report["diagnoses"].as_array().cloned().unwrap_or_default();
    let fault_rank = diagnoses
        .iter()
        .position(|d| {
            d["statements"]
                .as_array()
                .is_some_and(|s| s.iter().any(|s| s["line"] == fault_line))
        })
        .map(|i| i + 1);
    let explained = report["failing_tests"].as_array().map_or(0, Vec::len);
    let fault_explains = fault_rank
        .map(|k| explained + diagnoses[k - 1]["explains_left_out"].as_u64().unwrap_or(0) as usize);
    let mut left_out = BTreeMap::new();
    for t in report["skipped_tests"].as_array().into_iter().flatten() {
        let reason = t["reason"].as_str().unwrap_or_default();
        // The reason's kind: its words before any parenthesis, the figures
        // that differ per test as `N`.
        let words = reason.split('(').next().unwrap_or(reason).trim();
        let mut kind = String::new();
        for c in words.chars() {
            match c.is_ascii_digit() {
                true if kind.ends_with('N') => {}
                true => kind.push('N'),
                false => kind.push(c),
            }
        }
        *left_out.entry(kind).or_insert(0) += 1;
    }
    let stats = &report["stats"];
    Run {
        first_ms: stats["first_ms"].as_f64(),
        total_ms: stats["total_ms"].as_f64().unwrap_or(0.0),
        complete: report["complete"].as_bool().unwrap_or(false),
        stopped: report["stopped"].as_str().unwrap_or_default().to_string(),
        explained,
        left_out,
        clauses: stats["clauses"].as_u64().unwrap_or(0),
        paths: stats["paths"].as_u64().unwrap_or(0),
        fault_rank,
        fault_explains,
        diagnoses: diagnoses.len(),
    }
}

fn main() {
    let only = std::env::var("SCALE_ONLY").ok();
    for suite in &SUITES {
        if only.as_deref().is_none_or(|o| o == suite.name) {
            bench(suite);
        }
    }
}

fn bench(suite: &Suite) {
    let cases = env_number("SCALE_CASES", 330);
    let repeats = env_number("SCALE_REPEATS", 3).max(1);
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join(suite.name);
    copy_tree(&common::repo_root().join(suite.dir), &dir);
    if suite.draw {
        let drawn = Command::new("python3")
            .arg(dir.join("gen_tests.py"))
            .args(["--cases", &cases.to_string()])
            .output()
            .unwrap();
        assert!(
            drawn.status.success(),
            "{}",
            String::from_utf8_lossy(&drawn.stderr)
        );
    }
    let localized = faultlens(&dir, &["localize"]);
    let results: Value = serde_json::from_slice(&localized.stdout).unwrap_or_else(|e| {
        panic!(
            "localize printed no results ({e}): {}",
            String::from_utf8_lossy(&localized.stderr)
        )
    });
    let (total, failing) = (
        results["tests"]["total"].as_u64().unwrap(),
        results["tests"]["failed"].as_u64().unwrap(),
    );
    println!(
        "{} ({} lines): {total} tests, {failing} failing; {repeats} diagnoses (30 s budget)",
        suite.file, suite.lines
    );
    let runs: Vec<Run> = (0..repeats)
        .map(|_| diagnose(&dir, suite.fault_line))
        .collect();
    for (i, r) in runs.iter().enumerate() {
        println!(
            "run {}: first {} ms, end {:.0} ms, complete {}, {} diagnoses, fault at {} (explains {} failing tests), {} failing tests explained by every diagnosis, {} paths, {} clauses{}",
            i + 1,
            r.first_ms.map_or("-".into(), |f| format!("{f:.0}")),
            r.total_ms,
            r.complete,
            r.diagnoses,
            r.fault_rank.map_or("-".into(), |k| format!("#{k}")),
            r.fault_explains.map_or("-".into(), |n| n.to_string()),
            r.explained,
            r.paths,
            r.clauses,
            if r.stopped.is_empty() { String::new() } else { format!("; stopped: {}", r.stopped) }
        );
        for (why, n) in &r.left_out {
            println!("    {n} × {why}");
        }
    }
    let firsts: Vec<f64> = runs.iter().filter_map(|r| r.first_ms).collect();
    println!(
        "median: first diagnosis {} ms, end {:.1} s; complete in {} of {repeats}; fault in a diagnosis in {} of {repeats}; failing tests explained by every diagnosis {} of {failing}, by the fault's {} of {failing}",
        if firsts.is_empty() { "-".into() } else { format!("{:.0}", median(firsts)) },
        median(runs.iter().map(|r| r.total_ms).collect()) / 1e3,
        runs.iter().filter(|r| r.complete).count(),
        runs.iter().filter(|r| r.fault_rank.is_some()).count(),
        median(runs.iter().map(|r| r.explained as f64).collect()),
        median(runs.iter().map(|r| r.fault_explains.unwrap_or(0) as f64).collect()),
    );
}
