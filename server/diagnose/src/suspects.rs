//! Spectrum-guided checks of single statements. The cost-ordered search
//! refutes every cheaper candidate before it reaches a costly one (a loop
//! condition weighs as much as what it guards), and each refutation may need
//! paths explored for every test; on a budget it can stop before reaching
//! the fault. Here the statements on the lines the spectrum ranks highest
//! are checked one at a time: a statement that alone lets every failing
//! test pass (all other statements healthy, paths explored on demand) is a
//! diagnosis, and a subset-minimal one, since no test passes unchanged.
//!
//! Each candidate is first given a concrete try, without SAT
//! ([`crate::witnesses`]: flips found by running the tests); that finds the
//! conditions that must change at many instances, where path exploration
//! meets one new path per flip. The SAT check takes the candidates left.
//!
//! The tests share nothing but health literals, so "explains every test" is
//! checked test by test, each in its own incremental SAT session.

use crate::joint::{holds, Joint};
use crate::witnesses::Witnessed;
use faultlens_csem::encode::Slot;
use faultlens_csem::ir::StmtId;
use faultlens_maxsat::rustsat::types::{Assignment, Lit};
use faultlens_maxsat::{Budget, SatAnswer, SatSession};
use std::collections::btree_map::{BTreeMap, Entry};
use std::collections::BTreeSet;
use std::time::Instant;

/// A statement that alone explains every active test (or a cover: a few
/// statements each explaining some of the tests alone, together all),
/// with the values their instances take in each test's model.
pub struct Explaining {
    pub stmts: Vec<StmtId>,
    /// Per joint test index (active tests only). Read when the model was
    /// found: a later candidate may encode the test afresh, and the model's
    /// literals would then name nothing.
    pub slots: BTreeMap<usize, Vec<Slot>>,
}

pub struct Checked {
    pub found: Vec<Explaining>,
    /// When the first statement was found.
    pub first: Option<Instant>,
    /// Candidates decided (explaining or not) before the budget ran out.
    pub decided: usize,
    pub sat_calls: u64,
    /// Candidates none of whose values makes every test pass.
    pub refuted: BTreeSet<StmtId>,
}

/// Test `i`'s session and how many of its clause pieces it holds (each
/// added with its variables' run values as phase hints).
pub(crate) struct Session {
    sat: SatSession,
    pieces: usize,
}

pub(crate) enum Verdict {
    Explained(Assignment),
    NotExplained,
    /// Its models kept leaving the encoded paths for all the rounds allowed.
    Undecided,
    Stopped,
}

/// Exploration rounds one candidate may take per test, per pass. A
/// statement that is the fault often needs one or two new paths (one more
/// iteration, the other branch); a wrong one, e.g. a loop bound, can send
/// its models down path after path without ever making the test pass, and
/// would eat the budget of the candidates after it. So every candidate
/// first gets a few rounds, and those left undecided then get many (a
/// function's return value wrong at every tab character changes the path
/// at each one).
const ROUNDS: [usize; 2] = [6, 48];

/// Rounds of the first pass, before the search explores paths
/// ([`first_pass`]): the fault usually needs no more, and a wrong
/// candidate is left for later after a second or two at most.
pub(crate) const FIRST_PASS_ROUNDS: [usize; 1] = [2];

/// Checks `candidates` in order until the budget runs out, or `once_found`
/// does after a statement was found (what comes after the check, refining
/// it, needs time too); `on_progress` gets the number decided. Those
/// `witnessed` found (for the joint's active tests, in order) are not
/// checked again.
///
/// With `cover_up_to` above 1 (tests that fail in different ways, which
/// may be different faults), a candidate is checked on every test, not only
/// until one refutes it, and when no statement explains them all, up to
/// that many statements that each explain some tests alone and together
/// all are reported as one diagnosis. That is sound for the health
/// semantics: a statement free to change may keep its value in the tests
/// the other one explains.
pub fn check(
    joint: &mut Joint,
    candidates: &[StmtId],
    witnessed: Witnessed,
    budget: &Budget,
    once_found: &Budget,
    cover_up_to: usize,
    on_progress: &mut dyn FnMut(usize),
) -> Result<Checked, String> {
    check_in_passes(
        joint,
        candidates,
        witnessed,
        budget,
        once_found,
        cover_up_to,
        on_progress,
        &ROUNDS,
    )
}

/// The check's first pass, once the first search has encoded its tests
/// (`joint`, afresh) and before the search that explores paths: the
/// candidates the concrete witnesses left (`witnessed`, found for the
/// joint's tests), each given [`FIRST_PASS_ROUNDS`] of exploration, within
/// `budget`. A single fault is usually found here in a second or two,
/// where the search with every candidate's paths in one formula can take
/// the whole budget. Statements found join the witnesses' finds; those
/// refuted are marked so the check after the searches skips them (not
/// when `covering`: a statement explaining some tests may be part of a
/// cover); the rest stay pending.
pub fn first_pass(
    joint: &mut Joint,
    witnessed: Witnessed,
    budget: &Budget,
    covering: bool,
    on_progress: &mut dyn FnMut(usize),
) -> Result<(Witnessed, u64), String> {
    let tests = witnessed.tests.clone();
    let untried = witnessed.untried.clone();
    let mut refuted = witnessed.refuted.clone();
    let candidates = witnessed.pending.clone();
    let checked = check_in_passes(
        joint,
        &candidates,
        witnessed,
        budget,
        budget,
        0,
        on_progress,
        &FIRST_PASS_ROUNDS,
    )?;
    let found: BTreeSet<StmtId> = checked.found.iter().map(|e| e.stmts[0]).collect();
    if !covering {
        refuted.extend(checked.refuted);
    }
    let pending = |list: Vec<StmtId>| list.into_iter().filter(|s| !found.contains(s)).collect();
    let witnessed = Witnessed {
        tests,
        first: checked.first,
        pending: pending(candidates),
        untried: pending(untried),
        refuted,
        found: checked.found,
    };
    Ok((witnessed, checked.sat_calls))
}

#[allow(clippy::too_many_arguments)]
fn check_in_passes(
    joint: &mut Joint,
    candidates: &[StmtId],
    witnessed: Witnessed,
    budget: &Budget,
    once_found: &Budget,
    cover_up_to: usize,
    on_progress: &mut dyn FnMut(usize),
    passes: &[usize],
) -> Result<Checked, String> {
    let mut checker = Checker {
        // The test that refuted the last candidate goes first: a wrong
        // candidate is usually refuted by the same test.
        order: (0..joint.tests.len())
            .filter(|&i| joint.tests[i].active)
            .collect(),
        joint,
        sessions: BTreeMap::new(),
        budget,
        sat_calls: 0,
        covering: cover_up_to > 1,
    };
    let mut partial: Vec<(StmtId, BTreeMap<usize, Vec<Slot>>)> = Vec::new();
    // Announced before the first decision, which can take the whole budget.
    on_progress(0);
    // Concrete witnesses first (see `witnesses`): the SAT check takes the
    // statements they left.
    let mut found = witnessed.found;
    let mut first = witnessed.first;
    let mut refuted = BTreeSet::new();
    let mut decided = found.len() + witnessed.refuted.len();
    on_progress(decided);
    let mut pending = witnessed.pending;
    pending.retain(|s| !witnessed.refuted.contains(s));
    'passes: for &rounds in passes {
        let mut undecided = Vec::new();
        for stmt in pending {
            if budget.exhausted().is_some()
                || (!found.is_empty() && once_found.exhausted().is_some())
            {
                break 'passes;
            }
            match checker.check_one(stmt, rounds)? {
                Outcome::Explains(slots) => {
                    found.push(Explaining {
                        stmts: vec![stmt],
                        slots,
                    });
                    first.get_or_insert_with(Instant::now);
                }
                Outcome::Partly(slots) => partial.push((stmt, slots)),
                Outcome::Refuted => {
                    refuted.insert(stmt);
                }
                Outcome::Undecided => {
                    undecided.push(stmt);
                    continue;
                }
                Outcome::Stopped => break 'passes,
            }
            decided += 1;
            on_progress(decided);
        }
        pending = undecided;
    }
    let sat_calls = checker.sat_calls
        + checker
            .sessions
            .values()
            .map(|s| s.sat.sat_calls())
            .sum::<u64>();
    // Found in the second pass or the first: report in the candidates' order.
    found.sort_by_key(|e| candidates.iter().position(|&c| c == e.stmts[0]));
    if found.is_empty() {
        partial.sort_by_key(|(s, _)| candidates.iter().position(|c| c == s));
        let active: Vec<usize> = (0..checker.joint.tests.len())
            .filter(|&i| checker.joint.tests[i].active)
            .collect();
        if let Some(cover) = cover(&partial, &active, cover_up_to) {
            found.push(cover);
            first.get_or_insert_with(Instant::now);
        }
    }
    Ok(Checked {
        found,
        first,
        decided,
        sat_calls,
        refuted,
    })
}

enum Outcome {
    Explains(BTreeMap<usize, Vec<Slot>>),
    /// Explains these tests (not all), when covering.
    Partly(BTreeMap<usize, Vec<Slot>>),
    Refuted,
    Undecided,
    Stopped,
}

struct Checker<'j, 'p> {
    joint: &'j mut Joint<'p>,
    sessions: BTreeMap<usize, Session>,
    order: Vec<usize>,
    budget: &'j Budget,
    /// SAT calls of sessions dropped.
    sat_calls: u64,
    /// Check every test, for covers (see [`check`]).
    covering: bool,
}

impl Checker<'_, '_> {
    fn check_one(&mut self, stmt: StmtId, rounds: usize) -> Result<Outcome, String> {
        if !self.joint.f.health.contains_key(&stmt) {
            // Run by no failing test: it cannot change any of them.
            return Ok(Outcome::Refuted);
        }
        let mut slots = BTreeMap::new();
        let mut refuted = false;
        for k in 0..self.order.len() {
            let i = self.order[k];
            if !self.joint.tests[i].enc.complete() {
                // Earlier candidates used up the test's path bound, closing
                // the paths left: start again from a fresh encoding.
                self.joint.reencode(i)?;
                if let Some(old) = self.sessions.remove(&i) {
                    self.sat_calls += old.sat.sat_calls();
                }
            }
            let only = Freedom {
                unhealthy: &[stmt],
                extra: &[],
            };
            let mut verdict = explained_by(
                self.joint,
                &mut self.sessions,
                i,
                &only,
                rounds,
                self.budget,
            )?;
            // A candidate that explains the tests before this one is
            // promising: it explores on at once, rather than after every
            // other candidate's first pass, which can take the whole budget.
            let last = ROUNDS[ROUNDS.len() - 1];
            if matches!(verdict, Verdict::Undecided) && !slots.is_empty() && rounds < last {
                verdict =
                    explained_by(self.joint, &mut self.sessions, i, &only, last, self.budget)?;
            }
            match verdict {
                Verdict::Explained(model) => {
                    let enc = &self.joint.tests[i].enc;
                    slots.insert(i, enc.slots(&|l| holds(&model, l)));
                }
                Verdict::NotExplained if self.covering => refuted = true,
                Verdict::NotExplained => {
                    self.order[..=k].rotate_right(1);
                    return Ok(Outcome::Refuted);
                }
                // Covering, a test left undecided counts as not explained.
                Verdict::Undecided if self.covering && !slots.is_empty() => refuted = true,
                Verdict::Undecided => return Ok(Outcome::Undecided),
                Verdict::Stopped => return Ok(Outcome::Stopped),
            }
        }
        Ok(match (refuted, slots.is_empty()) {
            (false, _) => Outcome::Explains(slots),
            (true, true) => Outcome::Refuted,
            (true, false) => Outcome::Partly(slots),
        })
    }
}

/// Statements among `partial` (each explaining some of the `active` tests
/// alone, in the candidates' order) that together explain them all: at
/// most `up_to`, taken greedily (the one explaining most tests still
/// unexplained, the earlier on a tie), none explaining only tests the
/// others do. Each test's values are those of the first statement
/// explaining it.
fn cover(
    partial: &[(StmtId, BTreeMap<usize, Vec<Slot>>)],
    active: &[usize],
    up_to: usize,
) -> Option<Explaining> {
    if active.is_empty() {
        // Nothing to explain: no statement is a cover of it.
        return None;
    }
    let mut chosen: Vec<usize> = Vec::new();
    let mut left: Vec<usize> = active.to_vec();
    while !left.is_empty() {
        if chosen.len() == up_to {
            return None;
        }
        let (best, gain) = partial
            .iter()
            .enumerate()
            .map(|(k, (_, s))| (k, left.iter().filter(|i| s.contains_key(i)).count()))
            .max_by_key(|&(k, gain)| (gain, std::cmp::Reverse(k)))?;
        if gain == 0 {
            return None;
        }
        chosen.push(best);
        left.retain(|i| !partial[best].1.contains_key(i));
    }
    // Drop a statement whose tests the others explain (subset-minimal).
    let mut k = 0;
    while k < chosen.len() {
        let others: Vec<usize> = chosen.iter().copied().filter(|&c| c != chosen[k]).collect();
        let redundant = active
            .iter()
            .all(|i| others.iter().any(|&c| partial[c].1.contains_key(i)));
        if redundant && !others.is_empty() {
            chosen.remove(k);
        } else {
            k += 1;
        }
    }
    let mut slots = BTreeMap::new();
    for &i in active {
        let c = chosen.iter().find(|&&c| partial[c].1.contains_key(&i))?;
        slots.insert(i, partial[*c].1[&i].clone());
    }
    Some(Explaining {
        stmts: chosen.iter().map(|&c| partial[c].0).collect(),
        slots,
    })
}

/// What may change in a check: these statements (every other one healthy),
/// and whatever `extra` assumptions free (a sub-expression's literal).
pub struct Freedom<'a> {
    pub unhealthy: &'a [StmtId],
    pub extra: &'a [Lit],
}

/// Whether test `i` passes with only what `free` allows changed, exploring
/// the paths its models take until a model stays on encoded paths.
pub(crate) fn explained_by(
    joint: &mut Joint,
    sessions: &mut BTreeMap<usize, Session>,
    i: usize,
    free: &Freedom,
    rounds: usize,
    budget: &Budget,
) -> Result<Verdict, String> {
    let session = match sessions.entry(i) {
        Entry::Occupied(e) => e.into_mut(),
        Entry::Vacant(e) => {
            // The test's clauses come in the rounds below, as explored
            // paths do, so every piece is hinted in one place.
            let sat = SatSession::new(&joint.base_instance(), budget).map_err(|e| e.to_string())?;
            e.insert(Session { sat, pieces: 0 })
        }
    };
    for _ in 0..=rounds {
        // The test's pieces the session does not hold yet: its own path
        // at first, then the paths explored since it last looked (by this
        // check or by the search before it).
        for c in joint.clauses_since(i, session.pieces) {
            session
                .sat
                .add_clause(c.iter().copied())
                .map_err(|e| e.to_string())?;
        }
        for lit in joint.run_values_of(joint.clauses_since(i, session.pieces)) {
            session.sat.phase(lit).map_err(|e| e.to_string())?;
        }
        session.pieces = joint.pieces(i);
        let mut assumptions: Vec<Lit> = vec![joint.tests[i].enc.pass()];
        assumptions.extend(joint.health_of(i).into_iter().map(|(h, s)| {
            if free.unhealthy.contains(&s) {
                !h
            } else {
                h
            }
        }));
        assumptions.extend(free.extra);
        let model = match session.sat.solve(&assumptions).map_err(|e| e.to_string())? {
            SatAnswer::Sat(model) => model,
            SatAnswer::Unsat(_) => return Ok(Verdict::NotExplained),
            SatAnswer::Stopped(_) => return Ok(Verdict::Stopped),
        };
        if joint.explore_test(i, &|l| holds(&model, l))? == 0 {
            return Ok(Verdict::Explained(model));
        }
    }
    Ok(Verdict::Undecided)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_programs::{on_lines, program, unit_test};

    /// `len` should be `end - start`.
    const LENGTH: &str = "int main(void)
{
    const char *s = \"  ab\";
    int start = 0;
    while (s[start] == ' ')
        start++;
    int spaces = start;
    int end = 4;
    int len = end;
    return len == 2 && spaces >= 0 ? 0 : 1;
}
";

    #[test]
    fn the_first_pass_finds_the_wrong_value_and_marks_what_it_refuted() {
        let (_dir, prog) = program(LENGTH);
        let line = |l: u32| on_lines(&prog, &[l], |_| true)[0];
        let (count, spaces, len) = (line(6), line(7), line(9));
        let candidates = [count, spaces, len];
        let test = unit_test();
        let weights = crate::weights::statement_weights(&prog);
        let spent = Budget::unlimited().with_time_limit(std::time::Duration::ZERO);
        for covering in [false, true] {
            let mut joint = Joint::new(&prog, &weights, crate::encode_options(8));
            joint.add(&test).unwrap();
            let none =
                crate::witnesses::find(&prog, &[&test], &BTreeSet::new(), &candidates, &spent);
            let (passed, sat_calls) = first_pass(
                &mut joint,
                none,
                &Budget::unlimited(),
                covering,
                &mut |_| {},
            )
            .unwrap();
            assert!(sat_calls > 0);
            let found: Vec<StmtId> = passed.found.iter().map(|e| e.stmts[0]).collect();
            assert_eq!(found, [len]);
            assert_eq!(passed.pending, [count, spaces]);
            // No value of `spaces` changes `len`; a cover may still need a
            // statement that mends some tests.
            let refuted: BTreeSet<StmtId> = match covering {
                true => BTreeSet::new(),
                false => [spaces].into(),
            };
            assert_eq!(passed.refuted, refuted);
        }
    }

    fn explaining(stmt: StmtId, tests: &[usize]) -> (StmtId, BTreeMap<usize, Vec<Slot>>) {
        (stmt, tests.iter().map(|&t| (t, Vec::new())).collect())
    }

    #[test]
    fn a_cover_takes_the_statement_explaining_most_and_drops_the_redundant() {
        let partial = [
            explaining(10, &[0]),
            explaining(11, &[1]),
            explaining(12, &[0, 1]),
            explaining(13, &[2]),
        ];
        let found = cover(&partial, &[0, 1, 2], 3).expect("a cover");
        assert_eq!(found.stmts, [12, 13]);
        assert_eq!(found.slots.keys().copied().collect::<Vec<_>>(), [0, 1, 2]);
        // At most one statement: none covers all.
        assert!(cover(&partial, &[0, 1, 2], 1).is_none());
        // A test no statement explains: no cover.
        assert!(cover(&partial, &[0, 1, 2, 3], 3).is_none());
        // No test: nothing to cover.
        assert!(cover(&partial, &[], 3).is_none());
    }

    #[test]
    fn on_a_tie_the_earlier_candidate_goes_first_and_both_stay_when_needed() {
        let partial = [
            explaining(20, &[0, 1]),
            explaining(21, &[1, 2]),
            explaining(22, &[0, 2]),
        ];
        let found = cover(&partial, &[0, 1, 2], 3).expect("a cover");
        assert_eq!(found.stmts, [20, 21]);
    }
}
