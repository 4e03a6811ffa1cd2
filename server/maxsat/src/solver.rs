//! The public MaxSAT solver: one algorithm, one SAT oracle, resumable after new
//! hard clauses (diagnosis encodes on demand and blocks found diagnoses).

use rustsat::encodings::card::{BoundUpper, Totalizer};
use rustsat::types::{Clause, Lit};

use crate::budget::{Budget, StopReason};
use crate::engine::{Engine, Solution, Step};
use crate::enumerate::Enumeration;
use crate::instance::{Instance, Soft, SoftId};
use crate::linear::Linear;
use crate::oll::Oll;
use crate::oracle::Oracle;
use crate::Error;

/// Which MaxSAT algorithm drives the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Core-guided OLL (RC2's algorithm): the default.
    #[default]
    Oll,
    /// Linear SAT-UNSAT search over a generalized totalizer: the baseline.
    Linear,
}

/// How a solve call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `best` is an optimum.
    Optimal,
    /// The hard clauses cannot be satisfied.
    Unsatisfiable,
    /// Budget spent or cancelled: `best` (if any) is feasible but not proven
    /// optimal. OLL has none before its first model, which is an optimum.
    Stopped(StopReason),
}

/// Counters of the work done so far by a [`MaxSat`] solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    pub sat_calls: u64,
    pub cores: u64,
}

/// The result of [`MaxSat::solve`].
#[derive(Debug, Clone)]
pub struct Outcome {
    pub status: Status,
    /// The cheapest solution found (the optimum when `status` is `Optimal`).
    pub best: Option<Solution>,
    /// A proven lower bound on the optimal cost.
    pub lower_bound: u64,
    pub stats: Stats,
}

impl Outcome {
    /// The optimum, if it was proven.
    #[must_use]
    pub fn optimum(&self) -> Option<&Solution> {
        match self.status {
            Status::Optimal => self.best.as_ref(),
            _ => None,
        }
    }
}

/// An incremental weighted partial MaxSAT solver over one [`Instance`].
pub struct MaxSat {
    engine: Box<dyn Engine>,
    /// The instance's soft literals plus those added since, with their ids.
    softs: Instance,
}

impl MaxSat {
    /// Loads the instance into a fresh CaDiCaL. Every later call obeys `budget`.
    ///
    /// # Errors
    ///
    /// If the SAT solver fails.
    pub fn new(instance: &Instance, algorithm: Algorithm, budget: &Budget) -> Result<Self, Error> {
        let oracle = Oracle::new(instance, budget)?;
        let engine: Box<dyn Engine> = match algorithm {
            Algorithm::Oll => Box::new(Oll::new(instance, oracle)),
            Algorithm::Linear => Box::new(Linear::new(instance, oracle)),
        };
        let mut softs = Instance::new();
        for soft in instance.soft() {
            softs.add_soft(soft.lit, soft.weight)?;
        }
        Ok(MaxSat { engine, softs })
    }

    /// The soft literals, indexed by [`SoftId`].
    #[must_use]
    pub fn soft(&self) -> &[Soft] {
        self.softs.soft()
    }

    /// Adds a hard clause for all later calls.
    ///
    /// # Errors
    ///
    /// A variable at or above the instance's `n_vars()` (those are the
    /// engine's; see [`Instance::declare_vars`]), or a solver failure.
    pub fn add_hard<I: IntoIterator<Item = Lit>>(&mut self, lits: I) -> Result<(), Error> {
        let clause: Clause = lits.into_iter().collect();
        self.engine.oracle().check_caller_lits(clause.iter())?;
        self.engine.add_hard(clause)
    }

    /// Makes the SAT solver decide `lit`'s variable to `lit`'s value first
    /// (a hint: models that keep it are found first, nothing is excluded).
    ///
    /// # Errors
    ///
    /// A variable the engine owns (see [`MaxSat::add_hard`]), or a solver failure.
    pub fn phase(&mut self, lit: Lit) -> Result<(), Error> {
        self.engine.oracle().check_caller_lits([&lit])?;
        self.engine.oracle().phase(lit)
    }

    /// Adds a soft literal (or weight to an existing one) for all later calls,
    /// e.g. the health literal of a statement encoded on demand. A size limit
    /// set before ([`MaxSat::limit_falsified`]) does not count it.
    ///
    /// # Errors
    ///
    /// A zero weight or weight overflow, a variable the engine owns (see
    /// [`MaxSat::add_hard`]), or a solver failure.
    pub fn add_soft(&mut self, lit: Lit, weight: u64) -> Result<SoftId, Error> {
        self.engine.oracle().check_caller_lits([&lit])?;
        let id = self.softs.add_soft(lit, weight)?;
        self.engine.add_soft(self.softs.soft(), lit, weight)?;
        Ok(id)
    }

    /// Excludes every solution that falsifies all of `falsified` (so the set
    /// itself and all its supersets). Unknown ids are an internal error.
    ///
    /// # Errors
    ///
    /// An id out of range, or a solver failure.
    pub fn block(&mut self, falsified: &[SoftId]) -> Result<(), Error> {
        let mut clause = Clause::new();
        for &id in falsified {
            let soft = self.softs.soft().get(id).ok_or_else(|| {
                Error::Internal(format!("soft id {id} is out of range in block()"))
            })?;
            clause.add(soft.lit);
        }
        self.engine.add_hard(clause)
    }

    /// From now on, at most `max` soft literals may be falsified.
    ///
    /// # Errors
    ///
    /// If the encoding or the solver fails.
    pub fn limit_falsified(&mut self, max: usize) -> Result<(), Error> {
        if max >= self.softs.soft().len() {
            return Ok(());
        }
        let mut totalizer: Totalizer = self.softs.soft().iter().map(|s| !s.lit).collect();
        let oracle = self.engine.oracle();
        let (collector, vars) = oracle.encoding_parts();
        totalizer
            .encode_ub(max..=max, collector, vars)
            .map_err(Error::solver)?;
        for lit in totalizer.enforce_ub(max).map_err(Error::solver)? {
            self.engine.add_hard(Clause::from_iter([lit]))?;
        }
        Ok(())
    }

    /// Finds an optimal solution of the current hard clauses.
    ///
    /// # Errors
    ///
    /// If the SAT solver fails.
    pub fn solve(&mut self) -> Result<Outcome, Error> {
        let step = self.engine.minimize(None)?;
        let (status, best) = match step {
            Step::Optimal(solution) => (Status::Optimal, Some(solution)),
            Step::Unsat => (Status::Unsatisfiable, None),
            Step::Stopped(reason) => (Status::Stopped(reason), self.engine.best().cloned()),
            Step::AboveCap => {
                return Err(Error::Internal("an uncapped search hit a cap".to_string()))
            }
        };
        Ok(Outcome {
            status,
            best,
            lower_bound: self.engine.lower_bound(),
            stats: self.stats(),
        })
    }

    /// Minimizes with a cost cap (for the enumerations).
    pub(crate) fn minimize_capped(&mut self, cap: Option<u64>) -> Result<Step, Error> {
        self.engine.minimize(cap)
    }

    pub(crate) fn best_unproven(&self) -> Option<Solution> {
        self.engine.best().cloned()
    }

    #[must_use]
    pub fn stats(&self) -> Stats {
        Stats {
            sat_calls: self.engine.sat_calls(),
            cores: self.engine.cores(),
        }
    }
}

/// Solves `instance` once.
///
/// # Errors
///
/// If the SAT solver fails.
pub fn solve(instance: &Instance, algorithm: Algorithm, budget: &Budget) -> Result<Outcome, Error> {
    MaxSat::new(instance, algorithm, budget)?.solve()
}

/// All optimal solutions of `instance` (distinct sets of falsified soft
/// literals), at most `limit` of them.
///
/// # Errors
///
/// If the SAT solver fails.
pub fn enumerate_optimal(
    instance: &Instance,
    algorithm: Algorithm,
    budget: &Budget,
    limit: usize,
) -> Result<Enumeration, Error> {
    MaxSat::new(instance, algorithm, budget)?.enumerate_optimal(limit)
}

/// All minimal correction sets of `instance` with at most `max_size` soft
/// literals, cheapest first, at most `limit` of them.
///
/// # Errors
///
/// If the SAT solver fails.
pub fn enumerate_mcs(
    instance: &Instance,
    algorithm: Algorithm,
    budget: &Budget,
    max_size: usize,
    limit: usize,
) -> Result<Enumeration, Error> {
    MaxSat::new(instance, algorithm, budget)?.enumerate_mcs(max_size, limit)
}
