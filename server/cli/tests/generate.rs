//! `faultlens generate` on the harness fixtures, with the real binary: sfo_p
//! brings the faulty line to rank 1, the generated tests are kept in
//! `.faultlens/generated-tests.toml`, run through the normal pipeline and get
//! the verdicts the model predicted.

mod common;
use common::*;
use std::path::Path;

/// Average rank of `file:line` in `faultlens rank --format json`.
fn rank_of(dir: &Path, file: &str, line: u64) -> f64 {
    let out = faultlens(&["rank", dir.to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success(), "rank failed: {}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    entry(&doc, file, line)["rank"]["average"].as_f64().unwrap()
}

/// Predicted verdicts from the comments of the tests file: (name, fails).
fn predictions(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut name = None;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        }
        if let Some(p) = line.strip_prefix("# predicted: ") {
            out.push((name.take().unwrap(), p.starts_with("fails")));
        }
    }
    out
}

fn sfo_p_puts_the_fault_first(fixture_name: &str, file: &str, line: u64) {
    let dir = fixture(fixture_name);
    let localized = localize_json(dir.path(), &[]);
    let before = entry(&localized, file, line)["rank"]["average"]
        .as_f64()
        .unwrap();
    assert!(before > 1.0, "{fixture_name}: the fault is already first");

    let out = faultlens(&[
        "generate",
        dir.path().to_str().unwrap(),
        "--strategy",
        "sfo_p",
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}\n{}", text, stderr(&out));
    assert!(text.contains("round 1: gen-sfo_p-1"), "{text}");
    assert!(
        text.contains("got the verdict the model predicted"),
        "{text}"
    );

    let after = rank_of(dir.path(), file, line);
    assert_eq!(after, 1.0, "{fixture_name}: {before} -> {after}\n{text}");

    // The tests the project can keep: every one ran with the real binary and
    // got the predicted verdict.
    let kept = std::fs::read_to_string(dir.path().join(".faultlens/generated-tests.toml")).unwrap();
    let predicted = predictions(&kept);
    assert!(!predicted.is_empty());
    assert!(predicted.iter().any(|(_, fails)| *fails));
    assert!(predicted.iter().any(|(_, fails)| !*fails));
    let results = results(dir.path());
    for (name, fails) in &predicted {
        let record = test_record(&results, name);
        let verdict = if *fails { "fail" } else { "pass" };
        assert_eq!(record["verdict"], verdict, "{name}: {record}");
        if *fails {
            // The assert fired in the real binary.
            assert!(record["stderr"].as_str().unwrap().contains("Assertion"));
        }
    }
}

#[test]
fn sfo_p_brings_the_minmax_fault_to_rank_1() {
    sfo_p_puts_the_fault_first("minmax-harness", "minmax.c", 33);
}

#[test]
fn sfo_p_brings_the_queue_fault_to_rank_1() {
    sfo_p_puts_the_fault_first("queue-harness", "queue.c", 29);
}

#[test]
fn generated_tests_continue_numbering_and_a_kept_copy_wins() {
    let dir = fixture("minmax-harness");
    let root = dir.path().to_str().unwrap();
    let out = faultlens(&["generate", root, "--strategy", "sfo"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("gen-sfo-1"));
    // Keep the test: copy its entry into faultlens.toml.
    let kept = std::fs::read_to_string(dir.path().join(".faultlens/generated-tests.toml")).unwrap();
    let entry_start = kept.find("[[test]]").unwrap();
    let mut config = std::fs::read_to_string(dir.path().join("faultlens.toml")).unwrap();
    config.push('\n');
    config.push_str(&kept[entry_start..]);
    std::fs::write(dir.path().join("faultlens.toml"), config).unwrap();
    // Its duplicate in the generated file is skipped, not an error.
    let out = faultlens(&["localize", root]);
    assert!(out.status.success(), "{}", stderr(&out));
    // sfo has nothing left to add; sat-tar numbers its own tests.
    let out = faultlens(&["generate", root, "--strategy", "sfo"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("0 test(s) generated"),
        "{}",
        stdout(&out)
    );
    let out = faultlens(&["generate", root, "--strategy", "sat-tar", "--max", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("gen-sat-tar-1"), "{}", stdout(&out));
}

#[test]
fn a_project_without_free_inputs_gets_a_clear_error() {
    let dir = fixture("mid-args");
    let out = faultlens(&["generate", dir.path().to_str().unwrap()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("__VERIFIER_nondet_"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn an_unknown_strategy_is_refused() {
    let dir = fixture("minmax-harness");
    let out = faultlens(&[
        "generate",
        dir.path().to_str().unwrap(),
        "--strategy",
        "random",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("sfo, sfo_p or sat-tar"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_solver_explorer_generates_valid_tests_that_put_the_minmax_fault_first() {
    let dir = fixture("minmax-harness");
    let root = dir.path().to_str().unwrap();
    let out = faultlens(&["generate", root, "--explorer", "solver"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}\n{}", text, stderr(&out));
    assert!(text.contains("solver calls"), "{text}");
    assert!(
        text.contains("got the verdict the model predicted"),
        "{text}"
    );
    assert_eq!(rank_of(dir.path(), "minmax.c", 33), 1.0, "{text}");
}
