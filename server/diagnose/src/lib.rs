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
//! Its one edge (I/O) is [`bridge`] (project and results to model inputs,
//! through `faultlens-workspace`); the report is stored by the caller
//! (`faultlens_workspace::store`). The rest is deterministic apart from
//! the time budget.

mod angelic;
mod assemble;
pub mod bridge;
mod c_text;
mod consistent;
mod cores;
mod deltas;
mod evidence;
pub mod files;
mod flips;
mod free_reads;
pub mod groups;
mod hangs;
mod harness;
mod joint;
mod left_out;
mod locate;
mod phases;
pub mod plan;
mod recorded;
mod refine;
pub mod search;
mod shown;
mod suspects;
mod swaps;
#[cfg(test)]
mod test_programs;
pub mod weights;
mod witnesses;

pub use bridge::source_spec;
pub use faultlens_core::diagnosis::DiagnosisReport;
/// The workspace's one cancellation token (`faultlens-cancel`).
pub use faultlens_maxsat::CancelToken;

use bridge::ModelTest;
use faultlens_core::diagnosis::SkippedTest;
use faultlens_core::results::RunResults;
use faultlens_core::results::SuiteKind;
use faultlens_csem::encode::EncodeOptions;
use faultlens_csem::ir::{Program, StmtId};
use faultlens_maxsat::Budget;
use joint::Joint;
use locate::Locator;
use plan::{Clock, PLAN};
use std::collections::{BTreeMap, BTreeSet};
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
    /// Deterministic budget of the whole run, in effort units
    /// ([`faultlens_maxsat::UNITS_PER_EFFORT`] work units each, about a
    /// second of work on the machine the weights were measured on): the
    /// same project stops at the same point on every machine. `None` =
    /// unlimited. With both limits, the first reached ends each step.
    pub effort: Option<f64>,
    /// Paths encoded per test at most (the failing run's own, plus explored ones).
    pub max_paths_per_test: usize,
    /// `(file, line)`s, most suspicious first, whose statements are checked
    /// one at a time when the search stops before it is complete (see
    /// `suspects.rs`). Empty: [`diagnose_project`] takes the spectrum's
    /// top lines (Ochiai).
    pub suspects: Vec<(String, u32)>,
    /// Globs of files (relative to the project root) whose statements are
    /// the specification, never blamed: a unit test's code and the model
    /// of its framework. [`diagnose_project`] fills it.
    pub trusted_files: Vec<String>,
}

/// The time limit beside a deterministic budget ([`DiagnoseOptions::with_effort`]):
/// only a hang's stop.
pub const HANG_CAP: Duration = Duration::from_secs(3600);

impl DiagnoseOptions {
    /// The default options with a deterministic budget of `effort`, and a
    /// time limit ([`HANG_CAP`]) far beyond what that effort takes on any
    /// machine: the same project gives the same report anywhere (tests, CI).
    #[must_use]
    pub fn with_effort(effort: f64) -> DiagnoseOptions {
        DiagnoseOptions {
            time_limit: Some(HANG_CAP),
            effort: Some(effort),
            ..DiagnoseOptions::default()
        }
    }
}

impl Default for DiagnoseOptions {
    fn default() -> Self {
        DiagnoseOptions {
            max_size: 3,
            max_diagnoses: 20,
            time_limit: Some(Duration::from_secs(30)),
            effort: None,
            max_paths_per_test: 32,
            suspects: Vec::new(),
            trusted_files: Vec::new(),
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

#[derive(Debug, thiserror::Error)]
pub enum DiagnoseError {
    /// The project or program is outside what the C model handles.
    #[error("the C model cannot diagnose this program: {0}. The spectrum ranking (`faultlens localize`) still works")]
    NotModelled(String),
    #[error("the last localization run has no failing tests, so there is nothing to diagnose; run `faultlens localize` after a test fails")]
    NoFailingTests,
    /// Nothing was localized yet, so there are no results to start from.
    #[error("no results yet: run `faultlens localize` (or the faultlens.localize command) first")]
    NoResults,
    #[error("diagnosis cancelled")]
    Cancelled,
    /// The project, its declared tests or a document under `.faultlens/`.
    #[error(transparent)]
    Workspace(#[from] faultlens_workspace::WorkspaceError),
    /// The SAT back end failed (an error, not a spent budget).
    #[error("the solver failed: {0}")]
    Solver(String),
    /// The engine stopped unexpectedly (a bug: the message says where).
    #[error("the diagnosis stopped unexpectedly: {0}; please report this")]
    Internal(String),
}

/// Failing tests diagnosed together at most (each one is a copy of the
/// program in the formula).
const MAX_TESTS: usize = 16;

/// Up to [`MAX_TESTS`] tests, in round-robin order over the groups of
/// tests that violate the same expectation (so that every kind of failure
/// is represented, also when the formula's size bound stops encoding early),
/// and within a group over the different wrong lines they print.
fn pick_tests(tests: Vec<ModelTest>) -> (Vec<ModelTest>, Vec<ModelTest>) {
    let observed = observations(&tests);
    let groups: Vec<Vec<String>> = groups::group(&observed)
        .iter()
        .map(|g| groups::alternate_by_wrong_line(&g.tests, &observed))
        .collect();
    let order = groups::round_robin(&groups);
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
    project: &faultlens_workspace::Project,
    results: &RunResults,
    opts: &DiagnoseOptions,
    progress: &dyn Fn(DiagnoseProgress),
    cancel: &CancelToken,
) -> Result<DiagnosisReport, DiagnoseError> {
    progress(DiagnoseProgress::Loading);
    let started = Instant::now();
    if results.failed_count() == 0 {
        return Err(DiagnoseError::NoFailingTests);
    }
    let mut opts = opts.clone();
    // A detected project's run may have used another build system than
    // detection chose (CTest listed no tests, its Makefile had them): the
    // results say which.
    let kind = match (project.detected, results.suite) {
        (true, SuiteKind::Make) => faultlens_workspace::config::Kind::Make,
        _ => project.kind,
    };
    let (prog, tests, skipped) = if let Some(system) = harness::BuildSystem::of(kind) {
        let unit = harness::executable_tests(project, results, system)?;
        let prog = faultlens_csem::load(&unit.spec).map_err(|e| {
            let e = e.to_string();
            DiagnoseError::NotModelled(format!("{e}{}", unit.refusal_hint(&e)))
        })?;
        opts.trusted_files.extend(unit.trusted);
        (prog, unit.tests, unit.skipped)
    } else {
        let (tests, skipped) = bridge::failing_tests(project, results)?;
        let spec = source_spec(project).map_err(DiagnoseError::NotModelled)?;
        let prog =
            faultlens_csem::load(&spec).map_err(|e| DiagnoseError::NotModelled(e.to_string()))?;
        (prog, tests, skipped)
    };
    let (tests, skipped) = bridge::give_files(&prog, &project.root, tests, skipped);
    if opts.suspects.is_empty() {
        opts.suspects = spectrum_top_lines(results);
    }
    // The budget is the whole diagnosis's: loading the model and running
    // each failing test once for the files it reads (278 runs to the step
    // limit took 6 s of a wordfreq mutant's 30) count against it.
    diagnose_from(
        started,
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
/// failing tests (`skipped`: tests already left out, with the reason). It
/// runs the [`plan::PLAN`]: the search ([`phases`]), the spectrum-guided
/// check when the search stops unfinished, and the report's assembly
/// ([`assemble`]).
pub fn diagnose_program(
    prog: &Program,
    root: &Path,
    tests: Vec<ModelTest>,
    skipped: Vec<(String, String)>,
    opts: &DiagnoseOptions,
    progress: &dyn Fn(DiagnoseProgress),
    cancel: &CancelToken,
) -> Result<DiagnosisReport, DiagnoseError> {
    diagnose_from(
        Instant::now(),
        prog,
        root,
        tests,
        skipped,
        opts,
        progress,
        cancel,
    )
}

/// [`diagnose_program`] with its time budget counted from `start`.
#[allow(clippy::too_many_arguments)]
fn diagnose_from(
    start: Instant,
    prog: &Program,
    root: &Path,
    tests: Vec<ModelTest>,
    skipped: Vec<(String, String)>,
    opts: &DiagnoseOptions,
    progress: &dyn Fn(DiagnoseProgress),
    cancel: &CancelToken,
) -> Result<DiagnosisReport, DiagnoseError> {
    let clock = Clock::new(start, opts.time_limit, effort_units(opts), cancel);
    let budget = clock.whole();
    let mut report = DiagnosisReport {
        groups: groups::group(&observations(&tests)),
        ..DiagnosisReport::default()
    };
    report.skipped_tests = skipped
        .into_iter()
        .map(|(name, reason)| SkippedTest { name, reason })
        .collect();
    // Tests are encoded shortest first but reported in the suite's order.
    let suite_order: BTreeMap<String, usize> = tests
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    let in_suite_order = |mut names: Vec<String>| {
        names.sort_by_key(|n| suite_order.get(n).copied().unwrap_or(usize::MAX));
        names
    };
    let Diagnosable {
        tests,
        left_out,
        hung,
    } = diagnosable(prog, root, tests, &budget, &mut report);
    if tests.is_empty() && hung.is_empty() {
        return Err(none_encodable(&report));
    }
    let locator = Locator::new(prog, root);
    let weights = trust_specification(
        weights::statement_weights(prog),
        &locator,
        &opts.trusted_files,
    );
    let candidates: Vec<StmtId> = suspect_statements(&opts.suspects, &locator)
        .into_iter()
        .filter(|s| weights.get(*s) != Some(&weights::TRUSTED))
        .collect();
    let trusted = weights::trusted(&weights);
    // Tests whose runs do not end are diagnosed by running them, only
    // when no other test can be encoded.
    let hang_ctx = hangs::HangContext {
        prog,
        locator: &locator,
        weights: &weights,
        candidates: &candidates,
        trusted: &trusted,
        start,
    };
    let hangs_budget = (
        clock.until(&PLAN.check),
        clock.until(&PLAN.verify_and_refine),
    );
    if tests.is_empty() {
        return hangs::diagnose(&hang_ctx, hung, &hangs_budget.0, &hangs_budget.1, report);
    }
    let search_opts = search::SearchOptions {
        max_size: opts.max_size,
        max_diagnoses: opts.max_diagnoses,
        budget_text: budget_text(opts),
    };
    let ctx = phases::PhaseContext {
        prog,
        weights: &weights,
        search_opts: &search_opts,
        progress,
        cancel,
        start,
    };
    // Between the searches, on the tests the second takes: the concrete
    // witnesses of the spectrum's top statements (runs of the tests, no
    // SAT), then the SAT check's first pass over those left, so a single
    // statement they find is reported early however the search beyond the
    // runs' own paths fares.
    let covering = report.groups.len() > 1;
    let mut witnessed = Ok(None);
    let searched = phases::search_phases(&ctx, &tests, opts, &budget, &clock, &mut |encoded| {
        let tests: Vec<&ModelTest> = encoded.iter().collect();
        let step = clock.until(&PLAN.witnesses);
        let concrete = step.share_of_rest(CONCRETE_SHARE);
        let found = witnesses::find(prog, &tests, &trusted, &candidates, &concrete);
        witnessed = first_pass(&ctx, encoded, found, opts, covering, &step).map(Some);
        match &witnessed {
            Ok(Some((w, _))) => shown::Shown::all_of(w),
            _ => Vec::new(),
        }
    })?;
    let (witnessed, first_pass_sat_calls) = witnessed?.unzip();
    for (name, reason) in &searched.skipped {
        skip(&mut report, name, reason.clone());
    }
    let phases = searched.phases();
    let (chosen, complete, stopped) = searched.chosen();
    let checked = check_suspects(
        &ctx,
        &searched,
        &phases,
        &chosen,
        Suspects {
            candidates: &candidates,
            trusted: &trusted,
            witnessed,
        },
        opts,
        report.groups.len(),
        &clock,
    )?;
    let active = in_suite_order(phases::active_in(phases[0]));
    if active.is_empty() && !hung.is_empty() {
        return hangs::diagnose(&hang_ctx, hung, &hangs_budget.0, &hangs_budget.1, report);
    }
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
    report.stats.sat_calls =
        phases.iter().map(|p| p.found.sat_calls).sum::<u64>() + first_pass_sat_calls.unwrap_or(0);
    // The first diagnosis of the phases reported (phase 1 finds none for a
    // test that fails an assert along its own path).
    report.stats.first_ms = phases
        .iter()
        .filter_map(|p| p.found.first.map(|d| ms(p.started + d)))
        .reduce(f64::min)
        .unwrap_or(0.0);

    let mut reported_stmts = assemble::report_diagnoses(
        prog,
        &phases,
        &chosen,
        &locator,
        &budget,
        &mut report,
        progress,
    );
    if let Some((fresh, checked)) = &checked {
        report.stats.suspects_checked = checked.decided as u64;
        report.stats.sat_calls += checked.sat_calls;
        let names = in_suite_order(fresh.tests.iter().map(|t| t.test.name.clone()).collect());
        // A statement explaining the checked tests explains the reported
        // ones only when they are the same tests.
        if names == report.failing_tests {
            assemble::add_explaining(
                prog,
                &assemble::Explained {
                    tests: fresh.active_tests(),
                    weight: &|s| fresh.weight(s),
                },
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
    // The failing tests no search encoded (beyond the limit of tests or
    // clauses, or the budget), checked alone against what it found.
    let encoded: BTreeSet<&str> = phases
        .iter()
        .flat_map(|p| p.joint.tests.iter().map(|t| t.test.name.as_str()))
        .collect();
    let unencoded: Vec<ModelTest> = tests
        .iter()
        .filter(|t| !encoded.contains(t.name.as_str()))
        .chain(&left_out)
        .cloned()
        .collect();
    let checker = left_out::Checker {
        prog,
        weights: &weights,
        trusted: &trusted,
        max_paths: opts.max_paths_per_test,
    };
    left_out::check_left_out(
        &checker,
        &unencoded,
        &reported_stmts,
        &clock.until(&PLAN.left_out),
        &mut report,
    );
    report.failing_tests = in_suite_order(std::mem::take(&mut report.failing_tests));
    let explained: Vec<ModelTest> = phases[0]
        .joint
        .tests
        .iter()
        .filter(|t| t.active)
        .map(|t| t.test.clone())
        .collect();
    assemble::refine_diagnoses(
        prog,
        &weights,
        &explained,
        &reported_stmts,
        &locator,
        &clock.until(&PLAN.verify_and_refine),
        &mut report,
        opts.max_paths_per_test,
    );
    assemble::add_cores(prog, phases[0], &locator, &budget, &mut report);
    report.evidence = evidence::line_evidence(&report.diagnoses, &report.cores);
    let last = phases.last().expect("phase 1 ran");
    report.stats.variables = u64::from(last.joint.f.cnf.n_vars());
    report.stats.clauses = last.joint.f.cnf.clauses.len() as u64;
    report.stats.paths = last.joint.paths();
    clock.note_spent(&mut report.stats, start);
    Ok(report)
}

fn skip(report: &mut DiagnosisReport, name: &str, reason: String) {
    report.skipped_tests.push(SkippedTest {
        name: name.to_string(),
        reason,
    })
}

/// Why a test beyond [`MAX_TESTS`] is not diagnosed.
fn left_out_reason() -> String {
    format!("left out: at most {MAX_TESTS} failing tests are diagnosed together, taken in turn from each group of tests that fail the same way")
}

/// The tests to encode: those whose model run fails too (an empty set of
/// statements would "explain" one that passes; nor is one diagnosed whose
/// free input runs out), at most [`MAX_TESTS`] of them, shortest runs
/// first, taken in turn from each group of tests that fail the same way.
/// The others are skipped in `report` with the reason; those beyond
/// [`MAX_TESTS`] are returned too, to be checked alone against the
/// diagnoses (see [`left_out`]), and those whose model runs do not end
/// (see [`hangs`]).
///
/// A run that reads outside an object gets the byte that reproduces its
/// recorded run there (see [`free_reads`]), noted in `report`.
fn diagnosable(
    prog: &Program,
    root: &Path,
    tests: Vec<ModelTest>,
    budget: &Budget,
    report: &mut DiagnosisReport,
) -> Diagnosable {
    let mut hung = Vec::new();
    let mut runs: Vec<(ModelTest, ModelRun)> = Vec::new();
    let mut answerer = free_reads::Answerer::new(prog, root, budget);
    for mut t in tests {
        let mut verdict = model_run_verdict(prog, &t);
        let stops_at_ub = matches!(
            verdict,
            Ok(ModelRun {
                stops_at_ub: true,
                ..
            })
        );
        if stops_at_ub && answerer.answer(&mut t, &mut report.free_reads) {
            verdict = model_run_verdict(prog, &t);
        }
        match verdict {
            Ok(run) => runs.push((t, run)),
            Err(refused) => {
                skip(report, &t.name, refused.reason);
                if refused.hangs {
                    hung.push(t);
                }
            }
        }
    }
    // Shortest runs first (stable: the suite's order among equals): a short
    // run is a small formula, so more tests fit under the clause limit and
    // each SAT call is cheaper, and a short failing run points at fewer
    // statements. Runs that stop at undefined behaviour go last: the
    // encoding cannot follow them, and short inputs are the likeliest to
    // read past the end of a string. Runs whose reads outside an object
    // were answered come before those, after the others, which rest on no
    // byte the model had to infer.
    runs.sort_by_key(|(t, run)| (run.stops_at_ub, t.input.free_reads.is_some(), run.steps));
    let (tests, left_out) = pick_tests(runs.into_iter().map(|(t, _)| t).collect());
    for t in &left_out {
        skip(report, &t.name, left_out_reason());
    }
    Diagnosable {
        tests,
        left_out,
        hung,
    }
}

/// The failing tests a diagnosis takes: those encoded together, those left
/// out beyond them, and those whose model runs do not end.
struct Diagnosable {
    tests: Vec<ModelTest>,
    left_out: Vec<ModelTest>,
    hung: Vec<ModelTest>,
}

/// The share of the time left before the witnesses' step ends that the
/// concrete witnesses may take; the SAT check's first pass has the rest.
const CONCRETE_SHARE: f64 = 0.5;

/// The SAT check's first pass ([`suspects::first_pass`]) over the
/// candidates the concrete witnesses left, on a formula of the `encoded`
/// tests of its own, within `budget`; the SAT calls it made.
fn first_pass(
    ctx: &phases::PhaseContext,
    encoded: &[ModelTest],
    witnessed: witnesses::Witnessed,
    opts: &DiagnoseOptions,
    covering: bool,
    budget: &Budget,
) -> Result<(witnesses::Witnessed, u64), DiagnoseError> {
    if encoded.is_empty() {
        return Ok((witnessed, 0));
    }
    let mut joint = Joint::new(
        ctx.prog,
        ctx.weights,
        encode_options(opts.max_paths_per_test),
    );
    for t in encoded {
        joint.add(t).map_err(DiagnoseError::Solver)?;
    }
    // The witnesses' finds count as decided, as in the check after the search.
    let total = witnessed.found.len() + witnessed.pending.len();
    let progress = ctx.progress;
    let passed = suspects::first_pass(&mut joint, witnessed, budget, covering, &mut |done| {
        progress(DiagnoseProgress::Checking { done, total })
    })
    .map_err(DiagnoseError::Solver)?;
    if ctx.cancel.is_cancelled() {
        return Err(DiagnoseError::Cancelled);
    }
    Ok(passed)
}

/// The statements the spectrum-guided check takes, and the concrete
/// witnesses found for them between the searches.
struct Suspects<'a> {
    candidates: &'a [StmtId],
    trusted: &'a BTreeSet<StmtId>,
    witnessed: Option<witnesses::Witnessed>,
}

/// The plan's spectrum-guided check, when the last search stopped
/// unfinished (not at the user's limit of diagnoses): the spectrum's top
/// lines one statement at a time, on a formula of its own (the search's may
/// have used up the tests' path bounds), leaving out statements the
/// reported search already found alone. The witnesses found between the
/// searches stand for the tests the search explains when they were found
/// for those among others (else they are found again); after a complete
/// search or with the budget spent, they are all the check has.
#[allow(clippy::too_many_arguments)]
fn check_suspects<'p>(
    ctx: &phases::PhaseContext<'p>,
    searched: &phases::Searched<'p>,
    phases: &[&phases::Phase<'p>],
    chosen: &[phases::Chosen],
    suspects: Suspects,
    opts: &DiagnoseOptions,
    groups: usize,
    clock: &Clock,
) -> Result<Option<(Joint<'p>, suspects::Checked)>, DiagnoseError> {
    let last_searched = searched.last();
    if last_searched.found.found.len() >= opts.max_diagnoses || opts.suspects.is_empty() {
        return Ok(None);
    }
    // After a complete search (complete within its bounds: a statement
    // needing paths beyond a test's bound is not in it) nothing more is
    // checked, but a statement the witnesses or the first pass found
    // beyond those bounds is still reported; so it is with the budget
    // spent. Only those are worth encoding the tests again for.
    let checks_more = !last_searched.found.complete && clock.whole().exhausted().is_none();
    let names: Vec<String> = phases::active_in(last_searched);
    let witnessed_here = suspects.witnessed.and_then(|w| w.for_tests(&names));
    if !checks_more && witnessed_here.as_ref().is_none_or(|w| w.found.is_empty()) {
        return Ok(None);
    }
    let mut fresh = Joint::new(
        ctx.prog,
        ctx.weights,
        encode_options(opts.max_paths_per_test),
    );
    for t in last_searched.joint.tests.iter().filter(|t| t.active) {
        fresh.add(&t.test).map_err(DiagnoseError::Solver)?;
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
    let witnessed_stmts: BTreeSet<StmtId> = witnessed_here
        .iter()
        .flat_map(|w| w.found.iter().map(|e| e.stmts[0]))
        .collect();
    let candidates: Vec<StmtId> = suspects
        .candidates
        .iter()
        .copied()
        .filter(|s| !found_alone.contains(s) && (checks_more || witnessed_stmts.contains(s)))
        .collect();
    let tests: Vec<&ModelTest> = fresh.tests.iter().map(|t| &t.test).collect();
    // Runs at most a quarter of the check's time (a long-running program
    // makes every run count).
    let until = clock.until(&PLAN.check).share_of_rest(0.25);
    let witnessed = match witnessed_here {
        Some(w) => w
            .among(&candidates)
            .resume(ctx.prog, &tests, suspects.trusted, &until),
        None => witnesses::find(ctx.prog, &tests, suspects.trusted, &candidates, &until),
    };
    let total = candidates.len();
    // Tests failing in different ways may fail through different faults:
    // statements explaining some each may together explain all.
    let cover_up_to = if groups > 1 { opts.max_size } else { 0 };
    let found = suspects::check(
        &mut fresh,
        &candidates,
        witnessed,
        &clock.until(&PLAN.check),
        &clock.until(&PLAN.check_after_a_find),
        cover_up_to,
        &mut |done| (ctx.progress)(DiagnoseProgress::Checking { done, total }),
    )
    .map_err(DiagnoseError::Solver)?;
    if ctx.cancel.is_cancelled() {
        return Err(DiagnoseError::Cancelled);
    }
    Ok(Some((fresh, found)))
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

/// Weight of the free-input functions' statements: far above any diagnosis
/// the search enumerates, so they are blamed only when nothing else
/// explains a test (and such a diagnosis is not reported).
const NONDET_MODEL_WEIGHT: u64 = 1_000_000;

/// The weights with the specification's statements marked: a unit test's
/// code and its framework's model are [`weights::TRUSTED`] (never blamed),
/// the free-input functions [`NONDET_MODEL_WEIGHT`].
fn trust_specification(mut weights: Vec<u64>, locator: &Locator, trusted: &[String]) -> Vec<u64> {
    let trusted: Vec<glob::Pattern> = trusted
        .iter()
        .filter_map(|g| glob::Pattern::new(g).ok())
        .collect();
    for (stmt, w) in weights.iter_mut().enumerate() {
        let Some(file) = locator.range(stmt).map(|r| locator.file(r)) else {
            continue;
        };
        if trusted.iter().any(|t| t.matches(file)) {
            *w = weights::TRUSTED;
        } else if bridge::is_nondet_model(file) {
            *w = NONDET_MODEL_WEIGHT;
        }
    }
    weights
}

/// What orders the failing tests for encoding: their model runs' length,
/// and whether they stop at undefined behaviour.
struct ModelRun {
    steps: u64,
    stops_at_ub: bool,
}

/// Why a test's model run cannot be encoded, and whether it is because
/// the run does not end.
struct Refused {
    reason: String,
    hangs: bool,
}

impl From<String> for Refused {
    fn from(reason: String) -> Self {
        Refused {
            reason,
            hangs: false,
        }
    }
}

/// The model's run of a failing test when it fails too (so there is
/// something to explain); else why it is not diagnosed.
fn model_run_verdict(prog: &Program, t: &ModelTest) -> Result<ModelRun, Refused> {
    let r = faultlens_csem::run(prog, &t.input, &t.run_options());
    let stderr = String::from_utf8_lossy(&r.stderr);
    if let Some(at) = stderr.find(faultlens_workspace::nondet::OUT_OF_INPUT_MESSAGE) {
        if r.outcome
            == faultlens_csem::Outcome::Exited(faultlens_workspace::nondet::OUT_OF_INPUT_EXIT)
        {
            let line = stderr[at..].lines().next().unwrap_or_default().trim();
            return Err(format!(
                "its input runs out (\"{line}\"): the program draws more free inputs than the test's stdin holds, which no change of the program's statements explains; give the test more input"
            ).into());
        }
    }
    if r.outcome == faultlens_csem::Outcome::StepLimit {
        return Err(Refused {
            reason: format!(
                "the model's run does not end within {MAX_ENCODED_STEPS} steps, too long a run to encode (a hang, or a loop that needs a smaller input to be diagnosed)"
            ),
            hangs: true,
        });
    }
    if angelic::passes(&r, t) {
        let got = faultlens_csem::describe_outcome(&r.outcome);
        return Err(format!(
            "the model's run of this test passes: it ends with {got} and the expected output, while the real run failed; the C model does not reproduce this failure (undefined behaviour, or something outside the model), so it cannot be diagnosed"
        ).into());
    }
    match recorded::unlike_recorded(&r, t) {
        Some(difference) => Err(format!(
            "the model's run of this test {difference}, so it does not reproduce the failure `faultlens localize` recorded: a file the test reads, its environment or the build may have changed since (re-run `faultlens localize`), or the program does something outside the model"
        ).into()),
        None => Ok(ModelRun {
            steps: r.steps,
            stops_at_ub: matches!(r.outcome, faultlens_csem::Outcome::RuntimeError { .. }),
        }),
    }
}

/// Why no failing test could be diagnosed, in the words of the tests that
/// were tried: identical reasons (every test stopping at the same undefined
/// behaviour) are said once with their count, and tests the cap left out,
/// never tried, are counted apart rather than quoted as the reason.
fn none_encodable(report: &DiagnosisReport) -> DiagnoseError {
    DiagnoseError::NotModelled(why_none(&report.skipped_tests))
}

pub(crate) fn why_none(skipped: &[SkippedTest]) -> String {
    let left_out = left_out_reason();
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for t in skipped.iter().filter(|t| t.reason != left_out) {
        match groups.iter_mut().find(|(reason, _)| *reason == t.reason) {
            Some((_, names)) => names.push(&t.name),
            None => groups.push((&t.reason, vec![&t.name])),
        }
    }
    let tried: usize = groups.iter().map(|(_, names)| names.len()).sum();
    let shown: Vec<String> = groups
        .iter()
        .take(3)
        .map(|(reason, names)| match names.len() {
            1 => format!("{}: {reason}", names[0]),
            n => format!(
                "{n} tests ({}{}): {reason}",
                names[..n.min(3)].join(", "),
                if n > 3 { ", …" } else { "" }
            ),
        })
        .collect();
    let mut text = format!(
        "none of the {tried} failing test{} tried can be diagnosed ({})",
        if tried == 1 { "" } else { "s" },
        shown.join("; ")
    );
    if groups.len() > 3 {
        text.push_str(&format!(" and {} other reasons", groups.len() - 3));
    }
    let untried = skipped.len() - tried;
    if untried > 0 {
        text.push_str(&format!(
            "; {untried} more failing test{} not tried (at most {MAX_TESTS} are diagnosed together)",
            if untried == 1 { " was" } else { "s were" }
        ));
    }
    text
}

/// Milliseconds, rounded to microseconds (so the stored JSON reads back equal).
pub(crate) fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

/// The effort limit in the meter's work units.
fn effort_units(opts: &DiagnoseOptions) -> Option<u64> {
    opts.effort
        .map(|e| (e.max(0.0) * faultlens_maxsat::UNITS_PER_EFFORT as f64) as u64)
}

/// How the report names each budget, when one stops the search.
fn budget_text(opts: &DiagnoseOptions) -> search::BudgetText {
    search::BudgetText {
        time: match opts.time_limit {
            Some(d) => format!("time budget of {}", human(d)),
            None => "time budget".into(),
        },
        effort: match opts.effort {
            Some(e) => format!("effort budget of {e}"),
            None => "effort budget".into(),
        },
    }
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
    let clock = Clock::new(Instant::now(), opts.time_limit, effort_units(opts), cancel);
    let budget = clock.whole();
    let search_opts = search::SearchOptions {
        max_size: opts.max_size,
        max_diagnoses: 1,
        budget_text: budget_text(opts),
    };
    let (hard, softs) = joint.start();
    search::search(hard, softs, &mut joint, &search_opts, &budget, &mut |_| {})
        .map_err(DiagnoseError::Solver)?;
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
            .map_err(|e| DiagnoseError::Solver(e.to_string()))?;
    }
    Ok(inst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped(name: &str, reason: &str) -> SkippedTest {
        SkippedTest {
            name: name.into(),
            reason: reason.into(),
        }
    }

    #[test]
    fn the_reasons_quoted_are_those_of_the_tests_tried_once_each() {
        let ub = "the model's run stops at undefined behaviour at calc.c:42 (a read out of bounds)";
        let mut tests: Vec<SkippedTest> = (0..16).map(|i| skipped(&format!("t{i}"), ub)).collect();
        tests.push(skipped("odd", "its input runs out"));
        tests.extend((0..30).map(|i| skipped(&format!("late{i}"), &left_out_reason())));
        assert_eq!(
            why_none(&tests),
            format!("none of the 17 failing tests tried can be diagnosed (16 tests (t0, t1, t2, …): {ub}; odd: its input runs out); 30 more failing tests were not tried (at most 16 are diagnosed together)")
        );
        assert_eq!(
            why_none(&[skipped("only", "why")]),
            "none of the 1 failing test tried can be diagnosed (only: why)"
        );
    }
}
