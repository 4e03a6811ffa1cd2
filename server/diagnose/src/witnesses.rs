//! Concrete witnesses of the spectrum's top statements, found by running
//! the failing tests rather than by SAT: a statement whose values, changed
//! at some of its instances, make every failing test pass is a diagnosis
//! at once (a subset-minimal one: no test passes unchanged). Four kinds
//! are tried per statement: consistent flips ([`crate::consistent`]: the
//! same function of its operands in every test), instance flips
//! ([`crate::flips`]: a condition flipped where the run needs it),
//! off-by-one values ([`crate::deltas`]: every instance one more or one
//! less) and variable swaps ([`crate::swaps`]: one variable read for
//! another). A statement costs runs of milliseconds where a SAT check
//! can take seconds, so the plan tries them first, before the searches, and the
//! SAT check takes the statements left.

use crate::bridge::ModelTest;
use crate::suspects::Explaining;
use crate::{consistent, deltas, flips, swaps};
use faultlens_csem::ir::{Program, StmtId};
use faultlens_maxsat::Budget;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

/// What the witnesses of some candidates showed.
pub struct Witnessed {
    /// The tests they were found for, by name: the keys of each find's
    /// values index this list.
    pub tests: Vec<String>,
    pub found: Vec<Explaining>,
    /// When the first was found.
    pub first: Option<Instant>,
    /// The candidates without a witness, in order, those not tried
    /// included.
    pub pending: Vec<StmtId>,
    /// The candidates not tried before the budget ran out, in order.
    pub untried: Vec<StmtId>,
    /// Pending candidates the SAT check's first pass refuted on these
    /// tests ([`crate::suspects::first_pass`]): none of their values makes
    /// every test pass.
    pub refuted: BTreeSet<StmtId>,
}

/// Looks for a witness of each of `candidates` in turn, on `tests` (their
/// unit-test checks are the statements in `trusted`), within `budget`.
pub fn find(
    prog: &Program,
    tests: &[&ModelTest],
    trusted: &BTreeSet<StmtId>,
    candidates: &[StmtId],
    budget: &Budget,
) -> Witnessed {
    let mut out = Witnessed {
        tests: tests.iter().map(|t| t.name.clone()).collect(),
        found: Vec::new(),
        first: None,
        pending: Vec::new(),
        untried: Vec::new(),
        refuted: BTreeSet::new(),
    };
    for &stmt in candidates {
        // No test: nothing to mend, and no witness.
        let slots: Option<BTreeMap<usize, _>> = if budget.exhausted().is_some() || tests.is_empty()
        {
            None
        } else {
            consistent::witness(prog, tests, stmt, budget)
                .or_else(|| flips::witness(prog, tests, stmt, trusted, budget))
                .or_else(|| deltas::witness(prog, tests, stmt, budget))
                .or_else(|| swaps::witness(prog, tests, stmt, budget))
        };
        match slots {
            Some(slots) => {
                out.found.push(Explaining {
                    stmts: vec![stmt],
                    slots,
                });
                out.first.get_or_insert_with(Instant::now);
            }
            None => {
                out.pending.push(stmt);
                // The budget may have cut its own try short too.
                if budget.exhausted().is_some() {
                    out.untried.push(stmt);
                }
            }
        }
    }
    out
}

impl Witnessed {
    /// Only the finds and pending statements among `candidates`.
    pub fn among(mut self, candidates: &[StmtId]) -> Self {
        self.found.retain(|e| candidates.contains(&e.stmts[0]));
        self.pending.retain(|s| candidates.contains(s));
        self.untried.retain(|s| candidates.contains(s));
        self.refuted.retain(|s| candidates.contains(s));
        if self.found.is_empty() {
            self.first = None;
        }
        self
    }

    /// The same finds for `names`, tests they were found for among others
    /// (a statement that mends every test mends each of them); `None`
    /// when some of `names` was not tried. On fewer tests the statements
    /// without a witness may have one (a test that none could mend is
    /// gone): they are untried again.
    pub fn for_tests(&self, names: &[String]) -> Option<Self> {
        let old: Vec<usize> = names
            .iter()
            .map(|n| self.tests.iter().position(|t| t == n))
            .collect::<Option<_>>()?;
        let found = self
            .found
            .iter()
            .map(|e| Explaining {
                stmts: e.stmts.clone(),
                slots: old
                    .iter()
                    .enumerate()
                    .filter_map(|(new, i)| Some((new, e.slots.get(i)?.clone())))
                    .collect(),
            })
            .collect();
        // A statement refuted on these tests may mend fewer.
        let (untried, refuted) = match names == self.tests.as_slice() {
            true => (self.untried.clone(), self.refuted.clone()),
            false => (self.pending.clone(), BTreeSet::new()),
        };
        Some(Witnessed {
            tests: names.to_vec(),
            found,
            first: self.first,
            pending: self.pending.clone(),
            untried,
            refuted,
        })
    }

    /// Tries the candidates the budget left untried, on the same `tests`,
    /// within `budget`: a witness costs milliseconds where the SAT check
    /// that takes the candidates left costs seconds, so none should reach
    /// it untried.
    pub fn resume(
        mut self,
        prog: &Program,
        tests: &[&ModelTest],
        trusted: &BTreeSet<StmtId>,
        budget: &Budget,
    ) -> Self {
        let untried = std::mem::take(&mut self.untried);
        if untried.is_empty() {
            return self;
        }
        let more = find(prog, tests, trusted, &untried, budget);
        let found: BTreeSet<StmtId> = more.found.iter().map(|e| e.stmts[0]).collect();
        self.pending.retain(|s| !found.contains(s));
        self.found.extend(more.found);
        self.first = self.first.or(more.first);
        self.untried = more.untried;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deltas::tests::SPAN;
    use crate::test_programs::{on_lines, program, unit_test};
    use faultlens_csem::encode::Slot;
    use std::time::Duration;

    #[test]
    fn finds_stand_for_any_of_the_tests_they_were_found_for() {
        let (_dir, prog) = program(SPAN);
        let span = on_lines(&prog, &[4], |_| true)[0];
        let t = unit_test();
        let one = find(
            &prog,
            &[&t],
            &BTreeSet::new(),
            &[span],
            &Budget::unlimited(),
        );
        let slot = |bits: u64| Slot {
            bits,
            ..one.found[0].slots[&0][0].clone()
        };
        // Three tests, each with values of its own, and a statement
        // without a witness on all three.
        let all = Witnessed {
            tests: vec!["a".into(), "b".into(), "c".into()],
            found: vec![Explaining {
                stmts: vec![span],
                slots: (0..3).map(|i| (i, vec![slot(i as u64)])).collect(),
            }],
            first: None,
            pending: vec![span + 1],
            untried: Vec::new(),
            refuted: [span + 1].into(),
        };
        let of_c_and_a = all
            .for_tests(&["c".into(), "a".into()])
            .expect("both tried");
        assert_eq!(of_c_and_a.tests, ["c", "a"]);
        let bits: Vec<(usize, u64)> = of_c_and_a.found[0]
            .slots
            .iter()
            .map(|(i, s)| (*i, s[0].bits))
            .collect();
        assert_eq!(bits, [(0, 2), (1, 0)]);
        // On fewer tests the statement without a witness is tried again,
        // and its refutation by SAT on all three no longer holds.
        assert_eq!(of_c_and_a.untried, [span + 1]);
        assert!(of_c_and_a.refuted.is_empty());
        let same = all.for_tests(&all.tests.clone()).unwrap();
        assert!(same.untried.is_empty());
        assert_eq!(same.refuted, [span + 1].into());
        assert!(all.for_tests(&["b".into(), "d".into()]).is_none());
    }

    #[test]
    fn candidates_a_spent_budget_left_untried_are_tried_when_resumed() {
        let (_dir, prog) = program(SPAN);
        let span = on_lines(&prog, &[4], |_| true)[0];
        let t = unit_test();
        let spent = Budget::unlimited().with_time_limit(Duration::ZERO);
        let none = find(&prog, &[&t], &BTreeSet::new(), &[span], &spent);
        assert!(none.found.is_empty());
        assert_eq!(
            (none.pending.as_slice(), none.untried.as_slice()),
            (&[span][..], &[span][..])
        );
        let resumed = none.resume(&prog, &[&t], &BTreeSet::new(), &Budget::unlimited());
        assert_eq!(resumed.found.len(), 1);
        assert_eq!(resumed.found[0].stmts, [span]);
        assert!(resumed.pending.is_empty() && resumed.untried.is_empty());
        assert!(resumed.first.is_some());
    }
}
