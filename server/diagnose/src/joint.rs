//! All failing tests in one formula (faultlens-csem's `Formula`): each test
//! is a `TestEncoding` (its own copies of the program's semantics along the
//! paths encoded so far, its inputs, its expected outcome), and all share one
//! health literal per statement. "Test i passes" is its `pass` literal,
//! asserted in the MaxSAT instance (not in the formula, so that a single
//! test's clauses can be taken apart for its core).
//!
//! As the search's [`Refiner`], it explores on demand: when a model leaves
//! the encoded paths of some test at an unexplored divergence, the path
//! through it is encoded and the new clauses and health literals go to the
//! solver before it solves again.

use crate::bridge::ModelTest;
use crate::search::{Refinement, Refiner, Values};
use crate::shown::Shown;
use faultlens_csem::encode::{EncodeOptions, Formula, TestEncoding};
use faultlens_csem::ir::{Program, StmtId};
use faultlens_maxsat::rustsat::types::{Assignment, Lit, TernaryVal, Var};
use faultlens_maxsat::{minimal_core, Budget, CoreOutcome, Instance};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

pub struct Encoded {
    pub test: ModelTest,
    pub enc: TestEncoding,
    /// Clause ranges of `Formula::cnf` this test added.
    ranges: Vec<(usize, usize)>,
    /// The health literals in the clauses of its first ranges, and how many
    /// ranges those are: a test's clauses are scanned once, not per check
    /// (a scan of millions of clauses took 7% of a diagnosis).
    health_seen: RefCell<(usize, BTreeMap<Lit, StmtId>)>,
    /// Whether its `pass` is asserted in the search.
    pub active: bool,
}

pub struct Joint<'p> {
    prog: &'p Program,
    pub f: Formula,
    pub tests: Vec<Encoded>,
    weights: &'p [u64],
    /// Clauses of `f.cnf` given to the solver so far.
    clauses_given: usize,
    /// Health literals given to the solver as soft literals so far.
    softs_given: BTreeSet<Lit>,
    opts: EncodeOptions,
    /// Paths explored on demand.
    pub explored: u64,
    /// Explore the divergences of one test a refinement, not of every
    /// test the model leaves: the test explored last first, else the next
    /// one in order. A proposal is refuted when one test cannot pass, and
    /// confirmed only when every test can; exploring every test at once
    /// grew numfmt's formula by 300,000 to 700,000 clauses a refinement
    /// (8 tests) where one test's path would do, and the search took 274 s
    /// instead of 30 (see the README).
    pub explore_one_test: bool,
    /// The test explored last.
    focus: Option<usize>,
    /// Diagnoses shown already ([`crate::shown`]), with their values per
    /// test index: a model proposing one of them is accepted as it is.
    pub shown: Vec<(BTreeSet<StmtId>, Values)>,
}

pub fn holds(model: &Assignment, l: Lit) -> bool {
    model.lit_value(l) == TernaryVal::True
}

impl<'p> Joint<'p> {
    pub fn new(prog: &'p Program, weights: &'p [u64], opts: EncodeOptions) -> Self {
        let mut f = Formula::new();
        f.trusted = crate::weights::trusted(weights);
        Joint {
            prog,
            f,
            tests: Vec::new(),
            weights,
            clauses_given: 0,
            softs_given: BTreeSet::new(),
            opts,
            explored: 0,
            explore_one_test: false,
            focus: None,
            shown: Vec::new(),
        }
    }

    /// Encodes the path of the test's own run.
    pub fn add(&mut self, test: &ModelTest) -> Result<(), String> {
        let before = self.f.cnf.clauses.len();
        match TestEncoding::new(
            &mut self.f,
            self.prog,
            &test.input,
            &test.expected,
            &self.opts,
        ) {
            Ok(enc) => {
                let after = self.f.cnf.clauses.len();
                self.tests.push(Encoded {
                    test: test.clone(),
                    enc,
                    ranges: vec![(before, after)],
                    health_seen: RefCell::default(),
                    active: true,
                });
                Ok(())
            }
            Err(e) => Err(match &test.unanswered_reads {
                Some(why) => format!("{e} ({why})"),
                None => e.to_string(),
            }),
        }
    }

    /// Accepts the diagnoses `shown` already that have values for every
    /// active test (keyed by test index from now on).
    pub fn accept_shown(&mut self, shown: &[Shown]) {
        let active = self.active_tests();
        self.shown = shown
            .iter()
            .filter_map(|s| Some((s.stmts.clone(), s.for_tests(&active)?)))
            .collect();
    }

    /// The values of the shown diagnosis whose statements are exactly
    /// those `model` makes unhealthy, if any and if the model leaves the
    /// encoded paths (else its own values stand).
    fn shown_values(&self, model: &Assignment) -> Option<Values> {
        let m = |l: Lit| holds(model, l);
        let leaves = |t: &Encoded| t.active && !t.enc.open_divergences(&m).is_empty();
        if self.shown.is_empty() || !self.tests.iter().any(leaves) {
            return None;
        }
        let unhealthy: BTreeSet<StmtId> = self
            .f
            .health
            .iter()
            .filter(|(_, &h)| !holds(model, h))
            .map(|(&s, _)| s)
            .collect();
        let (_, values) = self.shown.iter().find(|(s, _)| *s == unhealthy)?;
        Some(values.clone())
    }

    /// Encodes test `i` afresh along its own run's path, forgetting the
    /// paths explored (its old clauses stay in the formula, unused).
    pub fn reencode(&mut self, i: usize) -> Result<(), String> {
        let before = self.f.cnf.clauses.len();
        let t = &self.tests[i].test;
        let enc = TestEncoding::new(&mut self.f, self.prog, &t.input, &t.expected, &self.opts)
            .map_err(|e| e.to_string())?;
        let after = self.f.cnf.clauses.len();
        self.tests[i].enc = enc;
        self.tests[i].ranges = vec![(before, after)];
        self.tests[i].health_seen = RefCell::default();
        Ok(())
    }

    pub fn prog(&self) -> &'p Program {
        self.prog
    }

    /// The active tests, by their index.
    pub fn active_tests(&self) -> Vec<(usize, &ModelTest)> {
        self.tests
            .iter()
            .enumerate()
            .filter(|(_, t)| t.active)
            .map(|(i, t)| (i, &t.test))
            .collect()
    }

    pub fn weight(&self, stmt: StmtId) -> u64 {
        self.weights.get(stmt).copied().unwrap_or(1)
    }

    /// The formula so far as the search's starting point: every clause,
    /// the active tests' `pass` literals, and the health literals as softs.
    pub fn start(&mut self) -> (Vec<Vec<Lit>>, Vec<(Lit, u64)>) {
        let mut hard = self.f.cnf.clauses.clone();
        hard.extend(
            self.tests
                .iter()
                .filter(|t| t.active)
                .map(|t| vec![t.enc.pass()]),
        );
        self.clauses_given = self.f.cnf.clauses.len();
        self.softs_given.clear();
        let softs = self.new_softs();
        (hard, softs)
    }

    fn new_softs(&mut self) -> Vec<(Lit, u64)> {
        let fresh: Vec<(StmtId, Lit)> = self
            .f
            .health
            .iter()
            .filter(|(_, l)| !self.softs_given.contains(l))
            .map(|(&s, &l)| (s, l))
            .collect();
        fresh
            .into_iter()
            .map(|(s, l)| {
                self.softs_given.insert(l);
                (l, self.weight(s))
            })
            .collect()
    }

    pub fn statement_of(&self) -> BTreeMap<Var, StmtId> {
        self.f.health.iter().map(|(&s, l)| (l.var(), s)).collect()
    }

    /// Explores every unexplored divergence test `i` takes under `model`;
    /// returns how many.
    pub fn explore_test(&mut self, i: usize, model: &dyn Fn(Lit) -> bool) -> Result<usize, String> {
        let divs = self.tests[i].enc.open_divergences(model);
        for d in &divs {
            let before = self.f.cnf.clauses.len();
            self.tests[i]
                .enc
                .explore(&mut self.f, self.prog, d)
                .map_err(|e| {
                    format!("exploring a path of test {}: {e}", self.tests[i].test.name)
                })?;
            let after = self.f.cnf.clauses.len();
            self.tests[i].ranges.push((before, after));
            self.explored += 1;
        }
        Ok(divs.len())
    }

    /// The formula's variables and its constant-true unit, and no test's
    /// clauses: what a test's own solver starts from.
    pub fn base_instance(&self) -> Instance {
        let mut inst = Instance::new();
        inst.declare_vars(self.f.cnf.n_vars());
        inst.add_hard(self.f.cnf.clauses[0].iter().copied());
        inst
    }

    /// Test `i`'s own clauses (with the constant-true unit) as an instance.
    pub fn instance_of(&self, i: usize) -> Instance {
        let mut inst = self.base_instance();
        for c in self.clauses_since(i, 0) {
            inst.add_hard(c.iter().copied());
        }
        inst
    }

    /// How many pieces (own path, then one per explored path) test `i`'s
    /// clauses came in so far.
    pub fn pieces(&self, i: usize) -> usize {
        self.tests[i].ranges.len()
    }

    /// Test `i`'s clauses from its piece `from` on.
    pub fn clauses_since(&self, i: usize, from: usize) -> impl Iterator<Item = &[Lit]> {
        self.tests[i].ranges[from..]
            .iter()
            .flat_map(|&(a, b)| self.f.cnf.clauses[a..b].iter().map(Vec::as_slice))
    }

    /// The health literals occurring in test `i`'s clauses.
    pub fn health_of(&self, i: usize) -> BTreeMap<Lit, StmtId> {
        let t = &self.tests[i];
        let mut seen = t.health_seen.borrow_mut();
        if seen.0 < t.ranges.len() {
            let by_var: BTreeMap<Var, (StmtId, Lit)> = self
                .f
                .health
                .iter()
                .map(|(&s, &l)| (l.var(), (s, l)))
                .collect();
            for &(a, b) in &t.ranges[seen.0..] {
                for c in &self.f.cnf.clauses[a..b] {
                    for l in c {
                        if let Some(&(s, h)) = by_var.get(&l.var()) {
                            seen.1.insert(h, s);
                        }
                    }
                }
            }
            seen.0 = t.ranges.len();
        }
        seen.1.clone()
    }

    /// Whether test `i` alone can pass with every statement free to change
    /// (exploring the paths that takes); `Err` when the budget ran out.
    pub fn explainable_alone(&mut self, i: usize, budget: &Budget) -> Result<bool, String> {
        loop {
            let mut assumptions = vec![self.tests[i].enc.pass()];
            assumptions.extend(self.health_of(i).keys().map(|&h| !h));
            match minimal_core(&self.instance_of(i), &assumptions, budget)
                .map_err(|e| e.to_string())?
            {
                CoreOutcome::Satisfiable(model) => {
                    if self.explore_test(i, &|l| holds(&model, l))? == 0 {
                        return Ok(true);
                    }
                }
                CoreOutcome::Core { .. } => return Ok(false),
                CoreOutcome::Stopped(_) => return Err("the time budget ran out".into()),
            }
        }
    }

    /// The literals of `vars` true in the concrete runs the formula copies
    /// (a variable no run gave a value, such as a health literal, is left
    /// out): what a solver should try first.
    pub fn run_values(&self, vars: Range<u32>) -> Vec<Lit> {
        let end = vars.end.min(self.f.cnf.n_vars());
        (vars.start..end)
            .filter_map(|v| self.run_value(Var::new(v)))
            .collect()
    }

    /// [`Joint::run_values`] of the variables in `clauses` (a test's own
    /// solver holds only its clauses: other variables would only grow it).
    pub fn run_values_of<'c>(&self, clauses: impl Iterator<Item = &'c [Lit]>) -> Vec<Lit> {
        let vars: BTreeSet<Var> = clauses.flatten().map(|l| l.var()).collect();
        vars.into_iter().filter_map(|v| self.run_value(v)).collect()
    }

    fn run_value(&self, var: Var) -> Option<Lit> {
        let lit = var.pos_lit();
        self.f.cnf.shadow(lit).map(|b| if b { lit } else { !lit })
    }

    pub fn paths(&self) -> u64 {
        self.tests
            .iter()
            .filter(|t| t.active)
            .map(|t| t.enc.paths() as u64)
            .sum()
    }
}

impl Refiner for Joint<'_> {
    fn refine(&mut self, model: &Assignment) -> Result<Refinement, String> {
        let m = |l: Lit| holds(model, l);
        if let Some(values) = self.shown_values(model) {
            return Ok(Refinement {
                shown: Some(values),
                ..Refinement::default()
            });
        }
        if self.explore_one_test {
            let n = self.tests.len();
            let first = self.focus.unwrap_or(0);
            for k in 0..n {
                let i = (first + k) % n;
                if self.tests[i].active && self.explore_test(i, &m)? > 0 {
                    self.focus = Some(i);
                    break;
                }
            }
        } else {
            for i in 0..self.tests.len() {
                if self.tests[i].active {
                    self.explore_test(i, &m)?;
                }
            }
        }
        let clauses = self.f.cnf.clauses[self.clauses_given..].to_vec();
        self.clauses_given = self.f.cnf.clauses.len();
        let softs = self.new_softs();
        Ok(Refinement {
            clauses,
            softs,
            shown: None,
        })
    }

    fn n_vars(&self) -> u32 {
        self.f.cnf.n_vars()
    }

    fn phases(&self, vars: Range<u32>) -> Vec<Lit> {
        self.run_values(vars)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{self, search, SearchOptions};
    use crate::test_programs::{on_lines, printing, program};

    /// Prints 1 for a number from 0 up; the fault: `n > 5` (line 6).
    const SIGN: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    int sign = 0;
    if (n > 5)
        sign = 1;
    printf("%d\n", sign);
    return 0;
}
"#;

    /// The statements of every diagnosis a complete search finds.
    fn diagnoses(joint: &mut Joint) -> (Vec<Vec<StmtId>>, Vec<search::Found>) {
        let (hard, softs) = joint.start();
        let opts = SearchOptions {
            max_size: 2,
            max_diagnoses: 10,
            budget_text: search::BudgetText::default(),
        };
        let found = search(hard, softs, joint, &opts, &Budget::unlimited(), &mut |_| {}).unwrap();
        assert!(found.complete);
        let of = joint.statement_of();
        let mut sets: Vec<Vec<StmtId>> = found
            .found
            .iter()
            .map(|f| {
                let mut s = search::statements_of(&f.unhealthy, &of);
                s.sort_unstable();
                s
            })
            .collect();
        sets.sort();
        (sets, found.found)
    }

    fn sign_joint<'p>(prog: &'p Program, weights: &'p [u64], one: bool) -> Joint<'p> {
        let mut joint = Joint::new(prog, weights, crate::encode_options(8));
        joint.explore_one_test = one;
        for arg in ["0", "3"] {
            joint.add(&printing(arg, "1\n")).unwrap();
        }
        joint
    }

    #[test]
    fn exploring_one_test_a_refinement_finds_the_same_diagnoses() {
        let (_dir, prog) = program(SIGN);
        let weights = crate::weights::statement_weights(&prog);
        let (every, _) = diagnoses(&mut sign_joint(&prog, &weights, false));
        let mut one_joint = sign_joint(&prog, &weights, true);
        let (one, _) = diagnoses(&mut one_joint);
        let condition = on_lines(&prog, &[6], |_| true);
        assert!(every
            .iter()
            .any(|d| d.iter().any(|s| condition.contains(s))));
        assert_eq!(one, every);
    }

    #[test]
    fn a_proposal_shown_already_is_accepted_with_its_values() {
        let (_dir, prog) = program(SIGN);
        let weights = crate::weights::statement_weights(&prog);
        let mut joint = sign_joint(&prog, &weights, true);
        let condition: BTreeSet<StmtId> = on_lines(&prog, &[6], |_| true).into_iter().collect();
        let values: Values = [(0, Vec::new()), (1, Vec::new())].into();
        joint.shown = vec![(condition.clone(), values.clone())];
        let (_, found) = diagnoses(&mut joint);
        let of = joint.statement_of();
        let find = found
            .iter()
            .find(|f| {
                search::statements_of(&f.unhealthy, &of)
                    .into_iter()
                    .collect::<BTreeSet<_>>()
                    == condition
            })
            .expect("the condition is a diagnosis");
        // Its model leaves the encoded paths (the branch's other arm): the
        // values shown stand for it.
        assert_eq!(find.shown.as_ref(), Some(&values));
    }
}
