//! The BlockRank algorithm on an abstract graph (design.md, "BlockRank";
//! papers/blockrank-edge-propagation.txt, Section III).
//!
//! 1. Mean edge profiles of passed (`Pp`) and failed (`Pf`) tests; the
//!    suspicious edge profile `D(e) = Pf(e) - Pp(e)`.
//! 2. `W(bj,bk) = D(bj→bk) / Σ_{e into bk} D(e)`, 0 when the sum is 0.
//! 3. Transition rate `T(b) = Σ out-edge counts / Σ in-edge counts` over all
//!    tests, passed and failed.
//! 4. `I(b) = Σ_{e into b} D(e)`.
//! 5. `BR(bj) = Σ_{edges bj→bk} W(bj,bk)·BR(bk)`; a block without successors
//!    has `BR = I`. Iterated (cap 200) from `BR = I`, as the paper does for
//!    loops (without loops the first sweep is exact); with loops, a small
//!    set with a unique solution is then solved exactly by elimination, and
//!    one the iteration could not settle takes its least-squares solution
//!    (a large one keeps the last iterate).
//! 6. `BR'(b) = T(b)·BR(b) + (1 - T(b))·I(b)`; blocks rank by `BR'`.
//! 7. The stop profile `S(b)`: the share of failed runs that stopped inside
//!    `b` (entered it and never left: a crash, `abort`, `exit`, or a call
//!    that never returned) minus that share of passed runs. It is the
//!    suspicious profile of an edge from `b` to a virtual end the paper does
//!    not draw, kept apart so that the caller can calibrate crashes across
//!    functions (see `lines.rs`): the paper's own term `(1 - T)·I` is 0 for
//!    a block every test enters equally often, even when every failed run
//!    crashed in it.
//!
//! Scores are rounded to 10 significant digits, and values below 1e-10 of
//! the function's largest quantity are 0, so that scores equal in exact
//! arithmetic tie (the ranking compares them exactly).
//!
//! As in the paper's worked example, propagation uses the uncalibrated `BR`
//! of successors; `BR'` is computed afterwards for ranking. (Propagating `BR'`
//! instead would give b1 in Figure 1 the score 4.32 and tie it with the faulty
//! b2, contradicting the paper's 4.00.)

use thiserror::Error;

/// A directed multigraph: blocks `0..blocks`, edges as `(from, to)` pairs.
/// Parallel edges are allowed (the true and false edge of a condition may
/// lead to the same block); each keeps its own count.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Graph {
    pub blocks: usize,
    pub edges: Vec<(usize, usize)>,
}

/// Per-edge sums over the tests, enough for every BlockRank quantity.
/// `passed_sum[e]` is the sum over passed tests of the count of edge `e`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProfileSums {
    pub passed_tests: usize,
    pub failed_tests: usize,
    pub passed_sum: Vec<f64>,
    pub failed_sum: Vec<f64>,
}

impl ProfileSums {
    pub fn new(edges: usize) -> ProfileSums {
        ProfileSums {
            passed_tests: 0,
            failed_tests: 0,
            passed_sum: vec![0.0; edges],
            failed_sum: vec![0.0; edges],
        }
    }

    /// Adds one test's edge profile (count per edge, same order as the graph).
    pub fn add(&mut self, profile: &[u64], failed: bool) -> Result<(), BlockRankError> {
        if profile.len() != self.passed_sum.len() {
            return Err(BlockRankError::ProfileLength {
                expected: self.passed_sum.len(),
                got: profile.len(),
            });
        }
        let (sums, n) = if failed {
            (&mut self.failed_sum, &mut self.failed_tests)
        } else {
            (&mut self.passed_sum, &mut self.passed_tests)
        };
        for (s, &c) in sums.iter_mut().zip(profile) {
            *s += c as f64;
        }
        *n += 1;
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BlockRankError {
    #[error("an edge profile has {got} counts but the graph has {expected} edges")]
    ProfileLength { expected: usize, got: usize },
    #[error(
        "edge #{edge} goes from block {from} to block {to} but the graph has only {blocks} blocks"
    )]
    EdgeOutOfRange {
        edge: usize,
        from: usize,
        to: usize,
        blocks: usize,
    },
}

/// Every intermediate quantity, so a user interface can explain a score.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockScores {
    /// Per edge: mean count over passed tests (0 when there are none).
    pub pp: Vec<f64>,
    /// Per edge: mean count over failed tests (0 when there are none).
    pub pf: Vec<f64>,
    /// Per edge: suspicious edge profile `Pf - Pp`.
    pub d: Vec<f64>,
    /// Per edge `bj→bk`: share `W(bj,bk)` of `BR(bk)` that flows back to `bj`.
    pub w: Vec<f64>,
    /// Per block: transition rate in [0, 1]; 1 for a block never entered
    /// (no evidence that runs stop in it).
    pub t: Vec<f64>,
    /// Per block: `Σ D` of incoming edges.
    pub i: Vec<f64>,
    /// Per block: share of failed runs that stopped inside the block minus
    /// the share of passed runs that did (0 for blocks without incoming or
    /// outgoing edges: a function's entry and exit).
    pub stop: Vec<f64>,
    /// Per block: propagated fault relevance.
    pub br: Vec<f64>,
    /// Per block: calibrated fault relevance, the ranking score.
    pub br_prime: Vec<f64>,
    /// Sweeps the fixed point took (at most [`MAX_ITERATIONS`]).
    pub iterations: usize,
    /// False when neither the iteration settled within the cap nor the
    /// equation set could be solved directly (then `br` is the last
    /// iterate, as the paper prescribes).
    pub converged: bool,
    /// How `br` was obtained. The paper solves the equation set and names
    /// iteration (cap 200) for loops: graphs with loops of at most
    /// [`DIRECT_SOLVE_LIMIT`] blocks whose set has a unique solution are
    /// solved by elimination; when the iteration does not settle and the set
    /// has no unique solution, the closest least-squares solution is taken
    /// (and `converged` stays false).
    pub method: Method,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Iteration,
    Elimination,
    LeastSquares,
}

/// The paper's cap on fixed-point iterations (after PageRank's).
pub const MAX_ITERATIONS: usize = 200;
const TOLERANCE: f64 = 1e-9;

/// BlockRank from individual edge profiles, as in the paper.
pub fn rank(
    graph: &Graph,
    passed: &[Vec<u64>],
    failed: &[Vec<u64>],
) -> Result<BlockScores, BlockRankError> {
    let mut sums = ProfileSums::new(graph.edges.len());
    for p in passed {
        sums.add(p, false)?;
    }
    for p in failed {
        sums.add(p, true)?;
    }
    rank_sums(graph, &sums)
}

/// BlockRank from per-edge sums (what [`rank`] accumulates).
pub fn rank_sums(graph: &Graph, sums: &ProfileSums) -> Result<BlockScores, BlockRankError> {
    let m = graph.edges.len();
    if sums.passed_sum.len() != m || sums.failed_sum.len() != m {
        return Err(BlockRankError::ProfileLength {
            expected: m,
            got: sums.passed_sum.len().min(sums.failed_sum.len()),
        });
    }
    let n = graph.blocks;
    for (edge, &(from, to)) in graph.edges.iter().enumerate() {
        if from >= n || to >= n {
            return Err(BlockRankError::EdgeOutOfRange {
                edge,
                from,
                to,
                blocks: n,
            });
        }
    }
    // Means; with no tests of a kind the mean profile is 0 (0/0 defined as 0).
    let mean = |sum: &[f64], tests: usize| -> Vec<f64> {
        if tests == 0 {
            vec![0.0; sum.len()]
        } else {
            sum.iter().map(|s| s / tests as f64).collect()
        }
    };
    let pp = mean(&sums.passed_sum, sums.passed_tests);
    let pf = mean(&sums.failed_sum, sums.failed_tests);
    let d: Vec<f64> = pf.iter().zip(&pp).map(|(f, p)| f - p).collect();

    // I(b) = Σ D over b's incoming edges, taken as the difference of the
    // means of the summed counts: the counts are integers, so a block whose
    // incoming edges balance out gets exactly 0 (summing the D values
    // instead leaves rounding noise such as 1e-17, and W = D / I then turns
    // into ±3e15 where the paper prescribes W = 0).
    let mut into_passed = vec![0.0; n];
    let mut into_failed = vec![0.0; n];
    let mut out_passed = vec![0.0; n];
    let mut out_failed = vec![0.0; n];
    let mut entered = vec![0.0; n];
    let mut left = vec![0.0; n];
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (e, &(from, to)) in graph.edges.iter().enumerate() {
        into_passed[to] += sums.passed_sum[e];
        into_failed[to] += sums.failed_sum[e];
        out_passed[from] += sums.passed_sum[e];
        out_failed[from] += sums.failed_sum[e];
        let all = sums.passed_sum[e] + sums.failed_sum[e];
        entered[to] += all;
        left[from] += all;
        successors[from].push(e);
    }
    let pi = mean(&into_passed, sums.passed_tests);
    let fi = mean(&into_failed, sums.failed_tests);
    let i: Vec<f64> = fi.iter().zip(&pi).map(|(f, p)| f - p).collect();
    // Stops as integer differences of summed counts first, for the same
    // reason as I: balanced blocks get exactly 0.
    let stops = |into: &[f64], out: &[f64]| -> Vec<f64> {
        (0..n)
            .map(|b| {
                if entered[b] == 0.0 || successors[b].is_empty() {
                    0.0
                } else {
                    into[b] - out[b]
                }
            })
            .collect()
    };
    let stop: Vec<f64> = mean(&stops(&into_failed, &out_failed), sums.failed_tests)
        .iter()
        .zip(&mean(&stops(&into_passed, &out_passed), sums.passed_tests))
        .map(|(f, p)| f - p)
        .collect();
    let w: Vec<f64> = graph
        .edges
        .iter()
        .enumerate()
        .map(|(e, &(_, to))| if i[to] == 0.0 { 0.0 } else { d[e] / i[to] })
        .collect();
    let t: Vec<f64> = (0..n)
        .map(|b| {
            if entered[b] == 0.0 {
                1.0
            } else {
                (left[b] / entered[b]).clamp(0.0, 1.0)
            }
        })
        .collect();

    let order = successors_first_order(n, &graph.edges, &successors);
    let mut br = i.clone();
    let mut iterations = 0;
    let mut converged = false;
    while iterations < MAX_ITERATIONS {
        iterations += 1;
        let mut change: f64 = 0.0;
        for &b in &order {
            if successors[b].is_empty() {
                continue; // BR = I
            }
            let value: f64 = successors[b]
                .iter()
                .map(|&e| w[e] * br[graph.edges[e].1])
                .sum();
            let scale = value.abs().max(br[b].abs()).max(1.0);
            change = change.max((value - br[b]).abs() / scale);
            br[b] = value;
        }
        if change <= TOLERANCE {
            converged = true;
            break;
        }
    }
    // Without loops one sweep in successors-first order is the exact
    // solution (the second only confirms it). With loops the iteration
    // stops at a tolerance, so a small set with a unique solution is solved
    // exactly (equal scores then come out equal); a set the iteration could
    // not settle is solved exactly when it can be, else by least squares.
    let mut method = Method::Iteration;
    let exact_already = converged && iterations <= 2;
    if !exact_already && n <= DIRECT_SOLVE_LIMIT {
        let (a, rhs) = equation_set(graph, &successors, &w, &i);
        if let Some(exact) = eliminate(a.clone(), rhs.clone()) {
            br = exact;
            converged = true;
            method = Method::Elimination;
        } else if !converged {
            if let Some(closest) = least_squares(&a, &rhs) {
                br = closest;
                method = Method::LeastSquares;
            }
        }
    }
    Ok(finish(
        ScoresSoFar {
            pp,
            pf,
            d,
            w,
            t,
            i,
            stop,
        },
        br,
        iterations,
        converged,
        method,
    ))
}

/// The quantities computed before the equation set is solved.
struct ScoresSoFar {
    pp: Vec<f64>,
    pf: Vec<f64>,
    d: Vec<f64>,
    w: Vec<f64>,
    t: Vec<f64>,
    i: Vec<f64>,
    stop: Vec<f64>,
}

/// Calibrates `BR` into `BR'` and rounds both (see [`tidy`]).
fn finish(
    s: ScoresSoFar,
    br: Vec<f64>,
    iterations: usize,
    converged: bool,
    method: Method,
) -> BlockScores {
    let n = br.len();
    let br_prime: Vec<f64> = (0..n)
        .map(|b| s.t[b] * br[b] + (1.0 - s.t[b]) * s.i[b])
        .collect();
    let scale =
        s.d.iter()
            .chain(&s.i)
            .chain(&br)
            .chain(&br_prime)
            .fold(0.0f64, |m, v| m.max(v.abs()));
    BlockScores {
        br: br.iter().map(|&v| tidy(v, scale)).collect(),
        br_prime: br_prime.iter().map(|&v| tidy(v, scale)).collect(),
        pp: s.pp,
        pf: s.pf,
        d: s.d,
        w: s.w,
        t: s.t,
        i: s.i,
        stop: s.stop,
        iterations,
        converged,
        method,
    }
}

/// Significant digits kept in scores: far below any difference the edge
/// counts can express, far above the solver's rounding.
const SIGNIFICANT_DIGITS: usize = 10;

/// A score as the ranking should compare it: values that are equal in
/// exact arithmetic but were reached along different sums (0.55 and
/// 0.5500000000000004) become the same number, and what is rounding noise
/// next to the function's largest quantity `scale` becomes 0. Ties are then
/// ties, within a function and across functions.
fn tidy(v: f64, scale: f64) -> f64 {
    if !v.is_finite() || v.abs() <= scale * 1e-10 {
        return if v.is_finite() { 0.0 } else { v };
    }
    format!("{:.*e}", SIGNIFICANT_DIGITS - 1, v)
        .parse()
        .unwrap_or(v)
}

/// Largest graph whose equation set is solved by elimination when the
/// iteration does not settle (dense elimination is cubic in the blocks).
pub const DIRECT_SOLVE_LIMIT: usize = 400;

/// The equation set `A·BR = b`: `BR(b) - Σ W(b,k)·BR(k) = 0` for blocks
/// with successors and `BR(b) = I(b)` for blocks without.
fn equation_set(
    graph: &Graph,
    successors: &[Vec<usize>],
    w: &[f64],
    i: &[f64],
) -> (Vec<Vec<f64>>, Vec<f64>) {
    let n = graph.blocks;
    let mut a = vec![vec![0.0f64; n]; n];
    let mut b = vec![0.0f64; n];
    for j in 0..n {
        a[j][j] = 1.0;
        if successors[j].is_empty() {
            b[j] = i[j];
        } else {
            for &e in &successors[j] {
                a[j][graph.edges[e].1] -= w[e];
            }
        }
    }
    (a, b)
}

/// Gaussian elimination with partial pivoting; `None` when singular.
fn eliminate(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    let scale = a
        .iter()
        .flat_map(|r| r.iter())
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(1.0);
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-10 * scale {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (upper, lower) = a.split_at_mut(col + 1);
        let pivot_row = &upper[col];
        for (offset, row) in lower.iter_mut().enumerate() {
            let factor = row[col] / pivot_row[col];
            if factor != 0.0 {
                for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= factor * p;
                }
                b[col + 1 + offset] -= factor * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - tail) / a[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// The least-squares solution closest to 0 (Tikhonov-regularised normal
/// equations) of an equation set that has no exact solution: a loop whose
/// weights multiply to 1 around it while mass leaves it (typically a loop
/// entered once per test in which failing runs stop).
fn least_squares(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let mut ata = vec![vec![0.0f64; n]; n];
    let mut atb = vec![0.0f64; n];
    for (row, &rhs) in a.iter().zip(b) {
        let nz: Vec<usize> = (0..n).filter(|&k| row[k] != 0.0).collect();
        for &p in &nz {
            atb[p] += row[p] * rhs;
            for &q in &nz {
                ata[p][q] += row[p] * row[q];
            }
        }
    }
    let trace: f64 = (0..n).map(|k| ata[k][k]).sum::<f64>().max(1.0);
    let lambda = 1e-9 * trace / n.max(1) as f64;
    for (k, row) in ata.iter_mut().enumerate() {
        row[k] += lambda;
    }
    eliminate(ata, atb)
}

/// Blocks ordered so that, ignoring back edges, every successor comes before
/// its predecessors (DFS post-order from every root). One Gauss-Seidel sweep
/// in this order solves an acyclic graph exactly; loops need further sweeps.
fn successors_first_order(
    n: usize,
    edges: &[(usize, usize)],
    successors: &[Vec<usize>],
) -> Vec<usize> {
    let mut has_pred = vec![false; n];
    for &(from, to) in edges {
        if from != to {
            has_pred[to] = true;
        }
    }
    let roots = (0..n).filter(|&b| !has_pred[b]).chain(0..n);
    let mut visited = vec![false; n];
    let mut order = Vec::with_capacity(n);
    // Iterative DFS: (block, index of next successor edge to visit).
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in roots {
        if visited[root] {
            continue;
        }
        visited[root] = true;
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (b, next) = *top;
            if next < successors[b].len() {
                top.1 += 1;
                let to = edges[successors[b][next]].1;
                if !visited[to] {
                    visited[to] = true;
                    stack.push((to, 0));
                }
            } else {
                order.push(b);
                stack.pop();
            }
        }
    }
    order
}
