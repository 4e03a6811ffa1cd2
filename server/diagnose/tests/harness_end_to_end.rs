//! Harnesses with free inputs (`__VERIFIER_nondet_*()`) on real
//! localization runs: the model reads each test's free inputs from its
//! stdin as the coverage build does, so the failing tests fail in the model
//! too and the fault is diagnosed; a test whose input runs out is skipped
//! with that reason; no diagnosis is ever empty.

mod common;

use faultlens_core::diagnosis::{AngelicValue, DiagnosisReport};
use faultlens_diagnose::bridge::failing_tests;
use faultlens_diagnose::{diagnose_project, CancelToken, DiagnoseError, DiagnoseOptions};
use faultlens_workspace::Project;
use std::path::Path;

/// A copy of `name` (with `extra` appended to its faultlens.toml), localized.
fn localized(
    name: &str,
    extra: &str,
    tmp: &Path,
) -> (Project, faultlens_core::results::RunResults) {
    let dir = common::copy_fixture(name, tmp);
    let toml = dir.join("faultlens.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(extra);
    std::fs::write(&toml, text).unwrap();
    common::localized(&dir)
}

fn diagnose(project: &Project, results: &faultlens_core::results::RunResults) -> DiagnosisReport {
    let opts = DiagnoseOptions::with_effort(120.0);
    diagnose_project(project, results, &opts, &|_| {}, &CancelToken::new()).unwrap()
}

fn has_line(report: &DiagnosisReport, file: &str, line: u32) -> bool {
    report.diagnoses.iter().any(|d| {
        d.statements
            .iter()
            .any(|s| s.file == file && s.line == line)
    })
}

/// Every listed angelic value of every diagnosis replays in the interpreter
/// (the program loaded as the engine loads it); returns how many tests' values.
fn check_replay(
    project: &Project,
    results: &faultlens_core::results::RunResults,
    report: &DiagnosisReport,
) -> usize {
    let spec = faultlens_diagnose::source_spec(project).unwrap();
    let prog = faultlens_csem::load(&spec).unwrap();
    let (tests, _) = failing_tests(project, results).unwrap();
    let mut checked = 0;
    for d in &report.diagnoses {
        for t in &tests {
            let values: Vec<&AngelicValue> =
                d.angelic.iter().filter(|a| a.test == t.name).collect();
            if values.is_empty() {
                continue;
            }
            assert!(values.iter().all(|a| a.verified));
            assert!(
                common::replay_passes(&prog, t, &values),
                "{values:?} do not make {} pass on replay",
                t.name
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn minmax_harness_is_diagnosed_at_its_fault_and_a_short_input_is_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let (project, results) = localized(
        "minmax-harness",
        "\n[[test]]\nname = \"one-value-only\"\nstdin = \"1\"\n",
        tmp.path(),
    );
    let failed: Vec<&str> = results
        .tests
        .iter()
        .filter(|t| t.verdict == faultlens_core::results::Verdict::Fail)
        .map(|t| t.name.as_str())
        .collect();
    assert!(failed.contains(&"ascending"), "{failed:?}");
    assert!(failed.contains(&"one-value-only"), "{failed:?}");

    let report = diagnose(&project, &results);
    assert!(has_line(&report, "minmax.c", 33), "{:#?}", report.diagnoses);
    assert!(report.diagnoses.iter().all(|d| !d.statements.is_empty()));
    // Found by the exploring phase (the own path ends in the failed assert):
    // its time is the first diagnosis's, not phase 1's "none".
    assert!(report.stats.first_ms > 0.0, "{:?}", report.stats);
    // No diagnosis blames the free-input functions (they stand for the input).
    assert!(report
        .diagnoses
        .iter()
        .all(|d| d.statements.iter().all(|s| s.file == "minmax.c")));
    let fault = report
        .diagnoses
        .iter()
        .find(|d| d.statements.iter().any(|s| s.line == 33))
        .unwrap();
    assert!(
        fault
            .angelic
            .iter()
            .any(|a| a.test == "ascending" && a.verified),
        "{fault:#?}"
    );
    assert!(check_replay(&project, &results, &report) > 0);

    let short = report
        .skipped_tests
        .iter()
        .find(|s| s.name == "one-value-only")
        .expect("the test with too little input is skipped");
    assert!(short.reason.contains("input runs out"), "{}", short.reason);
    assert!(
        short
            .reason
            .contains("no more input for __VERIFIER_nondet_int()"),
        "{}",
        short.reason
    );
    assert!(!report.failing_tests.iter().any(|t| t == "one-value-only"));
    assert!(report.failing_tests.iter().any(|t| t == "ascending"));
}

#[test]
fn queue_harness_is_diagnosed_without_an_empty_diagnosis() {
    let tmp = tempfile::tempdir().unwrap();
    let (project, results) = localized("queue-harness", "", tmp.path());
    assert!(results.failed_count() > 0);
    let report = diagnose(&project, &results);
    eprintln!(
        "queue-harness: failing {:?}, skipped {:?}, diagnoses {:?}",
        report.failing_tests,
        report.skipped_tests,
        report
            .diagnoses
            .iter()
            .map(|d| (
                d.cost,
                d.statements.iter().map(|s| s.line).collect::<Vec<_>>(),
                d.angelic.len()
            ))
            .collect::<Vec<_>>()
    );
    assert!(report.diagnoses.iter().all(|d| !d.statements.is_empty()));
    assert!(has_line(&report, "queue.c", 29), "{:#?}", report.diagnoses);
    check_replay(&project, &results, &report);
}

/// Failing tests that all run out of input leave nothing to diagnose: the
/// error says which and why, never an empty "explanation".
#[test]
fn only_short_inputs_give_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::copy_fixture("minmax-harness", tmp.path());
    // The fixed program, so that the only failing tests are the short ones.
    let src = dir.join("minmax.c");
    let text = std::fs::read_to_string(&src).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[32].contains("r.low = c;"), "{}", lines[32]);
    let fixed: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 32 {
                l.replace("r.low", "r.high")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&src, fixed.join("\n") + "\n").unwrap();
    let toml = dir.join("faultlens.toml");
    let mut t = std::fs::read_to_string(&toml).unwrap();
    t.push_str("\n[[test]]\nname = \"one-value-only\"\nstdin = \"1\"\n");
    std::fs::write(&toml, t).unwrap();
    let (project, results) = common::localized(&dir);
    assert_eq!(results.failed_count(), 1);
    let err = diagnose_project(
        &project,
        &results,
        &DiagnoseOptions::with_effort(30.0),
        &|_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(matches!(err, DiagnoseError::NotModelled(_)), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("one-value-only"), "{text}");
    assert!(text.contains("input runs out"), "{text}");
}
