//! faultlens-diagnose: formula-based diagnosis of a C project's failing
//! tests over the C model (`faultlens-csem`) with MaxSAT (`faultlens-maxsat`).
//!
//! Every failing test is encoded (its own copy of the program's semantics
//! along its run, its inputs and its expected outcome) into one formula in
//! which all copies share one health literal per statement. MaxSAT finds
//! the cheapest sets of statements whose change explains every failing test
//! at once (weights: [`weights`]); all optimal and then all subset-minimal
//! ones up to a size bound are enumerated ([`search`]). Per failing test a
//! minimal unsatisfiable core names the statements that, all correct, force
//! its failure. The result is a [`DiagnosisReport`].
//!
//! Edges (I/O) are [`bridge`] (project and results to model inputs) and
//! [`store`] (the document on disk); the rest is deterministic apart from
//! the time budget.

mod angelic;
pub mod bridge;
mod consistent;
mod cores;
mod evidence;
pub mod groups;
mod joint;
mod locate;
mod refine;
pub mod search;
pub mod store;
mod suspects;
pub mod weights;

pub use bridge::source_spec;
pub use faultlens_core::diagnosis::DiagnosisReport;
pub use faultlens_maxsat::CancelToken;

use bridge::ModelTest;
use faultlens_core::diagnosis::{
    AngelicValue, Diagnosis, DiagnosisKind, DiagnosisStats, SkippedTest, TestCore,
};
use faultlens_core::results::RunResults;
use faultlens_csem::encode::{EncodeOptions, Slot, SlotRole};
use faultlens_csem::ir::{Program, StmtId};
use faultlens_maxsat::Budget;
use joint::Joint;
use locate::Locator;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct DiagnoseOptions {
    /// Largest diagnosis (statements) enumerated after the optimal ones.
    pub max_size: usize,
    /// Diagnoses reported at most.
    pub max_diagnoses: usize,
    /// Wall-time budget of the whole run; `None` = unlimited.
    pub time_limit: Option<Duration>,
    /// Paths encoded per test at most (the failing run's own, plus explored ones).
    pub max_paths_per_test: usize,
    /// `(file, line)`s, most suspicious first, whose statements are checked
    /// one at a time when the search stops before it is complete (see
    /// `suspects.rs`). Empty: [`diagnose_project`] takes the spectrum's
    /// top lines (Ochiai).
    pub suspects: Vec<(String, u32)>,
}

impl Default for DiagnoseOptions {
    fn default() -> Self {
        DiagnoseOptions {
            max_size: 3,
            max_diagnoses: 20,
            time_limit: Some(Duration::from_secs(30)),
            max_paths_per_test: 32,
            suspects: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiagnoseProgress {
    Loading,
    Encoding {
        done: usize,
        total: usize,
        test: String,
    },
    Solving {
        found: usize,
    },
    /// The search stopped unfinished; the spectrum's top lines are checked
    /// one statement at a time.
    Checking {
        done: usize,
        total: usize,
    },
    Verifying {
        done: usize,
        total: usize,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiagnoseError {
    /// The project or program is outside what the C model handles.
    NotModelled(String),
    NoFailingTests,
    Cancelled,
    Other(String),
}

impl std::fmt::Display for DiagnoseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiagnoseError::NotModelled(m) => write!(
                f,
                "the C model cannot diagnose this program: {m}. The spectrum ranking (`faultlens localize`) still works"
            ),
            DiagnoseError::NoFailingTests => write!(
                f,
                "the last localization run has no failing tests, so there is nothing to diagnose; run `faultlens localize` after a test fails"
            ),
            DiagnoseError::Cancelled => write!(f, "diagnosis cancelled"),
            DiagnoseError::Other(m) => write!(f, "diagnosis failed: {m}"),
        }
    }
}

impl std::error::Error for DiagnoseError {}

/// Failing tests diagnosed together at most (each one is a copy of the
/// program in the formula).
const MAX_TESTS: usize = 16;

/// Up to [`MAX_TESTS`] tests, in round-robin order over the groups of
/// tests that violate the same expectation (so that every kind of failure
/// is represented, also when the formula's size bound stops encoding early).
fn pick_tests(tests: Vec<ModelTest>) -> (Vec<ModelTest>, Vec<ModelTest>) {
    let groups = groups::group(&observations(&tests));
    let mut order: Vec<&str> = Vec::new();
    let mut round = 0;
    loop {
        let mut any = false;
        for g in &groups {
            if let Some(name) = g.tests.get(round) {
                any = true;
                order.push(name);
            }
        }
        if !any {
            break;
        }
        round += 1;
    }
    let order: Vec<String> = order.into_iter().map(String::from).collect();
    let mut tests: Vec<Option<ModelTest>> = tests.into_iter().map(Some).collect();
    let mut sorted: Vec<ModelTest> = order
        .iter()
        .filter_map(|name| {
            tests
                .iter_mut()
                .find(|t| t.as_ref().is_some_and(|t| t.name == *name))
                .and_then(Option::take)
        })
        .collect();
    let rest = sorted.split_off(sorted.len().min(MAX_TESTS));
    (sorted, rest)
}

fn observations(tests: &[ModelTest]) -> Vec<groups::Observed<'_>> {
    tests
        .iter()
        .map(|t| groups::Observed {
            name: &t.name,
            stdout: t.observed_stdout.as_bytes(),
            stderr: &t.observed_stderr,
            exit: t.observed_exit,
            signal: t.observed_signal,
            expected_stdout: t.expected.stdout.as_deref(),
            expected_exit: t.expected.exit,
        })
        .collect()
}

/// Steps a test run may take to be encoded (longer runs are skipped: their
/// formula would be too large to solve within a typical budget).
pub(crate) const MAX_ENCODED_STEPS: u64 = 200_000;

/// How the diagnosis encodes tests: runs up to [`MAX_ENCODED_STEPS`], up to
/// `max_paths` paths a test (at least its own).
fn encode_options(max_paths: usize) -> EncodeOptions {
    EncodeOptions {
        max_steps: MAX_ENCODED_STEPS,
        max_paths: max_paths.max(1),
        ..EncodeOptions::default()
    }
}

/// Clauses of the joint formula after which no further test is encoded
/// (each test is a copy of the program; beyond this a SAT call takes seconds).
const MAX_CLAUSES: usize = 600_000;

/// Changed instances an angelic value set may have to be listed (a longer
/// one, e.g. a loop counter reset at eight iterations, explains nothing a
/// person can act on).
const MAX_ANGELIC_PER_TEST: usize = 8;

/// Loads the C model of the project, takes the failing tests from `results`
/// and diagnoses them all at once. Synchronous; the solver lives on the
/// calling thread.
pub fn diagnose_project(
    project: &faultlens_pipeline::Project,
    results: &RunResults,
    opts: &DiagnoseOptions,
    progress: &dyn Fn(DiagnoseProgress),
    cancel: &CancelToken,
) -> Result<DiagnosisReport, DiagnoseError> {
    progress(DiagnoseProgress::Loading);
    if results.failed_count() == 0 {
        return Err(DiagnoseError::NoFailingTests);
    }
    let (tests, skipped) = bridge::failing_tests(project, results)?;
    let spec = source_spec(project).map_err(DiagnoseError::NotModelled)?;
    let prog =
        faultlens_csem::load(&spec).map_err(|e| DiagnoseError::NotModelled(e.to_string()))?;
    let mut opts = opts.clone();
    if opts.suspects.is_empty() {
        opts.suspects = spectrum_top_lines(results);
    }
    diagnose_program(
        &prog,
        &project.root,
        tests,
        skipped,
        &opts,
        progress,
        cancel,
    )
}

/// Lines the spectrum ranks highest, checked one statement at a time when
/// the search does not finish (more would rarely get their turn).
const SUSPECT_LINES: usize = 40;

/// The top [`SUSPECT_LINES`] lines by Ochiai, ties in file and line order.
fn spectrum_top_lines(results: &RunResults) -> Vec<(String, u32)> {
    use faultlens_core::measures::Formula;
    let spectra = faultlens_core::spectra::Spectra::from_results(results, false);
    faultlens_core::ranking::rank_counts(Formula::Ochiai, &spectra.counts)
        .into_iter()
        .filter(|r| r.score > 0.0)
        .take(SUSPECT_LINES)
        .filter_map(|r| {
            let c = spectra.components[r.component];
            let file = results.files.get(c.file as usize)?;
            Some((file.path.clone(), c.line))
        })
        .collect()
}

/// The engine behind [`diagnose_project`], for a loaded program and its
/// failing tests (`skipped`: tests already left out, with the reason).
pub fn diagnose_program(
    prog: &Program,
    root: &Path,
    tests: Vec<ModelTest>,
    skipped: Vec<(String, String)>,
    opts: &DiagnoseOptions,
    progress: &dyn Fn(DiagnoseProgress),
    cancel: &CancelToken,
) -> Result<DiagnosisReport, DiagnoseError> {
    let start = Instant::now();
    let mut budget = Budget::unlimited().with_cancel(cancel.clone());
    if let Some(limit) = opts.time_limit {
        budget = budget.with_time_limit(limit);
    }
    let budget_text = match opts.time_limit {
        Some(d) => format!("time budget of {}", human(d)),
        None => "time budget".into(),
    };
    let mut report = DiagnosisReport {
        groups: groups::group(&observations(&tests)),
        ..DiagnosisReport::default()
    };
    report.skipped_tests = skipped
        .into_iter()
        .map(|(name, reason)| SkippedTest { name, reason })
        .collect();
    let skip = |report: &mut DiagnosisReport, name: &str, reason: String| {
        report.skipped_tests.push(SkippedTest {
            name: name.to_string(),
            reason,
        })
    };

    // A test the model's run does not fail is not diagnosed: an empty set of
    // statements would "explain" it. Nor is one whose free input runs out.
    let tests: Vec<ModelTest> = tests
        .into_iter()
        .filter(|t| match model_run_verdict(prog, t) {
            Ok(()) => true,
            Err(reason) => {
                skip(&mut report, &t.name, reason);
                false
            }
        })
        .collect();
    if tests.is_empty() {
        return Err(none_encodable(&report));
    }

    // Encode the failing tests' own paths (at most MAX_TESTS, taken in turn
    // from each group of tests that fail the same way).
    let (tests, left_out) = pick_tests(tests);
    for t in left_out {
        skip(&mut report, &t.name, format!("left out: at most {MAX_TESTS} failing tests are diagnosed together, taken in turn from each group of tests that fail the same way"));
    }
    let locator = Locator::new(prog, root);
    let weights = trust_nondet_model(weights::statement_weights(prog), &locator);
    let search_opts = search::SearchOptions {
        max_size: opts.max_size,
        max_diagnoses: opts.max_diagnoses,
        budget_text: budget_text.clone(),
    };
    let share = |f: f64| -> Budget {
        let mut b = Budget::unlimited().with_cancel(cancel.clone());
        if let Some(limit) = opts.time_limit {
            b = b.with_deadline(start + limit.mul_f64(f));
        }
        b
    };
    let ctx = PhaseContext {
        prog,
        weights: &weights,
        search_opts: &search_opts,
        progress,
        cancel,
        start,
    };
    // Phase 1: each test along its own run's path (a model leaving it is
    // refuted at once, no path is encoded): quick, and every diagnosis it
    // finds is real. Phase 2: paths explored on demand, for the diagnoses
    // that need another path (a wrong condition); it supersedes phase 1
    // when it finishes.
    let mut own_skipped = Vec::new();
    let own = run_phase(&ctx, &tests, 1, &share(0.3), &mut own_skipped)?;
    // Tests phase 1 could encode: a test it could not explain along its own
    // run's path (e.g. a failed assert, whose own path ends in the abort)
    // may still be explained along another, so phase 2 gets it back.
    let encoded: Vec<ModelTest> = own.joint.tests.iter().map(|t| t.test.clone()).collect();
    let explore = opts.max_paths_per_test > 1 && budget.exhausted().is_none();
    let mut ex_skipped = Vec::new();
    let explored = if explore && !encoded.is_empty() {
        Some(run_phase(
            &ctx,
            &encoded,
            opts.max_paths_per_test,
            &share(0.55),
            &mut ex_skipped,
        )?)
    } else {
        None
    };
    let active_in = |p: &Phase| -> Vec<String> {
        p.joint
            .tests
            .iter()
            .filter(|t| t.active)
            .map(|t| t.test.name.clone())
            .collect()
    };
    // Which phases' diagnoses are reported: both lists merge only when they
    // explain the same tests; otherwise the phase explaining more tests wins
    // (phase 2 explains tests phase 1 leaves out, but may itself run out of
    // budget before encoding one phase 1 explained).
    let own_active = active_in(&own);
    let reported = match &explored {
        None => Reported::Own,
        Some(ex) => {
            let ex_active = active_in(ex);
            if ex_active == own_active {
                Reported::Both
            } else if ex_active.len() > own_active.len() {
                Reported::Explored
            } else {
                Reported::Own
            }
        }
    };
    let in_own = |name: &str| encoded.iter().any(|t| t.name == name);
    for (name, reason) in own_skipped {
        // Phase 1's verdict on a test it encoded stands only if phase 1's
        // list alone is reported.
        if reported == Reported::Own || !in_own(&name) {
            skip(&mut report, &name, reason);
        }
    }
    if reported != Reported::Own {
        for (name, reason) in ex_skipped {
            skip(&mut report, &name, reason);
        }
    }
    let phases: Vec<&Phase> = match reported {
        Reported::Own => vec![&own],
        Reported::Explored => explored.iter().collect(),
        Reported::Both => std::iter::once(&own).chain(explored.as_ref()).collect(),
    };
    let (chosen, mut complete, mut stopped) = match reported {
        Reported::Both => choose(&own, explored.as_ref()),
        _ => choose(phases[0], None),
    };
    if reported == Reported::Own {
        if let Some(ex) = &explored {
            complete = false;
            let why = ex.found.stopped.clone().unwrap_or_default();
            stopped = Some(format!(
                "exploring paths beyond the failing runs' own could not encode every test ({why}); the diagnoses shown follow each test's own run"
            ));
        }
    }
    // The last search (the one reported last) stopped unfinished: check the
    // spectrum's top lines one statement at a time, on a formula of its own
    // (the search's may have used up the tests' path bounds).
    let last_searched = explored.as_ref().unwrap_or(&own);
    // (Not when it stopped at the user's limit of diagnoses.)
    let checked = if !last_searched.found.complete
        && last_searched.found.found.len() < opts.max_diagnoses
        && !opts.suspects.is_empty()
        && budget.exhausted().is_none()
    {
        let mut fresh = Joint::new(prog, &weights, encode_options(opts.max_paths_per_test));
        for t in last_searched.joint.tests.iter().filter(|t| t.active) {
            fresh.add(&t.test).map_err(DiagnoseError::Other)?;
        }
        // A statement the reported search found alone is reported already.
        let found_alone: BTreeSet<StmtId> = chosen
            .iter()
            .map(|(phase, f, _)| {
                search::statements_of(&f.unhealthy, &phases[*phase].joint.statement_of())
            })
            .filter(|s| s.len() == 1)
            .map(|s| s[0])
            .collect();
        let candidates: Vec<StmtId> = suspect_statements(&opts.suspects, &locator)
            .into_iter()
            .filter(|s| !found_alone.contains(s))
            .collect();
        let total = candidates.len();
        let found = suspects::check(
            &mut fresh,
            &candidates,
            &share(0.92),
            &share(0.7),
            &mut |done| progress(DiagnoseProgress::Checking { done, total }),
        )
        .map_err(DiagnoseError::Other)?;
        if cancel.is_cancelled() {
            return Err(DiagnoseError::Cancelled);
        }
        Some((fresh, found))
    } else {
        None
    };
    let active = active_in(phases[0]);
    if active.is_empty() {
        return Err(none_encodable(&report));
    }
    report.failing_tests = active;
    // A test is either explained or skipped, and skipped once.
    let mut seen = BTreeSet::new();
    report
        .skipped_tests
        .retain(|t| !report.failing_tests.contains(&t.name) && seen.insert(t.name.clone()));
    report.complete = complete;
    report.stopped = stopped;
    report.stats.sat_calls = phases.iter().map(|p| p.found.sat_calls).sum();
    // The first diagnosis of the phases reported (phase 1 finds none for a
    // test that fails an assert along its own path).
    report.stats.first_ms = phases
        .iter()
        .filter_map(|p| p.found.first.map(|d| ms(p.started + d)))
        .reduce(f64::min)
        .unwrap_or(0.0);

    let total = chosen.len();
    // Per reported diagnosis, its statements.
    let mut reported_stmts: Vec<BTreeSet<StmtId>> = Vec::new();
    for (k, (phase, f, optimal)) in chosen.iter().enumerate() {
        progress(DiagnoseProgress::Verifying { done: k, total });
        let joint = &phases[*phase].joint;
        let mut stmts = search::statements_of(&f.unhealthy, &joint.statement_of());
        stmts.sort_by_key(|&s| locator.line_of(s));
        let mut statements: Vec<_> = stmts.iter().map(|&s| locator.statement(s)).collect();
        // Several statements on one line are one line to the reader.
        statements.dedup_by(|a, b| a.file == b.file && a.line == b.line);
        // An empty set explains nothing, and the free-input functions stand
        // for the test's input, not for code the developer can change.
        if statements.is_empty() || statements.iter().any(|s| bridge::is_nondet_model(&s.file)) {
            continue;
        }
        // A set holding an earlier reported one is not subset-minimal (it can
        // only arise from merging the two phases' lists): leave it out.
        let holds_earlier = report.diagnoses.iter().any(|d| {
            d.statements.iter().all(|e| {
                statements
                    .iter()
                    .any(|s| s.file == e.file && s.line == e.line)
            })
        });
        if holds_earlier {
            continue;
        }
        let angelic = if budget.exhausted().is_none() {
            angelic_values(
                prog,
                joint,
                &locator,
                &|i| Some(joint.tests[i].enc.slots(&|l| joint::holds(&f.model, l))),
                &mut report.stats,
            )
        } else {
            report.stats.angelic_unchecked += 1;
            Vec::new()
        };
        reported_stmts.push(stmts.iter().copied().collect());
        report.diagnoses.push(Diagnosis {
            cost: f.cost,
            kind: if *optimal {
                DiagnosisKind::Optimal
            } else {
                DiagnosisKind::Minimal
            },
            statements,
            angelic,
        });
    }
    progress(DiagnoseProgress::Verifying { done: total, total });
    if let Some((fresh, checked)) = &checked {
        report.stats.suspects_checked = checked.decided as u64;
        report.stats.sat_calls += checked.sat_calls;
        let names: Vec<String> = fresh.tests.iter().map(|t| t.test.name.clone()).collect();
        // A statement explaining the checked tests explains the reported
        // ones only when they are the same tests.
        if names == report.failing_tests {
            add_explaining(
                prog,
                fresh,
                &locator,
                &checked.found,
                &budget,
                &mut report,
                &mut reported_stmts,
            );
            // The first diagnosis may be the check's (the search found none).
            if let Some(at) = checked
                .first
                .filter(|_| report.stats.suspects_explaining > 0)
            {
                let check_ms = ms(at.duration_since(start));
                if report.stats.first_ms == 0.0 || check_ms < report.stats.first_ms {
                    report.stats.first_ms = check_ms;
                }
            }
        }
    }
    // Merged lists and checked statements stay within the user's limit,
    // cheapest first.
    report.diagnoses.truncate(opts.max_diagnoses);
    let explained: Vec<ModelTest> = phases[0]
        .joint
        .tests
        .iter()
        .filter(|t| t.active)
        .map(|t| t.test.clone())
        .collect();
    refine_diagnoses(
        prog,
        &weights,
        &explained,
        &reported_stmts,
        &locator,
        // The last 5% stays for the cores.
        &share(0.95),
        &mut report,
        opts.max_paths_per_test,
    );
    // A minimal core per failing test.
    for t in &phases[0].joint.tests {
        if !t.active {
            continue;
        }
        if let Some((mut stmts, minimal)) = cores::core_of(
            prog,
            &t.test.input,
            &t.test.expected,
            MAX_ENCODED_STEPS,
            &budget,
        ) {
            stmts.sort_by_key(|&s| locator.line_of(s));
            let mut statements: Vec<_> = stmts
                .iter()
                .map(|&s| locator.statement(s))
                .filter(|s| !bridge::is_nondet_model(&s.file))
                .collect();
            statements.dedup_by(|a, b| a.file == b.file && a.line == b.line);
            report.cores.push(TestCore {
                test: t.test.name.clone(),
                statements,
                minimal,
            });
        }
    }
    report.evidence = evidence::line_evidence(&report.diagnoses, &report.cores);
    let last = phases.last().expect("phase 1 ran");
    report.stats.variables = u64::from(last.joint.f.cnf.n_vars());
    report.stats.clauses = last.joint.f.cnf.clauses.len() as u64;
    report.stats.paths = last.joint.paths();
    report.stats.total_ms = ms(start.elapsed());
    Ok(report)
}

/// Which phases' diagnoses a report holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reported {
    Own,
    Explored,
    Both,
}

struct PhaseContext<'a> {
    prog: &'a Program,
    weights: &'a [u64],
    search_opts: &'a search::SearchOptions,
    progress: &'a dyn Fn(DiagnoseProgress),
    cancel: &'a CancelToken,
    start: Instant,
}

/// One search over one joint formula.
struct Phase<'p> {
    joint: Joint<'p>,
    found: search::SearchResult,
    /// When its search started, from the start of the run.
    started: Duration,
}

/// Encodes `tests` (up to `max_paths` paths each, explored on demand) and
/// searches. If no set of statements explains every test, the tests that
/// cannot pass on their own are found, left out (into `skipped`), and the
/// search runs again.
fn run_phase<'p>(
    ctx: &PhaseContext<'p>,
    tests: &[ModelTest],
    max_paths: usize,
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
        let found = search::search(hard, softs, &mut joint, ctx.search_opts, budget, &mut |n| {
            (ctx.progress)(DiagnoseProgress::Solving { found: n })
        })
        .map_err(DiagnoseError::Other)?;
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

/// The diagnoses to report, as `(phase, found, optimal)` in cost order, and
/// whether the list is complete (and if not, why). Phase 2 (paths explored)
/// supersedes phase 1 (own paths) when it finished or found as many; else
/// phase 1's list stands, with phase 2's other finds added.
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

/// Adds the single statements the spectrum-guided check found to explain
/// every test (see `suspects.rs`): each is subset-minimal, so a reported set
/// holding it is not and goes. The list stays in cost order; an "optimal"
/// costlier than such a statement was optimal only among the paths its
/// search explored, and is called minimal.
fn add_explaining(
    prog: &Program,
    joint: &Joint,
    locator: &Locator,
    found: &[suspects::Explaining],
    budget: &Budget,
    report: &mut DiagnosisReport,
    reported_stmts: &mut Vec<BTreeSet<StmtId>>,
) {
    for e in found {
        let statement = locator.statement(e.stmt);
        if bridge::is_nondet_model(&statement.file)
            || reported_stmts
                .iter()
                .any(|s| s.len() == 1 && s.contains(&e.stmt))
        {
            continue;
        }
        let mut k = 0;
        while k < report.diagnoses.len() {
            if reported_stmts[k].contains(&e.stmt) {
                report.diagnoses.remove(k);
                reported_stmts.remove(k);
            } else {
                k += 1;
            }
        }
        let angelic = if budget.exhausted().is_none() {
            angelic_values(
                prog,
                joint,
                locator,
                &|i| e.slots.get(&i).cloned(),
                &mut report.stats,
            )
        } else {
            report.stats.angelic_unchecked += 1;
            Vec::new()
        };
        let cost = joint.weight(e.stmt);
        let at = report.diagnoses.partition_point(|d| d.cost <= cost);
        report.diagnoses.insert(
            at,
            Diagnosis {
                cost,
                kind: DiagnosisKind::Minimal,
                statements: vec![statement],
                angelic,
            },
        );
        reported_stmts.insert(at, BTreeSet::from([e.stmt]));
        report.stats.suspects_explaining += 1;
    }
    let cheapest = report.diagnoses.first().map_or(0, |d| d.cost);
    for d in &mut report.diagnoses {
        if d.cost > cheapest {
            d.kind = DiagnosisKind::Minimal;
        }
    }
}

/// Diagnoses refined to a sub-expression at most (each costs a SAT call
/// per candidate and test).
const MAX_REFINED: usize = 5;

/// Narrows the statements of the first diagnoses to the sub-expression that
/// must change, where one does, while the budget lasts.
#[allow(clippy::too_many_arguments)]
fn refine_diagnoses(
    prog: &Program,
    weights: &[u64],
    tests: &[ModelTest],
    reported_stmts: &[BTreeSet<StmtId>],
    locator: &Locator,
    budget: &Budget,
    report: &mut DiagnosisReport,
    max_paths: usize,
) {
    for (d, stmts) in report
        .diagnoses
        .iter_mut()
        .zip(reported_stmts)
        .take(MAX_REFINED)
    {
        if budget.exhausted().is_some() {
            return;
        }
        let opts = encode_options(max_paths);
        let Ok(refined) = refine::refine(prog, weights, tests, stmts, opts, budget) else {
            // A test that does not encode again: left unrefined.
            continue;
        };
        report.stats.subexpressions_checked += refined.checked as u64;
        for (stmt, range) in refined.found {
            let Some(place) = locator.line_of(stmt) else {
                continue;
            };
            // On a line with another of the diagnosis' statements, "change
            // this sub-expression" would not say which statement it is in.
            let alone = stmts
                .iter()
                .filter(|&&o| locator.line_of(o).as_ref() == Some(&place))
                .count()
                == 1;
            let (file, line) = place;
            let Some(s) = d
                .statements
                .iter_mut()
                .find(|s| alone && s.file == file && s.line == line)
            else {
                continue;
            };
            if let Some(sub) = locator.subexpression(range) {
                s.subexpression = Some(sub);
                report.stats.subexpressions_found += 1;
            }
        }
        if refined.stopped {
            return;
        }
    }
}

/// The statements on `lines`, in the lines' order (statements of one line
/// in program order).
fn suspect_statements(lines: &[(String, u32)], locator: &Locator) -> Vec<StmtId> {
    let mut out = Vec::new();
    for (file, line) in lines {
        for s in 0..locator.statement_count() {
            if locator
                .line_of(s)
                .is_some_and(|(f, l)| l == *line && f == *file)
            {
                out.push(s);
            }
        }
    }
    out
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

/// Verified angelic values of one diagnosis, per active test (`slots_of`:
/// the values a model gave the unhealthy statements' instances, by the
/// test's index in the joint formula).
fn angelic_values(
    prog: &Program,
    joint: &Joint,
    locator: &Locator,
    slots_of: &dyn Fn(usize) -> Option<Vec<Slot>>,
    stats: &mut DiagnosisStats,
) -> Vec<AngelicValue> {
    let mut out = Vec::new();
    for (i, t) in joint.tests.iter().enumerate().filter(|(_, t)| t.active) {
        let Some(slots) = slots_of(i) else { continue };
        match angelic::verify(prog, &t.test, slots) {
            angelic::Verdict::Rejected => stats.angelic_rejected += 1,
            // A part of a verified set is not verified: a set too long to
            // show is left out whole (and counted), never cut.
            angelic::Verdict::Verified(kept) if kept.len() > MAX_ANGELIC_PER_TEST => {
                stats.angelic_too_long += 1
            }
            angelic::Verdict::Verified(kept) => {
                for s in &kept {
                    out.push(AngelicValue {
                        test: t.test.name.clone(),
                        file: locator.file(s.range).to_string(),
                        line: s.range.start.line,
                        instance: s.instance + 1,
                        value: s.value(),
                        text: angelic::text(s),
                        role: angelic::role_name(s.role).to_string(),
                        verified: true,
                        column: locator.shares_line(s.range).then_some(s.range.start.col),
                        argument: (s.role == SlotRole::OutputArg).then_some(s.arg + 1),
                    });
                }
            }
        }
    }
    out
}

/// Weight of the free-input functions' statements: far above any diagnosis
/// the search enumerates, so they are blamed only when nothing else explains
/// a test (and such a diagnosis is not reported).
const NONDET_MODEL_WEIGHT: u64 = 1_000_000;

fn trust_nondet_model(mut weights: Vec<u64>, locator: &Locator) -> Vec<u64> {
    for (stmt, w) in weights.iter_mut().enumerate() {
        if locator
            .range(stmt)
            .is_some_and(|r| bridge::is_nondet_model(locator.file(r)))
        {
            *w = NONDET_MODEL_WEIGHT;
        }
    }
    weights
}

/// `Ok` when the model's run of a failing test fails too (so there is
/// something to explain); else why it is not diagnosed.
fn model_run_verdict(prog: &Program, t: &ModelTest) -> Result<(), String> {
    let r = faultlens_csem::run(prog, &t.input, &t.run_options());
    let stderr = String::from_utf8_lossy(&r.stderr);
    if let Some(at) = stderr.find(faultlens_pipeline::build::nondet::OUT_OF_INPUT_MESSAGE) {
        if r.outcome
            == faultlens_csem::Outcome::Exited(faultlens_pipeline::build::nondet::OUT_OF_INPUT_EXIT)
        {
            let line = stderr[at..].lines().next().unwrap_or_default().trim();
            return Err(format!(
                "its input runs out (\"{line}\"): the program draws more free inputs than the test's stdin holds, which no change of the program's statements explains; give the test more input"
            ));
        }
    }
    if r.outcome == faultlens_csem::Outcome::StepLimit {
        return Err(format!(
            "the model's run does not end within {MAX_ENCODED_STEPS} steps, too long a run to encode (a hang, or a loop that needs a smaller input to be diagnosed)"
        ));
    }
    if angelic::passes(&r, t) {
        let got = faultlens_csem::describe_outcome(&r.outcome);
        return Err(format!(
            "the model's run of this test passes: it ends with {got} and the expected output, while the real run failed; the C model does not reproduce this failure (undefined behaviour, or something outside the model), so it cannot be diagnosed"
        ));
    }
    Ok(())
}

fn none_encodable(report: &DiagnosisReport) -> DiagnoseError {
    let reasons: Vec<String> = report
        .skipped_tests
        .iter()
        .take(3)
        .map(|s| format!("{}: {}", s.name, s.reason))
        .collect();
    DiagnoseError::NotModelled(format!(
        "none of the {} failing tests can be diagnosed ({})",
        report.skipped_tests.len(),
        reasons.join("; ")
    ))
}

/// Milliseconds, rounded to microseconds (so the stored JSON reads back equal).
fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

fn human(d: Duration) -> String {
    if d.as_millis().is_multiple_of(1000) {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// The MaxSAT instance behind a diagnosis, for benchmarks and other solvers:
/// the failing tests encoded, their paths explored as far as the search for
/// the first optimum needed, every test's `pass` hard, the health literals
/// soft with their weights. Solving it gives the optimal cost.
pub fn diagnosis_instance(
    prog: &Program,
    tests: Vec<ModelTest>,
    opts: &DiagnoseOptions,
    cancel: &CancelToken,
) -> Result<faultlens_maxsat::Instance, DiagnoseError> {
    let weights = weights::statement_weights(prog);
    let encode_opts = encode_options(opts.max_paths_per_test);
    let mut joint = Joint::new(prog, &weights, encode_opts);
    let (tests, _) = pick_tests(tests);
    for t in &tests {
        if !joint.tests.is_empty() && joint.f.cnf.clauses.len() > MAX_CLAUSES {
            break;
        }
        let _ = joint.add(t);
    }
    let mut budget = Budget::unlimited().with_cancel(cancel.clone());
    if let Some(limit) = opts.time_limit {
        budget = budget.with_time_limit(limit);
    }
    let search_opts = search::SearchOptions {
        max_size: opts.max_size,
        max_diagnoses: 1,
        budget_text: "time budget".into(),
    };
    let (hard, softs) = joint.start();
    search::search(hard, softs, &mut joint, &search_opts, &budget, &mut |_| {})
        .map_err(DiagnoseError::Other)?;
    let mut inst = faultlens_maxsat::Instance::new();
    inst.declare_vars(joint.f.cnf.n_vars());
    for c in &joint.f.cnf.clauses {
        inst.add_hard(c.iter().copied());
    }
    for t in joint.tests.iter().filter(|t| t.active) {
        inst.add_hard([t.enc.pass()]);
    }
    for (&s, &l) in &joint.f.health {
        inst.add_soft(l, joint.weight(s))
            .map_err(|e| DiagnoseError::Other(e.to_string()))?;
    }
    Ok(inst)
}
