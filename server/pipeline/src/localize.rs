//! The whole run: build for coverage, discover the tests, run each in its
//! own process (several at once), read each test's coverage, and assemble
//! the results document.

use crate::assemble::{now_unix_ms, suite_kind, union, FileTable};
use crate::build::{self, find_notes, Built};
use crate::clang_cov::{self, ClangTools};
use crate::command::Steps;
use crate::config::CoverageTool;
use crate::counters;
use crate::discover::{self, DEFAULT_TIMEOUT};
use crate::error::{PipelineError, Result};
use crate::execute::{execute, Execution};
use crate::gcda::{self, Gathered, Prefixes};
use crate::gcov::{self, Coverage};
use crate::gcov_native::NotesCache;
use crate::llvm_native;
use crate::process::RunScope;
use crate::project::Project;
use crate::testspec::TestSpec;
use crate::toolchain::Toolchain;
use crate::verdict::{failure_location, judge};
use faultlens_cancel::CancelToken;
use faultlens_core::results::{
    FileCoverage, Location, RunResults, TestRecord, Verdict, FORMAT_VERSION,
};
use faultlens_core::shards::{Shard, ShardSpec};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Captured output kept in the results document, per stream and test.
const STORED_OUTPUT: usize = 4096;
pub const DEFAULT_OUTPUT_LIMIT: usize = 1 << 20;
/// `[build] timeout` when the configuration does not set one: an hour,
/// for one build step.
pub const DEFAULT_BUILD_TIMEOUT: Duration = Duration::from_secs(3600);

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Overrides `[run] timeout`.
    pub timeout: Option<Duration>,
    /// Overrides `[run] jobs`.
    pub jobs: Option<usize>,
    /// Run only this share of the discovered tests (`localize --shard K/N`);
    /// the results record it, for `faultlens merge`.
    pub shard: Option<ShardSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    Building,
    Discovering,
    Running {
        done: usize,
        total: usize,
        test: String,
    },
    Collecting,
    /// The build or discovery did something its user may not expect, and
    /// says what (see [`crate::note::Note`]).
    Note(crate::note::Note),
}

#[derive(Clone)]
struct Finished {
    execution: Execution,
    coverage: Coverage,
}

/// Tests to run before the others, and what to do with their results
/// alone: the developer's failing tests, whose first ranking should not
/// wait for the whole suite.
pub struct FirstTests<'a> {
    /// Test names; a name also matches its cases (`NAME::case`).
    pub names: &'a [String],
    /// Called with the results of the matching tests once they have run
    /// (not when none matches or the run is cancelled).
    pub ready: &'a (dyn Fn(RunResults) + Sync),
}

impl FirstTests<'_> {
    fn wants(&self, test: &str) -> bool {
        self.names.iter().any(|n| {
            test == n
                || test
                    .strip_prefix(n.as_str())
                    .is_some_and(|case| case.starts_with("::"))
        })
    }
}

pub fn localize(
    project: &Project,
    options: &RunOptions,
    progress: &(dyn Fn(Progress) + Sync),
    cancel: &CancelToken,
) -> Result<RunResults> {
    localize_in_stages(project, options, None, progress, cancel)
}

/// [`localize`], running `first`'s tests before the others and handing
/// their results over as soon as they are in.
pub fn localize_in_stages(
    project: &Project,
    options: &RunOptions,
    first: Option<&FirstTests>,
    progress: &(dyn Fn(Progress) + Sync),
    cancel: &CancelToken,
) -> Result<RunResults> {
    let _lock = crate::lock::RunLock::acquire(&project.root)?;
    // Every process of the run (build steps, tests) dies with it, on every
    // exit path.
    let scope = crate::process::RunScope::new();
    let clang = match project.config.build.coverage {
        CoverageTool::Gcov => None,
        CoverageTool::Clang => Some(ClangTools::find(&project.config)?),
    };
    let tools = match &clang {
        None => Toolchain::find(&project.config)?,
        Some(c) => Toolchain {
            cc: c.clang.clone(),
            gcov: String::new(),
            reader: c.reader,
        },
    };
    let jobs = options
        .jobs
        .or(project.config.run.jobs)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let timeout = options
        .timeout
        .or(project.config.run.timeout.map(Duration::from_secs_f64))
        .unwrap_or(DEFAULT_TIMEOUT);

    // Mistakes in declared tests (a missing stdin_file) are reported before
    // minutes of building.
    if let Some(declared) = faultlens_workspace::declared::discover_declared(project, timeout) {
        declared?;
    }
    progress(Progress::Building);
    let digests = crate::store::digest_sources(&project.root);
    let steps = build_steps(project, cancel, &scope);
    // The build's and discovery's notes are said as they come and kept in
    // the results.
    let noted = std::sync::Mutex::new(Vec::new());
    let note = |p: Progress| {
        if let Progress::Note(note) = &p {
            noted
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(note.to_run_note());
        }
        progress(p)
    };
    let setup = Setup {
        tools: &tools,
        jobs,
        timeout,
        steps: &steps,
        cancel,
    };
    let (fallback, built, specs) = build_and_discover_any(project, &setup, &note)?;
    let project = fallback.as_ref().unwrap_or(project);
    check_cancel(cancel)?;
    let suite_tests = specs.len();
    let specs: Vec<TestSpec> = match options.shard {
        Some(shard) => specs
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shard.holds(*i))
            .map(|(_, spec)| spec)
            .collect(),
        None => specs,
    };

    let run = |subset: &[TestSpec], counted: (usize, usize)| {
        run_all(
            project,
            &built,
            &tools,
            clang.as_ref(),
            subset,
            jobs,
            &|p| progress(offset(p, counted)),
            cancel,
            &scope,
        )
    };
    let (early, rest): (Vec<usize>, Vec<usize>) = match first {
        Some(first) => (0..specs.len()).partition(|&i| first.wants(&specs[i].name)),
        None => (Vec::new(), (0..specs.len()).collect()),
    };
    let mut finished: Vec<Option<Finished>> = vec![None; specs.len()];
    if let (Some(first), false) = (first, early.is_empty()) {
        let subset: Vec<TestSpec> = early.iter().map(|&i| specs[i].clone()).collect();
        let done = run(&subset, (0, specs.len()))?;
        check_cancel(cancel)?;
        (first.ready)(assemble(
            project,
            &built,
            &tools,
            &subset,
            done.clone(),
            &digests,
        )?);
        for (&i, f) in early.iter().zip(done) {
            finished[i] = Some(f);
        }
    }
    let subset: Vec<TestSpec> = rest.iter().map(|&i| specs[i].clone()).collect();
    let done = run(&subset, (early.len(), specs.len()))?;
    check_cancel(cancel)?;
    for (&i, f) in rest.iter().zip(done) {
        finished[i] = Some(f);
    }
    let finished = finished
        .into_iter()
        .map(|f| f.expect("every test ran in one of the stages"))
        .collect();
    let mut results = assemble(project, &built, &tools, &specs, finished, &digests)?;
    results.notes = noted
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    results.shard = options.shard.map(|s| Shard {
        index: s.index,
        count: s.count,
        suite_tests: suite_tests as u32,
    });
    Ok(results)
}

/// What building and discovering need besides the project.
struct Setup<'a> {
    tools: &'a Toolchain,
    jobs: usize,
    timeout: Duration,
    steps: &'a Steps<'a>,
    cancel: &'a CancelToken,
}

/// [`build_and_discover`], falling back, for a detected CMake project
/// CMake gives no tests (none listed, or configuring failed), to the other
/// build system it has: then also that project, said in a note.
fn build_and_discover_any(
    project: &Project,
    setup: &Setup,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(Option<Project>, Built, Vec<TestSpec>)> {
    match build_and_discover(project, setup, progress) {
        Ok((built, specs)) => Ok((None, built, specs)),
        Err(e) => {
            let (Some((kind, which)), Some(why)) = (other_build_system(project), cmake_gave_up(&e))
            else {
                return Err(e);
            };
            let fallback = Project {
                kind,
                ..project.clone()
            };
            progress(Progress::Note(crate::note::Note::Chose(format!(
                "{why}; using {which} instead"
            ))));
            let (built, specs) = build_and_discover(&fallback, setup, progress)?;
            Ok((Some(fallback), built, specs))
        }
    }
}

/// Builds `project` for coverage and discovers its tests.
fn build_and_discover(
    project: &Project,
    setup: &Setup,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(Built, Vec<TestSpec>)> {
    let built = build::build(project, setup.tools, setup.jobs, setup.steps)?;
    check_cancel(setup.cancel)?;
    for note in &built.said {
        progress(Progress::Note(note.clone()));
    }
    progress(Progress::Discovering);
    let specs = discover::discover(project, &built, setup.timeout, setup.steps, progress)?;
    Ok((built, specs))
}

/// Why CMake could not give a run its tests, when `e` says it: CTest
/// listed none, or configuring failed (a release tarball repacked without
/// a file its CMakeLists.txt names).
fn cmake_gave_up(e: &PipelineError) -> Option<String> {
    match e {
        PipelineError::NoTests(why) => Some(format!(
            "CMake lists no tests ({why}, with the project's test options on)"
        )),
        PipelineError::Build { message, .. }
            if message.starts_with(build::cmake::CONFIGURE_FAILED) =>
        {
            let first_error = message
                .lines()
                .skip_while(|l| !l.starts_with("CMake Error"))
                .take(4)
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            Some(format!("configuring with CMake failed ({first_error})"))
        }
        _ => None,
    }
}

/// For a detected CMake project, the build system it also has, that a
/// run can use when CTest lists no tests: autotools or a Makefile's
/// `check`, and how to say it.
fn other_build_system(project: &Project) -> Option<(crate::config::Kind, &'static str)> {
    use crate::config::Kind;
    use faultlens_workspace::detect;
    if !project.detected || project.kind != Kind::Ctest {
        return None;
    }
    if detect::autotools(&project.root).is_some() {
        Some((Kind::Make, "its configure script and make"))
    } else if detect::is_make_check_project(&project.root) {
        Some((Kind::Make, "the Makefile's check target"))
    } else {
        None
    }
}

/// A stage's progress as part of the whole run: `done` counts the tests
/// earlier stages ran, `total` is the whole suite.
fn offset(progress: Progress, (before, total): (usize, usize)) -> Progress {
    match progress {
        Progress::Running { done, test, .. } => Progress::Running {
            done: before + done,
            total,
            test,
        },
        other => other,
    }
}

/// The tests of `project` as a run would discover them: input/output
/// tests from the configuration, other suites after a coverage build (under
/// the run lock, cancellable, leaving no process behind).
/// What [`discover_tests`] found: the kind of suite the tests come from
/// (another than the project's when its CMake gave none) and the tests.
pub struct Discovered {
    pub kind: crate::config::Kind,
    pub tests: Vec<TestSpec>,
}

pub fn discover_tests(
    project: &Project,
    progress: &(dyn Fn(Progress) + Sync),
    cancel: &CancelToken,
) -> Result<Discovered> {
    let timeout = project
        .config
        .run
        .timeout
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs_f64);
    if let Some(declared) = faultlens_workspace::declared::discover_declared(project, timeout) {
        return Ok(Discovered {
            kind: project.kind,
            tests: declared?,
        });
    }
    let _lock = crate::lock::RunLock::acquire(&project.root)?;
    let scope = RunScope::new();
    let tools = Toolchain::find(&project.config)?;
    let steps = build_steps(project, cancel, &scope);
    progress(Progress::Building);
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let setup = Setup {
        tools: &tools,
        jobs,
        timeout,
        steps: &steps,
        cancel,
    };
    let (fallback, _, tests) = build_and_discover_any(project, &setup, progress)?;
    Ok(Discovered {
        kind: fallback.map_or(project.kind, |p| p.kind),
        tests,
    })
}

fn build_steps<'a>(project: &Project, cancel: &'a CancelToken, scope: &'a RunScope) -> Steps<'a> {
    Steps {
        cancel,
        scope,
        timeout: project
            .config
            .build
            .timeout
            .map_or(DEFAULT_BUILD_TIMEOUT, Duration::from_secs_f64),
    }
}

fn check_cancel(cancel: &CancelToken) -> Result<()> {
    if cancel.is_cancelled() {
        Err(PipelineError::Cancelled)
    } else {
        Ok(())
    }
}

/// Tests whose counters one gcov process reads (what is left for it).
const GCOV_BATCH: usize = 32;

#[allow(clippy::too_many_arguments)]
fn run_all(
    project: &Project,
    built: &Built,
    tools: &Toolchain,
    clang: Option<&ClangTools>,
    specs: &[TestSpec],
    jobs: usize,
    progress: &(dyn Fn(Progress) + Sync),
    cancel: &CancelToken,
    scope: &RunScope,
) -> Result<Vec<Finished>> {
    let runs_dir = project.work()?.fresh_dir("runs")?;
    let output_limit = project
        .config
        .run
        .output_limit
        .unwrap_or(DEFAULT_OUTPUT_LIMIT);
    // Enough to always see that an output is longer than the expectation.
    let limit = |spec: &TestSpec| {
        spec.expect
            .stdout
            .as_ref()
            .map_or(output_limit, |e| output_limit.max(e.len() + 1))
    };
    // Each worker has a prefix directory it reuses test after test:
    // gcov's counters are gathered from it into `runs_dir` (see `gcda.rs`),
    // clang's profiles are read in it and removed (see `clang_cov.rs`).
    let trees = Prefixes::create(&runs_dir.join("trees"), jobs.min(specs.len()))?;

    // Each test's counters are read as it ends, while the next tests run.
    let clang_program = match clang {
        Some(_) => Some(built.program.as_deref().ok_or_else(|| {
            PipelineError::Coverage("clang's coverage needs the program the tests run".into())
        })?),
        None => None,
    };
    let clang_cache = clang_cov::SourceCache::default();
    if let Some(program) = clang_program {
        // Read now, before a test could replace the program (a failure is
        // remembered, and each test is then read with LLVM's tools).
        let _ = clang_cache.mapping(program);
    }
    let reader = tools.reader;
    let cache = NotesCache::new(&built.notes_dir);
    let read_now = |data: &Path, bytes: &[u8]| {
        if reader.reads_natively() {
            cache.read(data, bytes)
        } else {
            Err("read with gcov".to_string())
        }
    };

    let clang_read: Vec<Mutex<Option<Result<Coverage>>>> = match clang {
        Some(_) => (0..specs.len()).map(|_| Mutex::new(None)).collect(),
        None => Vec::new(),
    };
    let finished_count = AtomicUsize::new(0);
    let mut executions = parallel(specs.len(), jobs, cancel, |i| {
        let (execution, data) = trees.with_one(|tree| match (clang, clang_program) {
            (Some(clang), Some(program)) => {
                let mut spec = specs[i].clone();
                spec.env.push(clang_cov::profile_env(&tree.path, i));
                let execution = execute(&spec, &tree.path, limit(&specs[i]), cancel, scope);
                let coverage = clang_cov::read_test(clang, program, (&tree.path, i), &clang_cache)
                    .and_then(|c| {
                        llvm_native::clear_profiles(&tree.path).map_err(PipelineError::Coverage)?;
                        Ok(c)
                    });
                *clang_read[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(coverage);
                (execution, Ok(Gathered::default()))
            }
            _ => {
                let execution = execute(&specs[i], &tree.path, limit(&specs[i]), cancel, scope);
                let gathered = gcda::gather(tree, &runs_dir, i, &read_now, reader.keeps_all());
                (execution, gathered)
            }
        });
        let done = finished_count.fetch_add(1, Ordering::SeqCst) + 1;
        progress(Progress::Running {
            done,
            total: specs.len(),
            test: specs[i].name.clone(),
        });
        (execution, data)
    });
    if cancel.is_cancelled() {
        // A cancelled run leaves nothing behind: its partial outputs are useless.
        let _ = std::fs::remove_dir_all(&runs_dir);
        return Err(PipelineError::Cancelled);
    }

    progress(Progress::Collecting);
    let mut coverage_per_test = Vec::with_capacity(specs.len());
    if clang.is_some() {
        let _ = std::fs::remove_dir_all(&runs_dir);
        for test in clang_read {
            let read = test.into_inner().unwrap_or_else(|e| e.into_inner());
            coverage_per_test.push(read.ok_or(PipelineError::Cancelled)??);
        }
    } else {
        // What was not read as the tests ended is read now: a runner may
        // build while its tests run.
        let notes = gcov::data_paths(&find_notes(&built.notes_dir));
        let mut gathered = Vec::with_capacity(executions.len());
        for (_, data) in executions.iter_mut().flatten() {
            match std::mem::replace(data, Ok(Gathered::default())) {
                Ok(files) => gathered.push(files),
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&runs_dir);
                    return Err(PipelineError::Coverage(e.to_string()));
                }
            }
        }
        let mut batches: Vec<Mutex<Vec<Gathered>>> = Vec::new();
        while !gathered.is_empty() {
            let rest = gathered.split_off(gathered.len().min(GCOV_BATCH));
            batches.push(Mutex::new(std::mem::replace(&mut gathered, rest)));
        }
        let coverage = parallel(batches.len(), jobs, cancel, |b| {
            let batch = std::mem::take(&mut *batches[b].lock().unwrap_or_else(|e| e.into_inner()));
            counters::finish(reader, &tools.gcov, batch, &notes, &cache)
        });
        let _ = std::fs::remove_dir_all(&runs_dir);
        check_cancel(cancel)?;
        for batch in coverage {
            coverage_per_test.extend(batch.ok_or(PipelineError::Cancelled)??);
        }
    }
    Ok(executions
        .into_iter()
        .zip(coverage_per_test)
        .map(|(execution, coverage)| Finished {
            execution: execution.expect("every test ran").0,
            coverage,
        })
        .collect())
}

/// Runs `work(0..n)` on up to `jobs` threads; `None` for items skipped
/// because the run was cancelled.
fn parallel<T: Send>(
    n: usize,
    jobs: usize,
    cancel: &CancelToken,
    work: impl Fn(usize) -> T + Sync,
) -> Vec<Option<T>> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<T>>> = (0..n).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(n) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= n || cancel.is_cancelled() {
                    break;
                }
                let value = work(i);
                *slots[i].lock().unwrap() = Some(value);
            });
        }
    });
    slots.into_iter().map(|s| s.into_inner().unwrap()).collect()
}

fn assemble(
    project: &Project,
    built: &Built,
    tools: &Toolchain,
    specs: &[TestSpec],
    finished: Vec<Finished>,
    digests: &BTreeMap<String, String>,
) -> Result<RunResults> {
    let executable = match project.config.build.coverage {
        CoverageTool::Gcov => {
            let notes = find_notes(&built.notes_dir);
            counters::executable_lines(
                tools.reader,
                &tools.gcov,
                &notes,
                &project.work()?.fresh_dir("notes-scan")?,
            )?
        }
        // Every run exports the whole program's mapping, run or not.
        CoverageTool::Clang => union(finished.iter().map(|f| &f.coverage)),
    };
    let to_relative = |path: &Path| built.paths.to_project_relative(path);
    let table = FileTable::new(
        project,
        &executable,
        finished.iter().map(|f| &f.coverage),
        &to_relative,
        digests,
    );
    // Each test's record on its own: the machine's cores share them.
    let pairs: Vec<(&TestSpec, Finished)> = specs.iter().zip(finished).collect();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = pairs.len().div_ceil(workers).max(1);
    let mut chunks: Vec<Vec<(&TestSpec, Finished)>> = Vec::new();
    let mut rest = pairs;
    while !rest.is_empty() {
        let tail = rest.split_off(chunk.min(rest.len()));
        chunks.push(std::mem::replace(&mut rest, tail));
    }
    let tests = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let (table, to_relative) = (&table, &to_relative);
                scope.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|(spec, f)| {
                            let coverage = table.coverage_of(&f.coverage, to_relative);
                            record(spec, f, built, coverage, project.kind)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a record is made without panicking"))
            .collect()
    });
    Ok(RunResults {
        format_version: FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        created_unix_ms: now_unix_ms(),
        project_root: project.root.to_string_lossy().into_owned(),
        suite: suite_kind(project),
        files: table.files,
        tests,
        shard: None,
        notes: Vec::new(),
    })
}

fn record(
    spec: &TestSpec,
    f: Finished,
    built: &Built,
    coverage: Vec<FileCoverage>,
    kind: crate::config::Kind,
) -> TestRecord {
    let (outcome, reason) = judge(spec, &f.execution);
    // A failing unit test is where its failed assertion is, when it names
    // one in the project; else where it was declared. (An input/output
    // test's assertion is in the program under test, not in the test.)
    let location = (outcome.verdict() == Verdict::Fail && kind != crate::config::Kind::Io)
        .then(|| failure_location(&f.execution))
        .flatten()
        .and_then(|(printed, line)| {
            let file = built
                .paths
                .printed_to_project_relative(Path::new(&printed), &spec.cwd)?;
            Some(Location { file, line })
        })
        .or_else(|| spec.location.clone());
    let e = &f.execution;
    let (stdout, cut_out) = excerpt(&e.stdout);
    let (stderr, cut_err) = excerpt(&e.stderr);
    TestRecord {
        name: spec.name.clone(),
        verdict: outcome.verdict(),
        outcome,
        reason,
        exit_code: e.exit_code,
        signal: e.signal,
        duration_ms: e.duration.as_millis() as u64,
        location,
        stdout,
        stderr,
        output_truncated: e.stdout_cut || e.stderr_cut || cut_out || cut_err,
        coverage,
    }
}

fn excerpt(bytes: &[u8]) -> (String, bool) {
    let cut = bytes.len() > STORED_OUTPUT;
    (
        String::from_utf8_lossy(&bytes[..bytes.len().min(STORED_OUTPUT)]).into_owned(),
        cut,
    )
}
