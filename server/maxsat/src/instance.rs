//! A weighted partial MaxSAT instance: hard clauses plus weighted soft literals.
//!
//! Soft constraints are literals, not clauses: diagnosis hands over health
//! literals, and a soft clause `C` is the soft literal `¬r` with the hard clause
//! `C ∨ r` (that is what the WCNF reader does with non-unit soft clauses).

use std::collections::HashMap;

use rustsat::types::{Assignment, Clause, Lit, TernaryVal, Var};

/// Index of a soft literal in [`Instance::soft`].
pub type SoftId = usize;

/// One soft literal: satisfying it costs nothing, falsifying it costs `weight`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Soft {
    pub lit: Lit,
    pub weight: u64,
}

/// What is wrong with a soft literal handed to [`Instance::add_soft`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstanceError {
    #[error("soft literal {lit} has weight 0; give it a positive weight or leave it out")]
    ZeroWeight { lit: Lit },
    #[error("the soft weights add up to more than {max}; scale the weights down")]
    WeightOverflow { max: u64 },
}

/// Hard clauses and weighted soft literals over rustsat variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Instance {
    hard: Vec<Clause>,
    soft: Vec<Soft>,
    soft_index: HashMap<Lit, SoftId>,
    n_vars: u32,
    total_weight: u64,
}

/// The largest sum of soft weights accepted. The encodings count in `usize`,
/// and headroom keeps `lower bound + weight` arithmetic from overflowing.
pub const MAX_TOTAL_WEIGHT: u64 = (1 << 62) - 1;

impl Instance {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a hard clause (an empty clause makes the instance unsatisfiable).
    pub fn add_hard<I: IntoIterator<Item = Lit>>(&mut self, lits: I) {
        let clause: Clause = lits.into_iter().collect();
        for lit in clause.iter() {
            self.see_var(lit.var());
        }
        self.hard.push(clause);
    }

    /// Adds a soft literal. Adding the same literal twice adds up the weights
    /// and returns the same id.
    ///
    /// # Errors
    ///
    /// A zero weight, or a total weight above [`MAX_TOTAL_WEIGHT`].
    pub fn add_soft(&mut self, lit: Lit, weight: u64) -> Result<SoftId, InstanceError> {
        if weight == 0 {
            return Err(InstanceError::ZeroWeight { lit });
        }
        let total = self
            .total_weight
            .checked_add(weight)
            .filter(|t| *t <= MAX_TOTAL_WEIGHT)
            .ok_or(InstanceError::WeightOverflow {
                max: MAX_TOTAL_WEIGHT,
            })?;
        self.total_weight = total;
        self.see_var(lit.var());
        if let Some(&id) = self.soft_index.get(&lit) {
            self.soft[id].weight += weight;
            return Ok(id);
        }
        let id = self.soft.len();
        self.soft.push(Soft { lit, weight });
        self.soft_index.insert(lit, id);
        Ok(id)
    }

    /// Makes sure variables `0..n_vars` count as used, so that the engines'
    /// auxiliary variables start above them (for variables of the caller's
    /// encoding that appear in no clause handed over).
    pub fn declare_vars(&mut self, n_vars: u32) {
        self.n_vars = self.n_vars.max(n_vars);
    }

    #[must_use]
    pub fn hard(&self) -> &[Clause] {
        &self.hard
    }

    #[must_use]
    pub fn soft(&self) -> &[Soft] {
        &self.soft
    }

    /// One more than the highest variable index used or declared.
    #[must_use]
    pub fn n_vars(&self) -> u32 {
        self.n_vars
    }

    #[must_use]
    pub fn total_weight(&self) -> u64 {
        self.total_weight
    }

    /// The soft literals a model does not satisfy (unassigned counts as falsified).
    #[must_use]
    pub fn falsified(&self, model: &Assignment) -> Vec<SoftId> {
        (0..self.soft.len())
            .filter(|&id| model.lit_value(self.soft[id].lit) != TernaryVal::True)
            .collect()
    }

    /// The summed weight of a set of soft literals.
    #[must_use]
    pub fn weight_of(&self, ids: &[SoftId]) -> u64 {
        ids.iter().map(|&id| self.soft[id].weight).sum()
    }

    /// Whether a model satisfies every hard clause.
    #[must_use]
    pub fn satisfies_hard(&self, model: &Assignment) -> bool {
        self.hard.iter().all(|clause| {
            clause
                .iter()
                .any(|&lit| model.lit_value(lit) == TernaryVal::True)
        })
    }

    fn see_var(&mut self, var: Var) {
        self.n_vars = self.n_vars.max(var.idx32() + 1);
    }
}
