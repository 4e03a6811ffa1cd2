//! Edge: from a faultlens project and its localization run to what the C
//! model takes — the program's sources, and each failing test as an input
//! with its expected outcome.

use crate::DiagnoseError;
use faultlens_core::results::{RunResults, Verdict};
use faultlens_csem::encode::Expected;
use faultlens_csem::{RunOptions, SourceSpec, TestInput};
use faultlens_workspace::config::Kind;
use faultlens_workspace::declared::{discover_declared, DEFAULT_TIMEOUT};
use faultlens_workspace::nondet;
use faultlens_workspace::testspec::{Invocation, TestSpec};
use faultlens_workspace::Project;
use std::path::{Path, PathBuf};

/// The sources the model reads: `[build] sources`, else a
/// `compile_commands.json` at the root, else (a `[build] command` project
/// without one) every top-level `*.c` file with `-std=c11`.
/// A harness (a program calling `__VERIFIER_nondet_*()` without defining
/// them) also gets the free-input functions the coverage build links, as C
/// written to `.faultlens/nondet/`, so the model reads the test's stdin
/// exactly as the binary does (and exits with status 2 when it runs out).
pub fn source_spec(project: &Project) -> Result<SourceSpec, String> {
    let mut spec = program_spec(project)?;
    add_nondet_model(project, &mut spec)?;
    Ok(spec)
}

/// The file name of the free-input functions loaded beside a harness.
pub fn is_nondet_model(file: &str) -> bool {
    file.ends_with(nondet::MODEL_FILE)
}

fn add_nondet_model(project: &Project, spec: &mut SourceSpec) -> Result<(), String> {
    let texts: Vec<String> = spec
        .sources
        .iter()
        .map(|p| crate::c_text::read_source(&spec.root, p))
        .collect();
    if !texts.iter().any(|t| nondet::uses_nondet(t)) || texts.iter().any(|t| defines_nondet(t)) {
        return Ok(());
    }
    spec.sources
        .push(nondet::write_model_file(project).map_err(|e| e.to_string())?);
    Ok(())
}

/// Whether a C text defines one of the free-input functions itself (then the
/// native build's weak definitions give way to it, and the model's must too).
fn defines_nondet(text: &str) -> bool {
    nondet::FUNCTIONS
        .iter()
        .any(|(name, _)| crate::c_text::defines_function(text, name))
}

fn program_spec(project: &Project) -> Result<SourceSpec, String> {
    let build = &project.config.build;
    if let Some(sources) = &build.sources {
        let mut spec = SourceSpec::new(&project.root, sources.iter().map(PathBuf::from).collect());
        if let Some(cc) = &build.cc {
            spec.cc = cc.clone();
        }
        spec.cflags = build.cflags.clone();
        return Ok(spec);
    }
    let db = project.root.join("compile_commands.json");
    if db.is_file() {
        return faultlens_csem::compile_db::from_compile_commands(&db).map_err(|e| e.to_string());
    }
    if build.command.is_some() {
        let top = top_level_c(&project.root);
        if !top.is_empty() {
            let mut spec = SourceSpec::new(&project.root, top);
            if let Some(cc) = &build.cc {
                spec.cc = cc.clone();
            }
            spec.cflags = build.cflags.clone();
            spec.cflags.push("-std=c11".into());
            return Ok(spec);
        }
    }
    Err("the C model needs to know the program's sources: list them in [build] sources of faultlens.toml, or put a compile_commands.json at the project root (e.g. `bear -- make`)".into())
}

fn top_level_c(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| PathBuf::from(e.file_name()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    files
}

/// One failing test as the model runs it.
#[derive(Clone, Debug)]
pub struct ModelTest {
    pub name: String,
    pub input: TestInput,
    pub expected: Expected,
    /// `argv[0]`, which glibc's assertion message starts with.
    pub program_name: String,
    /// The test's working directory: the files its run opens are there.
    pub cwd: PathBuf,
    /// The run as the localization recorded it (for grouping by violation).
    pub observed_stdout: String,
    pub observed_stderr: String,
    pub observed_exit: Option<i32>,
    pub observed_signal: Option<i32>,
    /// Whether the model runs the very program the localization ran (no
    /// framework model in its place) and the recorded output is whole (not
    /// capped): then the model's run must end and print (stdout and
    /// stderr) as it did.
    pub comparable: bool,
    /// The lines the recorded run covered, when the results have them.
    pub recorded_lines: Option<crate::free_reads::RecordedLines>,
    /// Why no byte answers the run's reads outside an object (see
    /// [`crate::free_reads`]), said where the run is refused.
    pub unanswered_reads: Option<String>,
}

impl ModelTest {
    /// Options for the model's runs of this test. A run longer than a
    /// formula can encode is cut off: no diagnosis rests on it, and a test
    /// that hangs would otherwise take the interpreter's default 50 million
    /// steps each time it is replayed.
    pub fn run_options(&self) -> RunOptions {
        RunOptions {
            program_name: self.program_name.clone(),
            max_steps: crate::MAX_ENCODED_STEPS,
            ..RunOptions::default()
        }
    }

    /// The options of a traced run with `overrides` substituted.
    pub fn traced(&self, overrides: faultlens_csem::Overrides) -> RunOptions {
        RunOptions {
            trace: true,
            max_trace: usize::MAX,
            overrides,
            ..self.run_options()
        }
    }
}

/// The failing tests of `results`, looked up among the project's declared
/// tests; those the model cannot run come back as `(name, reason)`.
#[allow(clippy::type_complexity)]
pub fn failing_tests(
    project: &Project,
    results: &RunResults,
) -> Result<(Vec<ModelTest>, Vec<(String, String)>), DiagnoseError> {
    let declared = declared_tests(project)?;
    let mut tests = Vec::new();
    let mut skipped = Vec::new();
    for record in results.tests.iter().filter(|t| t.verdict == Verdict::Fail) {
        match declared.iter().find(|(name, _)| *name == record.name) {
            None => skipped.push((
                record.name.clone(),
                "the project no longer declares this test (re-run `faultlens localize`)".into(),
            )),
            Some((_, Err(reason))) => skipped.push((record.name.clone(), reason.clone())),
            Some((_, Ok(t))) => {
                let mut t = t.clone();
                t.observed_stdout = record.stdout.clone();
                t.observed_stderr = record.stderr.clone();
                t.observed_exit = record.exit_code;
                t.observed_signal = record.signal;
                t.comparable = !record.output_truncated;
                t.recorded_lines = Some(recorded_lines(results, record));
                tests.push(t);
            }
        }
    }
    Ok((tests, skipped))
}

/// The lines `record`'s run covered, per file of `results`.
pub(crate) fn recorded_lines(
    results: &RunResults,
    record: &faultlens_core::results::TestRecord,
) -> crate::free_reads::RecordedLines {
    let mut lines: crate::free_reads::RecordedLines = results
        .files
        .iter()
        .map(|f| {
            let file = crate::free_reads::FileLines {
                instrumented: f.lines.iter().copied().collect(),
                executed: Default::default(),
            };
            (f.path.clone(), file)
        })
        .collect();
    for c in &record.coverage {
        let Some(f) = results.files.get(c.file as usize) else {
            continue;
        };
        let executed = c.lines.iter().zip(&c.counts).filter(|(_, n)| **n > 0);
        if let Some(file) = lines.get_mut(&f.path) {
            file.executed.extend(executed.map(|(l, _)| *l));
        }
    }
    lines
}

/// The tests with the files their runs open (see [`crate::files`]); a test
/// whose run opens a file the model cannot be given joins `skipped`, with
/// the reason.
#[allow(clippy::type_complexity)]
pub fn give_files(
    prog: &faultlens_csem::Program,
    root: &Path,
    tests: Vec<ModelTest>,
    mut skipped: Vec<(String, String)>,
) -> (Vec<ModelTest>, Vec<(String, String)>) {
    let mut given = Vec::with_capacity(tests.len());
    for mut t in tests {
        let opts = t.run_options();
        match crate::files::run_with_files(prog, root, &t.cwd, &mut t.input, &opts) {
            Ok(_) => given.push(t),
            Err(reason) => skipped.push((t.name.clone(), reason)),
        }
    }
    (given, skipped)
}

/// Every declared test of an input/output project, as the model runs it or
/// with the reason it cannot.
#[allow(clippy::type_complexity)]
pub fn declared_tests(
    project: &Project,
) -> Result<Vec<(String, Result<ModelTest, String>)>, DiagnoseError> {
    if project.kind != Kind::Io {
        return Err(DiagnoseError::NotModelled(format!(
            "this is a {} project; the C model runs input/output tests (faultlens.toml [[test]] or [tests]) and the test executables of CTest, Meson and `make check` projects, so `diagnose` cannot use its tests",
            match project.kind {
                Kind::Runner => "test-runner",
                Kind::Make => "make check",
                Kind::Ctest => "CTest",
                Kind::Meson => "Meson",
                Kind::Io => "input/output",
            }
        )));
    }
    let specs = discover_declared(project, DEFAULT_TIMEOUT)
        .ok_or_else(|| DiagnoseError::NotModelled("no declared input/output tests".into()))??;
    Ok(specs
        .iter()
        .map(|s| (s.name.clone(), model_test(s)))
        .collect())
}

fn model_test(spec: &TestSpec) -> Result<ModelTest, String> {
    let Invocation::Argv(argv) = &spec.invocation else {
        return Err("a shell command, which the model cannot run".into());
    };
    if spec.expect.will_fail
        || !spec.expect.pass_regex.is_empty()
        || !spec.expect.fail_regex.is_empty()
    {
        return Err("its verdict depends on regular expressions or WILL_FAIL, which the model does not express".into());
    }
    Ok(ModelTest {
        name: spec.name.clone(),
        input: TestInput {
            args: argv[1..].to_vec(),
            stdin: spec.stdin.clone(),
            ..TestInput::default()
        },
        expected: Expected {
            stdout: spec.expect.stdout.clone(),
            exit: spec.expect.exit.unwrap_or(0),
        },
        program_name: argv.first().cloned().unwrap_or_else(|| "prog".into()),
        cwd: spec.cwd.clone(),
        observed_stdout: String::new(),
        observed_stderr: String::new(),
        observed_exit: None,
        observed_signal: None,
        comparable: false,
        recorded_lines: None,
        unanswered_reads: None,
    })
}
