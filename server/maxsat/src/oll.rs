//! OLL, the core-guided algorithm of RC2 (Morgado et al. 2014; Ignatiev et al.
//! 2019).
//!
//! Every soft literal starts as an assumption carrying its weight. An
//! unsatisfiable call yields a core; its smallest residual weight `w` is added
//! to the lower bound and taken off each member, and a totalizer over the
//! core's violations contributes the new assumption "at most one of them is
//! violated" with weight `w`. When such a sum assumption "at most k" is itself
//! in a core, "at most k+1" of the same totalizer takes its place. A model
//! satisfying every assumption costs exactly the lower bound.
//!
//! Every call passes every assumption: no weight stratification and no call
//! without assumptions first. On the diagnosis's formulas (a copy of the
//! program per failing test, one assumption "this statement is correct" per
//! statement) a call under every assumption is mostly propagation, while a
//! call with few (a stratum of heavy weights, or none) leaves the solver the
//! most room: on invoice-two-faults' final instance (a million variables)
//! the call without assumptions took 60 s of the 70 s OLL needed, and the
//! strata took loop-cond's from 4 s to 8 s (RC2, stratified, takes 7 s and
//! 3.3 s). Cores are trimmed (re-solved under themselves) and reduced by
//! deletion with a conflict limit before they are relaxed, except on large
//! formulas, where each call can cost seconds and a smaller core is not
//! worth several. A budget stop before the first model
//! has no solution to fall back on.

use std::collections::{BTreeMap, HashMap};

use rustsat::encodings::card::{BoundUpper, BoundUpperIncremental, Encode, Totalizer};
use rustsat::types::{Clause, Lit};

use crate::engine::{Engine, Solution, Step};
use crate::instance::{Instance, Soft};
use crate::oracle::{Answer, Oracle};
use crate::Error;

/// Conflict limit for each deletion check during core reduction.
const REDUCE_CONFLICTS: u32 = 1000;
/// Cores longer than this are only trimmed: deletion would cost too many calls.
const REDUCE_MAX_LEN: usize = 256;
/// Rounds of trimming (re-solving under the core itself).
const TRIM_ROUNDS: usize = 5;
/// Formulas with more hard clauses than this (counted when the solver is
/// built) have their cores relaxed as found and not exhausted (RC2's
/// defaults): each call to shrink one costs about as much as the call that
/// found it, up to seconds (loop-cond's 1.6 million clauses: 12 s with
/// reduction, 3.2 s without, RC2 3.3 s).
const LARGE: usize = 200_000;

/// Which totalizer an assumption bounds, and to what.
#[derive(Clone, Copy)]
struct SumBound {
    totalizer: usize,
    /// The assumption says "at most `at_most` inputs are violated".
    at_most: usize,
}

pub(crate) struct Oll {
    oracle: Oracle,
    softs: Vec<Soft>,
    /// Residual weight of each assumption (ordered, for deterministic calls).
    weights: BTreeMap<Lit, u64>,
    sums: HashMap<Lit, SumBound>,
    totalizers: Vec<Totalizer>,
    lower_bound: u64,
    best: Option<Solution>,
    cores: u64,
    /// More hard clauses than [`LARGE`]: cores are not reduced.
    large: bool,
}

impl Oll {
    pub(crate) fn new(instance: &Instance, oracle: Oracle) -> Self {
        let softs = instance.soft().to_vec();
        let weights = softs.iter().map(|s| (s.lit, s.weight)).collect();
        Oll {
            oracle,
            softs,
            weights,
            sums: HashMap::new(),
            totalizers: Vec::new(),
            lower_bound: 0,
            best: None,
            cores: 0,
            large: instance.hard().len() > LARGE,
        }
    }

    /// Shrinks a core: trimming, then deletion with a conflict limit; not
    /// at all on a large formula. A budget stop leaves the core as it is
    /// (still a core).
    fn reduce(&mut self, mut core: Vec<Lit>) -> Result<Vec<Lit>, Error> {
        if self.large {
            return Ok(core);
        }
        for _ in 0..TRIM_ROUNDS {
            if core.len() <= 1 {
                return Ok(core);
            }
            match self.oracle.solve(&core)? {
                Answer::Unsat(smaller) if smaller.len() < core.len() => core = smaller,
                _ => break,
            }
        }
        if core.len() > REDUCE_MAX_LEN {
            return Ok(core);
        }
        let mut index = 0;
        while index < core.len() && core.len() > 1 {
            let mut without = core.clone();
            without.remove(index);
            match self
                .oracle
                .solve_limited(&without, Some(REDUCE_CONFLICTS))?
            {
                // Keep the subset's order so `index` still means "next untested".
                Answer::Unsat(smaller) => core.retain(|l| smaller.contains(l)),
                Answer::Sat | Answer::Unknown => index += 1,
                Answer::Stopped(_) => break,
            }
        }
        Ok(core)
    }

    /// Raises the lower bound by the core's smallest weight and reformulates.
    fn relax(&mut self, core: &[Lit]) -> Result<(), Error> {
        let weight = core
            .iter()
            .filter_map(|l| self.weights.get(l).copied())
            .min()
            .unwrap_or(0);
        self.cores += 1;
        self.lower_bound += weight;
        for lit in core {
            if let Some(w) = self.weights.get_mut(lit) {
                *w -= weight;
                if *w == 0 {
                    self.weights.remove(lit);
                }
            }
        }
        for lit in core {
            if let Some(bound) = self.sums.get(lit).copied() {
                self.add_sum_bound(bound.totalizer, bound.at_most + 1, weight)?;
            }
        }
        if let [lit] = core {
            // The literal is false in every solution from now on.
            self.oracle.add_clause(Clause::from_iter([!*lit]))?;
        } else {
            let totalizer: Totalizer = core.iter().map(|l| !*l).collect();
            self.totalizers.push(totalizer);
            let index = self.totalizers.len() - 1;
            self.add_sum_bound(index, 1, weight)?;
            if !self.large {
                self.exhaust(index, weight)?;
            }
        }
        Ok(())
    }

    /// Core exhaustion (RC2's `-x`): while the hard clauses alone refute "at
    /// most k of the new core's members violated", that sum assumption is
    /// false in every solution: its weight goes into the lower bound and the
    /// bound moves to k+1, saving one core extraction per step.
    fn exhaust(&mut self, index: usize, weight: u64) -> Result<(), Error> {
        let mut at_most = 1;
        loop {
            let Some(lit) = self.sum_assumption(index, at_most) else {
                return Ok(());
            };
            match self.oracle.solve_limited(&[lit], Some(REDUCE_CONFLICTS))? {
                Answer::Unsat(_) => {
                    self.lower_bound += weight;
                    if let Some(w) = self.weights.get_mut(&lit) {
                        *w -= weight.min(*w);
                        if *w == 0 {
                            self.weights.remove(&lit);
                        }
                    }
                    self.oracle.add_clause(Clause::from_iter([!lit]))?;
                    at_most += 1;
                    self.add_sum_bound(index, at_most, weight)?;
                }
                Answer::Sat | Answer::Unknown | Answer::Stopped(_) => return Ok(()),
            }
        }
    }

    /// The assumption literal bounding totalizer `index` to `at_most`, if any.
    fn sum_assumption(&self, index: usize, at_most: usize) -> Option<Lit> {
        self.sums
            .iter()
            .filter(|(_, b)| b.totalizer == index && b.at_most == at_most)
            .map(|(&lit, _)| lit)
            .min()
    }

    /// Adds the assumption "at most `at_most` inputs of the totalizer violated".
    fn add_sum_bound(&mut self, index: usize, at_most: usize, weight: u64) -> Result<(), Error> {
        let totalizer = &mut self.totalizers[index];
        if at_most >= totalizer.n_lits() {
            return Ok(()); // always true
        }
        let (collector, vars) = self.oracle.encoding_parts();
        totalizer
            .encode_ub_change(at_most..=at_most, collector, vars)
            .map_err(Error::solver)?;
        for lit in totalizer.enforce_ub(at_most).map_err(Error::solver)? {
            *self.weights.entry(lit).or_insert(0) += weight;
            self.sums.insert(
                lit,
                SumBound {
                    totalizer: index,
                    at_most,
                },
            );
        }
        Ok(())
    }

    /// The optimum found by the last call, until a change to the formula
    /// (a block, a clause, a soft literal) forgets it: every model OLL finds
    /// is an optimum.
    fn proven_best(&self) -> Option<Solution> {
        self.best.clone()
    }
}

impl Engine for Oll {
    fn minimize(&mut self, cap: Option<u64>) -> Result<Step, Error> {
        loop {
            if cap.is_some_and(|cap| self.lower_bound > cap) {
                return Ok(Step::AboveCap);
            }
            if let Some(best) = self.proven_best() {
                return Ok(Step::Optimal(best));
            }
            let assumptions: Vec<Lit> = self.weights.keys().copied().collect();
            match self.oracle.solve(&assumptions)? {
                Answer::Stopped(reason) => return Ok(Step::Stopped(reason)),
                Answer::Unknown => unreachable_unknown()?,
                Answer::Sat => {
                    // Every assumption holds: the model costs the lower bound.
                    let solution = Solution::from_model(&self.softs, self.oracle.model()?);
                    if solution.cost != self.lower_bound {
                        return Err(Error::Internal(format!(
                            "OLL model costs {} but the lower bound is {}",
                            solution.cost, self.lower_bound
                        )));
                    }
                    self.best = Some(solution.clone());
                    return Ok(Step::Optimal(solution));
                }
                Answer::Unsat(core) => {
                    if core.is_empty() {
                        return Ok(Step::Unsat);
                    }
                    let core = self.reduce(core)?;
                    if core.is_empty() {
                        return Ok(Step::Unsat);
                    }
                    self.relax(&core)?;
                }
            }
        }
    }

    fn best(&self) -> Option<&Solution> {
        self.best.as_ref()
    }

    fn lower_bound(&self) -> u64 {
        self.lower_bound
    }

    fn oracle(&mut self) -> &mut Oracle {
        &mut self.oracle
    }

    fn cores(&self) -> u64 {
        self.cores
    }

    fn sat_calls(&self) -> u64 {
        self.oracle.sat_calls
    }

    fn add_hard(&mut self, clause: Clause) -> Result<(), Error> {
        self.best = None;
        self.oracle.add_clause(clause)
    }

    fn add_soft(&mut self, softs: &[Soft], lit: Lit, weight: u64) -> Result<(), Error> {
        // The lower bound stays valid: a new soft literal can only add cost.
        self.best = None;
        self.softs = softs.to_vec();
        *self.weights.entry(lit).or_insert(0) += weight;
        Ok(())
    }
}

fn unreachable_unknown() -> Result<(), Error> {
    Err(Error::Internal(
        "a call without a conflict limit returned unknown".to_string(),
    ))
}
