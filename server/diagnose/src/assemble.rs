//! Assembling the report from what the search and the check found: the
//! reported diagnoses with their verified angelic values, the check's
//! single statements, sub-expressions, and a core per failing test. Pure
//! computation (the interpreter replays values; nothing is read or written).

use crate::bridge::{self, ModelTest};
use crate::joint;
use crate::locate::Locator;
use crate::phases::{Chosen, Phase};
use crate::{
    angelic, cores, encode_options, refine, search, suspects, DiagnoseProgress,
    MAX_ANGELIC_PER_TEST, MAX_ENCODED_STEPS,
};
use faultlens_core::diagnosis::{
    AngelicValue, Diagnosis, DiagnosisKind, DiagnosisReport, DiagnosisStats, TestCore,
};
use faultlens_csem::encode::{Slot, SlotRole};
use faultlens_csem::ir::{Program, SrcRange, StmtId};
use faultlens_maxsat::Budget;
use std::collections::BTreeSet;

/// The chosen diagnoses, in cost order, with their verified angelic values
/// (while the budget lasts); returns each reported one's statements. An
/// empty set, one blaming the free-input functions and one holding an
/// earlier reported set are left out.
pub(crate) fn report_diagnoses(
    prog: &Program,
    phases: &[&Phase],
    chosen: &[Chosen],
    locator: &Locator,
    budget: &Budget,
    report: &mut DiagnosisReport,
    progress: &dyn Fn(DiagnoseProgress),
) -> Vec<BTreeSet<StmtId>> {
    let total = chosen.len();
    let mut reported_stmts: Vec<BTreeSet<StmtId>> = Vec::new();
    for (k, (phase, f, optimal)) in chosen.iter().enumerate() {
        progress(DiagnoseProgress::Verifying { done: k, total });
        let joint = &phases[*phase].joint;
        let mut stmts = search::statements_of(&f.unhealthy, &joint.statement_of());
        stmts.sort_by_key(|&s| locator.line_of(s));
        let mut statements: Vec<_> = stmts.iter().map(|&s| locator.statement(s)).collect();
        // Several statements on one line are one line to the reader.
        statements.dedup_by(|a, b| a.file == b.file && a.line == b.line);
        // An empty set explains nothing, and the free-input functions stand
        // for the test's input, not for code the developer can change.
        if statements.is_empty() || statements.iter().any(|s| bridge::is_nondet_model(&s.file)) {
            continue;
        }
        // A set holding an earlier reported one is not subset-minimal (it can
        // only arise from merging the two phases' lists): leave it out.
        let holds_earlier = report.diagnoses.iter().any(|d| {
            d.statements.iter().all(|e| {
                statements
                    .iter()
                    .any(|s| s.file == e.file && s.line == e.line)
            })
        });
        if holds_earlier {
            continue;
        }
        let angelic = if budget.exhausted().is_none() {
            angelic_values(
                prog,
                &joint.active_tests(),
                locator,
                &|i| match &f.shown {
                    Some(values) => values.get(&i).cloned(),
                    None => Some(joint.tests[i].enc.slots(&|l| joint::holds(&f.model, l))),
                },
                &mut report.stats,
            )
        } else {
            report.stats.angelic_unchecked += 1;
            Vec::new()
        };
        reported_stmts.push(stmts.iter().copied().collect());
        report.diagnoses.push(Diagnosis {
            cost: f.cost,
            kind: if *optimal {
                DiagnosisKind::Optimal
            } else {
                DiagnosisKind::Minimal
            },
            statements,
            angelic,
            ..Default::default()
        });
    }
    progress(DiagnoseProgress::Verifying { done: total, total });
    reported_stmts
}

/// A minimal core per explained test of `phase`.
pub(crate) fn add_cores(
    prog: &Program,
    phase: &Phase,
    locator: &Locator,
    budget: &Budget,
    report: &mut DiagnosisReport,
) {
    for t in phase.joint.tests.iter().filter(|t| t.active) {
        if let Some((mut stmts, minimal)) = cores::core_of(
            prog,
            &t.test.input,
            &t.test.expected,
            MAX_ENCODED_STEPS,
            &phase.joint.f.trusted,
            budget,
        ) {
            stmts.sort_by_key(|&s| locator.line_of(s));
            let mut statements: Vec<_> = stmts
                .iter()
                .map(|&s| locator.statement(s))
                .filter(|s| !bridge::is_nondet_model(&s.file))
                .collect();
            statements.dedup_by(|a, b| a.file == b.file && a.line == b.line);
            report.cores.push(TestCore {
                test: t.test.name.clone(),
                statements,
                minimal,
            });
        }
    }
}

/// The tests a find explains, by the index its slots are keyed by, and
/// what its statements cost.
pub(crate) struct Explained<'a> {
    pub tests: Vec<(usize, &'a ModelTest)>,
    pub weight: &'a dyn Fn(StmtId) -> u64,
}

/// Adds the single statements the spectrum-guided check found to explain
/// every test (see `suspects.rs`): each is subset-minimal, so a reported set
/// holding it is not and goes. The list stays in cost order, and the labels
/// follow the costs (see [`relabel_by_cost`]).
pub(crate) fn add_explaining(
    prog: &Program,
    explained: &Explained,
    locator: &Locator,
    found: &[suspects::Explaining],
    budget: &Budget,
    report: &mut DiagnosisReport,
    reported_stmts: &mut Vec<BTreeSet<StmtId>>,
) {
    for e in found {
        let set: BTreeSet<StmtId> = e.stmts.iter().copied().collect();
        let mut statements: Vec<_> = e.stmts.iter().map(|&s| locator.statement(s)).collect();
        if let ([s], Some(range)) = (statements.as_mut_slice(), one_subexpression(e)) {
            s.subexpression = locator.subexpression(range);
        }
        if statements.iter().any(|s| bridge::is_nondet_model(&s.file))
            || reported_stmts.iter().any(|s| s.is_subset(&set))
        {
            continue;
        }
        // A listed set holding this one is not minimal.
        let mut k = 0;
        while k < report.diagnoses.len() {
            if reported_stmts[k].is_superset(&set) {
                report.diagnoses.remove(k);
                reported_stmts.remove(k);
            } else {
                k += 1;
            }
        }
        let angelic = if budget.exhausted().is_none() {
            angelic_values(
                prog,
                &explained.tests,
                locator,
                &|i| e.slots.get(&i).cloned(),
                &mut report.stats,
            )
        } else {
            report.stats.angelic_unchecked += 1;
            Vec::new()
        };
        let cost = e.stmts.iter().map(|&s| (explained.weight)(s)).sum::<u64>();
        // Among the diagnoses of its cost, with the other single statements:
        // the check's find is a diagnosis like the search's own.
        let at = report
            .diagnoses
            .iter()
            .position(|d| {
                d.cost > cost || (d.cost == cost && d.statements.len() > statements.len())
            })
            .unwrap_or(report.diagnoses.len());
        report.diagnoses.insert(
            at,
            Diagnosis {
                cost,
                kind: DiagnosisKind::Minimal,
                statements,
                angelic,
                ..Default::default()
            },
        );
        reported_stmts.insert(at, set);
        report.stats.suspects_explaining += 1;
    }
    relabel_by_cost(&mut report.diagnoses);
}

/// Where a find changes one sub-expression of its statement alone (a
/// comparison inside a condition, mended by consistent flips), its range.
fn one_subexpression(e: &suspects::Explaining) -> Option<SrcRange> {
    let mut slots = e.slots.values().flatten();
    let first = slots.next()?;
    let same = |s: &Slot| s.role == SlotRole::Subexpr && (s.stmt, s.arg) == (first.stmt, first.arg);
    (same(first) && slots.all(same)).then_some(first.range)
}

/// Labels diagnoses by cost once the list is complete: the cheapest are
/// optimal (the search's own and the spectrum-guided check's alike), an
/// "optimal" costlier than them was optimal only among the paths its search
/// explored and is minimal.
pub(crate) fn relabel_by_cost(diagnoses: &mut [Diagnosis]) {
    let cheapest = diagnoses.iter().map(|d| d.cost).min().unwrap_or(0);
    for d in diagnoses {
        d.kind = if d.cost == cheapest {
            DiagnosisKind::Optimal
        } else {
            DiagnosisKind::Minimal
        };
    }
}

/// Diagnoses refined to a sub-expression at most (each costs a SAT call
/// per candidate and test).
const MAX_REFINED: usize = 5;

/// Narrows the statements of the first diagnoses to the sub-expression that
/// must change, where one does, while the budget lasts.
#[allow(clippy::too_many_arguments)]
pub(crate) fn refine_diagnoses(
    prog: &Program,
    weights: &[u64],
    tests: &[ModelTest],
    reported_stmts: &[BTreeSet<StmtId>],
    locator: &Locator,
    budget: &Budget,
    report: &mut DiagnosisReport,
    max_paths: usize,
) {
    for (d, stmts) in report
        .diagnoses
        .iter_mut()
        .zip(reported_stmts)
        .take(MAX_REFINED)
    {
        if budget.exhausted().is_some() {
            return;
        }
        let opts = encode_options(max_paths);
        let Ok(refined) = refine::refine(prog, weights, tests, stmts, opts, budget) else {
            // A test that does not encode again: left unrefined.
            continue;
        };
        report.stats.subexpressions_checked += refined.checked as u64;
        for (stmt, range) in refined.found {
            let Some(place) = locator.line_of(stmt) else {
                continue;
            };
            // On a line with another of the diagnosis' statements, "change
            // this sub-expression" would not say which statement it is in.
            let alone = stmts
                .iter()
                .filter(|&&o| locator.line_of(o).as_ref() == Some(&place))
                .count()
                == 1;
            let (file, line) = place;
            let Some(s) = d
                .statements
                .iter_mut()
                .find(|s| alone && s.file == file && s.line == line)
            else {
                continue;
            };
            if let Some(sub) = locator.subexpression(range) {
                s.subexpression = Some(sub);
                report.stats.subexpressions_found += 1;
            }
        }
        if refined.stopped {
            return;
        }
    }
}

/// Verified angelic values of one diagnosis, per active test (`slots_of`:
/// the values a model gave the unhealthy statements' instances, by the
/// test's index in the joint formula).
fn angelic_values(
    prog: &Program,
    tests: &[(usize, &ModelTest)],
    locator: &Locator,
    slots_of: &dyn Fn(usize) -> Option<Vec<Slot>>,
    stats: &mut DiagnosisStats,
) -> Vec<AngelicValue> {
    let mut out = Vec::new();
    for &(i, test) in tests {
        let Some(slots) = slots_of(i) else { continue };
        match angelic::verify(prog, test, slots) {
            angelic::Verdict::Rejected => stats.angelic_rejected += 1,
            // A part of a verified set is not verified: a set too long to
            // show is left out whole (and counted), never cut.
            angelic::Verdict::Verified(kept) if kept.len() > MAX_ANGELIC_PER_TEST => {
                stats.angelic_too_long += 1
            }
            angelic::Verdict::Verified(kept) => {
                for s in &kept {
                    out.push(AngelicValue {
                        test: test.name.clone(),
                        file: locator.file(s.range).to_string(),
                        line: s.range.start.line,
                        instance: s.instance + 1,
                        value: s.value(),
                        text: angelic::text(s),
                        role: angelic::role_name(s.role).to_string(),
                        verified: true,
                        column: locator.shares_line(s.range).then_some(s.range.start.col),
                        argument: (s.role == SlotRole::OutputArg).then_some(s.arg + 1),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cheapest_diagnoses_are_optimal_whoever_found_them() {
        let d = |cost, kind| Diagnosis {
            cost,
            kind,
            ..Default::default()
        };
        let mut list = vec![
            d(2, DiagnosisKind::Optimal),
            d(2, DiagnosisKind::Minimal),
            d(3, DiagnosisKind::Optimal),
        ];
        relabel_by_cost(&mut list);
        let kinds: Vec<_> = list.iter().map(|d| d.kind).collect();
        assert_eq!(
            kinds,
            [
                DiagnosisKind::Optimal,
                DiagnosisKind::Optimal,
                DiagnosisKind::Minimal
            ]
        );
    }
}
