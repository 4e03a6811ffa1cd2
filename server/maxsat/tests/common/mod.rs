//! Shared test helpers: a deterministic random generator, random small
//! instances, and brute force over all assignments.
#![allow(dead_code)]

use std::collections::BTreeSet;

use faultlens_maxsat::rustsat::types::{Assignment, Lit, TernaryVal, Var};
use faultlens_maxsat::Instance;

/// xorshift64*: deterministic, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn lit(&mut self, n_vars: u32) -> Lit {
        Lit::new(self.below(u64::from(n_vars)) as u32, self.below(2) == 1)
    }
}

pub fn lit(ipasir: i32) -> Lit {
    Lit::from_ipasir(ipasir).unwrap()
}

/// A random instance over at most 10 variables.
pub fn random_instance(rng: &mut Rng) -> Instance {
    let n_vars = 2 + rng.below(9) as u32;
    let mut instance = Instance::new();
    instance.declare_vars(n_vars);
    for _ in 0..rng.below(3 * u64::from(n_vars)) {
        let len = 1 + rng.below(3);
        let clause: Vec<Lit> = (0..len).map(|_| rng.lit(n_vars)).collect();
        instance.add_hard(clause);
    }
    // Includes a weight beyond 32 bits: costs are u64 end to end.
    let weights = [1u64, 1, 2, 3, 5, 10, 40, 1 << 40];
    for _ in 0..1 + rng.below(u64::from(n_vars) + 3) {
        let weight = weights[rng.below(weights.len() as u64) as usize];
        instance.add_soft(rng.lit(n_vars), weight).unwrap();
    }
    instance
}

pub fn assignment(n_vars: u32, bits: u64) -> Assignment {
    (0..n_vars)
        .map(|v| {
            if bits >> v & 1 == 1 {
                TernaryVal::True
            } else {
                TernaryVal::False
            }
        })
        .collect()
}

/// Every distinct set of falsified soft ids over all feasible assignments.
pub fn feasible_falsified_sets(instance: &Instance) -> BTreeSet<Vec<usize>> {
    let n = instance.n_vars();
    assert!(n <= 16, "brute force is for small instances");
    (0..1u64 << n)
        .map(|bits| assignment(n, bits))
        .filter(|a| instance.satisfies_hard(a))
        .map(|a| instance.falsified(&a))
        .collect()
}

/// The optimal cost and all optimal falsified sets, or None if infeasible.
pub fn brute_optimum(instance: &Instance) -> Option<(u64, BTreeSet<Vec<usize>>)> {
    let sets = feasible_falsified_sets(instance);
    let best = sets.iter().map(|s| instance.weight_of(s)).min()?;
    let optimal = sets
        .into_iter()
        .filter(|s| instance.weight_of(s) == best)
        .collect();
    Some((best, optimal))
}

/// All minimal correction sets (minimal falsified sets of feasible assignments).
pub fn brute_mcses(instance: &Instance) -> BTreeSet<Vec<usize>> {
    let sets = feasible_falsified_sets(instance);
    sets.iter()
        .filter(|s| !sets.iter().any(|t| t != *s && is_subset(t, s)))
        .cloned()
        .collect()
}

pub fn is_subset(small: &[usize], large: &[usize]) -> bool {
    small.iter().all(|x| large.contains(x))
}

pub fn var(idx: u32) -> Var {
    Var::new(idx)
}
