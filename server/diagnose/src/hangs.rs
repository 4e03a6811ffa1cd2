//! Failing tests whose model runs never end: a loop that should stop does
//! not. An endless run has no formula to encode, but it can still be
//! mended by running it: a statement whose values, changed by the concrete
//! witnesses ([`crate::witnesses`]), let each such test end and pass is a
//! diagnosis (a loop condition that should be false at some values). When
//! every failing test hangs, that is the whole diagnosis: no SAT, no path
//! exploration, nothing complete.

use crate::assemble::{self, Explained};
use crate::bridge::ModelTest;
use crate::locate::Locator;
use crate::{evidence, ms, why_none, witnesses, DiagnoseError, MAX_ENCODED_STEPS};
use faultlens_core::diagnosis::{DiagnosisKind, DiagnosisReport};
use faultlens_csem::ir::{Program, StmtId};
use faultlens_maxsat::Budget;
use std::collections::BTreeSet;
use std::time::Instant;

/// Hanging tests run at most: each run goes to the step limit until its
/// loop is mended, and a witness needs a few dozen runs per test.
pub(crate) const MAX_HUNG_TESTS: usize = 4;

/// Why a hanging test beyond [`MAX_HUNG_TESTS`] is left out.
pub(crate) fn left_out_reason() -> String {
    format!("left out: at most {MAX_HUNG_TESTS} failing tests whose model runs do not end are run to find a statement that lets them end")
}

/// What [`diagnose`] is given besides the tests.
pub(crate) struct HangContext<'a> {
    pub prog: &'a Program,
    pub locator: &'a Locator,
    pub weights: &'a [u64],
    pub candidates: &'a [StmtId],
    pub trusted: &'a BTreeSet<StmtId>,
    pub start: Instant,
}

/// Diagnoses `hung` (the first [`MAX_HUNG_TESTS`]; the others stay among
/// `report`'s skipped tests) by concrete witnesses of `candidates` alone,
/// found within `budget`, their values verified within `verify`. An error
/// when no candidate mends them all.
pub(crate) fn diagnose(
    ctx: &HangContext,
    mut hung: Vec<ModelTest>,
    budget: &Budget,
    verify: &Budget,
    mut report: DiagnosisReport,
) -> Result<DiagnosisReport, DiagnoseError> {
    let rest: Vec<String> = hung
        .split_off(hung.len().min(MAX_HUNG_TESTS))
        .into_iter()
        .map(|t| t.name)
        .collect();
    let names: Vec<&str> = hung.iter().map(|t| t.name.as_str()).collect();
    let tests: Vec<&ModelTest> = hung.iter().collect();
    let found = witnesses::find(ctx.prog, &tests, ctx.trusted, ctx.candidates, budget);
    if found.found.is_empty() {
        return Err(DiagnoseError::NotModelled(format!(
            "{}; run with their values changed, none of the spectrum's top {} statements lets {} end and pass{}",
            why_none(&report.skipped_tests),
            ctx.candidates.len(),
            names.join(", "),
            match budget.exhausted() {
                Some(_) => " before the budget ran out",
                None => "",
            },
        )));
    }
    // The others stay skipped as runs that do not end, and are said to be
    // left out.
    for t in report
        .skipped_tests
        .iter_mut()
        .filter(|t| rest.contains(&t.name))
    {
        t.reason = format!("{}; {}", t.reason, left_out_reason());
    }
    report
        .skipped_tests
        .retain(|t| !names.contains(&t.name.as_str()));
    report.failing_tests = names.iter().map(|n| n.to_string()).collect();
    report.complete = false;
    report.stopped = Some(format!(
        "no failing test could be encoded, and those explained run past {MAX_ENCODED_STEPS} steps in the model (a hang): no search ran; the diagnoses are statements whose values, changed by running the tests, let each of them end and pass, and other statements may too"
    ));
    let weight = |s: StmtId| ctx.weights.get(s).copied().unwrap_or(1);
    let mut reported = Vec::new();
    assemble::add_explaining(
        ctx.prog,
        &Explained {
            tests: tests.iter().copied().enumerate().collect(),
            weight: &weight,
        },
        ctx.locator,
        &found.found,
        verify,
        &mut report,
        &mut reported,
    );
    // No search ran: nothing says that no cheaper set exists.
    for d in &mut report.diagnoses {
        d.kind = DiagnosisKind::Minimal;
    }
    report.evidence = evidence::line_evidence(&report.diagnoses, &report.cores);
    report.stats.suspects_checked = (found.found.len() + found.pending.len()) as u64;
    if let Some(first) = found.first {
        report.stats.first_ms = ms(first.duration_since(ctx.start));
    }
    report.stats.total_ms = ms(ctx.start.elapsed());
    report.stats.effort = budget.meter().effort();
    report.stats.worst_overrun_ms = ms(budget.meter().worst_overrun());
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_programs::{printing, program, HANGING_WIDTH};
    use crate::{diagnose_program, CancelToken, DiagnoseOptions};

    fn counts(name: &str, args: &[&str]) -> ModelTest {
        let mut t = printing(name, "1\n");
        t.input.args = args.iter().map(|a| a.to_string()).collect();
        t
    }

    /// The hanging tests, diagnosed with the statements on `lines` as the
    /// spectrum's top ones.
    fn diagnosed(lines: &[u32]) -> Result<DiagnosisReport, DiagnoseError> {
        let (dir, prog) = program(HANGING_WIDTH);
        let tests = vec![counts("three", &["3", "5", "7"]), counts("nine", &["9"])];
        let opts = DiagnoseOptions {
            suspects: lines
                .iter()
                .map(|&l| ("program.c".to_string(), l))
                .collect(),
            ..DiagnoseOptions::with_effort(60.0)
        };
        diagnose_program(
            &prog,
            dir.path(),
            tests,
            vec![],
            &opts,
            &|_| {},
            &CancelToken::new(),
        )
    }

    #[test]
    fn a_loop_that_never_ends_in_every_failing_test_is_diagnosed_by_running_them() {
        let report = diagnosed(&[8, 9, 10, 12, 13]).unwrap();
        assert_eq!(report.failing_tests, ["three", "nine"]);
        assert!(
            report.skipped_tests.is_empty(),
            "{:?}",
            report.skipped_tests
        );
        assert_eq!(report.diagnoses[0].kind, DiagnosisKind::Minimal);
        assert!(!report.complete);
        assert!(report.stopped.as_deref().unwrap().contains("a hang"));
        let lines: Vec<Vec<u32>> = report
            .diagnoses
            .iter()
            .map(|d| d.statements.iter().map(|s| s.line).collect())
            .collect();
        assert_eq!(lines, [[8]]);
        let angelic = &report.diagnoses[0].angelic;
        // The loop left at once for each count: 3, 5, 7 and 9.
        assert_eq!(angelic.len(), 4, "{angelic:?}");
        assert!(angelic.iter().all(|a| a.verified && a.value == 0));
    }

    #[test]
    fn hanging_tests_no_statement_mends_are_refused_with_why() {
        // `width = digits` runs only after the loop: no value of it ends one.
        let err = diagnosed(&[13]).unwrap_err().to_string();
        assert!(err.contains("cannot diagnose"), "{err}");
        assert!(err.contains("does not end within 200000 steps"), "{err}");
        assert!(err.contains("lets three, nine end and pass"), "{err}");
    }
}
