//! Per-test edge profiles derived from gcov's counts.
//!
//! gcov reports how often each line ran and, with `-b`, how often each
//! conditional branch was taken (per line, in gcc's order). Neither is an
//! edge count of our source-level graph directly, so each count becomes a
//! linear equation over edge counts and the equations are solved by
//! propagation (an equation with one unknown edge left fixes it):
//!
//! 1. exact evidence, used first:
//!    - branch counts: the decisions whose controlling expressions cover the
//!      same lines form a cluster; when gcov lists exactly as many branches
//!      on those lines as the cluster's decisions have edges, they are
//!      assigned in order (decisions in source order, each decision's edges
//!      in gcc's order, see `build`). Otherwise the cluster gives no
//!      evidence (a macro hiding a branch, a folded constant);
//!    - line counts: gcov's count of line L is the number of times control
//!      entered the blocks on L from elsewhere. Where every block with code
//!      on L starts on L and they form no cycle, the edges entering them
//!      from outside sum to the count (this covers the header line, which
//!      counts calls, and case and goto labels). Lines holding the rest of
//!      a statement split by `&&`/`||`/`?:` are not used: gcc may put that
//!      code on any line of the statement;
//!    - flow conservation (what enters a block leaves it) of blocks without
//!      calls, and the count of a block's last executable line for its
//!      single outgoing edge when that line comes after the block's last
//!      call: gcc ends its own blocks after calls, and only a call can stop
//!      a run in a way the counts show (a crash elsewhere leaves the
//!      counters as if the block had completed);
//! 2. the count of the last executable line of a block that calls something
//!    on that line: exact unless the run stopped inside that call. When the
//!    exact equations then disagree, the solution is recomputed without the
//!    one such equation whose removal makes them agree (a run stops once),
//!    trying first the calls to functions that themselves did not return
//!    (when the caller knows it, see [`FunctionPlan::profile_with`]);
//! 3. flow conservation of blocks with calls, the last resort.
//!
//! What stays ambiguous: a run that stops inside the last statement of a
//! block, when nothing downstream contradicts it, is counted as leaving the
//! block; when several calls could have been the one that did not return
//! and no callee tells, the first in source order is taken; a crash outside
//! any call (`*p` with `p` NULL in a call-free block)
//! is invisible in gcov's counts; edges that no equation reaches are 0 and
//! reported in `unresolved`.

use std::collections::HashMap;

use faultlens_core::results::FileCoverage;

use crate::graph::{FunctionCfg, ENTRY, EXIT};

/// One test's edge counts for one function, in `FunctionCfg::edges` order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EdgeProfile {
    pub counts: Vec<u64>,
    /// Edges no evidence determined (set to 0).
    pub unresolved: usize,
    /// Exact equations that disagreed with the solution (data that does not
    /// fit the graph; a negative solution is clamped to 0 and counted too).
    pub inconsistent: usize,
    /// Decision clusters whose gcov branch count did not match the graph.
    pub unmatched_branches: usize,
    /// The run stopped inside a call and the evidence had to be reconciled
    /// by choosing which call (see the module documentation).
    pub stop_resolved: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rhs {
    Line(u32),
    Zero,
    /// Item `item` of cluster `cluster`'s flattened branch counts.
    Branch {
        cluster: usize,
        item: usize,
    },
}

#[derive(Debug, Clone)]
struct Equation {
    terms: Vec<(usize, i64)>,
    rhs: Rhs,
    priority: usize,
    /// For the last-line equation of a block ending in a call: the callee.
    callee: Option<String>,
    /// What the equation says, for explanations.
    origin: &'static str,
}

#[derive(Debug, Clone)]
struct Cluster {
    lo: u32,
    hi: u32,
    /// Edges of the cluster's decisions, in gcov's order.
    edges: Vec<usize>,
    /// Per decision, in order: the lines of its own expression and how many
    /// of `edges` it owns.
    members: Vec<(u32, u32, usize)>,
}

/// Levels of evidence, most reliable first: gcov's branch counts, other
/// exact equations, last-line counts that a stop inside a call would make
/// wrong, conservation of blocks with calls.
const BRANCH: usize = 0;
const EXACT: usize = 1;
const INEXACT: usize = 2;
const LAST_RESORT: usize = 3;
const LEVELS: usize = 4;

/// What can be prepared once per function and reused for every test.
#[derive(Debug, Clone)]
pub struct FunctionPlan {
    edges: usize,
    equations: Vec<Equation>,
    clusters: Vec<Cluster>,
    /// Executable lines of the function (for "did this cluster run").
    executable: Vec<u32>,
    by_edge: Vec<Vec<usize>>,
}

/// Prepares the equations of every function in a file. `executable` lists
/// the lines gcov considers executable in that file (any order).
pub fn plan(cfgs: &[FunctionCfg], executable: &[u32]) -> Vec<FunctionPlan> {
    let mut lines: Vec<u32> = executable.to_vec();
    lines.sort_unstable();
    lines.dedup();
    cfgs.iter().map(|cfg| plan_function(cfg, &lines)).collect()
}

fn plan_function(cfg: &FunctionCfg, executable: &[u32]) -> FunctionPlan {
    let is_executable = |l: u32| executable.binary_search(&l).is_ok();
    let mut equations = Vec::new();

    // Branch clusters.
    let mut decisions: Vec<usize> = (0..cfg.blocks.len())
        .filter(|&b| cfg.blocks[b].decision.is_some())
        .collect();
    decisions.sort_by_key(|&b| {
        let d = cfg.blocks[b].decision.expect("filtered");
        (d.line, d.order)
    });
    let mut clusters: Vec<Cluster> = Vec::new();
    for &b in &decisions {
        let d = cfg.blocks[b].decision.expect("filtered");
        match clusters.last_mut() {
            Some(c) if d.line <= c.hi => {
                c.hi = c.hi.max(d.end_line);
                c.edges.extend(&cfg.blocks[b].succs);
            }
            _ => clusters.push(Cluster {
                lo: d.line,
                hi: d.end_line,
                edges: cfg.blocks[b].succs.clone(),
                members: Vec::new(),
            }),
        }
    }
    // Within a merged cluster the decisions must be in source order.
    for (ci, cluster) in clusters.iter_mut().enumerate() {
        let mut members: Vec<usize> = decisions
            .iter()
            .copied()
            .filter(|&b| {
                let d = cfg.blocks[b].decision.expect("filtered");
                d.line >= cluster.lo && d.line <= cluster.hi
            })
            .collect();
        members.sort_by_key(|&b| cfg.blocks[b].decision.expect("filtered").order);
        cluster.edges = members
            .iter()
            .flat_map(|&b| cfg.blocks[b].succs.iter().copied())
            .collect();
        cluster.members = members
            .iter()
            .map(|&b| {
                let d = cfg.blocks[b].decision.expect("filtered");
                (d.expr_line, d.expr_end_line, cfg.blocks[b].succs.len())
            })
            .collect();
        for (item, &e) in cluster.edges.iter().enumerate() {
            equations.push(Equation {
                terms: vec![(e, 1)],
                rhs: Rhs::Branch { cluster: ci, item },
                priority: BRANCH,
                callee: None,
                origin: "branch count",
            });
        }
    }

    // Which blocks have code on which line.
    let mut on_line: HashMap<u32, Vec<usize>> = HashMap::new();
    for (b, block) in cfg.blocks.iter().enumerate() {
        for p in &block.pieces {
            for l in p.line..=p.end_line {
                let v = on_line.entry(l).or_default();
                if !v.contains(&b) {
                    v.push(b);
                }
            }
        }
    }
    let mut ambiguous: Vec<u32> = cfg
        .blocks
        .iter()
        .flat_map(|b| b.pieces.iter())
        .filter(|p| p.continuation || p.scope_open)
        .flat_map(|p| p.line..=p.end_line)
        .collect();
    ambiguous.sort_unstable();
    let is_clear = |l: u32| is_executable(l) && ambiguous.binary_search(&l).is_err();
    let mut line_keys: Vec<u32> = on_line.keys().copied().collect();
    line_keys.sort_unstable();
    for &l in &line_keys {
        if !is_clear(l) {
            continue;
        }
        let group = &on_line[&l];
        let all_start_here = group.iter().all(|&b| cfg.first_line(b) == Some(l));
        if all_start_here && !has_cycle(cfg, group) {
            let terms: Vec<(usize, i64)> = group
                .iter()
                .flat_map(|&b| cfg.blocks[b].preds.iter().copied())
                .filter(|&e| !group.contains(&cfg.edges[e].from))
                .map(|e| (e, 1))
                .collect();
            if !terms.is_empty() {
                equations.push(Equation {
                    terms,
                    rhs: Rhs::Line(l),
                    priority: EXACT,
                    callee: None,
                    origin: "line count",
                });
            }
        }
    }

    // Last line of single-exit blocks.
    for (b, block) in cfg.blocks.iter().enumerate() {
        if b == ENTRY || b == EXIT || block.succs.len() != 1 || block.decision.is_some() {
            continue;
        }
        // The last line gcov counts (a closing brace holds no code).
        let Some(last) = block
            .pieces
            .iter()
            .rev()
            .find(|p| is_executable(p.line) || p.continuation)
        else {
            continue;
        };
        let l = last.line;
        if is_clear(l) && on_line.get(&l).map(|g| g.len()) == Some(1) {
            let call_on_last_line = block.last_call_line.is_some_and(|c| c >= l);
            equations.push(Equation {
                terms: vec![(block.succs[0], 1)],
                rhs: Rhs::Line(l),
                priority: if call_on_last_line { INEXACT } else { EXACT },
                callee: block.last_callee.clone().filter(|_| call_on_last_line),
                origin: "last line count",
            });
        }
    }

    // Conservation.
    for (b, block) in cfg.blocks.iter().enumerate() {
        if b == ENTRY || b == EXIT || block.succs.is_empty() {
            continue;
        }
        let mut terms: Vec<(usize, i64)> = block.preds.iter().map(|&e| (e, 1)).collect();
        terms.extend(block.succs.iter().map(|&e| (e, -1)));
        // A self-loop edge cancels out of its own block's balance.
        terms.retain(|&(e, _)| cfg.edges[e].from != cfg.edges[e].to);
        equations.push(Equation {
            terms,
            rhs: Rhs::Zero,
            priority: if block.last_call_line.is_some() {
                LAST_RESORT
            } else {
                EXACT
            },
            callee: None,
            origin: "conservation",
        });
    }

    let mut by_edge = vec![Vec::new(); cfg.edges.len()];
    for (i, eq) in equations.iter().enumerate() {
        for &(e, _) in &eq.terms {
            by_edge[e].push(i);
        }
    }
    let executable = executable
        .iter()
        .copied()
        .filter(|&l| l >= cfg.start_line && l <= cfg.end_line)
        .collect();
    FunctionPlan {
        edges: cfg.edges.len(),
        equations,
        clusters,
        executable,
        by_edge,
    }
}

fn has_cycle(cfg: &FunctionCfg, group: &[usize]) -> bool {
    // Depth-first search restricted to the group, with a stack of its own:
    // one line may hold thousands of blocks (`a || b || …`, statements
    // written on one line). State: 1 on the search path, 2 finished.
    let members: std::collections::HashSet<usize> = group.iter().copied().collect();
    let mut state: HashMap<usize, u8> = HashMap::new();
    for &start in group {
        if state.contains_key(&start) {
            continue;
        }
        state.insert(start, 1);
        // (block, index of the next successor edge to follow)
        let mut path = vec![(start, 0usize)];
        while let Some((b, next)) = path.last_mut() {
            let Some(&e) = cfg.blocks[*b].succs.get(*next) else {
                state.insert(*b, 2);
                path.pop();
                continue;
            };
            *next += 1;
            let to = cfg.edges[e].to;
            if !members.contains(&to) {
                continue;
            }
            match state.get(&to) {
                Some(1) => return true,
                Some(_) => {}
                None => {
                    state.insert(to, 1);
                    path.push((to, 0));
                }
            }
        }
    }
    false
}

/// One test's coverage of one file, indexed for lookups.
pub struct CoverageView<'a> {
    counts: HashMap<u32, u64>,
    branches: HashMap<u32, &'a [u64]>,
}

impl<'a> CoverageView<'a> {
    pub fn new(coverage: Option<&'a FileCoverage>) -> CoverageView<'a> {
        let mut counts = HashMap::new();
        let mut branches = HashMap::new();
        if let Some(c) = coverage {
            for (&l, &n) in c.lines.iter().zip(&c.counts) {
                counts.insert(l, n);
            }
            for b in &c.branches {
                branches.insert(b.line, b.counts.as_slice());
            }
        }
        CoverageView { counts, branches }
    }

    fn count(&self, line: u32) -> u64 {
        self.counts.get(&line).copied().unwrap_or(0)
    }
}

impl FunctionPlan {
    /// The edge counts of one test. Lines the test did not run count 0.
    pub fn profile(&self, view: &CoverageView) -> EdgeProfile {
        self.profile_with(view, &|_| false)
    }

    /// Like [`FunctionPlan::profile`], with a hint for runs that stopped
    /// inside a call: `stopped(name)` says that function `name` was left
    /// without returning in this run (its own profile shows fewer returns
    /// than calls), so a call to it is the first suspect for the stop.
    pub fn profile_with(&self, view: &CoverageView, stopped: &dyn Fn(&str) -> bool) -> EdgeProfile {
        let mut result = EdgeProfile {
            counts: vec![0; self.edges],
            ..EdgeProfile::default()
        };
        if self.executable.iter().all(|&l| view.count(l) == 0) {
            return result; // the test never entered this function
        }
        let rhs = self.right_hand_sides(view, &mut result);
        let (mut value, mut inconsistent) = self.solve(&rhs);
        if inconsistent > 0 {
            result.stop_resolved = true;
            // A run stopped inside the last statement of a block whose
            // last-line count said it went on: find the one inexact equation
            // whose removal makes the exact evidence agree.
            let mut best: Option<(usize, Vec<Option<i64>>)> = None;
            let mut candidates: Vec<usize> = (0..self.equations.len())
                .filter(|&i| self.equations[i].priority == INEXACT && rhs[i].unwrap_or(0) > 0)
                .collect();
            // Calls to functions that did not return first (stable order).
            candidates.sort_by_key(|&i| !self.equations[i].callee.as_deref().is_some_and(stopped));
            for i in candidates {
                let mut trial = rhs.clone();
                trial[i] = None;
                let (v, bad) = self.solve(&trial);
                if bad < best.as_ref().map_or(inconsistent, |b| b.0) {
                    best = Some((bad, v));
                    if bad == 0 {
                        break;
                    }
                }
            }
            if let Some((bad, v)) = best {
                value = v;
                inconsistent = bad;
            }
        }
        result.inconsistent = inconsistent;
        for (e, v) in value.iter().enumerate() {
            match v {
                Some(v) => result.counts[e] = *v as u64,
                None => result.unresolved += 1,
            }
        }
        result
    }

    /// Each equation's right-hand side in this test (`None`: unavailable).
    fn right_hand_sides(&self, view: &CoverageView, stats: &mut EdgeProfile) -> Vec<Option<i64>> {
        // Branch values per cluster, when the cluster matches.
        let cluster_values: Vec<Option<Vec<u64>>> = self
            .clusters
            .iter()
            .map(|c| {
                let mut items = Vec::new();
                for l in c.lo..=c.hi {
                    if let Some(b) = view.branches.get(&l) {
                        items.extend_from_slice(b);
                    }
                }
                if items.len() == c.edges.len() {
                    return Some(items);
                }
                // gcov leaves lines that did not run out of the coverage,
                // branches included. Decisions whose own lines did not run
                // are the candidates for the missing branches; short-circuit
                // evaluation skips later operands, so the last candidates
                // are taken first. (gcc may put an operand's branch on an
                // earlier line of the condition, so a candidate may have
                // been evaluated after all.)
                let ran = |lo: u32, hi: u32| {
                    let mut any = false;
                    let ran = self
                        .executable
                        .iter()
                        .filter(|&&l| l >= lo && l <= hi)
                        .any(|&l| {
                            any = true;
                            view.count(l) > 0
                        });
                    ran || !any
                };
                let Some(mut missing) = c.edges.len().checked_sub(items.len()) else {
                    stats.unmatched_branches += 1;
                    return None;
                };
                let mut evaluated = vec![true; c.members.len()];
                for (i, &(lo, hi, arity)) in c.members.iter().enumerate().rev() {
                    if missing >= arity && !ran(lo, hi) {
                        evaluated[i] = false;
                        missing -= arity;
                    }
                }
                if missing != 0 {
                    stats.unmatched_branches += 1;
                    return None;
                }
                let mut values = Vec::with_capacity(c.edges.len());
                let mut next = items.into_iter();
                for (m, &e) in c.members.iter().zip(&evaluated) {
                    for _ in 0..m.2 {
                        values.push(if e { next.next().unwrap_or(0) } else { 0 });
                    }
                }
                Some(values)
            })
            .collect();
        let rhs: Vec<Option<i64>> = self
            .equations
            .iter()
            .map(|eq| match eq.rhs {
                Rhs::Line(l) => Some(view.count(l) as i64),
                Rhs::Zero => Some(0),
                Rhs::Branch { cluster, item } => {
                    cluster_values[cluster].as_ref().map(|v| v[item] as i64)
                }
            })
            .collect();
        rhs
    }

    /// The exact equations the solution of one test violates, described
    /// (for investigating data that does not fit the graph).
    pub fn conflicts(&self, view: &CoverageView, cfg: &FunctionCfg) -> Vec<String> {
        let profile = self.profile(view);
        let rhs = self.right_hand_sides(view, &mut EdgeProfile::default());
        let mut out = Vec::new();
        for (i, eq) in self.equations.iter().enumerate() {
            let Some(r) = rhs[i] else { continue };
            if eq.priority > EXACT {
                continue;
            }
            let sum: i64 = eq
                .terms
                .iter()
                .map(|&(e, c)| c * profile.counts[e] as i64)
                .sum();
            if sum != r {
                let edges: Vec<String> = eq
                    .terms
                    .iter()
                    .map(|&(e, c)| {
                        format!(
                            "{}{} = {}",
                            if c < 0 { "-" } else { "" },
                            cfg.describe_edge(e),
                            profile.counts[e]
                        )
                    })
                    .collect();
                let place = match eq.rhs {
                    Rhs::Line(l) => format!(" of line {l}"),
                    _ => String::new(),
                };
                out.push(format!(
                    "{}{place}: expected {r}, edges give {sum}: {}",
                    eq.origin,
                    edges.join(", ")
                ));
            }
        }
        out
    }

    /// Propagation: repeatedly solve an equation with one unknown edge left,
    /// always from the most reliable level that has one. Equations whose
    /// right-hand side is `None` are unavailable. Returns the edge values and
    /// how many exact equations disagreed.
    fn solve(&self, rhs: &[Option<i64>]) -> (Vec<Option<i64>>, usize) {
        let mut inconsistent = 0;
        let mut value: Vec<Option<i64>> = vec![None; self.edges];
        let mut remaining: Vec<i64> = rhs.iter().map(|r| r.unwrap_or(0)).collect();
        let mut unknowns: Vec<usize> = self.equations.iter().map(|e| e.terms.len()).collect();
        let mut work: [Vec<usize>; LEVELS] = Default::default();
        for (i, eq) in self.equations.iter().enumerate() {
            if rhs[i].is_some() && unknowns[i] == 1 {
                work[eq.priority].push(i);
            }
        }
        // Process in reverse so that the first equations are used first.
        for w in work.iter_mut() {
            w.reverse();
        }
        while let Some(level) = (0..LEVELS).find(|&l| !work[l].is_empty()) {
            let i = work[level].pop().expect("non-empty");
            if unknowns[i] != 1 || rhs[i].is_none() {
                continue;
            }
            let eq = &self.equations[i];
            let &(edge, coef) = eq
                .terms
                .iter()
                .find(|(e, _)| value[*e].is_none())
                .expect("one unknown");
            let mut v = remaining[i] * coef;
            if v < 0 {
                inconsistent += 1;
                v = 0;
            }
            value[edge] = Some(v);
            for &j in &self.by_edge[edge] {
                let terms = &self.equations[j].terms;
                let c: i64 = terms
                    .iter()
                    .filter(|(e, _)| *e == edge)
                    .map(|(_, c)| *c)
                    .sum();
                remaining[j] -= c * v;
                unknowns[j] -= terms.iter().filter(|(e, _)| *e == edge).count();
                if rhs[j].is_none() {
                    continue;
                }
                if unknowns[j] == 1 {
                    work[self.equations[j].priority].push(j);
                } else if unknowns[j] == 0
                    && remaining[j] != 0
                    && self.equations[j].priority <= EXACT
                    && j != i
                {
                    inconsistent += 1;
                }
            }
        }
        (value, inconsistent)
    }
}

/// Edge profiles of one test for every function of a file (convenience for
/// a single test; [`plan`] once and [`FunctionPlan::profile`] per test when
/// there are many).
pub fn edge_profiles(
    cfgs: &[FunctionCfg],
    executable: &[u32],
    coverage: Option<&FileCoverage>,
) -> Vec<EdgeProfile> {
    let view = CoverageView::new(coverage);
    profile_file(cfgs, &plan(cfgs, executable), &view)
}

/// One test's edge profiles for every function of a file (`plans` from
/// [`plan`] on the same `cfgs`). Where a run stopped inside a call and the
/// evidence disagreed, the functions of the file that did not return in
/// this run tell which call it was (see [`FunctionPlan::profile_with`]).
pub fn profile_file(
    cfgs: &[FunctionCfg],
    plans: &[FunctionPlan],
    view: &CoverageView,
) -> Vec<EdgeProfile> {
    let mut profiles: Vec<EdgeProfile> = plans.iter().map(|p| p.profile(view)).collect();
    if profiles.iter().any(|p| p.stop_resolved) {
        let stopped: Vec<&str> = cfgs
            .iter()
            .zip(&profiles)
            .filter(|(c, p)| stopped_calls(c, p) > 0)
            .map(|(c, _)| c.name.as_str())
            .collect();
        for (f, plan) in plans.iter().enumerate() {
            if profiles[f].stop_resolved {
                profiles[f] = plan.profile_with(view, &|name| stopped.contains(&name));
            }
        }
    }
    profiles
}

/// The lines whose gcov counts are evidence: the file's executable lines
/// (as the results document lists them for ranking) and every line a test
/// has a count for (the list for ranking may leave some out, such as
/// function headers, whose counts are still the best evidence of calls).
pub fn evidence_lines<'a>(
    listed: &[u32],
    coverage: impl IntoIterator<Item = &'a FileCoverage>,
) -> Vec<u32> {
    let mut lines = listed.to_vec();
    for c in coverage {
        lines.extend_from_slice(&c.lines);
    }
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// How many calls of the function did not return in this run (a crash or
/// `exit` inside it or below it): calls minus returns.
pub fn stopped_calls(cfg: &FunctionCfg, profile: &EdgeProfile) -> u64 {
    let mut calls = 0;
    let mut returns = 0;
    for (e, edge) in cfg.edges.iter().enumerate() {
        if edge.from == ENTRY {
            calls += profile.counts[e];
        }
        if edge.to == EXIT {
            returns += profile.counts[e];
        }
    }
    calls.saturating_sub(returns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Block, Edge, EdgeKind, FunctionCfg};

    /// Blocks `0..n` in a chain, with an edge back to the first when `cyclic`.
    fn chain(n: usize, cyclic: bool) -> FunctionCfg {
        let mut blocks = vec![Block::default(); n];
        let mut edges = Vec::new();
        let links = (0..n - 1)
            .map(|b| (b, b + 1))
            .chain(cyclic.then_some((n - 1, 0)));
        for (from, to) in links {
            blocks[from].succs.push(edges.len());
            blocks[to].preds.push(edges.len());
            edges.push(Edge {
                from,
                to,
                kind: EdgeKind::Fallthrough,
            });
        }
        FunctionCfg {
            name: "chain".into(),
            header_line: 1,
            start_line: 1,
            end_line: 1,
            blocks,
            edges,
        }
    }

    #[test]
    fn a_cycle_is_found_among_a_lines_blocks_however_many_they_are() {
        // One line can hold this many blocks (`a || b || …`, statements
        // written on one line); the search must not recurse per block.
        let n = 100_000;
        let group: Vec<usize> = (0..n).collect();
        assert!(!has_cycle(&chain(n, false), &group));
        assert!(has_cycle(&chain(n, true), &group));
        // Outside the group, the back edge does not count.
        assert!(!has_cycle(&chain(n, true), &group[1..]));
    }
}
