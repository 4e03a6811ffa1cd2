//! Does faultlens's run agree with the developer's? A test that failed for
//! the developer and passed under faultlens (or the other way round) is
//! said with both verdicts and the likely reasons, never silently: the
//! ranking explains faultlens's run, not theirs.

use faultlens_core::results::{RunResults, Verdict};
use faultlens_workspace::devruns::{DevRun, DevVerdict};
use std::collections::HashSet;

/// One test the two runs judged differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    pub test: String,
    /// True when it failed for the developer (and passed under faultlens).
    pub failed_for_developer: bool,
}

/// The tests both runs know whose verdicts differ. A developer's test
/// matches faultlens's test of the same name or, when faultlens split an
/// executable into cases (`TEST::CASE`), all of its cases (failed when
/// one of them failed). Skipped tests and tests only one run knows say
/// nothing.
pub fn disagreements(dev: &DevRun, results: &RunResults) -> Vec<Disagreement> {
    let mut found = Vec::new();
    for test in &dev.tests {
        let failed_for_developer = match test.verdict {
            DevVerdict::Passed => false,
            DevVerdict::Failed => true,
            DevVerdict::Skipped => continue,
        };
        let case_prefix = format!("{}::", test.name);
        let ours: Vec<Verdict> = results
            .tests
            .iter()
            .filter(|r| r.name == test.name || r.name.starts_with(&case_prefix))
            .map(|r| r.verdict)
            .collect();
        if ours.is_empty() {
            continue;
        }
        let failed_for_us = ours.contains(&Verdict::Fail);
        if failed_for_us != failed_for_developer {
            found.push(Disagreement {
                test: test.name.clone(),
                failed_for_developer,
            });
        }
    }
    // Automake's log names only the tests that did not pass: the others
    // passed, when the log ran the same tests as faultlens (a subdirectory's
    // log in a recursive build runs only its own).
    let executables: HashSet<&str> = results
        .tests
        .iter()
        .map(|r| r.name.split("::").next().unwrap_or(&r.name))
        .collect();
    if dev.tests.len() < dev.total && executables.len() == dev.total {
        for record in &results.tests {
            let executable = record.name.split("::").next().unwrap_or(&record.name);
            if record.verdict == Verdict::Fail
                && dev.verdict_of(executable) == Some(DevVerdict::Passed)
                && !found.iter().any(|d| d.test == executable)
            {
                found.push(Disagreement {
                    test: executable.to_string(),
                    failed_for_developer: false,
                });
            }
        }
    }
    found
}

/// The message for a user, or `None` when the runs agree.
pub fn explain(dev: &DevRun, found: &[Disagreement]) -> Option<String> {
    if found.is_empty() {
        return None;
    }
    let shown: Vec<String> = found
        .iter()
        .take(5)
        .map(|d| {
            if d.failed_for_developer {
                format!("{} failed in your run and passed under faultlens", d.test)
            } else {
                format!("{} passed in your run and failed under faultlens", d.test)
            }
        })
        .collect();
    let more = match found.len() {
        n if n > 5 => format!(" (and {} more)", n - 5),
        _ => String::new(),
    };
    Some(format!(
        "your run ({}) and faultlens's disagree on {} test{}: {}{more}. Likely causes: a flaky test (timing, order, randomness), a different environment (working directory, variables, files the test reads), or a build difference (faultlens builds with --coverage and without optimization). The ranking explains faultlens's run.",
        dev.describe(),
        found.len(),
        if found.len() == 1 { "" } else { "s" },
        shown.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use faultlens_core::results::{Outcome, TestRecord};
    use faultlens_workspace::devruns::ReportKind;

    fn record(name: &str, fail: bool) -> TestRecord {
        TestRecord::new(
            name,
            if fail {
                Outcome::Failed
            } else {
                Outcome::Passed
            },
        )
    }

    fn results(tests: Vec<TestRecord>) -> RunResults {
        RunResults {
            format_version: faultlens_core::results::FORMAT_VERSION,
            tool_version: "0".into(),
            created_unix_ms: 0,
            project_root: "/p".into(),
            suite: faultlens_core::results::SuiteKind::Ctest,
            files: vec![],
            tests,
            shard: None,
            notes: Vec::new(),
        }
    }

    fn dev(kind: ReportKind, tests: &[(&str, DevVerdict)], total: usize) -> DevRun {
        DevRun::new(
            kind,
            "build/Testing/Temporary/LastTest.log".into(),
            tests,
            total,
        )
    }

    #[test]
    fn agreeing_runs_say_nothing_and_cases_count_for_their_executable() {
        let ours = results(vec![
            record("a", false),
            record("b::one", false),
            record("b::two", true),
        ]);
        let theirs = dev(
            ReportKind::CTest,
            &[
                ("a", DevVerdict::Passed),
                ("b", DevVerdict::Failed),
                ("gone", DevVerdict::Failed),
            ],
            3,
        );
        assert!(disagreements(&theirs, &ours).is_empty());
        assert_eq!(explain(&theirs, &[]), None);
    }

    #[test]
    fn each_disagreement_is_said_with_both_verdicts() {
        let ours = results(vec![
            record("flaky", false),
            record("env", true),
            record("t_ok", true),
        ]);
        let theirs = dev(
            ReportKind::CTest,
            &[("flaky", DevVerdict::Failed), ("env", DevVerdict::Passed)],
            2,
        );
        let found = disagreements(&theirs, &ours);
        assert_eq!(found.len(), 2);
        let text = explain(&theirs, &found).unwrap();
        assert!(
            text.contains("flaky failed in your run and passed under faultlens"),
            "{text}"
        );
        assert!(
            text.contains("env passed in your run and failed under faultlens"),
            "{text}"
        );
        assert!(
            text.contains("ctest in build/ failed 1 of 2 tests"),
            "{text}"
        );
        // Automake names only what did not pass: t_ok passed for the developer.
        let automake = dev(ReportKind::Automake, &[("env", DevVerdict::Failed)], 3);
        let other_tests = dev(ReportKind::Automake, &[("env", DevVerdict::Failed)], 2);
        assert!(
            disagreements(&other_tests, &ours).is_empty(),
            "not the same tests"
        );
        let found = disagreements(&automake, &ours);
        assert_eq!(
            found,
            [Disagreement {
                test: "t_ok".into(),
                failed_for_developer: false
            }]
        );
    }
}
