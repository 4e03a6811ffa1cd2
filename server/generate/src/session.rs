//! Edge: test generation for a project. Loads the harness into the C model,
//! replays the project's own tests in it (the data the ranking starts from),
//! runs a strategy round by round and appends the generated tests to
//! `.faultlens/generated-tests.toml`.

use crate::domain::Domain;
use crate::explore::{Bounds, Enumerator, Explorer, Stats};
use crate::model::{self, LoadError};
use crate::run::{Line, Run, Step};
use crate::solver::SolverExplorer;
use crate::strategy::{self, Strategy};
use crate::tests_file::{self, GeneratedTest};
use faultlens_workspace::declared::{discover_declared, DEFAULT_TIMEOUT};
use faultlens_workspace::testspec::Invocation;
use faultlens_workspace::Project;
use std::collections::BTreeSet;
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct GenerateOptions {
    pub strategy: Strategy,
    /// Tests to add at most: sfo's failing runs (default: until none is left),
    /// sfo_p's passing runs (default 20), SAT-TAR's rounds (default 20).
    pub max: Option<usize>,
    pub bounds: Bounds,
    pub explorer: ExplorerKind,
    /// Time the solver explorer may take in all (queries after it go unanswered).
    pub solver_time_limit: std::time::Duration,
}

/// How runs are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplorerKind {
    /// Every path over a small input domain, in the interpreter.
    Enumerate,
    /// A SAT solver on the multi-path encoding (free draws, coverage literals).
    Solver,
}

impl ExplorerKind {
    pub fn parse(s: &str) -> Option<ExplorerKind> {
        match s {
            "enumerate" => Some(ExplorerKind::Enumerate),
            "solver" | "sat" => Some(ExplorerKind::Solver),
            _ => None,
        }
    }
}

impl GenerateOptions {
    pub fn new(strategy: Strategy) -> Self {
        GenerateOptions {
            strategy,
            max: None,
            bounds: Bounds::default(),
            explorer: ExplorerKind::Enumerate,
            solver_time_limit: std::time::Duration::from_secs(60),
        }
    }
}

/// Default number of passing runs sfo_p adds and of SAT-TAR rounds.
pub const DEFAULT_MAX: usize = 20;

#[derive(Debug)]
pub struct Generation {
    /// The project's own tests as the model ran them (the starting data).
    pub initial: Vec<(String, Run)>,
    /// Project tests the model did not use, and why.
    pub skipped: Vec<(String, String)>,
    pub tests: Vec<GeneratedTest>,
    /// Where the tests were written (`None` when none was generated).
    pub file: Option<PathBuf>,
    pub stats: Stats,
    /// What limited the search (budgets, paths the model could not follow).
    pub notes: Vec<String>,
    /// SAT-TAR: where its suspects came from.
    pub suspects_from: Option<String>,
}

#[derive(Debug)]
pub enum GenerateError {
    Load(LoadError),
    /// The project's tests cannot be listed (not an io project, bad config).
    Tests(String),
    Io(String),
}

impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenerateError::Load(e) => write!(f, "{e}"),
            GenerateError::Tests(m) | GenerateError::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for GenerateError {}

/// Called after each round with the new test and all the data; false stops.
pub type OnTest<'a> = dyn FnMut(&GeneratedTest, &[Run]) -> bool + 'a;

/// Named runs of the project's tests, and the tests left out with why.
pub type ProjectRuns = (Vec<(String, Run)>, Vec<(String, String)>);

/// The project's own tests replayed in the model.
pub fn project_runs(
    project: &Project,
    harness: &crate::run::Harness,
) -> Result<ProjectRuns, GenerateError> {
    let specs = discover_declared(project, DEFAULT_TIMEOUT)
        .ok_or_else(|| {
            GenerateError::Tests(
                "test generation writes input/output tests: the project needs [[test]] tables or a [tests] section in faultlens.toml (CTest and runner projects are not supported)".into(),
            )
        })?
        .map_err(|e| GenerateError::Tests(e.to_string()))?;
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    for spec in specs {
        let Invocation::Argv(argv) = &spec.invocation else {
            skipped.push((spec.name, "not a direct program invocation".into()));
            continue;
        };
        let args = argv.get(1..).unwrap_or_default().to_vec();
        let text = String::from_utf8_lossy(&spec.stdin);
        let inputs: Vec<i64> = text
            .split_whitespace()
            .map_while(|w| w.parse().ok())
            .collect();
        match harness.execute_raw(&args, &spec.stdin, &inputs) {
            Step::Done(run) => runs.push((spec.name, run)),
            Step::NeedsInput(f) => {
                skipped.push((spec.name, format!("its stdin runs out at {f}()")))
            }
            Step::Invalid(why) => skipped.push((spec.name, why)),
        }
    }
    Ok((runs, skipped))
}

/// Suspects for SAT-TAR: the lines of `test`'s unsatisfiable core in the
/// stored diagnosis (`faultlens diagnose`), if there is one.
fn core_lines(project: &Project, test: &str) -> Option<BTreeSet<Line>> {
    let report = faultlens_workspace::store::read_diagnosis(&project.root).ok()??;
    let core = report.cores.into_iter().find(|c| c.test == test)?;
    let lines: BTreeSet<Line> = core
        .statements
        .into_iter()
        .map(|s| (s.file, s.line))
        .collect();
    (!lines.is_empty()).then_some(lines)
}

/// Runs the strategy on `project` and appends the tests it generates.
pub fn generate_project(
    project: &Project,
    opts: &GenerateOptions,
    on_test: &mut OnTest,
) -> Result<Generation, GenerateError> {
    let harness = model::load(project).map_err(GenerateError::Load)?;
    let (initial, skipped) = project_runs(project, &harness)?;
    let sources = model::harness_sources(project).map_err(GenerateError::Load)?;
    let domain = Domain::from_sources(sources.iter().map(|(_, t)| t.as_str()));
    let mut data: Vec<Run> = initial.iter().map(|(_, r)| r.clone()).collect();
    let mut explorer: Box<dyn Explorer + '_> = match opts.explorer {
        ExplorerKind::Enumerate => Box::new(Enumerator::new(
            &harness,
            Vec::new(),
            domain,
            opts.bounds.clone(),
        )),
        ExplorerKind::Solver => {
            let symbolic = model::load_symbolic(project).map_err(GenerateError::Load)?;
            let mut solver = SolverExplorer::new(&harness, symbolic, &data)
                .map_err(|e| GenerateError::Io(format!("starting the SAT solver: {e}")))?;
            solver.deadline = Some(std::time::Instant::now() + opts.solver_time_limit);
            Box::new(solver)
        }
    };
    let explorer = explorer.as_mut();
    let taken: Vec<String> = initial
        .iter()
        .map(|(n, _)| n.clone())
        .chain(skipped.iter().map(|(n, _)| n.clone()))
        .collect();
    let label = opts.strategy.name();
    let first = tests_file::next_number(label, taken.iter().map(String::as_str));
    let mut tests: Vec<GeneratedTest> = Vec::new();
    let mut on_round = |run: &Run, all: &[Run]| {
        let n = tests.len();
        let t = GeneratedTest {
            name: format!("gen-{label}-{}", first + n),
            run: run.clone(),
            origin: format!("{label}, round {}", n + 1),
        };
        let go_on = on_test(&t, all);
        tests.push(t);
        go_on
    };
    let mut suspects_from = None;
    match opts.strategy {
        Strategy::Sfo => {
            strategy::sfo(
                &mut *explorer,
                &mut data,
                opts.max.unwrap_or(usize::MAX),
                &mut on_round,
            );
        }
        Strategy::SfoP => {
            strategy::sfo_p(
                &mut *explorer,
                &mut data,
                opts.max.unwrap_or(DEFAULT_MAX),
                &mut on_round,
            );
        }
        Strategy::SatTar => {
            let start = initial
                .iter()
                .find(|(_, r)| r.verdict.is_fail())
                .cloned()
                .or_else(|| {
                    // No failing test yet: the first failing run found starts it.
                    strategy::sfo(&mut *explorer, &mut data, 1, &mut on_round);
                    data.last()
                        .filter(|r| r.verdict.is_fail())
                        .map(|r| (String::new(), r.clone()))
                });
            if let Some((name, failing)) = start {
                let (suspects, from) = match core_lines(project, &name) {
                    Some(core) => (core, format!("the unsatisfiable core of {name} (.faultlens/diagnosis.json)")),
                    None => (
                        failing.coverage.clone(),
                        "the lines the failing run executes (no stored diagnosis core for it: run `faultlens diagnose` for a sharper suspect list)".to_string(),
                    ),
                };
                suspects_from = Some(from);
                strategy::sat_tar(
                    &mut *explorer,
                    &mut data,
                    &failing,
                    &suspects,
                    opts.max.unwrap_or(DEFAULT_MAX),
                    &mut on_round,
                );
            }
        }
    }
    let file = if tests.is_empty() {
        None
    } else {
        Some(
            tests_file::append(project, &tests)
                .map_err(|e| GenerateError::Io(format!("writing the generated tests: {e}")))?,
        )
    };
    Ok(Generation {
        initial,
        skipped,
        tests,
        file,
        stats: explorer.stats(),
        notes: explorer.notes(),
        suspects_from,
    })
}
