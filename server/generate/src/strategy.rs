//! The strategies: which runs to add to the data, one per round.
//!
//! - **sfo** (single-fault-optimal data): from the failing runs, repeatedly
//!   add a failing run that does not execute some line every failing run so
//!   far executes, until none exists. Then the lines all sample failures
//!   execute are the lines all possible failures execute.
//! - **sfo_p**: sfo, then up to `max` passing runs each with a coverage no
//!   passing run had.
//! - **SAT-TAR**: from a failing run and its suspects (the lines of its
//!   unsatisfiable core), add the run with new coverage that executes the most
//!   suspects, one per round, until none with new coverage remains; failing
//!   runs that violate a different assertion are dropped (another fault).
//!
//! Pure: the data is a list of runs; the [`Explorer`] finds the runs.

use crate::explore::{Explorer, Query};
use crate::run::{Coverage, Line, Run};
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Sfo,
    SfoP,
    SatTar,
}

impl Strategy {
    pub fn parse(s: &str) -> Option<Strategy> {
        match s {
            "sfo" => Some(Strategy::Sfo),
            "sfo_p" | "sfo-p" | "sfop" => Some(Strategy::SfoP),
            "sat-tar" | "sat_tar" | "sattar" => Some(Strategy::SatTar),
            _ => None,
        }
    }

    /// The name used in test names: `gen-sfo-1`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Sfo => "sfo",
            Strategy::SfoP => "sfo_p",
            Strategy::SatTar => "sat-tar",
        }
    }
}

/// Called after each round with the run just added and all the data; returns
/// false to stop (the user cancelled).
pub type OnRound<'a> = dyn FnMut(&Run, &[Run]) -> bool + 'a;

/// Lines every failing run in `data` executes.
pub fn common_to_failures(data: &[Run]) -> BTreeSet<Line> {
    let mut failing = data.iter().filter(|r| r.verdict.is_fail());
    let Some(first) = failing.next() else {
        return BTreeSet::new();
    };
    let mut common = first.coverage.clone();
    for r in failing {
        common.retain(|l| r.coverage.contains(l));
    }
    common
}

/// sfo: adds failing runs (at most `max`) to `data`; returns how many.
/// When `data` has no failing run, the first failing run found starts it.
pub fn sfo(
    explorer: &mut dyn Explorer,
    data: &mut Vec<Run>,
    max: usize,
    on_round: &mut OnRound,
) -> usize {
    let mut added = 0;
    if !data.iter().any(|r| r.verdict.is_fail()) {
        let any = BTreeSet::from([(String::new(), 0)]);
        match explorer.find(&Query::FailingMissingOneOf(&any)) {
            Some(r) if added < max => {
                data.push(r.clone());
                added += 1;
                if !on_round(&r, data) {
                    return added;
                }
            }
            _ => return added,
        }
    }
    while added < max {
        let common = common_to_failures(data);
        if common.is_empty() {
            break;
        }
        let Some(r) = explorer.find(&Query::FailingMissingOneOf(&common)) else {
            break;
        };
        data.push(r.clone());
        added += 1;
        if !on_round(&r, data) {
            break;
        }
    }
    added
}

/// The passing half of sfo_p: adds up to `max` passing runs with new coverage.
pub fn passing_with_new_coverage(
    explorer: &mut dyn Explorer,
    data: &mut Vec<Run>,
    max: usize,
    on_round: &mut OnRound,
) -> usize {
    let mut added = 0;
    while added < max {
        let seen: Vec<Coverage> = data
            .iter()
            .filter(|r| !r.verdict.is_fail())
            .map(|r| r.coverage.clone())
            .collect();
        let Some(r) = explorer.find(&Query::PassingWithNewCoverage(&seen)) else {
            break;
        };
        data.push(r.clone());
        added += 1;
        if !on_round(&r, data) {
            break;
        }
    }
    added
}

/// sfo_p: sfo (failing runs, unbounded), then up to `max_passing` passing runs.
pub fn sfo_p(
    explorer: &mut dyn Explorer,
    data: &mut Vec<Run>,
    max_passing: usize,
    on_round: &mut OnRound,
) -> usize {
    let mut go_on = true;
    let mut guard = |r: &Run, d: &[Run]| {
        go_on = on_round(r, d);
        go_on
    };
    let failing = sfo(explorer, data, usize::MAX, &mut guard);
    if !go_on {
        return failing;
    }
    failing + passing_with_new_coverage(explorer, data, max_passing, on_round)
}

/// SAT-TAR rounds from the failing run `initial` and its `suspects`: adds up
/// to `max` runs, each the one with new coverage that executes the most
/// suspects (at least one).
pub fn sat_tar(
    explorer: &mut dyn Explorer,
    data: &mut Vec<Run>,
    initial: &Run,
    suspects: &BTreeSet<Line>,
    max: usize,
    on_round: &mut OnRound,
) -> usize {
    let violation = match &initial.verdict {
        crate::run::Verdict::Fail { violation } => violation.clone(),
        crate::run::Verdict::Pass => return 0,
    };
    let similarity = |r: &Run| r.coverage.intersection(suspects).count() as i64;
    let mut added = 0;
    while added < max {
        let seen: Vec<Coverage> = data.iter().map(|r| r.coverage.clone()).collect();
        let q = Query::NewCoverage {
            seen: &seen,
            violation: &violation,
        };
        let Some(r) = explorer.best(&q, &similarity) else {
            break;
        };
        if similarity(&r) == 0 {
            break;
        }
        data.push(r.clone());
        added += 1;
        if !on_round(&r, data) {
            break;
        }
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Stats;
    use crate::run::Verdict;

    /// An explorer over a fixed population (the sfo paper's minmax table).
    struct Fixed(Vec<Run>, Stats);

    impl Explorer for Fixed {
        fn find(&mut self, q: &Query) -> Option<Run> {
            self.1.queries += 1;
            self.0.iter().find(|r| q.accepts(r)).cloned()
        }
        fn best(&mut self, q: &Query, score: &dyn Fn(&Run) -> i64) -> Option<Run> {
            self.1.queries += 1;
            let mut best: Option<&Run> = None;
            for r in self.0.iter().filter(|r| q.accepts(r)) {
                if best.is_none_or(|b| score(r) > score(b)) {
                    best = Some(r);
                }
            }
            best.cloned()
        }
        fn stats(&self) -> Stats {
            self.1
        }
    }

    fn run(id: i64, covered: &[u32], fails: bool) -> Run {
        Run {
            inputs: vec![id],
            coverage: covered.iter().map(|&l| ("m.c".to_string(), l)).collect(),
            verdict: if fails {
                Verdict::Fail {
                    violation: "assertion at m.c:9".into(),
                }
            } else {
                Verdict::Pass
            },
        }
    }

    /// The paper's Fig. 2: C1..C5 as lines 1..5, t1..t3 failing.
    fn paper_population() -> Vec<Run> {
        vec![
            run(1, &[1, 3, 4], true),
            run(2, &[1, 4, 5], true),
            run(3, &[1, 4], true),
            run(4, &[1, 2], false),
            run(5, &[1, 2], false),
            run(6, &[1, 5], false),
            run(7, &[1, 4, 5], false),
            run(8, &[1], false),
            run(9, &[1, 2, 5], false),
            run(10, &[1, 2, 3], false),
        ]
    }

    #[test]
    fn sfo_follows_the_papers_example() {
        let pop = paper_population();
        let mut data = vec![pop[0].clone()];
        let mut ex = Fixed(pop.clone(), Stats::default());
        let added = sfo(&mut ex, &mut data, usize::MAX, &mut |_, _| true);
        assert_eq!(added, 1);
        // t2 drops C3; then C1 and C4 are covered by every failure in the population.
        assert_eq!(data[1].inputs, vec![2]);
        let common: Vec<u32> = common_to_failures(&data).iter().map(|l| l.1).collect();
        assert_eq!(common, vec![1, 4]);
    }

    #[test]
    fn sfo_p_adds_passing_runs_with_new_coverage_only() {
        let pop = paper_population();
        let mut data = vec![pop[0].clone()];
        let mut ex = Fixed(pop, Stats::default());
        sfo_p(&mut ex, &mut data, 20, &mut |_, _| true);
        let passing: Vec<i64> = data
            .iter()
            .filter(|r| !r.verdict.is_fail())
            .map(|r| r.inputs[0])
            .collect();
        // t5 has t4's coverage: not added.
        assert_eq!(passing, vec![4, 6, 7, 8, 9, 10]);
    }

    #[test]
    fn sfo_p_stops_when_told() {
        let pop = paper_population();
        let mut data = vec![pop[0].clone()];
        let mut ex = Fixed(pop, Stats::default());
        let mut rounds = 0;
        let added = sfo_p(&mut ex, &mut data, 20, &mut |_, _| {
            rounds += 1;
            rounds < 3
        });
        assert_eq!(added, 3);
    }

    #[test]
    fn sat_tar_prefers_runs_closest_on_the_suspects_and_drops_other_failures() {
        let mut pop = paper_population();
        pop.push(Run {
            inputs: vec![11],
            coverage: [1, 3, 4, 5]
                .iter()
                .map(|&l| ("m.c".to_string(), l))
                .collect(),
            verdict: Verdict::Fail {
                violation: "assertion at m.c:10".into(),
            },
        });
        let initial = pop[0].clone();
        let suspects: BTreeSet<Line> = [3, 4].iter().map(|&l| ("m.c".to_string(), l)).collect();
        let mut data = vec![initial.clone()];
        let mut ex = Fixed(pop, Stats::default());
        sat_tar(&mut ex, &mut data, &initial, &suspects, 2, &mut |_, _| true);
        let ids: Vec<i64> = data.iter().map(|r| r.inputs[0]).collect();
        // t10 covers C3 (1 suspect) and t2 covers C4: t11 (both) violates another assertion.
        assert_eq!(ids, vec![1, 2, 3]);
    }
}
