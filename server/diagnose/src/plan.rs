//! The diagnosis's plan: its steps in the order they run, what each
//! explores, and how far into the time budget each may go.
//!
//! A share is a fraction of the whole budget counted from the start: a step
//! that ends early leaves its time to the next, and each ends by its share
//! at the latest. The budget is a wall-clock limit, an effort limit
//! (deterministic work: the same input stops at the same point on every
//! machine), or both; each step ends at its share of each. (The time
//! limit, with cancellation, is the one non-deterministic input of the
//! engine.)

use crate::ms;
use faultlens_core::diagnosis::DiagnosisStats;
use faultlens_maxsat::{Budget, CancelToken, Meter};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub name: &'static str,
    pub explores: &'static str,
    /// Ends when this share of the budget has passed since the start.
    pub until: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub own_paths: Step,
    pub witnesses: Step,
    pub explored_paths: Step,
    pub check: Step,
    /// The check's end once it has found a statement that explains every
    /// test: what is left goes to verifying and refining that find.
    pub check_after_a_find: Step,
    pub left_out: Step,
    pub verify_and_refine: Step,
    pub cores: Step,
}

/// The plan every diagnosis runs.
pub const PLAN: Plan = Plan {
    own_paths: Step {
        name: "search along the failing runs' own paths",
        explores: "each failing test held to its own run's path: a model leaving it is refuted at once, no path is encoded; quick, and every diagnosis it finds is real",
        until: 0.3,
    },
    witnesses: Step {
        name: "concrete witnesses and the check's first pass",
        explores: "on the tests the first search encoded, the spectrum's top lines one statement at a time: first by running the tests with the statement's values changed (consistent flips, instance flips, off-by-one values, variable swaps; no SAT, in at most half the time left before this step's end), then by SAT, a formula per test with two rounds of paths explored on demand; a statement found is a diagnosis at once",
        until: 0.4,
    },
    explored_paths: Step {
        name: "search with paths explored on demand",
        explores: "paths beyond the failing runs' own, encoded when a solution takes a branch the other way (a wrong condition needs them); supersedes the first search when it finishes",
        until: 0.6,
    },
    check: Step {
        name: "spectrum-guided check",
        explores: "when the search stopped unfinished: the spectrum's top lines that neither the concrete witnesses nor the first pass decided, one statement at a time, one incremental SAT call per test with more rounds of paths (first, in at most a quarter of the rest, the concrete witnesses of the statements their step's budget left untried)",
        until: 0.92,
    },
    check_after_a_find: Step {
        name: "spectrum-guided check, once it found a statement",
        explores: "the same, ending earlier so its find is refined within the budget",
        until: 0.75,
    },
    left_out: Step {
        name: "left-out tests checked alone",
        explores: "the failing tests no search encoded, each alone against every listed diagnosis: a single statement by its concrete witnesses (runs of the test), a set of several by SAT on a formula of the test's own with only its statements free; one every diagnosis explains is explained",
        until: 0.94,
    },
    verify_and_refine: Step {
        name: "verify and refine",
        explores: "angelic values replayed in the interpreter; the first diagnoses narrowed to the sub-expression that must change",
        until: 0.95,
    },
    cores: Step {
        name: "cores",
        explores: "a minimal unsatisfiable core per failing test",
        until: 1.0,
    },
};

// Checked when the plan compiles: the cores get the end of the budget, and
// a check that found something still runs past the searches.
const _: () = {
    assert!(PLAN.cores.until == 1.0);
    assert!(PLAN.check_after_a_find.until > PLAN.explored_paths.until);
};

impl Plan {
    /// The steps in the order they run.
    pub fn steps(&self) -> [&Step; 8] {
        [
            &self.own_paths,
            &self.witnesses,
            &self.explored_paths,
            &self.check_after_a_find,
            &self.check,
            &self.left_out,
            &self.verify_and_refine,
            &self.cores,
        ]
    }
}

/// Steps of the model's interpreter per work unit of the effort meter
/// (about 3.6 million a second on the fixtures' diagnoses).
const MODEL_STEPS_PER_UNIT: u64 = 4;

/// The budgets of one run's steps: each ends at its share of the time
/// limit counted from `start` and at the same share of the effort limit
/// counted on the run's one meter, and all stop on cancellation.
pub struct Clock {
    start: Instant,
    limit: Option<Duration>,
    /// The effort limit in the meter's work units.
    effort: Option<u64>,
    meter: Meter,
    cancel: CancelToken,
}

impl Clock {
    pub fn new(
        start: Instant,
        limit: Option<Duration>,
        effort: Option<u64>,
        cancel: &CancelToken,
    ) -> Clock {
        Clock {
            start,
            limit,
            effort,
            meter: Meter::also_counting(
                faultlens_csem::steps_run_on_this_thread,
                MODEL_STEPS_PER_UNIT,
            ),
            cancel: cancel.clone(),
        }
    }

    /// The budget of `step`.
    pub fn until(&self, step: &Step) -> Budget {
        self.ending_at(step.until)
    }

    /// The whole run's budget.
    pub fn whole(&self) -> Budget {
        self.ending_at(1.0)
    }

    /// Writes what the run spent into `stats`: its time since `start`, its
    /// effort and the worst overrun of a deadline.
    pub fn note_spent(&self, stats: &mut DiagnosisStats, start: Instant) {
        stats.total_ms = ms(start.elapsed());
        stats.effort = self.meter.effort();
        stats.worst_overrun_ms = ms(self.meter.worst_overrun());
    }

    fn ending_at(&self, share: f64) -> Budget {
        let mut budget = Budget::unlimited()
            .with_meter(&self.meter)
            .with_cancel(self.cancel.clone());
        if let Some(limit) = self.limit {
            budget = budget.with_deadline(self.start + limit.mul_f64(share));
        }
        if let Some(effort) = self.effort {
            budget = budget.with_effort_until((effort as f64 * share) as u64);
        }
        budget
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_ends_no_earlier_than_the_one_before_and_the_cores_at_the_end() {
        let steps = PLAN.steps();
        for pair in steps.windows(2) {
            assert!(
                pair[0].until <= pair[1].until,
                "{} ends after {}",
                pair[0].name,
                pair[1].name
            );
        }
        assert!(steps.iter().all(|s| s.until > 0.0 && s.until <= 1.0));
    }

    #[test]
    fn a_step_ends_at_its_share_of_the_limit() {
        let start = Instant::now();
        let clock = Clock::new(
            start,
            Some(Duration::from_secs(10)),
            Some(1000),
            &CancelToken::new(),
        );
        let budget = clock.until(&PLAN.own_paths);
        assert_eq!(budget.deadline(), Some(start + Duration::from_secs(3)));
        assert_eq!(budget.effort_until(), Some(300));
        budget.charge(100);
        assert_eq!(clock.until(&PLAN.witnesses).effort_left(), Some(300));
        let unlimited = Clock::new(start, None, None, &CancelToken::new());
        assert!(unlimited.until(&PLAN.cores).deadline().is_none());
        assert!(unlimited.until(&PLAN.cores).effort_until().is_none());
    }
}
