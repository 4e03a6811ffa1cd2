mod common;

use common::{assignment, lit, random_instance, Rng};
use faultlens_maxsat::rustsat::types::Lit;
use faultlens_maxsat::{minimal_core, Budget, CoreOutcome, Instance};

/// Whether the hard clauses and `assumptions` hold together (brute force).
fn satisfiable(instance: &Instance, assumptions: &[Lit]) -> bool {
    let n = instance.n_vars();
    (0..1u64 << n).map(|b| assignment(n, b)).any(|a| {
        instance.satisfies_hard(&a)
            && assumptions
                .iter()
                .all(|&l| a.lit_value(l) == faultlens_maxsat::rustsat::types::TernaryVal::True)
    })
}

#[test]
fn cores_of_random_instances_are_unsatisfiable_and_minimal() {
    let mut rng = Rng::new(5);
    let mut cores = 0;
    for round in 0..300 {
        let instance = random_instance(&mut rng);
        let n = instance.n_vars();
        let assumptions: Vec<Lit> = (0..1 + rng.below(u64::from(n) + 2))
            .map(|_| rng.lit(n))
            .collect();
        match minimal_core(&instance, &assumptions, &Budget::unlimited()).unwrap() {
            CoreOutcome::Satisfiable(model) => {
                assert!(satisfiable(&instance, &assumptions), "round {round}");
                assert!(instance.satisfies_hard(&model));
            }
            CoreOutcome::Core { lits, minimal, .. } => {
                cores += 1;
                assert!(minimal);
                assert!(lits.iter().all(|l| assumptions.contains(l)));
                assert!(!satisfiable(&instance, &lits), "round {round}: not a core");
                for i in 0..lits.len() {
                    let mut fewer = lits.clone();
                    fewer.remove(i);
                    assert!(satisfiable(&instance, &fewer), "round {round}: not minimal");
                }
            }
            CoreOutcome::Stopped(reason) => panic!("stopped without a budget: {reason:?}"),
        }
    }
    assert!(cores > 50, "only {cores} unsatisfiable cases");
}

#[test]
fn names_the_statements_that_force_the_failure() {
    // h1 -> a, h2 -> b, h3 -> c (irrelevant), a & b -> fail, observed !fail.
    let mut instance = Instance::new();
    instance.add_hard([lit(-1), lit(4)]);
    instance.add_hard([lit(-2), lit(5)]);
    instance.add_hard([lit(-3), lit(6)]);
    instance.add_hard([lit(-4), lit(-5), lit(7)]);
    instance.add_hard([lit(-7)]);
    let health = [lit(1), lit(2), lit(3)];
    match minimal_core(&instance, &health, &Budget::unlimited()).unwrap() {
        CoreOutcome::Core { lits, minimal, .. } => {
            assert!(minimal);
            assert_eq!(lits, [lit(1), lit(2)]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unsatisfiable_formula_has_the_empty_core() {
    let mut instance = Instance::new();
    instance.add_hard([lit(1)]);
    instance.add_hard([lit(-1)]);
    match minimal_core(&instance, &[lit(2)], &Budget::unlimited()).unwrap() {
        CoreOutcome::Core { lits, minimal, .. } => {
            assert!(lits.is_empty());
            assert!(minimal);
        }
        other => panic!("{other:?}"),
    }
}
