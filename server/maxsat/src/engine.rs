//! What the two MaxSAT algorithms share: the step interface the public
//! solver, the enumerations and the tests drive, and model bookkeeping.

use rustsat::types::{Assignment, Clause, Lit, TernaryVal};

use crate::budget::StopReason;
use crate::instance::{Soft, SoftId};
use crate::oracle::Oracle;
use crate::Error;

/// A feasible assignment and the soft literals it falsifies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// Summed weight of the falsified soft literals.
    pub cost: u64,
    /// Ids of the falsified soft literals, ascending.
    pub falsified: Vec<SoftId>,
    /// The whole model, including auxiliary variables of the engine.
    pub model: Assignment,
}

impl Solution {
    pub(crate) fn from_model(softs: &[Soft], model: Assignment) -> Self {
        let falsified: Vec<SoftId> = (0..softs.len())
            .filter(|&id| model.lit_value(softs[id].lit) != TernaryVal::True)
            .collect();
        let cost = falsified.iter().map(|&id| softs[id].weight).sum();
        Solution {
            cost,
            falsified,
            model,
        }
    }

    /// The falsified soft literals as literals.
    #[must_use]
    pub fn falsified_lits(&self, softs: &[Soft]) -> Vec<Lit> {
        self.falsified.iter().map(|&id| softs[id].lit).collect()
    }
}

/// How one minimization ended.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// An optimum of the current hard clauses.
    Optimal(Solution),
    /// The hard clauses (with everything added since) are unsatisfiable.
    Unsat,
    /// Every solution costs more than the cap.
    AboveCap,
    Stopped(StopReason),
}

/// A MaxSAT algorithm that can be resumed after hard clauses are added.
pub(crate) trait Engine {
    /// Minimizes the cost under the current hard clauses; with a cap, gives up
    /// as soon as the optimum is known to exceed it.
    fn minimize(&mut self, cap: Option<u64>) -> Result<Step, Error>;
    /// The cheapest solution seen since hard clauses last changed.
    fn best(&self) -> Option<&Solution>;
    /// A proven lower bound on the cost.
    fn lower_bound(&self) -> u64;
    fn oracle(&mut self) -> &mut Oracle;
    fn cores(&self) -> u64;
    fn sat_calls(&self) -> u64;
    /// Adds a hard clause; the best solution is forgotten (it may violate it).
    fn add_hard(&mut self, clause: Clause) -> Result<(), Error>;
    /// Adds weight to a soft literal (new or existing); the best solution is
    /// forgotten (its cost changes). `softs` is the caller's updated list.
    fn add_soft(&mut self, softs: &[Soft], lit: Lit, weight: u64) -> Result<(), Error>;
}
