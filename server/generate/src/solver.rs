//! Finding runs with a SAT solver: the sfo paper's `choose` as a formula.
//!
//! The harness is encoded with csem's multi-path [`TestEncoding`]: every
//! `__VERIFIER_nondet_*()` draw is a free bit-vector, every statement is
//! healthy (the program as written), and paths are explored on demand: when
//! the solver's model leaves the encoded paths, the interpreter re-runs the
//! program with the model's draws (concolic) and the new path is encoded.
//! Two encodings share one formula: one whose outcome is "the run fails" (an
//! assert fires), one whose outcome is "exit status 0". A query adds
//! coverage constraints through csem's coverage literals (`covers`, which the
//! solver can only make false by avoiding the statement):
//!
//! - sfo: `F ∧ ¬spec ∧ ∨_{l ∈ S} ¬l` (a failing run missing a line of S);
//! - passing with new coverage: for every seen coverage C, miss a line of C
//!   (so runs whose coverage strictly contains a seen one are not found);
//! - SAT-TAR: per line of the data, a run (passing, or failing the same way)
//!   that misses it and differs from every seen coverage; the candidate
//!   closest to the failing run on the suspects wins.
//!
//! Every answer is replayed in the interpreter with the runtime's own code for
//! the free inputs (as the binary reads them); only a replay that satisfies
//! the query is returned.

use crate::explore::{Explorer, Query, Stats};
use crate::run::{Harness, Line, Run, Step};
use faultlens_csem::bv::Session;
use faultlens_csem::encode::{EncodeOptions, Expected, Formula, TestEncoding};
use faultlens_csem::ir::{Program, StmtId};
use faultlens_csem::TestInput;
use rustsat::types::Lit;
use std::collections::{BTreeMap, BTreeSet};

/// Solver rounds (solve, explore a divergence) per query at most.
const MAX_ROUNDS: usize = 400;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Fails,
    Passes,
}

pub struct SolverExplorer<'h> {
    harness: &'h Harness,
    prog: Program,
    /// Statements of each line of the project's files.
    lines: BTreeMap<Line, Vec<StmtId>>,
    f: Formula,
    session: Session,
    fed: usize,
    fails: Option<TestEncoding>,
    passes: Option<TestEncoding>,
    /// Root inputs of the two encodings.
    seed_fail: Vec<i64>,
    seed_pass: Vec<i64>,
    stats: Stats,
    /// Why an encoding could not be built or explored, if it could not.
    pub problems: Vec<String>,
    /// Answers whose replay did not satisfy the query (model disagreement).
    pub mismatches: usize,
    /// Time spent solving, and encoding paths (root runs and explored divergences).
    pub solve_time: std::time::Duration,
    pub encode_time: std::time::Duration,
    /// Queries after this instant are not solved (the search stops with what it has).
    pub deadline: Option<std::time::Instant>,
    /// Statements whose health literal is asserted (as a unit clause).
    healthy: BTreeSet<StmtId>,
}

impl SolverExplorer<'_> {
    /// Variables and clauses of the formula so far.
    pub fn size(&self) -> (u32, usize) {
        (self.f.cnf.n_vars(), self.f.cnf.clauses.len())
    }
}

/// Padding for a root run's draws beyond its seed (unused values are ignored).
const PAD: usize = 64;

impl<'h> SolverExplorer<'h> {
    /// `prog` is the harness loaded with csem's own free-input functions
    /// ([`crate::model::load_symbolic`]); `seeds` are runs of the data, whose
    /// inputs root the encodings.
    pub fn new(harness: &'h Harness, prog: Program, seeds: &[Run]) -> anyhow::Result<Self> {
        let mut lines: BTreeMap<Line, Vec<StmtId>> = BTreeMap::new();
        for func in &prog.funcs {
            for ins in &func.body {
                let file = prog.files.get(ins.range.file as usize);
                let name = file.and_then(|f| {
                    harness
                        .file_names
                        .iter()
                        .zip(&harness.prog.files)
                        .find_map(|(n, hf)| (hf == f).then(|| n.clone()).flatten())
                });
                if let Some(name) = name {
                    lines
                        .entry((name, ins.range.start.line))
                        .or_default()
                        .push(ins.stmt);
                }
            }
        }
        let pad = |inputs: &[i64]| {
            let mut v = inputs.to_vec();
            v.resize(inputs.len() + PAD, 0);
            v
        };
        let seed_fail = seeds
            .iter()
            .find(|r| r.verdict.is_fail())
            .or(seeds.first())
            .map_or(vec![0; PAD], |r| pad(&r.inputs));
        let seed_pass = seeds
            .iter()
            .find(|r| !r.verdict.is_fail())
            .or(seeds.first())
            .map_or(vec![0; PAD], |r| pad(&r.inputs));
        let f = Formula::new();
        let session = f.cnf.session()?;
        let fed = f.cnf.clauses.len();
        Ok(SolverExplorer {
            harness,
            prog,
            lines,
            f,
            session,
            fed,
            fails: None,
            passes: None,
            seed_fail,
            seed_pass,
            stats: Stats::default(),
            problems: Vec::new(),
            mismatches: 0,
            solve_time: std::time::Duration::ZERO,
            encode_time: std::time::Duration::ZERO,
            deadline: None,
            healthy: BTreeSet::new(),
        })
    }

    fn encoding(&mut self, outcome: Outcome) -> Option<&mut TestEncoding> {
        let slot_is_none = match outcome {
            Outcome::Fails => self.fails.is_none(),
            Outcome::Passes => self.passes.is_none(),
        };
        if slot_is_none {
            let (seed, exit) = match outcome {
                // glibc's assert aborts: the encoding's abort outcome is status 134.
                Outcome::Fails => (self.seed_fail.clone(), 134),
                Outcome::Passes => (self.seed_pass.clone(), 0),
            };
            let test = TestInput {
                nondet: seed,
                ..TestInput::default()
            };
            let expected = Expected { stdout: None, exit };
            let opts = EncodeOptions {
                max_paths: 2_000,
                ..EncodeOptions::default()
            };
            let t = std::time::Instant::now();
            let made = TestEncoding::new(&mut self.f, &self.prog, &test, &expected, &opts);
            self.encode_time += t.elapsed();
            match made {
                Ok(e) => match outcome {
                    Outcome::Fails => self.fails = Some(e),
                    Outcome::Passes => self.passes = Some(e),
                },
                Err(e) => {
                    self.problems.push(e.to_string());
                    return None;
                }
            }
        }
        match outcome {
            Outcome::Fails => self.fails.as_mut(),
            Outcome::Passes => self.passes.as_mut(),
        }
    }

    /// A literal that, assumed, makes the run miss at least one of `lines`
    /// (on the encoding for `outcome`). `None`: no constraint is needed (a
    /// line the program does not have is always missed).
    fn miss_one_of(&mut self, outcome: Outcome, lines: &BTreeSet<Line>) -> Option<Lit> {
        let mut options = Vec::new();
        for l in lines {
            // A line the program does not have is always missed: no constraint.
            let stmts = self.lines.get(l).cloned()?;
            self.encoding(outcome)?;
            let (enc, f) = match outcome {
                Outcome::Fails => (self.fails.as_mut()?, &mut self.f),
                Outcome::Passes => (self.passes.as_mut()?, &mut self.f),
            };
            let mut covers = Vec::new();
            for s in stmts {
                covers.push(enc.covers(f, s));
            }
            let missed = self.f.cnf.fresh();
            for c in covers {
                self.f.cnf.clause(&[!missed, !c]);
            }
            options.push(missed);
        }
        let act = self.f.cnf.fresh();
        let mut clause = vec![!act];
        clause.extend(options);
        self.f.cnf.clause(&clause);
        Some(act)
    }

    /// Inputs of a run with `outcome` under the assumed constraints, exploring
    /// paths until the model follows an encoded path to its end.
    fn solve(&mut self, outcome: Outcome, constraints: &[Lit]) -> Option<Vec<i64>> {
        self.encoding(outcome)?;
        for _ in 0..MAX_ROUNDS {
            if self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
            {
                let note =
                    "the solver's time budget ran out: later queries were not answered".to_string();
                if !self.problems.contains(&note) {
                    self.problems.push(note);
                }
                return None;
            }
            // Generation runs the program as written: every statement is
            // healthy, for good (units simplify far more than assumptions).
            let new: Vec<(StmtId, Lit)> = self
                .f
                .health
                .iter()
                .filter(|(s, _)| !self.healthy.contains(s))
                .map(|(s, h)| (*s, *h))
                .collect();
            for (s, h) in new {
                self.f.cnf.clause(&[h]);
                self.healthy.insert(s);
            }
            if let Err(e) = self.session.add_from(&self.f.cnf, self.fed) {
                self.problems.push(e.to_string());
                return None;
            }
            self.fed = self.f.cnf.clauses.len();
            let enc = match outcome {
                Outcome::Fails => self.fails.as_mut()?,
                Outcome::Passes => self.passes.as_mut()?,
            };
            let mut assumptions = vec![enc.pass()];
            assumptions.extend_from_slice(constraints);
            self.stats.queries += 1;
            let t = std::time::Instant::now();
            let solved = self.session.solve(&assumptions);
            self.solve_time += t.elapsed();
            let model = match solved {
                Ok(Some(m)) => m,
                Ok(None) => return None,
                Err(e) => {
                    self.problems.push(e.to_string());
                    return None;
                }
            };
            let value = |l: Lit| model.lit(l);
            let open = enc.open_divergences(&value);
            let Some(d) = open.first() else {
                return Some(enc.nondet_values(&value));
            };
            self.stats.interpreter_runs += 1;
            let t = std::time::Instant::now();
            let explored = enc.explore(&mut self.f, &self.prog, d);
            self.encode_time += t.elapsed();
            if let Err(e) = explored {
                self.problems.push(e.to_string());
                return None;
            }
        }
        self.problems.push(format!(
            "a query needed more than {MAX_ROUNDS} solver rounds"
        ));
        None
    }

    /// Replays `inputs` with the runtime's code; the run if the query accepts it.
    fn replay(&mut self, inputs: &[i64], q: &Query) -> Option<Run> {
        self.stats.interpreter_runs += 1;
        match self.harness.execute(&[], inputs) {
            Step::Done(run) if q.accepts(&run) => Some(run),
            // A failing run that violates another assertion: dropped.
            Step::Done(_) => None,
            _ => {
                self.mismatches += 1;
                None
            }
        }
    }

    fn answer(&mut self, outcome: Outcome, constraints: &[Lit], q: &Query) -> Option<Run> {
        let inputs = self.solve(outcome, constraints)?;
        self.replay(&inputs, q)
    }

    /// Constraints: miss a line of each coverage in `seen`.
    fn differ_from_all(&mut self, outcome: Outcome, seen: &[crate::run::Coverage]) -> Vec<Lit> {
        seen.iter()
            .filter_map(|c| self.miss_one_of(outcome, c))
            .collect()
    }
}

impl Explorer for SolverExplorer<'_> {
    fn find(&mut self, q: &Query) -> Option<Run> {
        match q {
            Query::FailingMissingOneOf(lines) => {
                let c: Vec<Lit> = self
                    .miss_one_of(Outcome::Fails, lines)
                    .into_iter()
                    .collect();
                self.answer(Outcome::Fails, &c, q)
            }
            Query::PassingWithNewCoverage(seen) => {
                let c = self.differ_from_all(Outcome::Passes, seen);
                self.answer(Outcome::Passes, &c, q)
            }
            Query::NewCoverage { .. } => self.best(q, &|_| 0),
        }
    }

    fn best(&mut self, q: &Query, score: &dyn Fn(&Run) -> i64) -> Option<Run> {
        let Query::NewCoverage { seen, .. } = q else {
            return self.find(q);
        };
        let universe: BTreeSet<Line> = seen.iter().flat_map(|c| c.iter().cloned()).collect();
        let mut best: Option<(Run, i64)> = None;
        for outcome in [Outcome::Passes, Outcome::Fails] {
            let base = self.differ_from_all(outcome, seen);
            for line in &universe {
                let mut c = base.clone();
                c.extend(self.miss_one_of(outcome, &BTreeSet::from([line.clone()])));
                if let Some(run) = self.answer(outcome, &c, q) {
                    let s = score(&run);
                    if best.as_ref().is_none_or(|(_, b)| s > *b) {
                        best = Some((run, s));
                    }
                }
            }
        }
        best.map(|(r, _)| r)
    }

    fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self.problems.clone();
        for e in [&self.fails, &self.passes].into_iter().flatten() {
            notes.extend(e.incomplete().iter().cloned());
        }
        if self.mismatches > 0 {
            notes.push(format!(
                "{} solver answers did not replay as predicted and were not used",
                self.mismatches
            ));
        }
        notes
    }

    fn stats(&self) -> Stats {
        let paths = |e: &Option<TestEncoding>| e.as_ref().map_or(0, |e| e.paths());
        Stats {
            population: paths(&self.fails) + paths(&self.passes),
            ..self.stats
        }
    }
}
