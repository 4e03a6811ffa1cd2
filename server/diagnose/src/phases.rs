//! The search of a diagnosis: the plan's two searches (along the failing
//! runs' own paths, then with paths explored on demand) and which of their
//! diagnoses are reported.

use crate::bridge::ModelTest;
use crate::joint::Joint;
use crate::plan::{Clock, PLAN};
use crate::shown::Shown;
use crate::{
    encode_options, search, CancelToken, DiagnoseError, DiagnoseOptions, DiagnoseProgress,
    MAX_CLAUSES,
};
use faultlens_csem::ir::Program;
use faultlens_maxsat::Budget;
use std::time::{Duration, Instant};

/// What the two searches found, before anything is reported.
pub(crate) struct Searched<'p> {
    pub own: Phase<'p>,
    pub explored: Option<Phase<'p>>,
    pub reported: Reported,
    /// Tests left out by the phases whose verdict stands, with the reason.
    pub skipped: Vec<(String, String)>,
}

impl<'p> Searched<'p> {
    /// The phases whose diagnoses are reported; the first one's tests are
    /// the ones explained.
    pub fn phases(&self) -> Vec<&Phase<'p>> {
        match self.reported {
            Reported::Own => vec![&self.own],
            Reported::Explored => self.explored.iter().collect(),
            Reported::Both => std::iter::once(&self.own)
                .chain(self.explored.as_ref())
                .collect(),
        }
    }

    /// The diagnoses to report in cost order, whether the list is complete,
    /// and if not why.
    pub fn chosen(&self) -> (Vec<Chosen<'_>>, bool, Option<String>) {
        let (chosen, mut complete, mut stopped) = match self.reported {
            Reported::Both => choose(&self.own, self.explored.as_ref()),
            _ => choose(self.phases()[0], None),
        };
        if self.reported == Reported::Own {
            if let Some(ex) = &self.explored {
                complete = false;
                let why = ex.found.stopped.clone().unwrap_or_default();
                stopped = Some(format!(
                    "exploring paths beyond the failing runs' own could not encode every test ({why}); the diagnoses shown follow each test's own run"
                ));
            }
        }
        (chosen, complete, stopped)
    }

    /// The search that ran last (its bounds tell whether to check).
    pub fn last(&self) -> &Phase<'p> {
        self.explored.as_ref().unwrap_or(&self.own)
    }
}

/// The names of the tests a phase explains.
pub(crate) fn active_in(p: &Phase) -> Vec<String> {
    p.joint
        .tests
        .iter()
        .filter(|t| t.active)
        .map(|t| t.test.name.clone())
        .collect()
}

/// Which phases' diagnoses are reported: both lists merge only when they
/// explain the same tests; otherwise the phase explaining more tests wins
/// (phase 2 explains tests phase 1 leaves out, but may itself run out of
/// budget before encoding one phase 1 explained).
pub(crate) fn which_reported(
    own_active: &[String],
    explored_active: Option<&[String]>,
) -> Reported {
    match explored_active {
        None => Reported::Own,
        Some(ex) if ex == own_active => Reported::Both,
        Some(ex) if ex.len() > own_active.len() => Reported::Explored,
        Some(_) => Reported::Own,
    }
}

/// Runs the plan's two searches over `tests`; `between` runs after the
/// first with the tests the second takes, and returns the diagnoses it
/// showed for them (the second search accepts those without paths).
pub(crate) fn search_phases<'p>(
    ctx: &PhaseContext<'p>,
    tests: &[ModelTest],
    opts: &DiagnoseOptions,
    whole: &Budget,
    clock: &Clock,
    between: &mut dyn FnMut(&[ModelTest]) -> Vec<Shown>,
) -> Result<Searched<'p>, DiagnoseError> {
    // Phase 1: each test along its own run's path. Phase 2: paths explored
    // on demand; it supersedes phase 1 when it finishes.
    let mut own_skipped = Vec::new();
    let own = run_phase(
        ctx,
        tests,
        1,
        &[],
        &clock.until(&PLAN.own_paths),
        &mut own_skipped,
    )?;
    // Tests phase 1 could encode: a test it could not explain along its own
    // run's path (e.g. a failed assert, whose own path ends in the abort)
    // may still be explained along another, so phase 2 gets it back.
    let encoded: Vec<ModelTest> = own.joint.tests.iter().map(|t| t.test.clone()).collect();
    let shown = between(&encoded);
    let explore = opts.max_paths_per_test > 1 && whole.exhausted().is_none();
    let mut ex_skipped = Vec::new();
    let explored = if explore && !encoded.is_empty() {
        Some(run_phase(
            ctx,
            &encoded,
            opts.max_paths_per_test,
            &shown,
            &clock.until(&PLAN.explored_paths),
            &mut ex_skipped,
        )?)
    } else {
        None
    };
    let explored_active = explored.as_ref().map(active_in);
    let reported = which_reported(&active_in(&own), explored_active.as_deref());
    let in_own = |name: &str| encoded.iter().any(|t| t.name == name);
    let mut skipped = Vec::new();
    for (name, reason) in own_skipped {
        // Phase 1's verdict on a test it encoded stands only if phase 1's
        // list alone is reported.
        if reported == Reported::Own || !in_own(&name) {
            skipped.push((name, reason));
        }
    }
    if reported != Reported::Own {
        skipped.extend(ex_skipped);
    }
    Ok(Searched {
        own,
        explored,
        reported,
        skipped,
    })
}

/// Which phases' diagnoses a report holds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reported {
    Own,
    Explored,
    Both,
}

pub(crate) struct PhaseContext<'a> {
    pub prog: &'a Program,
    pub weights: &'a [u64],
    pub search_opts: &'a search::SearchOptions,
    pub progress: &'a dyn Fn(DiagnoseProgress),
    pub cancel: &'a CancelToken,
    pub start: Instant,
}

/// One search over one joint formula.
pub(crate) struct Phase<'p> {
    pub joint: Joint<'p>,
    pub found: search::SearchResult,
    /// When its search started, from the start of the run.
    pub started: Duration,
}

/// Encodes `tests` (up to `max_paths` paths each, explored on demand) and
/// searches; a proposal among the diagnoses `shown` already is accepted as
/// it is. If no set of statements explains every test, the tests that
/// cannot pass on their own are found, left out (into `skipped`), and the
/// search runs again.
fn run_phase<'p>(
    ctx: &PhaseContext<'p>,
    tests: &[ModelTest],
    max_paths: usize,
    shown: &[Shown],
    budget: &Budget,
    skipped: &mut Vec<(String, String)>,
) -> Result<Phase<'p>, DiagnoseError> {
    let encode_opts = encode_options(max_paths);
    let mut joint = Joint::new(ctx.prog, ctx.weights, encode_opts);
    let total = tests.len();
    for (i, t) in tests.iter().enumerate() {
        if ctx.cancel.is_cancelled() {
            return Err(DiagnoseError::Cancelled);
        }
        if budget.exhausted().is_some() {
            skipped.push((
                t.name.clone(),
                "not encoded: the time budget ran out".into(),
            ));
            continue;
        }
        if !joint.tests.is_empty() && joint.f.cnf.clauses.len() > MAX_CLAUSES {
            skipped.push((
                t.name.clone(),
                format!(
                    "left out: the formula of the tests before it has {} clauses already (tests are taken in turn from each group of tests that fail the same way)",
                    joint.f.cnf.clauses.len()
                ),
            ));
            continue;
        }
        (ctx.progress)(DiagnoseProgress::Encoding {
            done: i,
            total,
            test: t.name.clone(),
        });
        if let Err(reason) = joint.add(t) {
            skipped.push((t.name.clone(), reason));
        }
    }
    if ctx.cancel.is_cancelled() {
        return Err(DiagnoseError::Cancelled);
    }
    let mut retried = false;
    loop {
        let started = ctx.start.elapsed();
        (ctx.progress)(DiagnoseProgress::Solving { found: 0 });
        let (hard, softs) = joint.start();
        if max_paths > 1 {
            joint.explore_one_test = true;
            joint.accept_shown(shown);
        }
        let mut found =
            search::search(hard, softs, &mut joint, ctx.search_opts, budget, &mut |n| {
                (ctx.progress)(DiagnoseProgress::Solving { found: n })
            })
            .map_err(DiagnoseError::Solver)?;
        if max_paths > 1 {
            if let Some(why) = cut_short(&found, || closed_divergence(&joint)) {
                found.complete = false;
                found.stopped = Some(why);
            }
        }
        if found.stopped.as_deref() == Some("cancelled") {
            return Err(DiagnoseError::Cancelled);
        }
        if !found.found.is_empty() || !found.complete || retried {
            return Ok(Phase {
                joint,
                found,
                started,
            });
        }
        retried = true;
        for i in 0..joint.tests.len() {
            if !joint.tests[i].active {
                continue;
            }
            let verdict = joint.explainable_alone(i, budget);
            if verdict != Ok(true) {
                joint.tests[i].active = false;
                let reason = match verdict {
                    Err(e) => format!("not checked: {e}"),
                    _ => "no change of the statements it runs makes it pass along the paths the model can follow (its expected output cannot be produced there)".into(),
                };
                skipped.push((joint.tests[i].test.name.clone(), reason));
            }
        }
        if joint.tests.iter().all(|t| !t.active) {
            return Ok(Phase {
                joint,
                found,
                started,
            });
        }
    }
}

/// Why a search exploring paths is not complete though it ran out of
/// models: it found nothing, and some divergence was closed (`closed`: at
/// the path bound, or unmodelled). A list found is complete within its
/// bounds (the size and the paths a test), as the report says; an empty
/// one says nothing of the paths cut, so no test is refused on it as one
/// no change explains, and the check runs.
fn cut_short(
    found: &search::SearchResult,
    closed: impl FnOnce() -> Option<String>,
) -> Option<String> {
    if found.complete && found.found.is_empty() {
        closed()
    } else {
        None
    }
}

/// Why the paths a joint formula explores are not all a test's: the first
/// divergence an active test's exploration closed, if any.
fn closed_divergence(joint: &Joint) -> Option<String> {
    joint
        .tests
        .iter()
        .filter(|t| t.active && !t.enc.complete())
        .find_map(|t| {
            let why = t.enc.incomplete().first()?;
            Some(format!(
                "a divergence of {} was closed ({why})",
                t.test.name
            ))
        })
}

/// The diagnoses to report, as `(phase, found, optimal)` in cost order, and
/// whether the list is complete (and if not, why). Phase 2 (paths explored)
/// supersedes phase 1 (own paths) when it finished or found as many; else
/// phase 1's list stands, with phase 2's other finds added.
/// A reported diagnosis: the phase it comes from, its find, and whether it
/// is optimal.
pub(crate) type Chosen<'a> = (usize, &'a search::Found, bool);

#[allow(clippy::type_complexity)]
fn choose<'a>(
    own: &'a Phase,
    explored: Option<&'a Phase>,
) -> (Vec<(usize, &'a search::Found, bool)>, bool, Option<String>) {
    let tag = |phase: usize, p: &'a Phase| -> Vec<(usize, &'a search::Found, bool)> {
        p.found
            .found
            .iter()
            .map(|f| (phase, f, f.optimal))
            .collect()
    };
    let Some(ex) = explored else {
        return (tag(0, own), own.found.complete, own.found.stopped.clone());
    };
    if ex.found.complete
        || (!ex.found.found.is_empty() && ex.found.found.len() >= own.found.found.len())
    {
        return (tag(1, ex), ex.found.complete, ex.found.stopped.clone());
    }
    let mut all = tag(0, own);
    for f in &ex.found.found {
        if !own
            .found
            .found
            .iter()
            .any(|o| same_set(&o.unhealthy, &f.unhealthy, own, ex))
        {
            all.push((1, f, f.optimal));
        }
    }
    all.sort_by_key(|(_, f, _)| f.cost);
    let min = all.first().map_or(0, |(_, f, _)| f.cost);
    for entry in &mut all {
        entry.2 = entry.2 && entry.1.cost == min;
    }
    let why = ex
        .found
        .stopped
        .clone()
        .unwrap_or_else(|| "exploration stopped".into());
    (
        all,
        false,
        Some(format!(
            "{why} while exploring paths beyond the failing runs' own (the diagnoses shown are exact along the paths explored)"
        )),
    )
}

/// Whether two diagnoses from different phases name the same statements.
fn same_set(
    a: &[faultlens_maxsat::rustsat::types::Lit],
    b: &[faultlens_maxsat::rustsat::types::Lit],
    pa: &Phase,
    pb: &Phase,
) -> bool {
    let mut sa = search::statements_of(a, &pa.joint.statement_of());
    let mut sb = search::statements_of(b, &pb.joint.statement_of());
    sa.sort_unstable();
    sb.sort_unstable();
    sa == sb
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn searched(found: usize, complete: bool) -> search::SearchResult {
        search::SearchResult {
            found: (0..found)
                .map(|_| search::Found {
                    unhealthy: Vec::new(),
                    cost: 1,
                    optimal: true,
                    model: Default::default(),
                    shown: None,
                })
                .collect(),
            complete,
            stopped: None,
            sat_calls: 0,
            first: None,
            refinements: 0,
        }
    }

    #[test]
    fn an_empty_search_that_closed_divergences_is_cut_short() {
        let closed = || Some("a divergence of t was closed (more than 32 paths)".to_string());
        assert_eq!(
            cut_short(&searched(0, true), closed).as_deref(),
            Some("a divergence of t was closed (more than 32 paths)")
        );
        // Nothing closed: nothing explains the tests along any path.
        assert_eq!(cut_short(&searched(0, true), || None), None);
        // A list found is complete within the bounds; an unfinished search
        // says why already.
        assert_eq!(cut_short(&searched(2, true), closed), None);
        assert_eq!(cut_short(&searched(0, false), closed), None);
    }

    #[test]
    fn the_phase_explaining_more_tests_is_reported_and_equal_ones_merge() {
        let own = names(&["a", "b"]);
        assert!(which_reported(&own, None) == Reported::Own);
        assert!(which_reported(&own, Some(&names(&["a", "b"]))) == Reported::Both);
        assert!(which_reported(&own, Some(&names(&["a", "b", "c"]))) == Reported::Explored);
        assert!(which_reported(&own, Some(&names(&["a"]))) == Reported::Own);
    }
}
