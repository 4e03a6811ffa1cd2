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
use crate::{evidence, ms, witnesses, DiagnoseError, MAX_ENCODED_STEPS};
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
    // The others stay skipped as runs that do not end, and are said to be
    // left out.
    let rest: Vec<String> = hung
        .split_off(hung.len().min(MAX_HUNG_TESTS))
        .into_iter()
        .map(|t| t.name)
        .collect();
    for t in report
        .skipped_tests
        .iter_mut()
        .filter(|t| rest.contains(&t.name))
    {
        t.reason = format!("{}; {}", t.reason, left_out_reason());
    }
    let names: Vec<&str> = hung.iter().map(|t| t.name.as_str()).collect();
    report
        .skipped_tests
        .retain(|t| !names.contains(&t.name.as_str()));
    let tests: Vec<&ModelTest> = hung.iter().collect();
    let found = witnesses::find(ctx.prog, &tests, ctx.trusted, ctx.candidates, budget);
    if found.found.is_empty() {
        return Err(DiagnoseError::NotModelled(format!(
            "every failing test tried ({}) runs past {MAX_ENCODED_STEPS} steps in the model (a hang, or a loop that needs a smaller input to be diagnosed), and no single statement among the spectrum's top {} lines, its values changed, lets them end and pass{}",
            names.join(", "),
            ctx.candidates.len(),
            match budget.exhausted() {
                Some(_) => " before the time budget ran out",
                None => "",
            },
        )));
    }
    report.failing_tests = names.iter().map(|n| n.to_string()).collect();
    report.complete = false;
    report.stopped = Some(format!(
        "every failing test's model run goes past {MAX_ENCODED_STEPS} steps (a hang), so none is encoded: the diagnoses are statements whose values, changed by running the tests, let each of them end and pass; other statements may too"
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
    Ok(report)
}

#[cfg(test)]
mod tests {
    use crate::test_programs::{printing, program};
    use crate::{diagnose_program, CancelToken, DiagnoseOptions};
    use std::time::Duration;

    /// Prints the widest count's digits; the fault: the loop's condition
    /// is negated, so it never ends for a count below 10.
    const WIDTH: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int width = 1;
    for (int i = 1; i < argc; i++) {
        int n = atoi(argv[i]);
        int digits = 1;
        while (!(n >= 10)) {
            n = n / 10;
            digits++;
        }
        if (digits > width)
            width = digits;
    }
    printf("%d\n", width);
    return 0;
}
"#;

    #[test]
    fn a_loop_that_never_ends_in_every_failing_test_is_diagnosed_by_running_them() {
        let (dir, prog) = program(WIDTH);
        let counts = |name: &str, args: &[&str]| {
            let mut t = printing(name, "1\n");
            t.input.args = args.iter().map(|a| a.to_string()).collect();
            t
        };
        let tests = vec![counts("three", &["3", "5", "7"]), counts("nine", &["9"])];
        let opts = DiagnoseOptions {
            time_limit: Some(Duration::from_secs(60)),
            suspects: [8, 9, 10, 12, 13]
                .map(|l| ("program.c".to_string(), l))
                .to_vec(),
            ..DiagnoseOptions::default()
        };
        let report = diagnose_program(
            &prog,
            dir.path(),
            tests,
            vec![],
            &opts,
            &|_| {},
            &CancelToken::new(),
        )
        .unwrap();
        assert_eq!(report.failing_tests, ["three", "nine"]);
        assert!(
            report.skipped_tests.is_empty(),
            "{:?}",
            report.skipped_tests
        );
        assert_eq!(
            report.diagnoses[0].kind,
            faultlens_core::diagnosis::DiagnosisKind::Minimal
        );
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
}
