//! Budgets and cancellation stop every engine call with the best known
//! answer (OLL's first model is an optimum: stopped before it, it has none).
//! The instance is pigeonhole-shaped (13 pigeons, 12 holes as soft "pigeon i is
//! placed"): optimum 1, but proving it refutes the pigeonhole principle, which
//! takes a CDCL solver far longer than any budget here.

mod common;

use std::time::{Duration, Instant};

use common::lit;
use faultlens_maxsat::rustsat::types::Lit;
use faultlens_maxsat::{
    enumerate_mcs, minimal_core, solve, Algorithm, Budget, CancelToken, CoreOutcome, Instance,
    MaxSat, Meter, Status, StopReason,
};

const PIGEONS: i32 = 13;
const HOLES: i32 = 12;

fn placed(pigeon: i32, hole: i32) -> Lit {
    lit(1 + pigeon * HOLES + hole)
}

/// Hard: no two pigeons share a hole; pigeon i sits somewhere unless r_i.
/// Soft: ¬r_i (every pigeon placed), weight 1.
fn pigeonhole() -> (Instance, Vec<Lit>) {
    let mut instance = Instance::new();
    for hole in 0..HOLES {
        for a in 0..PIGEONS {
            for b in a + 1..PIGEONS {
                instance.add_hard([!placed(a, hole), !placed(b, hole)]);
            }
        }
    }
    let mut relax = Vec::new();
    for pigeon in 0..PIGEONS {
        let r = lit(1 + PIGEONS * HOLES + pigeon);
        let mut clause: Vec<Lit> = (0..HOLES).map(|h| placed(pigeon, h)).collect();
        clause.push(r);
        instance.add_hard(clause);
        instance.add_soft(!r, 1).unwrap();
        relax.push(!r);
    }
    (instance, relax)
}

#[test]
fn a_time_limit_returns_the_best_known_solution_unproven() {
    let (instance, _) = pigeonhole();
    for algorithm in [Algorithm::Oll, Algorithm::Linear] {
        let start = Instant::now();
        let budget = Budget::unlimited().with_time_limit(Duration::from_millis(300));
        let outcome = solve(&instance, algorithm, &budget).unwrap();
        assert_eq!(
            outcome.status,
            Status::Stopped(StopReason::Timeout),
            "{algorithm:?}"
        );
        // Generous: the point is that it stops, not how fast.
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{:?}",
            start.elapsed()
        );
        assert!(outcome.optimum().is_none());
        if let Some(best) = &outcome.best {
            assert!(instance.satisfies_hard(&best.model));
            assert!(best.cost >= 1);
        }
        assert!(outcome.lower_bound <= 1);
    }
    // The linear search starts from a model, so it always has one to give;
    // OLL's first model is its optimum (it makes no call without
    // assumptions: on diagnosis formulas that call was the slowest).
    let budget = Budget::unlimited().with_time_limit(Duration::from_millis(300));
    let outcome = solve(&instance, Algorithm::Linear, &budget).unwrap();
    assert!(outcome.best.is_some());
    let outcome = solve(&instance, Algorithm::Oll, &budget).unwrap();
    assert!(outcome.best.is_none());
}

#[test]
fn a_cancelled_token_stops_before_any_sat_call() {
    let (instance, relax) = pigeonhole();
    let token = CancelToken::new();
    token.cancel();
    let budget = Budget::unlimited().with_cancel(token);
    let outcome = solve(&instance, Algorithm::Oll, &budget).unwrap();
    assert_eq!(outcome.status, Status::Stopped(StopReason::Cancelled));
    assert_eq!(outcome.stats.sat_calls, 0);
    let found = enumerate_mcs(&instance, Algorithm::Oll, &budget, 2, 10).unwrap();
    assert_eq!(found.stopped, Some(StopReason::Cancelled));
    assert!(!found.complete);
    assert_eq!(
        minimal_core(&instance, &relax, &budget).unwrap(),
        CoreOutcome::Stopped(StopReason::Cancelled)
    );
}

#[test]
fn cancelling_from_another_thread_interrupts_a_running_solve() {
    let (instance, relax) = pigeonhole();
    for algorithm in [Algorithm::Oll, Algorithm::Linear] {
        let token = CancelToken::new();
        let budget = Budget::unlimited().with_cancel(token.clone());
        let mut solver = MaxSat::new(&instance, algorithm, &budget).unwrap();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            token.cancel();
        });
        let outcome = solver.solve().unwrap();
        canceller.join().unwrap();
        assert_eq!(
            outcome.status,
            Status::Stopped(StopReason::Cancelled),
            "{algorithm:?}"
        );
        assert!(outcome.stats.sat_calls >= 1);
    }
    let token = CancelToken::new();
    let budget = Budget::unlimited().with_cancel(token.clone());
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        token.cancel();
    });
    let outcome = minimal_core(&instance, &relax, &budget).unwrap();
    canceller.join().unwrap();
    assert!(
        matches!(
            outcome,
            CoreOutcome::Stopped(StopReason::Cancelled)
                | CoreOutcome::Core {
                    minimal: false,
                    stopped: Some(StopReason::Cancelled),
                    ..
                }
        ),
        "{outcome:?}"
    );
}

#[test]
fn a_solver_dropped_before_cancel_is_not_touched() {
    let (instance, _) = pigeonhole();
    let token = CancelToken::new();
    let budget = Budget::unlimited().with_cancel(token.clone());
    drop(MaxSat::new(&instance, Algorithm::Oll, &budget).unwrap());
    token.cancel(); // must not interrupt the freed solver
    assert!(token.is_cancelled());
}

#[test]
fn an_effort_limit_stops_every_run_at_the_same_point() {
    // The work counted (solver ticks between slices, clauses loaded) does
    // not depend on the machine: two runs stop after the same calls, with
    // the same meter reading, and a larger limit gets further.
    let (instance, _) = pigeonhole();
    let run = |units: u64| {
        let meter = Meter::new();
        let budget = Budget::unlimited()
            .with_meter(&meter)
            .with_effort_units(units);
        let outcome = solve(&instance, Algorithm::Linear, &budget).unwrap();
        (outcome.status, outcome.stats.sat_calls, meter.spent())
    };
    let small = run(200_000);
    assert_eq!(small.0, Status::Stopped(StopReason::Effort));
    assert!(small.2 >= 200_000, "stopped only once spent: {small:?}");
    assert_eq!(run(200_000), small);
    let larger = run(2_000_000);
    assert_eq!(larger.0, Status::Stopped(StopReason::Effort));
    assert!(larger.2 > small.2, "{larger:?} {small:?}");
}

#[test]
fn the_meter_keeps_how_far_a_call_ran_past_its_deadline() {
    // The terminator is polled during a call; the meter keeps the longest
    // any call ran past the deadline (the benchmarks measure how long:
    // generous here, where the point is that it stops and is recorded).
    let (instance, _) = pigeonhole();
    let meter = Meter::new();
    let budget = Budget::unlimited()
        .with_meter(&meter)
        .with_time_limit(Duration::from_millis(100));
    let outcome = solve(&instance, Algorithm::Oll, &budget).unwrap();
    assert_eq!(outcome.status, Status::Stopped(StopReason::Timeout));
    assert!(
        meter.worst_overrun() < Duration::from_secs(20),
        "{:?}",
        meter.worst_overrun()
    );
}
