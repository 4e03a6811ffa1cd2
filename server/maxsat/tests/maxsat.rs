mod common;

use common::{brute_optimum, lit, random_instance, Rng};
use faultlens_maxsat::{solve, Algorithm, Budget, Instance, MaxSat, Status};

const ALGORITHMS: [Algorithm; 2] = [Algorithm::Oll, Algorithm::Linear];

#[test]
fn finds_the_cheapest_diagnosis_of_a_small_chain() {
    // h1 -> x1, h2 -> x2, x1 & x2 -> out, observation: !out.
    // Softs h1 (weight 3), h2 (weight 1): the cheapest diagnosis drops h2.
    let mut instance = Instance::new();
    instance.add_hard([lit(-1), lit(3)]);
    instance.add_hard([lit(-2), lit(4)]);
    instance.add_hard([lit(-3), lit(-4), lit(5)]);
    instance.add_hard([lit(-5)]);
    let h1 = instance.add_soft(lit(1), 3).unwrap();
    let h2 = instance.add_soft(lit(2), 1).unwrap();
    for algorithm in ALGORITHMS {
        let outcome = solve(&instance, algorithm, &Budget::unlimited()).unwrap();
        assert_eq!(outcome.status, Status::Optimal);
        let best = outcome.optimum().unwrap();
        assert_eq!(best.cost, 1, "{algorithm:?}");
        assert_eq!(best.falsified, [h2]);
        assert_ne!(best.falsified, [h1]);
        assert!(instance.satisfies_hard(&best.model));
        assert_eq!(outcome.lower_bound, 1);
    }
}

#[test]
fn reports_unsatisfiable_hard_clauses() {
    let mut instance = Instance::new();
    instance.add_hard([lit(1)]);
    instance.add_hard([lit(-1)]);
    instance.add_soft(lit(2), 1).unwrap();
    for algorithm in ALGORITHMS {
        let outcome = solve(&instance, algorithm, &Budget::unlimited()).unwrap();
        assert_eq!(outcome.status, Status::Unsatisfiable);
        assert!(outcome.best.is_none());
    }
}

#[test]
fn handles_an_instance_without_soft_literals() {
    let mut instance = Instance::new();
    instance.add_hard([lit(1), lit(2)]);
    for algorithm in ALGORITHMS {
        let outcome = solve(&instance, algorithm, &Budget::unlimited()).unwrap();
        assert_eq!(outcome.optimum().unwrap().cost, 0);
    }
}

#[test]
fn soft_literal_in_no_hard_clause_is_satisfied() {
    let mut instance = Instance::new();
    instance.add_soft(lit(4), 2).unwrap();
    instance.add_soft(lit(-4), 5).unwrap();
    for algorithm in ALGORITHMS {
        let best = solve(&instance, algorithm, &Budget::unlimited())
            .unwrap()
            .best
            .unwrap();
        assert_eq!(best.cost, 2, "{algorithm:?}");
        assert_eq!(best.falsified, [0]);
    }
}

#[test]
fn oll_and_linear_agree_with_brute_force_on_random_instances() {
    let mut rng = Rng::new(2026);
    for round in 0..400 {
        let instance = random_instance(&mut rng);
        let expected = brute_optimum(&instance);
        for algorithm in ALGORITHMS {
            let outcome = solve(&instance, algorithm, &Budget::unlimited()).unwrap();
            match &expected {
                None => assert_eq!(outcome.status, Status::Unsatisfiable, "round {round}"),
                Some((cost, optimal_sets)) => {
                    let best = outcome.optimum().unwrap_or_else(|| {
                        panic!("round {round} {algorithm:?}: {:?}", outcome.status)
                    });
                    assert_eq!(best.cost, *cost, "round {round} {algorithm:?}");
                    assert_eq!(outcome.lower_bound, *cost, "round {round} {algorithm:?}");
                    assert!(instance.satisfies_hard(&best.model));
                    assert_eq!(instance.falsified(&best.model), best.falsified);
                    assert!(optimal_sets.contains(&best.falsified));
                }
            }
        }
    }
}

#[test]
fn resolves_after_new_hard_clauses() {
    // Incremental use: a hard clause added after the first optimum raises it.
    let mut rng = Rng::new(99);
    for round in 0..100 {
        let mut instance = random_instance(&mut rng);
        let n_vars = instance.n_vars();
        let extra: Vec<_> = (0..2).map(|_| rng.lit(n_vars)).collect();
        for algorithm in ALGORITHMS {
            let mut solver = MaxSat::new(&instance, algorithm, &Budget::unlimited()).unwrap();
            let _ = solver.solve().unwrap();
            solver.add_hard(extra.clone()).unwrap();
            let outcome = solver.solve().unwrap();
            let mut grown = instance.clone();
            grown.add_hard(extra.clone());
            let expected = brute_optimum(&grown).map(|(cost, _)| cost);
            assert_eq!(
                outcome.optimum().map(|s| s.cost),
                expected,
                "round {round} {algorithm:?}"
            );
        }
        instance.add_hard(extra);
    }
}

/// Larger than brute force can check: OLL must match the baseline.
#[test]
fn oll_matches_the_linear_baseline_on_larger_random_instances() {
    let mut rng = Rng::new(31);
    let mut nontrivial = 0;
    for round in 0..60 {
        let n_vars = 20 + rng.below(20) as u32;
        let mut instance = Instance::new();
        for _ in 0..2 * n_vars {
            let clause: Vec<_> = (0..2 + rng.below(2)).map(|_| rng.lit(n_vars)).collect();
            instance.add_hard(clause);
        }
        for _ in 0..2 * n_vars {
            instance
                .add_soft(rng.lit(n_vars), 1 + rng.below(20))
                .unwrap();
        }
        let oll = solve(&instance, Algorithm::Oll, &Budget::unlimited()).unwrap();
        let linear = solve(&instance, Algorithm::Linear, &Budget::unlimited()).unwrap();
        assert_eq!(oll.status, linear.status, "round {round}");
        assert_eq!(
            oll.optimum().map(|s| s.cost),
            linear.optimum().map(|s| s.cost),
            "round {round}"
        );
        if oll.optimum().is_some_and(|s| s.cost > 0) {
            nontrivial += 1;
        }
    }
    assert!(
        nontrivial > 30,
        "only {nontrivial} instances needed a correction"
    );
}

#[test]
fn soft_literals_added_later_count_like_the_original_ones() {
    let mut rng = Rng::new(77);
    for round in 0..150 {
        let full = random_instance(&mut rng);
        let split = full.soft().len() / 2;
        let mut first = Instance::new();
        first.declare_vars(full.n_vars());
        for clause in full.hard() {
            first.add_hard(clause.iter().copied());
        }
        for soft in &full.soft()[..split] {
            first.add_soft(soft.lit, soft.weight).unwrap();
        }
        let expected = brute_optimum(&full).map(|(cost, _)| cost);
        for algorithm in ALGORITHMS {
            let mut solver = MaxSat::new(&first, algorithm, &Budget::unlimited()).unwrap();
            let _ = solver.solve().unwrap();
            for soft in &full.soft()[split..] {
                solver.add_soft(soft.lit, soft.weight).unwrap();
            }
            let outcome = solver.solve().unwrap();
            assert_eq!(
                outcome.optimum().map(|s| s.cost),
                expected,
                "round {round} {algorithm:?}"
            );
            if let Some(best) = outcome.optimum() {
                assert_eq!(best.falsified, full.falsified(&best.model));
            }
        }
    }
}

#[test]
fn rejects_caller_variables_in_the_engine_range() {
    let mut instance = Instance::new();
    instance.add_hard([lit(1), lit(2)]);
    instance.declare_vars(4);
    for algorithm in ALGORITHMS {
        let mut solver = MaxSat::new(&instance, algorithm, &Budget::unlimited()).unwrap();
        solver.add_hard([lit(4)]).unwrap(); // variable index 3: declared
        let error = solver.add_hard([lit(-5)]).unwrap_err();
        assert_eq!(
            error,
            faultlens_maxsat::Error::VariableClash {
                var: 4,
                first_auxiliary: 4
            }
        );
        assert!(error.to_string().contains("declare_vars"));
        assert!(solver.add_soft(lit(9), 1).is_err());
        assert!(solver.add_soft(lit(3), 0).is_err());
    }
}

#[test]
fn the_same_instance_gives_the_same_answer_and_work() {
    let mut rng = Rng::new(5150);
    for _ in 0..50 {
        let instance = random_instance(&mut rng);
        for algorithm in ALGORITHMS {
            let a = solve(&instance, algorithm, &Budget::unlimited()).unwrap();
            let b = solve(&instance, algorithm, &Budget::unlimited()).unwrap();
            assert_eq!(a.status, b.status);
            assert_eq!(a.stats, b.stats);
            assert_eq!(
                a.best.map(|s| (s.falsified, s.model)),
                b.best.map(|s| (s.falsified, s.model))
            );
        }
    }
}

#[test]
fn a_phase_hint_picks_among_equally_cheap_solutions() {
    // One of h1, h2 must be false: two optima of cost 1. The phases (the
    // values a concrete run had) decide which one the solver finds first.
    let mut instance = Instance::new();
    instance.add_hard([lit(-1), lit(-2)]);
    let h1 = instance.add_soft(lit(1), 1).unwrap();
    let h2 = instance.add_soft(lit(2), 1).unwrap();
    for algorithm in ALGORITHMS {
        for (keep, drop) in [((lit(1), h1), (lit(2), h2)), ((lit(2), h2), (lit(1), h1))] {
            let mut solver = MaxSat::new(&instance, algorithm, &Budget::unlimited()).unwrap();
            solver.phase(keep.0).unwrap();
            solver.phase(!drop.0).unwrap();
            let outcome = solver.solve().unwrap();
            assert_eq!(
                outcome.optimum().unwrap().falsified,
                [drop.1],
                "{algorithm:?}"
            );
        }
        // A hint on a variable of the engine's own is refused, as a clause would be.
        let mut solver = MaxSat::new(&instance, algorithm, &Budget::unlimited()).unwrap();
        assert!(solver.phase(lit(7)).is_err());
    }
}
