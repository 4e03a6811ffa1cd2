//! The run a test's paths start from.
//!
//! A unit test's assertions are trusted code (the specification): their
//! conditions hold as computed, so a failing test's own run ends in a failed
//! check that no model of that path can pass. Started from there, the search
//! refutes the own path at once and explores paths blindly until one passes
//! the check. The root is instead the run with each failing trusted check
//! forced to pass in turn: the run a fix of a wrong value takes, which a
//! model along it can satisfy by changing values alone. Nothing is lost:
//! the forced branch's other direction is a divergence of the root like any
//! other, and every other divergence of the own run before the check is one
//! of the root's (they share the prefix).

use super::paths::RunInputs;
use super::Expected;
use crate::interp::{run, Outcome, RunOptions, RunResult, TestInput, TraceEvent, TraceValue};
use crate::ir::{Program, StmtId};
use std::collections::BTreeSet;

/// Checks forced to pass at most: a test with more failing checks keeps
/// the rest failing on its root (its paths explore them).
const MAX_FORCED_CHECKS: usize = 16;

/// What `test`'s root path is run with: nothing substituted, or the
/// failing checks among `trusted`'s branches forced to pass
/// ([`force_failing_checks`]).
pub(crate) fn root_inputs(
    prog: &Program,
    test: &TestInput,
    expected: &Expected,
    trusted: &BTreeSet<StmtId>,
    max_steps: u64,
) -> RunInputs {
    let mut inputs = RunInputs::of(test);
    if trusted.is_empty() {
        return inputs;
    }
    let opts = run_options(&inputs, max_steps);
    let own = run(prog, test, &opts);
    let forced = force_failing_checks(prog, test, expected, trusted, &opts, &own);
    for (stmt, instance, bits) in forced.overrides {
        inputs.overrides.insert(stmt, instance, bits);
    }
    inputs
}

/// A run's failing trusted checks forced to pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForcedChecks {
    /// `(statement, instance, direction)` of each check forced, in order.
    pub overrides: Vec<(StmtId, u32, u64)>,
    /// Whether the run with them forced ends as expected.
    pub passes: bool,
}

/// Forces the failing checks of `first`, the traced run `opts` made (its
/// overrides kept), to pass in turn: the last trusted branch taken before the run ends
/// other than expected, then the next, as long as each forced run stays
/// within the model (a forced check that guarded a null pointer leads to a
/// run that does not) and at most [`MAX_FORCED_CHECKS`]. How many it takes
/// measures how far a run is from passing: a unit test's failed assertions.
pub fn force_failing_checks(
    prog: &Program,
    test: &TestInput,
    expected: &Expected,
    trusted: &BTreeSet<StmtId>,
    opts: &RunOptions,
    first: &RunResult,
) -> ForcedChecks {
    let mut opts = opts.clone();
    let mut last: Option<RunResult> = None;
    let mut overrides = Vec::new();
    for _ in 0..MAX_FORCED_CHECKS {
        let r = last.as_ref().unwrap_or(first);
        if !modelled(r) || expected.met_by(r) || trusted.is_empty() {
            break;
        }
        let Some((stmt, instance, taken)) = last_check(prog, &r.trace, trusted, &opts) else {
            break;
        };
        let mut forced = opts.clone();
        forced.overrides.insert(stmt, instance, u64::from(!taken));
        let next = run(prog, test, &forced);
        // Kept when the run then gets further (or passes): a trusted branch
        // taken last that was no failed check (a summary after the
        // failures) changes nothing that matters.
        if !modelled(&next) || !(expected.met_by(&next) || next.trace.len() > r.trace.len()) {
            break;
        }
        overrides.push((stmt, instance, u64::from(!taken)));
        opts = forced;
        last = Some(next);
    }
    ForcedChecks {
        overrides,
        passes: expected.met_by(last.as_ref().unwrap_or(first)),
    }
}

/// The interpreter's options for a run with `inputs`, traced.
pub(crate) fn run_options(inputs: &RunInputs, max_steps: u64) -> RunOptions {
    RunOptions {
        trace: true,
        max_trace: usize::MAX,
        max_steps,
        overrides: inputs.overrides.clone(),
        output_overrides: inputs.out.clone(),
        expr_overrides: inputs.expr.clone(),
        // Draws beyond the test's values are inputs the solver chooses anyway.
        nondet_fill: Some(0),
        ..RunOptions::default()
    }
}

/// Whether the run ended within the model (no undefined behaviour, within the step limit).
fn modelled(r: &RunResult) -> bool {
    !matches!(r.outcome, Outcome::RuntimeError { .. } | Outcome::StepLimit)
}

/// The last trusted branch the run took and `opts` does not force, as
/// `(statement, instance, taken)`.
fn last_check(
    prog: &Program,
    trace: &[TraceEvent],
    trusted: &BTreeSet<StmtId>,
    opts: &RunOptions,
) -> Option<(StmtId, u32, bool)> {
    trace.iter().rev().find_map(|ev| {
        let Some(TraceValue::Int { bits, .. }) = ev.value else {
            return None;
        };
        (trusted.contains(&ev.stmt)
            && bits <= 1
            && !opts.overrides.0.contains_key(&(ev.stmt, ev.instance))
            && prog.is_condition(ev.func, ev.stmt))
        .then_some((ev.stmt, ev.instance, bits == 1))
    })
}
