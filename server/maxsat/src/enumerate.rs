//! Enumeration by blocking: after each solution, the clause "some soft literal
//! it falsified holds" rules out that set and all its supersets.
//!
//! Why the minimal correction sets come out subset-minimal and cheapest first:
//! with positive weights, the optimum of the blocked problem falsifies a set
//! `F`; a proper subset `G ⊂ F` that corrects the instance would cost less,
//! so it must be blocked, i.e. contain an earlier set — which `F` then
//! contains too, and `F` would be blocked itself. All optimal solutions are
//! exactly the correction sets of the optimal cost, so they are the first
//! batch of the same sequence.

use crate::budget::StopReason;
use crate::engine::{Solution, Step};
use crate::solver::{MaxSat, Stats};
use crate::Error;

/// The solutions found, in cost order, and whether the list is complete.
#[derive(Debug, Clone)]
pub struct Enumeration {
    /// Each one proven: optimal (resp. a minimal correction set of its cost rank).
    pub solutions: Vec<Solution>,
    /// No further solution exists (false when the limit or the budget stopped it).
    pub complete: bool,
    /// Set when the budget or a cancellation stopped the enumeration.
    pub stopped: Option<StopReason>,
    /// When stopped during a search: the cheapest unproven candidate seen.
    pub unproven: Option<Solution>,
    pub stats: Stats,
}

impl MaxSat {
    /// All optimal solutions (distinct sets of falsified soft literals), at
    /// most `limit`. Adds blocking clauses to this solver.
    ///
    /// # Errors
    ///
    /// If the SAT solver fails.
    pub fn enumerate_optimal(&mut self, limit: usize) -> Result<Enumeration, Error> {
        self.enumerate(limit, true)
    }

    /// All minimal correction sets with at most `max_size` soft literals,
    /// cheapest first, at most `limit`. The first ones are the optimal
    /// solutions. Adds the size limit and blocking clauses to this solver.
    ///
    /// # Errors
    ///
    /// If the SAT solver fails.
    pub fn enumerate_mcs(&mut self, max_size: usize, limit: usize) -> Result<Enumeration, Error> {
        self.limit_falsified(max_size)?;
        self.enumerate(limit, false)
    }

    fn enumerate(&mut self, limit: usize, optimal_only: bool) -> Result<Enumeration, Error> {
        let mut solutions: Vec<Solution> = Vec::new();
        let mut cap = None;
        loop {
            if solutions.len() >= limit {
                return Ok(self.finish(solutions, false, None, None));
            }
            match self.minimize_capped(cap)? {
                Step::Optimal(solution) if cap.is_some_and(|cap| solution.cost > cap) => {
                    return Ok(self.finish(solutions, true, None, None));
                }
                Step::Optimal(solution) => {
                    self.block(&solution.falsified)?;
                    if optimal_only {
                        cap = Some(solution.cost);
                    }
                    solutions.push(solution);
                }
                Step::Unsat | Step::AboveCap => {
                    return Ok(self.finish(solutions, true, None, None));
                }
                Step::Stopped(reason) => {
                    let unproven = self.best_unproven();
                    return Ok(self.finish(solutions, false, Some(reason), unproven));
                }
            }
        }
    }

    fn finish(
        &self,
        solutions: Vec<Solution>,
        complete: bool,
        stopped: Option<StopReason>,
        unproven: Option<Solution>,
    ) -> Enumeration {
        Enumeration {
            solutions,
            complete,
            stopped,
            unproven,
            stats: self.stats(),
        }
    }
}
