//! The baseline: linear SAT-UNSAT search. Each model of cost `c` is followed by
//! a call that demands cost `< c` through an incremental generalized totalizer
//! (rustsat's `GeneralizedTotalizer`) over the falsified soft literals; the
//! first unsatisfiable call proves the last model optimal.

use rustsat::encodings::pb::{BoundUpper, BoundUpperIncremental, GeneralizedTotalizer};
use rustsat::types::{Clause, Lit};

use crate::engine::{Engine, Solution, Step};
use crate::instance::{Instance, Soft};
use crate::oracle::{Answer, Oracle};
use crate::Error;

pub(crate) struct Linear {
    oracle: Oracle,
    softs: Vec<Soft>,
    objective: GeneralizedTotalizer,
    best: Option<Solution>,
    lower_bound: u64,
}

impl Linear {
    pub(crate) fn new(instance: &Instance, oracle: Oracle) -> Self {
        let softs = instance.soft().to_vec();
        // Cost counts falsified soft literals: the totalizer sums their negations.
        let objective = softs.iter().map(|s| (!s.lit, to_usize(s.weight))).collect();
        Linear {
            oracle,
            softs,
            objective,
            best: None,
            lower_bound: 0,
        }
    }

    /// Assumptions that force the cost to at most `bound`.
    fn bound(&mut self, bound: u64) -> Result<Vec<Lit>, Error> {
        let bound = to_usize(bound);
        let (collector, vars) = self.oracle.encoding_parts();
        self.objective
            .encode_ub_change(bound..=bound, collector, vars)
            .map_err(Error::solver)?;
        self.objective.enforce_ub(bound).map_err(Error::solver)
    }
}

impl Engine for Linear {
    fn minimize(&mut self, cap: Option<u64>) -> Result<Step, Error> {
        let mut assumptions = match cap {
            Some(cap) => self.bound(cap)?,
            None => Vec::new(),
        };
        loop {
            match self.oracle.solve(&assumptions)? {
                Answer::Stopped(reason) => return Ok(Step::Stopped(reason)),
                Answer::Unknown => {
                    return Err(Error::Internal(
                        "a call without a conflict limit returned unknown".to_string(),
                    ))
                }
                Answer::Unsat(_) => {
                    return Ok(match &self.best {
                        Some(best) => {
                            self.lower_bound = best.cost;
                            Step::Optimal(best.clone())
                        }
                        None if assumptions.is_empty() => Step::Unsat,
                        None => Step::AboveCap,
                    });
                }
                Answer::Sat => {
                    let solution = Solution::from_model(&self.softs, self.oracle.model()?);
                    let cost = solution.cost;
                    if self.best.as_ref().is_none_or(|b| cost < b.cost) {
                        self.best = Some(solution);
                    }
                    if let Some(best) = self.best.as_ref().filter(|b| b.cost <= self.lower_bound) {
                        return Ok(Step::Optimal(best.clone()));
                    }
                    assumptions = self.bound(cost - 1)?;
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
        0
    }

    fn sat_calls(&self) -> u64 {
        self.oracle.sat_calls
    }

    fn add_hard(&mut self, clause: Clause) -> Result<(), Error> {
        self.best = None;
        self.oracle.add_clause(clause)
    }

    fn add_soft(&mut self, softs: &[Soft], lit: Lit, weight: u64) -> Result<(), Error> {
        self.best = None;
        self.softs = softs.to_vec();
        // The totalizer merges the new input into its tree at the next bound.
        self.objective.extend([(!lit, to_usize(weight))]);
        Ok(())
    }
}

/// Weights are capped at `MAX_TOTAL_WEIGHT` (< 2^62), so they fit in `usize` on
/// the 64-bit targets we build for; saturate elsewhere rather than panic.
pub(crate) fn to_usize(weight: u64) -> usize {
    usize::try_from(weight).unwrap_or(usize::MAX)
}
