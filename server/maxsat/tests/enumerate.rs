mod common;

use std::collections::BTreeSet;

use common::{
    brute_mcses, brute_optimum, feasible_falsified_sets, is_subset, lit, random_instance, Rng,
};
use faultlens_maxsat::{enumerate_mcs, enumerate_optimal, Algorithm, Budget, Instance};

const ALGORITHMS: [Algorithm; 2] = [Algorithm::Oll, Algorithm::Linear];

#[test]
fn enumerates_all_optimal_solutions_of_random_instances() {
    let mut rng = Rng::new(11);
    for round in 0..300 {
        let instance = random_instance(&mut rng);
        let expected = brute_optimum(&instance)
            .map(|(_, sets)| sets)
            .unwrap_or_default();
        for algorithm in ALGORITHMS {
            let found =
                enumerate_optimal(&instance, algorithm, &Budget::unlimited(), usize::MAX).unwrap();
            assert!(found.complete, "round {round}");
            let sets: BTreeSet<Vec<usize>> = found
                .solutions
                .iter()
                .map(|s| s.falsified.clone())
                .collect();
            assert_eq!(
                sets.len(),
                found.solutions.len(),
                "duplicates in round {round}"
            );
            assert_eq!(sets, expected, "round {round} {algorithm:?}");
        }
    }
}

#[test]
fn enumerates_all_minimal_correction_sets_in_cost_order() {
    let mut rng = Rng::new(12);
    for round in 0..300 {
        let instance = random_instance(&mut rng);
        let max_size = 1 + rng.below(3) as usize;
        let expected: BTreeSet<Vec<usize>> = brute_mcses(&instance)
            .into_iter()
            .filter(|s| s.len() <= max_size)
            .collect();
        let feasible = feasible_falsified_sets(&instance);
        for algorithm in ALGORITHMS {
            let found = enumerate_mcs(
                &instance,
                algorithm,
                &Budget::unlimited(),
                max_size,
                usize::MAX,
            )
            .unwrap();
            assert!(found.complete);
            let costs: Vec<u64> = found.solutions.iter().map(|s| s.cost).collect();
            assert!(
                costs.windows(2).all(|w| w[0] <= w[1]),
                "cost order: {costs:?}"
            );
            for solution in &found.solutions {
                let set = &solution.falsified;
                assert!(set.len() <= max_size);
                assert!(instance.satisfies_hard(&solution.model));
                // Subset-minimal: no proper subset corrects the instance.
                let proper_subset_corrects = feasible
                    .iter()
                    .any(|other| other != set && is_subset(other, set));
                assert!(
                    !proper_subset_corrects,
                    "round {round}: {set:?} is not minimal"
                );
            }
            let sets: BTreeSet<Vec<usize>> = found
                .solutions
                .iter()
                .map(|s| s.falsified.clone())
                .collect();
            assert_eq!(sets.len(), found.solutions.len());
            assert_eq!(
                sets, expected,
                "round {round} {algorithm:?} size {max_size}"
            );
        }
    }
}

#[test]
fn optimal_solutions_are_the_cheapest_minimal_correction_sets() {
    let mut rng = Rng::new(13);
    for _ in 0..100 {
        let instance = random_instance(&mut rng);
        let optimal =
            enumerate_optimal(&instance, Algorithm::Oll, &Budget::unlimited(), usize::MAX).unwrap();
        let mcses = enumerate_mcs(
            &instance,
            Algorithm::Oll,
            &Budget::unlimited(),
            usize::MAX,
            usize::MAX,
        )
        .unwrap();
        let n = optimal.solutions.len();
        let first: BTreeSet<_> = mcses
            .solutions
            .iter()
            .take(n)
            .map(|s| &s.falsified)
            .collect();
        let opt: BTreeSet<_> = optimal.solutions.iter().map(|s| &s.falsified).collect();
        assert_eq!(first, opt);
    }
}

#[test]
fn stops_at_the_limit_and_says_so() {
    // Four independent ways to fix the observation, all of weight 1.
    let mut instance = Instance::new();
    instance.add_hard([lit(-1), lit(-2), lit(-3), lit(-4)]);
    for v in 1..=4 {
        instance.add_soft(lit(v), 1).unwrap();
    }
    for algorithm in ALGORITHMS {
        let found = enumerate_optimal(&instance, algorithm, &Budget::unlimited(), 2).unwrap();
        assert_eq!(found.solutions.len(), 2);
        assert!(!found.complete);
        assert_eq!(found.stopped, None);
        let all = enumerate_optimal(&instance, algorithm, &Budget::unlimited(), 10).unwrap();
        assert_eq!(all.solutions.len(), 4);
        assert!(all.complete);
    }
}

#[test]
fn the_size_bound_excludes_larger_diagnoses() {
    // Either drop h1 (weight 5) alone, or both h2 and h3 (weight 1 each).
    let mut instance = Instance::new();
    instance.add_hard([lit(-1), lit(-2)]);
    instance.add_hard([lit(-1), lit(-3)]);
    let h1 = instance.add_soft(lit(1), 5).unwrap();
    instance.add_soft(lit(2), 1).unwrap();
    instance.add_soft(lit(3), 1).unwrap();
    let two = enumerate_mcs(&instance, Algorithm::Oll, &Budget::unlimited(), 2, 10).unwrap();
    let sets: Vec<_> = two.solutions.iter().map(|s| s.falsified.clone()).collect();
    assert_eq!(sets, [vec![h1 + 1, h1 + 2], vec![h1]]);
    let one = enumerate_mcs(&instance, Algorithm::Oll, &Budget::unlimited(), 1, 10).unwrap();
    let sets: Vec<_> = one.solutions.iter().map(|s| s.falsified.clone()).collect();
    assert_eq!(sets, [vec![h1]]);
}

/// Beyond brute force: OLL and the baseline list the same correction sets.
#[test]
fn oll_and_linear_enumerate_the_same_sets_on_larger_instances() {
    let mut rng = Rng::new(14);
    let mut several = 0;
    for round in 0..30 {
        let n_vars = 16 + rng.below(10) as u32;
        let mut instance = Instance::new();
        for _ in 0..2 * n_vars {
            let clause: Vec<_> = (0..2 + rng.below(2)).map(|_| rng.lit(n_vars)).collect();
            instance.add_hard(clause);
        }
        for _ in 0..n_vars {
            instance
                .add_soft(rng.lit(n_vars), 1 + rng.below(6))
                .unwrap();
        }
        let list = |algorithm| {
            let found = enumerate_mcs(&instance, algorithm, &Budget::unlimited(), 8, 40).unwrap();
            let costs: Vec<u64> = found.solutions.iter().map(|s| s.cost).collect();
            let sets: BTreeSet<Vec<usize>> = found
                .solutions
                .iter()
                .map(|s| s.falsified.clone())
                .collect();
            (found.complete, costs, sets)
        };
        let (oll_complete, oll_costs, oll_sets) = list(Algorithm::Oll);
        let (lin_complete, lin_costs, lin_sets) = list(Algorithm::Linear);
        assert_eq!(oll_costs, lin_costs, "round {round}");
        if oll_complete && lin_complete {
            assert_eq!(oll_sets, lin_sets, "round {round}");
        }
        if oll_sets.len() >= 2 {
            several += 1;
        }
    }
    assert!(
        several >= 10,
        "only {several} instances had several correction sets"
    );
}
