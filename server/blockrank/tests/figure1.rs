//! The paper's Figure 1 (schedule v2): edges e1=b1→b4, e2=b1→b2, e3=b2→b4,
//! e4=b2→b3, e5=b3→b4, blocks b1..b4 as indices 0..3.

use faultlens_blockrank::algorithm::{rank, Graph};

fn figure1() -> (Graph, Vec<Vec<u64>>, Vec<Vec<u64>>) {
    let graph = Graph {
        blocks: 4,
        edges: vec![(0, 3), (0, 1), (1, 3), (1, 2), (2, 3)],
    };
    let passed = vec![
        vec![19, 3, 2, 1, 1],
        vec![12, 5, 3, 2, 2],
        vec![20, 2, 1, 1, 1],
    ];
    let failed = vec![
        vec![18, 7, 2, 5, 5],
        vec![18, 11, 1, 8, 8],
        vec![15, 10, 4, 2, 2],
    ];
    (graph, passed, failed)
}

fn two_decimals(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[test]
fn figure1_reproduces_to_two_decimals() {
    let (graph, passed, failed) = figure1();
    let s = rank(&graph, &passed, &failed).unwrap();
    let d: Vec<f64> = s.d.iter().map(|&x| two_decimals(x)).collect();
    assert_eq!(d, vec![0.0, 6.0, 0.33, 3.67, 3.67]);
    assert_eq!(two_decimals(s.br[3]), 4.00, "BR(b4)");
    assert_eq!(two_decimals(s.br[2]), 3.67, "BR(b3)");
    assert_eq!(two_decimals(s.br[1]), 4.00, "BR(b2)");
    assert_eq!(two_decimals(s.br[0]), 4.00, "BR(b1)");
    assert!((s.t[1] - 32.0 / 38.0).abs() < 1e-12, "T(b2) = {}", s.t[1]);
    assert_eq!(two_decimals(s.br_prime[1]), 4.32, "BR'(b2)");
    // b2, the faulty block, is the unique top.
    let top = (0..4)
        .max_by(|&a, &b| s.br_prime[a].total_cmp(&s.br_prime[b]))
        .unwrap();
    assert_eq!(top, 1);
    for b in [0, 2, 3] {
        assert!(s.br_prime[b] < s.br_prime[1] - 0.1);
    }
    assert!(s.converged);
}

#[test]
fn order_of_tests_does_not_matter() {
    let (graph, mut passed, mut failed) = figure1();
    let a = rank(&graph, &passed, &failed).unwrap();
    passed.reverse();
    failed.rotate_left(1);
    let b = rank(&graph, &passed, &failed).unwrap();
    for (x, y) in a.br_prime.iter().zip(&b.br_prime) {
        assert!((x - y).abs() < 1e-12);
    }
}

#[test]
fn loop_reaches_a_fixed_point() {
    // entry(0) -> head(1); head -> body(2) -> head; head -> exit(3).
    let graph = Graph {
        blocks: 4,
        edges: vec![(0, 1), (1, 2), (2, 1), (1, 3)],
    };
    // Failing runs iterate more often than passing ones.
    let passed = vec![vec![1, 2, 2, 1], vec![1, 3, 3, 1]];
    let failed = vec![vec![1, 9, 9, 1]];
    let s = rank(&graph, &passed, &failed).unwrap();
    assert!(s.converged, "iterations {}", s.iterations);
    // Fixed point: BR(head) = W(head,body)·BR(body) + W(head,exit)·BR(exit),
    // BR(body) = W(body,head)·BR(head).
    let check_head = s.w[1] * s.br[2] + s.w[3] * s.br[3];
    let check_body = s.w[2] * s.br[1];
    assert!((check_head - s.br[1]).abs() < 1e-6);
    assert!((check_body - s.br[2]).abs() < 1e-6);
    assert_eq!(s.br[3], s.i[3]);
}

#[test]
fn runs_that_stop_lower_the_transition_rate() {
    // entry(0) -> a(1) -> b(2); failing runs stop inside a half the time.
    let graph = Graph {
        blocks: 3,
        edges: vec![(0, 1), (1, 2)],
    };
    let passed = vec![vec![2, 2]];
    let failed = vec![vec![2, 1]];
    let s = rank(&graph, &passed, &failed).unwrap();
    assert!((s.t[1] - 3.0 / 4.0).abs() < 1e-12);
    assert_eq!(s.t[0], 1.0, "a block never entered keeps T = 1");
    assert_eq!(s.t[2], 0.0, "a sink is never left");
}

#[test]
fn wrong_profile_length_is_an_error() {
    let (graph, _, _) = figure1();
    let err = rank(&graph, &[vec![1, 2]], &[]).unwrap_err();
    assert!(err.to_string().contains("2 counts"), "{err}");
}

#[test]
fn amplifying_loop_is_solved_by_elimination() {
    // entry(0) -> head(1) <-> body(2), head -> exit(3). Failing runs call
    // the function less often, loop more and crash in the body: W(body,
    // head) = 2, so the iteration diverges while the equation set has the
    // solution BR(head) = 2, BR(body) = 4.
    use faultlens_blockrank::Method;
    let graph = Graph {
        blocks: 4,
        edges: vec![(0, 1), (1, 2), (2, 1), (1, 3)],
    };
    let passed = vec![vec![2, 2, 2, 2]];
    let failed = vec![vec![1, 5, 4, 0]];
    let s = rank(&graph, &passed, &failed).unwrap();
    assert_eq!(s.method, Method::Elimination);
    assert!(s.converged);
    assert!((s.br[1] - 2.0).abs() < 1e-9, "{:?}", s.br);
    assert!((s.br[2] - 4.0).abs() < 1e-9, "{:?}", s.br);
    assert_eq!(s.br[3], -2.0);
    assert!((s.t[2] - 6.0 / 7.0).abs() < 1e-12);
}

#[test]
fn loop_without_solution_gets_the_least_squares_one() {
    // Called once per test; failing runs crash in the body: the loop's
    // weights multiply to 1 while mass leaves it, so BR(head) = BR(body) +
    // BR(exit) and BR(body) = BR(head) have no solution. The iteration
    // would drift by BR(exit) per sweep; least squares keeps it bounded.
    use faultlens_blockrank::Method;
    let graph = Graph {
        blocks: 4,
        edges: vec![(0, 1), (1, 2), (2, 1), (1, 3)],
    };
    let passed = vec![vec![1, 2, 2, 1]];
    let failed = vec![vec![1, 4, 3, 0]];
    let s = rank(&graph, &passed, &failed).unwrap();
    assert_eq!(s.method, Method::LeastSquares);
    assert!(!s.converged);
    assert!(
        s.br.iter().all(|v| v.is_finite() && v.abs() < 10.0),
        "{:?}",
        s.br
    );
    assert!(
        (s.t[2] - 5.0 / 6.0).abs() < 1e-12,
        "the body was left 5 of 6 times"
    );
}
