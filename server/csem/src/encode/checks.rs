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
use crate::ir::{InstrKind, Program, StmtId};
use std::collections::BTreeSet;

/// Checks forced to pass at most: a test with more failing checks keeps
/// the rest failing on its root (its paths explore them).
const MAX_FORCED_CHECKS: usize = 16;

/// What `test`'s root path is run with: nothing substituted, or the
/// failing checks among `trusted`'s branches forced to pass, as long as each
/// forced run stays within the model (a forced check that guarded a null
/// pointer leads to a run that does not).
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
    let mut r = run(prog, test, &run_options(&inputs, max_steps));
    for _ in 0..MAX_FORCED_CHECKS {
        if !modelled(&r) || expected.met_by(&r) {
            break;
        }
        let Some((stmt, instance, taken)) = last_check(prog, &r.trace, trusted, &inputs) else {
            break;
        };
        let mut forced = inputs.clone();
        forced.overrides.insert(stmt, instance, u64::from(!taken));
        let next = run(prog, test, &run_options(&forced, max_steps));
        if !modelled(&next) {
            break;
        }
        inputs = forced;
        r = next;
    }
    inputs
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

/// The last trusted branch the run took and `forced` does not force, as
/// `(statement, instance, taken)`.
fn last_check(
    prog: &Program,
    trace: &[TraceEvent],
    trusted: &BTreeSet<StmtId>,
    forced: &RunInputs,
) -> Option<(StmtId, u32, bool)> {
    trace.iter().rev().find_map(|ev| {
        let Some(TraceValue::Int { bits, .. }) = ev.value else {
            return None;
        };
        (trusted.contains(&ev.stmt)
            && bits <= 1
            && !forced.overrides.0.contains_key(&(ev.stmt, ev.instance))
            && is_branch(prog, ev))
        .then_some((ev.stmt, ev.instance, bits == 1))
    })
}

/// Whether the event is a branch's: its statement is a condition and
/// nothing else (a `for`'s header also initialises and steps).
fn is_branch(prog: &Program, ev: &TraceEvent) -> bool {
    let Some(func) = prog.funcs.get(ev.func) else {
        return false;
    };
    let mut kinds = func
        .body
        .iter()
        .filter(|i| i.stmt == ev.stmt)
        .map(|i| &i.kind);
    let mut any = false;
    let only_branches = kinds.all(|k| match k {
        InstrKind::Branch { .. } => {
            any = true;
            true
        }
        InstrKind::Jump(_) => true,
        _ => false,
    });
    any && only_branches
}
