//! Finding runs with wanted properties: the `choose` of the sfo paper.
//!
//! The strategies ask an [`Explorer`] for runs by [`Query`]. The explorer
//! here, [`Enumerator`], explores every path of the harness over a bounded
//! input domain by concolic-style prefix extension: it runs the interpreter
//! with a prefix of inputs; when the run asks for one more value it extends
//! the prefix with each value of the domain. Every complete run is a member of
//! the (bounded) population, so a query it answers "none" has no answer in
//! that population: the property the sfo paper proves for its `choose` holds
//! over the domain explored.

use crate::domain::Domain;
use crate::run::{Coverage, Harness, Line, Run, Step};
use std::collections::BTreeSet;

/// What a wanted run must satisfy.
#[derive(Clone, Debug)]
pub enum Query<'a> {
    /// sfo: a failing run that does not execute at least one of these lines.
    FailingMissingOneOf(&'a BTreeSet<Line>),
    /// sfo_p: a passing run whose coverage differs from every one given.
    PassingWithNewCoverage(&'a [Coverage]),
    /// SAT-TAR: any run whose coverage differs from every one given, failing
    /// only by `violation` (failing runs that violate something else are dropped).
    NewCoverage {
        seen: &'a [Coverage],
        violation: &'a str,
    },
}

impl Query<'_> {
    pub fn accepts(&self, run: &Run) -> bool {
        match self {
            Query::FailingMissingOneOf(lines) => {
                run.verdict.is_fail() && lines.iter().any(|l| !run.coverage.contains(l))
            }
            Query::PassingWithNewCoverage(seen) => {
                !run.verdict.is_fail() && !seen.contains(&run.coverage)
            }
            Query::NewCoverage { seen, violation } => {
                let same_failure = match &run.verdict {
                    crate::run::Verdict::Pass => true,
                    crate::run::Verdict::Fail { violation: v } => v == violation,
                };
                same_failure && !seen.contains(&run.coverage)
            }
        }
    }
}

/// Work counters, for progress and the benchmark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Queries answered (the solver calls of the paper's tool).
    pub queries: usize,
    /// Interpreter runs made to answer them.
    pub interpreter_runs: usize,
    /// Complete runs in the explored population.
    pub population: usize,
    /// Paths given up on (undefined behaviour, step limit, too many draws).
    pub invalid: usize,
}

pub trait Explorer {
    /// The first run (in a deterministic order) the query accepts.
    fn find(&mut self, q: &Query) -> Option<Run>;
    /// The accepted run with the highest `score`, the first among equals.
    fn best(&mut self, q: &Query, score: &dyn Fn(&Run) -> i64) -> Option<Run>;
    fn stats(&self) -> Stats;
    /// What limited the search (a budget reached, a path the model could not
    /// follow): said to the user beside the results.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Limits of the enumeration.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// Draws per run at most; longer paths are given up.
    pub max_draws: usize,
    /// Interpreter runs at most; the population is what was reached.
    pub max_runs: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_draws: 12,
            max_runs: 20_000,
        }
    }
}

/// Explores every path over the domain, once, then answers queries from it.
pub struct Enumerator<'h> {
    harness: &'h Harness,
    args: Vec<String>,
    domain: Domain,
    bounds: Bounds,
    population: Option<Vec<Run>>,
    stats: Stats,
    /// Whether `max_runs` cut the exploration short.
    pub truncated: bool,
}

impl<'h> Enumerator<'h> {
    pub fn new(harness: &'h Harness, args: Vec<String>, domain: Domain, bounds: Bounds) -> Self {
        Enumerator {
            harness,
            args,
            domain,
            bounds,
            population: None,
            stats: Stats::default(),
            truncated: false,
        }
    }

    /// Every complete run over the domain (explored on first use).
    pub fn population(&mut self) -> &[Run] {
        if self.population.is_none() {
            let mut runs = Vec::new();
            let mut stack: Vec<Vec<i64>> = vec![Vec::new()];
            while let Some(prefix) = stack.pop() {
                if self.stats.interpreter_runs >= self.bounds.max_runs {
                    self.truncated = true;
                    break;
                }
                self.stats.interpreter_runs += 1;
                match self.harness.execute(&self.args, &prefix) {
                    Step::Done(run) => runs.push(run),
                    Step::Invalid(_) => self.stats.invalid += 1,
                    Step::NeedsInput(_) if prefix.len() >= self.bounds.max_draws => {
                        self.stats.invalid += 1
                    }
                    Step::NeedsInput(function) => {
                        // Reversed so the smallest value is explored first.
                        for v in self.domain.values_for(&function).into_iter().rev() {
                            let mut next = prefix.clone();
                            next.push(v);
                            stack.push(next);
                        }
                    }
                }
            }
            self.stats.population = runs.len();
            self.population = Some(runs);
        }
        self.population.as_deref().unwrap_or(&[])
    }
}

impl Explorer for Enumerator<'_> {
    fn find(&mut self, q: &Query) -> Option<Run> {
        self.stats.queries += 1;
        self.population().iter().find(|r| q.accepts(r)).cloned()
    }

    fn best(&mut self, q: &Query, score: &dyn Fn(&Run) -> i64) -> Option<Run> {
        self.stats.queries += 1;
        let mut best: Option<(&Run, i64)> = None;
        for r in self.population().iter().filter(|r| q.accepts(r)) {
            let s = score(r);
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((r, s));
            }
        }
        best.map(|(r, _)| r.clone())
    }

    fn stats(&self) -> Stats {
        self.stats
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.truncated {
            notes.push(format!(
                "the enumeration stopped at its budget of {} interpreter runs: runs beyond it were not considered",
                self.bounds.max_runs
            ));
        }
        if self.stats.invalid > 0 {
            notes.push(format!(
                "{} paths were left out (undefined behaviour, the step limit or more than {} draws)",
                self.stats.invalid, self.bounds.max_draws
            ));
        }
        notes
    }
}
