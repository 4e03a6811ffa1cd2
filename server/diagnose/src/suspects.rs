//! Spectrum-guided checks of single statements. The cost-ordered search
//! refutes every cheaper candidate before it reaches a costly one (a loop
//! condition weighs as much as what it guards), and each refutation may need
//! paths explored for every test; on a budget it can stop before reaching
//! the fault. Here the statements on the lines the spectrum ranks highest
//! are checked one at a time: a statement that alone lets every failing
//! test pass (all other statements healthy, paths explored on demand) is a
//! diagnosis, and a subset-minimal one, since no test passes unchanged.
//!
//! Each candidate is first given a concrete try, without SAT: flipping it
//! through a table keyed by its operands in the interpreter
//! ([`crate::consistent`]); that finds the conditions that must change at
//! many instances, where path exploration meets one new path per flip.
//!
//! The tests share nothing but health literals, so "explains every test" is
//! checked test by test, each in its own incremental SAT session.

use crate::bridge::ModelTest;
use crate::consistent;
use crate::joint::{holds, Joint};
use faultlens_csem::encode::Slot;
use faultlens_csem::ir::StmtId;
use faultlens_maxsat::rustsat::types::{Assignment, Lit};
use faultlens_maxsat::{Budget, SatAnswer, SatSession};
use std::collections::btree_map::{BTreeMap, Entry};
use std::time::Instant;

/// A statement that alone explains every active test, with the values its
/// instances take in each test's model.
pub struct Explaining {
    pub stmt: StmtId,
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
}

/// Test `i`'s session and how many of its clause pieces it holds.
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

/// Checks `candidates` in order until the budget runs out, or `once_found`
/// does after a statement was found (what comes after the check, refining
/// it, needs time too); `on_progress` gets the number decided.
pub fn check(
    joint: &mut Joint,
    candidates: &[StmtId],
    budget: &Budget,
    once_found: &Budget,
    on_progress: &mut dyn FnMut(usize),
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
    };
    let mut found: Vec<Explaining> = Vec::new();
    let mut first = None;
    let mut decided = 0;
    // Announced before the first decision, which can take the whole budget.
    on_progress(0);
    // Concrete witnesses first: a few runs per candidate, where a SAT check
    // can take seconds; and their values are consistent. At most a quarter
    // of the time (a long-running program makes every run count).
    let concrete = budget.share_of_rest(0.25);
    let mut pending: Vec<StmtId> = Vec::new();
    for &stmt in candidates {
        match checker.consistent_flips(stmt, &concrete) {
            Some(slots) => {
                found.push(Explaining { stmt, slots });
                first.get_or_insert_with(Instant::now);
                decided += 1;
                on_progress(decided);
            }
            None => pending.push(stmt),
        }
    }
    'passes: for rounds in ROUNDS {
        let mut undecided = Vec::new();
        for stmt in pending {
            if !found.is_empty() && once_found.exhausted().is_some() {
                break 'passes;
            }
            match checker.check_one(stmt, rounds)? {
                Outcome::Explains(slots) => {
                    found.push(Explaining { stmt, slots });
                    first.get_or_insert_with(Instant::now);
                }
                Outcome::Refuted => {}
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
    found.sort_by_key(|e| candidates.iter().position(|&c| c == e.stmt));
    Ok(Checked {
        found,
        first,
        decided,
        sat_calls,
    })
}

enum Outcome {
    Explains(BTreeMap<usize, Vec<Slot>>),
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
}

impl Checker<'_, '_> {
    fn check_one(&mut self, stmt: StmtId, rounds: usize) -> Result<Outcome, String> {
        if !self.joint.f.health.contains_key(&stmt) {
            // Run by no failing test: it cannot change any of them.
            return Ok(Outcome::Refuted);
        }
        let mut slots = BTreeMap::new();
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
                Verdict::NotExplained => {
                    self.order[..=k].rotate_right(1);
                    return Ok(Outcome::Refuted);
                }
                Verdict::Undecided => return Ok(Outcome::Undecided),
                Verdict::Stopped => return Ok(Outcome::Stopped),
            }
        }
        Ok(Outcome::Explains(slots))
    }

    /// A concrete witness by consistent flips ([`consistent`]): it finds
    /// what path exploration needs many rounds for (a condition wrong at
    /// many instances, each flip a new path), at the cost of a few runs.
    fn consistent_flips(
        &self,
        stmt: StmtId,
        budget: &Budget,
    ) -> Option<BTreeMap<usize, Vec<Slot>>> {
        let tests: Vec<&ModelTest> = self
            .order
            .iter()
            .map(|&i| &self.joint.tests[i].test)
            .collect();
        let found = consistent::witness(self.joint.prog(), &tests, stmt, budget)?;
        Some(
            found
                .into_iter()
                .map(|(k, slots)| (self.order[k], slots))
                .collect(),
        )
    }
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
            let sat = SatSession::new(&joint.instance_of(i), budget).map_err(|e| e.to_string())?;
            let pieces = joint.pieces(i);
            e.insert(Session { sat, pieces })
        }
    };
    for _ in 0..=rounds {
        // Paths explored since the session last looked (by this check or
        // by the search before it).
        for c in joint.clauses_since(i, session.pieces) {
            session
                .sat
                .add_clause(c.iter().copied())
                .map_err(|e| e.to_string())?;
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
