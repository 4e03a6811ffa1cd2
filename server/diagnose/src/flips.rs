//! Instance flips: a concrete witness that one condition, changed at a few
//! of its instances, explains the failing tests, found by running them.
//!
//! Consistent flips ([`crate::consistent`]) change a condition wherever
//! its operands take given values; a condition whose operands do not tell
//! the right instances from the wrong ones escapes them: `strncmp(k, key,
//! strlen(key)) == 0` compares 0 with 0 both for the right key and for a
//! longer key it is a prefix of. And the SAT check meets one new path per
//! flipped instance, in an order the solver chooses. Here a test's
//! instances are flipped one at a time, greedily: the flip that brings the
//! run closest to passing is kept, until it passes. Closeness is counted
//! in the test's own terms: fewer failed checks of a unit test (its
//! trusted assertions forced to pass one after another,
//! [`faultlens_csem::encode::force_failing_checks`]), then more of the
//! expected stdout printed.

use crate::angelic;
use crate::bridge::ModelTest;
use faultlens_csem::encode::{force_failing_checks, Slot, SlotRole};
use faultlens_csem::ir::{Program, StmtId};
use faultlens_csem::{run, Overrides, RunResult, TraceValue};
use faultlens_maxsat::Budget;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

/// Flips kept per test at most.
const MAX_FLIPS: usize = 6;
/// Instances tried per step at most (the first ones the run met).
const MAX_INSTANCES: usize = 32;
/// Flipped runs per test at most, over all steps: a statement is one of
/// forty candidates, and a few runs each is what makes this step cheap.
const MAX_TRIES: usize = 64;

/// Per test (index into `tests`), the flipped instances of `stmt` under
/// which it passes; `None` when some test has none within the bounds (or
/// the budget ran out), or `stmt` is no condition.
pub fn witness(
    prog: &Program,
    tests: &[&ModelTest],
    stmt: StmtId,
    trusted: &BTreeSet<StmtId>,
    budget: &Budget,
) -> Option<BTreeMap<usize, Vec<Slot>>> {
    let mut out = BTreeMap::new();
    for (i, t) in tests.iter().enumerate() {
        let flipping = Flipping {
            prog,
            test: t,
            stmt,
            trusted,
        };
        out.insert(i, flipping.greedy(budget)?);
    }
    (!out.is_empty()).then_some(out)
}

struct Flipping<'a> {
    prog: &'a Program,
    test: &'a ModelTest,
    stmt: StmtId,
    trusted: &'a BTreeSet<StmtId>,
}

/// How close a run is to passing, greater is closer, compared in this
/// order: fewer failed checks (`usize::MAX` when forcing them does not make
/// it pass); more checks passed before the first failed one (one flip may
/// move the failure to a later check before the next makes it pass); more
/// of the expected output.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Closeness {
    failed_checks: Reverse<usize>,
    passed_first: usize,
    printed: usize,
}

impl Flipping<'_> {
    fn greedy(&self, budget: &Budget) -> Option<Vec<Slot>> {
        let mut flips = Overrides::new();
        // A statement that is no condition costs this one run.
        let plain = run(
            self.prog,
            &self.test.input,
            &self.test.traced(Overrides::new()),
        );
        if self.instances(&plain, &flips).is_empty() {
            return None;
        }
        let (mut r, mut best) = self.judge(&flips, plain)?;
        let mut tries = 0;
        for _ in 0..MAX_FLIPS {
            let mut step: Option<(Overrides, RunResult, Closeness)> = None;
            for (instance, taken) in self.instances(&r, &flips) {
                budget.exhausted().is_none().then_some(())?;
                tries += 1;
                if tries > MAX_TRIES {
                    return None;
                }
                let mut next = flips.clone();
                next.insert(self.stmt, instance, u64::from(!taken));
                let flipped = run(self.prog, &self.test.input, &self.test.traced(next.clone()));
                let Some((nr, closeness)) = self.judge(&next, flipped) else {
                    continue;
                };
                if angelic::passes(&nr, self.test) {
                    return Some(self.slots(&nr, &next));
                }
                if closeness > step.as_ref().map_or(best, |s| s.2) {
                    step = Some((next, nr, closeness));
                }
            }
            let (next, nr, closeness) = step?;
            (flips, r, best) = (next, nr, closeness);
        }
        None
    }

    /// `r`, the run with `flips`, and how close it is to passing; `None`
    /// when it left the model.
    fn judge(&self, flips: &Overrides, r: RunResult) -> Option<(RunResult, Closeness)> {
        let opts = self.test.traced(flips.clone());
        if matches!(
            r.outcome,
            faultlens_csem::Outcome::RuntimeError { .. } | faultlens_csem::Outcome::StepLimit
        ) {
            return None;
        }
        let forced = force_failing_checks(
            self.prog,
            &self.test.input,
            &self.test.expected,
            self.trusted,
            &opts,
            &r,
        );
        // The matching prefix alone: bytes in common beyond it reward
        // flips that print the wrong line, which this greedy search keeps.
        let printed = angelic::printed_as_expected(self.test, &r.stdout).prefix;
        let failed = match forced.passes {
            true => forced.overrides.len(),
            false => usize::MAX,
        };
        let first_failed = forced.overrides.first().map(|&(s, i, _)| (s, i));
        let passed_first = r
            .trace
            .iter()
            .take_while(|ev| Some((ev.stmt, ev.instance)) != first_failed)
            .filter(|ev| {
                self.trusted.contains(&ev.stmt) && self.prog.is_condition(ev.func, ev.stmt)
            })
            .count();
        let closeness = Closeness {
            failed_checks: Reverse(failed),
            passed_first,
            printed,
        };
        Some((r, closeness))
    }

    /// The instances of the statement in the run, as `(instance, taken)`,
    /// not flipped yet.
    fn instances(&self, r: &RunResult, flips: &Overrides) -> Vec<(u32, bool)> {
        r.trace
            .iter()
            .filter(|ev| ev.stmt == self.stmt && !flips.0.contains_key(&(ev.stmt, ev.instance)))
            .filter_map(|ev| match ev.value {
                Some(TraceValue::Int { bits, .. })
                    if bits <= 1 && self.prog.is_condition(ev.func, ev.stmt) =>
                {
                    Some((ev.instance, bits == 1))
                }
                _ => None,
            })
            .take(MAX_INSTANCES)
            .collect()
    }

    /// The flips as the slots that replay them.
    fn slots(&self, r: &RunResult, flips: &Overrides) -> Vec<Slot> {
        flips
            .0
            .iter()
            .map(|(&(stmt, instance), &bits)| {
                let range = r
                    .trace
                    .iter()
                    .find(|ev| ev.stmt == stmt)
                    .map(|ev| ev.range)
                    .unwrap_or_default();
                Slot {
                    stmt,
                    instance,
                    range,
                    role: SlotRole::Condition,
                    bits,
                    width: 1,
                    signed: false,
                    float: None,
                    arg: 0,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_programs::{on_lines, program, unit_test};
    use faultlens_csem::ir::InstrKind;

    /// A lookup matching a key's prefix, checked as a unit test checks it.
    const PREFIX: &str = r#"#include <stdlib.h>
#include <string.h>
static const char *keys[3] = {"timeout_ms", "timeout", "retries"};
static int find(const char *key)
{
    for (int i = 0; i < 3; i++)
        if (strncmp(keys[i], key, strlen(key)) == 0)
            return i;
    return -1;
}
static void check(int holds)
{
    if (!holds)
        exit(1);
}
int main(void)
{
    check(find("timeout") == 1);
    check(find("timeout_ms") == 0);
    check(find("timeout") == 1);
    return 0;
}
"#;

    #[test]
    fn a_prefix_match_is_flipped_at_the_instances_that_matched_a_longer_key() {
        let (_dir, prog) = program(PREFIX);
        let trusted: BTreeSet<StmtId> = on_lines(&prog, &[13, 14, 18, 19, 20], |_| true)
            .into_iter()
            .collect();
        let compare = on_lines(&prog, &[7], |k| matches!(k, InstrKind::Branch { .. }))[0];
        let t = unit_test();
        let found = witness(&prog, &[&t], compare, &trusted, &Budget::unlimited())
            .expect("two flips pass both checks of \"timeout\"");
        // Each lookup of "timeout" meets "timeout_ms" first: instances 0
        // (then "timeout" itself matches at 1) and 3 (after "timeout_ms"
        // matched itself at 2); the first flip passes the first check.
        let flipped: Vec<(u32, u64)> = found[&0].iter().map(|s| (s.instance, s.bits)).collect();
        assert_eq!(flipped, [(0, 0), (3, 0)]);
        assert!(found[&0].iter().all(|s| s.role == SlotRole::Condition));
        assert!(angelic::replay_passes(&prog, &t, &found[&0]));
    }

    #[test]
    fn a_statement_that_is_no_condition_has_no_flips() {
        // `return i` returns 0 at its first instance: were it flipped like
        // a direction, 1 would make the first check pass.
        let (_dir, prog) = program(PREFIX);
        let ret = on_lines(&prog, &[8], |_| true)[0];
        let none = BTreeSet::new();
        assert!(witness(&prog, &[&unit_test()], ret, &none, &Budget::unlimited()).is_none());
    }
}
