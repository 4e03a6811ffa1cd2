//! The failing tests the search left out (beyond the tests it encodes
//! together), checked alone against every listed diagnosis.
//!
//! A set of statements is a diagnosis of several failing tests when each
//! test, on its own, can pass with those statements changed: the joint
//! formula only shares the statements' health between the tests. So a test
//! the search had no room for can be checked alone. A single statement is
//! checked first by its concrete witnesses (runs of the test with its
//! values changed, a millisecond each), for every test before any SAT
//! call; what that leaves, a set of several statements among it, by SAT on
//! a formula of the test's own with only the diagnosis's statements free.
//! A test every diagnosis explains joins the tests explained; one a
//! diagnosis cannot make pass is named on that diagnosis, which is then no
//! diagnosis of it.

use crate::bridge::ModelTest;
use crate::joint::Joint;
use crate::suspects::{explained_by, Freedom, Verdict, FIRST_PASS_ROUNDS};
use crate::witnesses;
use faultlens_core::diagnosis::DiagnosisReport;
use faultlens_csem::ir::{Program, StmtId};
use faultlens_maxsat::Budget;
use std::collections::{BTreeMap, BTreeSet};

/// Exploration rounds a SAT check may take per test and diagnosis: the
/// check's first pass's (a changed value often needs a path or two beyond
/// the test's own run).
const ROUNDS: usize = FIRST_PASS_ROUNDS[0];

/// What a check runs on: the program, its statements' weights and trusted
/// statements (a unit test's own checks), and the paths a test may take.
pub(crate) struct Checker<'a> {
    pub prog: &'a Program,
    pub weights: &'a [u64],
    pub trusted: &'a BTreeSet<StmtId>,
    pub max_paths: usize,
}

/// Each test's verdict per diagnosis: `Some(true)` explained, `Some(false)`
/// no change of its statements makes the test pass, `None` undecided.
type Verdicts = Vec<Vec<Option<bool>>>;

impl Checker<'_> {
    /// Checks each of `tests` against each of `diagnoses` (their
    /// statements) while `budget` lasts: first every single statement by
    /// its concrete witnesses, then what is left by SAT, a test at a time.
    pub(crate) fn verdicts(
        &self,
        tests: &[ModelTest],
        diagnoses: &[BTreeSet<StmtId>],
        budget: &Budget,
    ) -> Verdicts {
        let mut verdicts = vec![vec![None; diagnoses.len()]; tests.len()];
        for (test, row) in tests.iter().zip(&mut verdicts) {
            for (stmts, verdict) in diagnoses.iter().zip(row.iter_mut()) {
                if budget.exhausted().is_some() {
                    return verdicts;
                }
                if let Some(&stmt) = stmts.first().filter(|_| stmts.len() == 1) {
                    let found = witnesses::find(self.prog, &[test], self.trusted, &[stmt], budget);
                    if !found.found.is_empty() {
                        *verdict = Some(true);
                    }
                }
            }
        }
        for (test, row) in tests.iter().zip(&mut verdicts) {
            if budget.exhausted().is_some() {
                break;
            }
            self.by_sat(test, diagnoses, row, budget);
        }
        verdicts
    }

    /// Decides `test`'s undecided verdicts in `row` by SAT, on a formula of
    /// the test's own (left undecided if it does not encode).
    fn by_sat(
        &self,
        test: &ModelTest,
        diagnoses: &[BTreeSet<StmtId>],
        row: &mut [Option<bool>],
        budget: &Budget,
    ) {
        if row.iter().all(Option::is_some) {
            return;
        }
        let mut joint = Joint::new(
            self.prog,
            self.weights,
            crate::encode_options(self.max_paths),
        );
        if joint.add(test).is_err() {
            return;
        }
        let mut sessions = BTreeMap::new();
        for (stmts, verdict) in diagnoses.iter().zip(row.iter_mut()) {
            if verdict.is_some() {
                continue;
            }
            let unhealthy: Vec<StmtId> = stmts.iter().copied().collect();
            let free = Freedom {
                unhealthy: &unhealthy,
                extra: &[],
            };
            *verdict = match explained_by(&mut joint, &mut sessions, 0, &free, ROUNDS, budget) {
                Ok(Verdict::Explained(_)) => Some(true),
                Ok(Verdict::NotExplained) => Some(false),
                Ok(Verdict::Undecided | Verdict::Stopped) | Err(_) => None,
            };
        }
    }
}

/// Checks the `left_out` tests (in order, while `budget` lasts) against
/// the report's diagnoses, whose statements `reported` holds in the same
/// order: a test every diagnosis explains moves from the skipped tests to
/// the explained ones; a refuting test is named on each diagnosis it
/// refutes, and each diagnosis counts the other left-out tests it
/// explains; the skip reasons say what was found.
pub(crate) fn check_left_out(
    checker: &Checker,
    left_out: &[ModelTest],
    reported: &[BTreeSet<StmtId>],
    budget: &Budget,
    report: &mut DiagnosisReport,
) {
    let listed = report.diagnoses.len().min(reported.len());
    if listed == 0 || left_out.is_empty() {
        return;
    }
    let verdicts = checker.verdicts(left_out, &reported[..listed], budget);
    for (test, row) in left_out.iter().zip(&verdicts) {
        if row.iter().all(Option::is_none) {
            continue;
        }
        report.stats.checked_alone += 1;
        if row.iter().all(|v| *v == Some(true)) {
            report.stats.explained_alone += 1;
            report.skipped_tests.retain(|t| t.name != test.name);
            report.failing_tests.push(test.name.clone());
            continue;
        }
        let numbers = |want: Option<bool>| -> Vec<String> {
            (0..listed)
                .filter(|&k| row[k] == want)
                .map(|k| format!("#{}", k + 1))
                .collect()
        };
        let mut found = Vec::new();
        for (what, want) in [
            ("explained by", Some(true)),
            ("not explained by", Some(false)),
            ("undecided within the budget for", None),
        ] {
            let ks = numbers(want);
            if !ks.is_empty() {
                found.push(format!("{what} diagnosis {}", ks.join(", ")));
            }
        }
        for (k, verdict) in row.iter().enumerate() {
            match verdict {
                Some(true) => report.diagnoses[k].explains_left_out += 1,
                Some(false) => report.diagnoses[k].not_explaining.push(test.name.clone()),
                None => {}
            }
        }
        if let Some(t) = report
            .skipped_tests
            .iter_mut()
            .find(|t| t.name == test.name)
        {
            t.reason = format!("{}; checked alone: {}", t.reason, found.join("; "));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_programs::{on_lines, printing, program};
    use faultlens_core::diagnosis::{Diagnosis, SkippedTest};
    use faultlens_csem::ir::InstrKind;

    /// Prints the absolute value of its argument; the fault: the condition
    /// (line 6) should be `x < 0`, so -1 to -5 print unchanged.
    const ABS: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int x = atoi(argv[1]);
    int y = x;
    if (x < -5)
        y = -x;
    printf("%d\n", y);
    return 0;
}
"#;

    fn statements(prog: &Program) -> (StmtId, StmtId, StmtId) {
        let copy = on_lines(prog, &[5], |_| true)[0];
        let cond = on_lines(prog, &[6], |k| matches!(k, InstrKind::Branch { .. }))[0];
        let negate = on_lines(prog, &[7], |_| true)[0];
        (copy, cond, negate)
    }

    fn checker<'a>(
        prog: &'a Program,
        weights: &'a [u64],
        trusted: &'a BTreeSet<StmtId>,
    ) -> Checker<'a> {
        Checker {
            prog,
            weights,
            trusted,
            max_paths: 8,
        }
    }

    /// A report of `diagnoses` empty diagnoses explaining `-3`, with the
    /// `left_out` tests skipped as left out.
    fn with_left_out(diagnoses: usize, left_out: &[ModelTest]) -> DiagnosisReport {
        DiagnosisReport {
            diagnoses: vec![Diagnosis::default(); diagnoses],
            failing_tests: vec!["-3".into()],
            skipped_tests: left_out
                .iter()
                .map(|t| SkippedTest {
                    name: t.name.clone(),
                    reason: "left out".into(),
                })
                .collect(),
            ..DiagnosisReport::default()
        }
    }

    #[test]
    fn a_test_is_explained_by_a_statement_and_refuted_by_one_its_run_never_reaches() {
        let (_dir, prog) = program(ABS);
        let weights = crate::weights::statement_weights(&prog);
        let trusted = BTreeSet::new();
        let checker = checker(&prog, &weights, &trusted);
        let (copy, cond, negate) = statements(&prog);
        let set = |s: &[StmtId]| s.iter().copied().collect::<BTreeSet<_>>();
        // The condition flipped (a concrete witness) mends -3; the negation
        // is never reached from -3 while the condition stands (refuted by
        // SAT); the copy and the negation together, a set of two, are
        // checked by SAT: the copy's value may be 3.
        let diagnoses = [set(&[cond]), set(&[negate]), set(&[copy, negate])];
        let verdicts = checker.verdicts(&[printing("-3", "3\n")], &diagnoses, &Budget::unlimited());
        assert_eq!(verdicts, [[Some(true), Some(false), Some(true)]]);
    }

    #[test]
    fn a_left_out_test_every_diagnosis_explains_joins_the_explained_and_one_refuting_is_named() {
        let (_dir, prog) = program(ABS);
        let weights = crate::weights::statement_weights(&prog);
        let trusted = BTreeSet::new();
        let checker = checker(&prog, &weights, &trusted);
        let (copy, cond, negate) = statements(&prog);
        let reported: Vec<BTreeSet<StmtId>> = vec![[cond].into(), [copy].into(), [negate].into()];
        let left_out = [printing("-2", "2\n"), printing("-4", "4\n")];
        let mut report = with_left_out(3, &left_out);
        check_left_out(
            &checker,
            &left_out,
            &reported,
            &Budget::unlimited(),
            &mut report,
        );
        // The line 7 negation explains no test that does not reach it.
        assert_eq!(report.diagnoses[2].not_explaining, ["-2", "-4"]);
        assert!(report.diagnoses[..2]
            .iter()
            .all(|d| d.not_explaining.is_empty()));
        assert_eq!(report.stats.checked_alone, 2);
        assert_eq!(report.stats.explained_alone, 0);
        assert_eq!(
            report.skipped_tests[0].reason,
            "left out; checked alone: explained by diagnosis #1, #2; not explained by diagnosis #3"
        );
        assert_eq!(report.diagnoses[0].explains_left_out, 2);

        // Without it, both are explained.
        let mut report = with_left_out(2, &left_out);
        check_left_out(
            &checker,
            &left_out,
            &reported[..2],
            &Budget::unlimited(),
            &mut report,
        );
        assert_eq!(report.failing_tests, ["-3", "-2", "-4"]);
        assert!(report.skipped_tests.is_empty());
        assert_eq!(report.stats.explained_alone, 2);
    }
}
