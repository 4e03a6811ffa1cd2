//! Equal scores must be equal numbers: the ranking groups ties by exact
//! equality, so rounding noise from the solver would split a tie group (or
//! order lines by it) and change the rank a developer reads.

use faultlens_blockrank::algorithm::{rank, Graph};

/// `leader()` of fixtures/blockrank-coincidental as its CFG: 0 entry,
/// 1 exit, 2 `int best = 0` + init, 3 loop condition, 4 `if`, 5 `return`,
/// 6 `i++`, 7 `best = i`, 8 the join after the `if`.
fn leader() -> (Graph, Vec<Vec<u64>>, Vec<Vec<u64>>) {
    let graph = Graph {
        blocks: 9,
        edges: vec![
            (0, 2),
            (2, 3),
            (3, 4),
            (3, 5),
            (6, 3),
            (4, 7),
            (4, 8),
            (7, 8),
            (8, 6),
            (5, 1),
        ],
    };
    // The per-test edge counts gcov gives for the fixture's suite.
    let passed = vec![
        vec![1, 1, 0, 1, 0, 0, 0, 0, 0, 1],
        vec![1, 1, 1, 1, 1, 1, 0, 1, 1, 1],
        vec![1, 1, 2, 1, 2, 0, 2, 0, 2, 1],
        vec![1, 1, 3, 1, 3, 3, 0, 3, 3, 1],
        vec![1, 1, 3, 1, 3, 3, 0, 3, 3, 1],
        vec![1, 1, 4, 1, 4, 2, 2, 2, 4, 1],
        vec![1, 1, 4, 1, 4, 0, 4, 0, 4, 1],
        vec![1, 1, 5, 1, 5, 1, 4, 1, 5, 1],
        vec![1, 1, 6, 1, 6, 6, 0, 6, 6, 1],
        vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ];
    let failed = vec![
        vec![1, 1, 1, 1, 1, 1, 0, 1, 1, 1],
        vec![1, 1, 3, 1, 3, 3, 0, 3, 3, 1],
        vec![1, 1, 4, 1, 4, 2, 2, 2, 4, 1],
        vec![1, 1, 5, 1, 5, 5, 0, 5, 5, 1],
    ];
    (graph, passed, failed)
}

#[test]
fn scores_that_are_equal_in_exact_arithmetic_are_equal_numbers() {
    let (graph, passed, failed) = leader();
    let s = rank(&graph, &passed, &failed).unwrap();
    // D = 0.1 on the call edges, 0.45 around the loop, 1.15 into
    // `best = i`, -0.7 on the `if`'s false edge.
    // Loop condition: BR = I = 0.1 + 0.45 (the loop amplifies the 0.1 that
    // leaves it back to everything that enters it).
    assert_eq!(s.br_prime[3], 0.55, "{:?}", s.br_prime);
    // The `if`: its two edges rejoin, so it carries the join's relevance.
    assert_eq!(s.br_prime[4], s.br_prime[8], "{:?}", s.br_prime);
    assert_eq!(s.br_prime[4], 0.45, "{:?}", s.br_prime);
    assert_eq!(s.br_prime[7], 1.15, "{:?}", s.br_prime);
    // The entry block and the return: the 0.1 of one call more per run.
    assert_eq!(s.br_prime[2], 0.1, "{:?}", s.br_prime);
    assert_eq!(s.br_prime[5], 0.1, "{:?}", s.br_prime);
}

#[test]
fn a_function_without_relevance_scores_exactly_zero() {
    // Called once by every test, the same loop in passing and failing
    // runs but iterated differently: all relevance has to come from the
    // exit, which every run reaches once (D = 0 there), so every block
    // scores 0 — not 1e-22 above or below it.
    // entry(0) -> a(2) -> head(3); head -> body(4) -> latch(5) -> head;
    // head -> tail(6) -> exit(1); body -> skip(7) -> latch.
    let graph = Graph {
        blocks: 8,
        edges: vec![
            (0, 2),
            (2, 3),
            (3, 4),
            (4, 5),
            (5, 3),
            (3, 6),
            (6, 1),
            (4, 7),
            (7, 5),
        ],
    };
    let passed = vec![
        vec![1, 1, 3, 1, 3, 1, 1, 2, 2],
        vec![1, 1, 7, 3, 7, 1, 1, 4, 4],
        vec![1, 1, 2, 2, 2, 1, 1, 0, 0],
    ];
    let failed = vec![
        vec![1, 1, 5, 4, 5, 1, 1, 1, 1],
        vec![1, 1, 9, 1, 9, 1, 1, 8, 8],
    ];
    let s = rank(&graph, &passed, &failed).unwrap();
    for (b, v) in s.br_prime.iter().enumerate() {
        assert!(
            *v == 0.0 || b == 3 || b == 4 || b == 5 || b == 7,
            "block {b}: {v}"
        );
    }
    for v in &s.br_prime {
        assert!(
            v.abs() == 0.0 || v.abs() > 1e-6,
            "noise left: {:?}",
            s.br_prime
        );
    }
}

#[test]
fn incoming_edges_that_balance_out_give_weight_zero() {
    // entry(0) -> d(2); d -> a(3) -> j(4); d -> j; j -> exit(1). Every
    // test calls once; 5 of 10 passing and 1 of 3 failing runs take the
    // true edge, so D(d→j) = 2/3 - 1/2 and D(a→j) = 1/3 - 1/2 cancel and
    // I(j) = 0: the paper sets W = 0 there. Summing the two D values in
    // floating point leaves -5.6e-17, which made W about ±3e15.
    let graph = Graph {
        blocks: 5,
        edges: vec![(0, 2), (2, 3), (2, 4), (3, 4), (4, 1)],
    };
    let mut passed = vec![vec![1, 1, 0, 1, 1]; 5];
    passed.extend(vec![vec![1, 0, 1, 0, 1]; 5]);
    let mut failed = vec![vec![1, 1, 0, 1, 1]];
    failed.extend(vec![vec![1, 0, 1, 0, 1]; 2]);
    let s = rank(&graph, &passed, &failed).unwrap();
    assert_eq!(s.i[4], 0.0, "{:?}", s.i);
    assert_eq!(s.w[2], 0.0, "{:?}", s.w);
    assert_eq!(s.w[3], 0.0, "{:?}", s.w);
    assert!(s.br_prime.iter().all(|v| v.abs() < 1.0), "{:?}", s.br_prime);
}
