//! An incremental SAT solver for callers that explore a formula step by
//! step: hard clauses added between calls, each call solved under
//! assumptions within the session's budget (the oracle every engine uses,
//! without an engine on top).

use rustsat::types::{Assignment, Clause, Lit};

use crate::budget::{Budget, StopReason};
use crate::instance::Instance;
use crate::oracle::{Answer, Oracle};
use crate::Error;

/// The answer of [`SatSession::solve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SatAnswer {
    Sat(Assignment),
    /// Unsatisfiable under the assumptions (the failed ones are not minimised).
    Unsat(Vec<Lit>),
    Stopped(StopReason),
}

pub struct SatSession {
    oracle: Oracle,
}

impl SatSession {
    /// A solver holding the hard clauses of `instance` (its soft literals
    /// are ignored).
    ///
    /// # Errors
    ///
    /// If the SAT solver fails.
    pub fn new(instance: &Instance, budget: &Budget) -> Result<Self, Error> {
        Ok(SatSession {
            oracle: Oracle::new(instance, budget)?,
        })
    }

    /// Adds a hard clause; new variables are welcome (the session has no
    /// encodings of its own).
    ///
    /// # Errors
    ///
    /// If the SAT solver fails.
    pub fn add_clause(&mut self, lits: impl IntoIterator<Item = Lit>) -> Result<(), Error> {
        self.oracle.add_clause(lits.into_iter().collect::<Clause>())
    }

    /// Makes the solver decide `lit`'s variable to `lit`'s value first: a
    /// hint (a model that keeps it is found first), never a constraint.
    ///
    /// # Errors
    ///
    /// If the SAT solver fails.
    pub fn phase(&mut self, lit: Lit) -> Result<(), Error> {
        self.oracle.phase(lit)
    }

    /// Solves under `assumptions`.
    ///
    /// # Errors
    ///
    /// If the SAT solver fails.
    pub fn solve(&mut self, assumptions: &[Lit]) -> Result<SatAnswer, Error> {
        Ok(match self.oracle.solve(assumptions)? {
            Answer::Sat => SatAnswer::Sat(self.oracle.model()?),
            Answer::Unsat(core) => SatAnswer::Unsat(core),
            Answer::Stopped(reason) => SatAnswer::Stopped(reason),
            Answer::Unknown => {
                return Err(Error::Internal("unlimited call returned unknown".into()))
            }
        })
    }

    /// SAT calls made so far.
    #[must_use]
    pub fn sat_calls(&self) -> u64 {
        self.oracle.sat_calls
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustsat::lit;

    #[test]
    fn clauses_added_between_calls_count_and_assumptions_are_per_call() {
        let mut inst = Instance::new();
        inst.add_hard([lit![0], lit![1]]);
        let mut s = SatSession::new(&inst, &Budget::unlimited()).unwrap();
        assert!(
            matches!(s.solve(&[!lit![0]]).unwrap(), SatAnswer::Sat(m) if m.lit_value(lit![1]) == rustsat::types::TernaryVal::True)
        );
        // A variable the instance never declared.
        s.add_clause([!lit![1], lit![5]]).unwrap();
        s.add_clause([!lit![5]]).unwrap();
        assert_eq!(
            s.solve(&[!lit![0]]).unwrap(),
            SatAnswer::Unsat(vec![!lit![0]])
        );
        assert!(matches!(s.solve(&[]).unwrap(), SatAnswer::Sat(_)));
        assert_eq!(s.sat_calls(), 3);
    }

    #[test]
    fn a_phase_picks_among_models_and_never_excludes_one() {
        let mut inst = Instance::new();
        inst.add_hard([lit![0], lit![1]]);
        let mut s = SatSession::new(&inst, &Budget::unlimited()).unwrap();
        s.phase(!lit![0]).unwrap();
        s.phase(lit![1]).unwrap();
        let value = |a: &SatAnswer, l| match a {
            SatAnswer::Sat(m) => m.lit_value(l),
            other => panic!("{other:?}"),
        };
        let first = s.solve(&[]).unwrap();
        assert_eq!(value(&first, lit![0]), rustsat::types::TernaryVal::False);
        assert_eq!(value(&first, lit![1]), rustsat::types::TernaryVal::True);
        // Against the phase, the hint gives way.
        let forced = s.solve(&[!lit![1]]).unwrap();
        assert_eq!(value(&forced, lit![0]), rustsat::types::TernaryVal::True);
        s.phase(lit![0]).unwrap();
        s.phase(!lit![1]).unwrap();
        let turned = s.solve(&[]).unwrap();
        assert_eq!(value(&turned, lit![0]), rustsat::types::TernaryVal::True);
        assert_eq!(value(&turned, lit![1]), rustsat::types::TernaryVal::False);
    }

    #[test]
    fn a_spent_budget_stops_before_solving() {
        let inst = Instance::new();
        let budget = Budget::unlimited().with_time_limit(std::time::Duration::ZERO);
        let mut s = SatSession::new(&inst, &budget).unwrap();
        assert_eq!(
            s.solve(&[]).unwrap(),
            SatAnswer::Stopped(StopReason::Timeout)
        );
    }
}
