//! Edge: the failing tests of a CTest, Meson or `make check` project as
//! the C model runs them.
//! The model runs the program of one test executable: the objects it
//! links (named by the `.gcda` paths in its bytes), compiled as the
//! coverage build's `compile_commands.json` says (for make, faultlens's
//! record of the build's compiler invocations). A unit-test case (a row
//! `name::case` of the localization) runs with its framework's header and
//! runner replaced by faultlens's model of them (`models/`), the case
//! selected as the native run selects it; a plain test runs its declared
//! command line, environment and working directory. Either passes when it
//! exits with status 0. The test code (the project's test-code globs, and
//! any source that includes a framework's header) and the framework's
//! model are the specification: their statements are never blamed.

mod ctest_file;
mod declared;
mod frameworks;
mod make_record;
mod meson_file;
mod objects;

use crate::bridge::ModelTest;
use crate::DiagnoseError;
pub use declared::BuildSystem;
use declared::DeclaredTest;
use faultlens_core::results::{RunResults, TestRecord, Verdict};
use faultlens_csem::compile_db::{self, Entry};
use faultlens_csem::encode::Expected;
use faultlens_csem::{SourceSpec, TestInput};
use faultlens_workspace::{Project, WorkspaceError};
use frameworks::{Framework, Selection};
use std::path::Path;

/// Where the frameworks' models are written, in `.faultlens/`.
const MODELS: &str = "harness";
/// The largest test executable read for its objects.
const EXECUTABLE_LIMIT: u64 = 256 << 20;

/// The failing tests of one test executable, ready for the model.
pub struct ExecutableTests {
    pub spec: SourceSpec,
    /// Globs of files (relative to the project root, as the results name
    /// them) whose statements are the specification.
    pub trusted: Vec<String>,
    pub tests: Vec<ModelTest>,
    pub skipped: Vec<(String, String)>,
    /// The unit-test framework modelled, if any.
    framework: Option<Framework>,
}

impl ExecutableTests {
    /// What to add to the model's refusal of the program: a function it
    /// does not know, called from a unit test, is likely a framework
    /// feature its model leaves out (CMocka's `will_return`).
    pub fn refusal_hint(&self, refusal: &str) -> String {
        match self.framework {
            Some(f) if refusal.contains("neither defined in the sources nor a modelled") => format!(
                " (faultlens models {}'s test cases, fixtures and assertions, not its other features such as mocks; its model is in .faultlens/harness/{}.h)",
                f.name(),
                f.model_name()
            ),
            _ => String::new(),
        }
    }
}

/// A failing row of the results and the declared test it runs.
struct Failing<'a> {
    record: &'a TestRecord,
    test: &'a DeclaredTest,
    /// The unit-test case, for a row `name::case`.
    case: Option<String>,
}

/// The failing tests of `results` in a project built by `system`, as the
/// model runs them. One executable is diagnosed at a time (each is its own
/// program): the one most failing tests run; the others' tests are
/// skipped with that reason.
pub fn executable_tests(
    project: &Project,
    results: &RunResults,
    system: BuildSystem,
) -> Result<ExecutableTests, DiagnoseError> {
    let work = project.work()?;
    let build = work.join(system.build_dir());
    let declared = system.tests(&work, results).map_err(|e| {
        DiagnoseError::NotModelled(format!(
            "cannot read the tests of faultlens's {} coverage build: {e} (re-run `faultlens localize`)",
            system.name()
        ))
    })?;
    if declared.is_empty() {
        return Err(DiagnoseError::NotModelled(format!(
            "no {} tests found in {} (run `faultlens localize` first)",
            system.suite(),
            build.display()
        )));
    }
    let mut skipped = Vec::new();
    let mut failing = Vec::new();
    for record in results.tests.iter().filter(|t| t.verdict == Verdict::Fail) {
        match row_of(&declared, &record.name) {
            Some((test, case)) => failing.push(Failing { record, test, case }),
            None => skipped.push((
                record.name.clone(),
                "the coverage build no longer declares its test (re-run `faultlens localize`)"
                    .into(),
            )),
        }
    }
    let Some(executable) = most_run_executable(&failing) else {
        return Err(DiagnoseError::NotModelled(
            "no failing test runs a program".into(),
        ));
    };
    // Every case of the executable, passing or failing (Criterion's runner
    // is written from them).
    let all_cases: Vec<String> = results
        .tests
        .iter()
        .filter_map(|r| {
            let (t, case) = row_of(&declared, &r.name)?;
            (t.argv.first() == Some(&executable)).then_some(case?)
        })
        .collect();
    let program = program_of(project, &work, system, &executable, &all_cases)?;
    let mut tests = Vec::new();
    for f in failing {
        let name = f.record.name.clone();
        if f.test.argv.first() != Some(&executable) {
            skipped.push((name, format!("it runs another executable than {executable}; one diagnosis models one executable (the one most failing tests run)")));
            continue;
        }
        if let Some(property) = &f.test.judged_by {
            skipped.push((name, format!("its verdict depends on the CTest property {property}, which the model does not express")));
            continue;
        }
        if f.case.is_none() && f.record.exit_code == Some(0) {
            skipped.push((name, "it failed although it exited with status 0, so its verdict comes from what it printed or from an expectation that it fail (a TAP or GoogleTest protocol, Meson's `should_fail`, make's `XFAIL_TESTS`), which the model does not express".into()));
            continue;
        }
        let mut input = TestInput {
            args: f.test.argv[1..].to_vec(),
            env: f.test.env.clone(),
            ..TestInput::default()
        };
        if let Some(case) = f.case {
            if program.expecting_exit.contains(&case) {
                skipped.push((name, "its Criterion test expects an exit status or a signal (`.exit_code`, `.signal`), which the model does not express".into()));
                continue;
            }
            if program.framework == Some(Framework::Check) {
                // One test of the case, as Check's fork mode runs it.
                let output = format!("{}\n{}", f.record.stdout, f.record.stderr);
                if let Some(test) = frameworks::check_failing_test(&output, &case) {
                    input.env.push(("FAULTLENS_CHECK_TEST".into(), test));
                }
            }
            match program.framework.map(Framework::selection) {
                Some(Selection::Variable(v)) => input.env.push((v.into(), case)),
                Some(Selection::OptionAndVariable(o, v)) => {
                    input.args.extend([o.into(), case.clone()]);
                    input.env.push((v.into(), case));
                }
                None => {
                    skipped.push((name, format!("it is a case of a unit-test framework the model does not run (it runs {})", Framework::ALL.map(Framework::name).join(", "))));
                    continue;
                }
            }
        }
        tests.push(ModelTest {
            name,
            input,
            expected: Expected {
                stdout: None,
                exit: 0,
            },
            program_name: executable.clone(),
            cwd: f.test.cwd.clone(),
            observed_stdout: f.record.stdout.clone(),
            observed_stderr: f.record.stderr.clone(),
            observed_exit: f.record.exit_code,
            observed_signal: f.record.signal,
            comparable: program.framework.is_none() && !f.record.output_truncated,
            recorded_lines: Some(crate::bridge::recorded_lines(results, f.record)),
            unanswered_reads: None,
        });
    }
    Ok(ExecutableTests {
        spec: program.spec,
        trusted: program.trusted,
        tests,
        skipped,
        framework: program.framework,
    })
}

/// The declared test a results row runs, and its unit-test case: a test
/// of the row's name, else `name::case` of the longest declared name (a
/// test's name may hold `::` itself).
fn row_of<'d>(
    declared: &'d [DeclaredTest],
    row: &str,
) -> Option<(&'d DeclaredTest, Option<String>)> {
    if let Some(t) = declared.iter().find(|t| t.name == row) {
        return Some((t, None));
    }
    declared
        .iter()
        .filter_map(|t| {
            let case = row.strip_prefix(t.name.as_str())?.strip_prefix("::")?;
            Some((t, case))
        })
        .max_by_key(|(t, _)| t.name.len())
        .map(|(t, case)| (t, Some(case.to_string())))
}

/// The executable (`argv[0]`) most failing tests run, the first on a tie.
fn most_run_executable(failing: &[Failing]) -> Option<String> {
    let mut best: Option<(&String, usize)> = None;
    for f in failing {
        let Some(exe) = f.test.argv.first() else {
            continue;
        };
        let n = failing
            .iter()
            .filter(|g| g.test.argv.first() == Some(exe))
            .count();
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((exe, n));
        }
    }
    best.map(|(e, _)| e.clone())
}

struct ExecutableProgram {
    spec: SourceSpec,
    trusted: Vec<String>,
    /// The unit-test framework its test code includes, if any.
    framework: Option<Framework>,
    /// Criterion tests expecting an exit status or a signal.
    expecting_exit: Vec<String>,
}

/// The sources of `executable`, a framework's model in place of the
/// framework.
fn program_of(
    project: &Project,
    work: &faultlens_confine::WorkDir,
    system: BuildSystem,
    executable: &str,
    cases: &[String],
) -> Result<ExecutableProgram, DiagnoseError> {
    let build = work.join(system.build_dir());
    let not = |m: String| DiagnoseError::NotModelled(m);
    let bytes = faultlens_workspace::files::read_in_project(
        &project.root,
        Path::new(executable),
        EXECUTABLE_LIMIT,
    )
    .map_err(|e| not(format!("cannot read the test executable {executable}: {e}")))?;
    let (entries, record) = if system == BuildSystem::Make {
        let entries = make_record::entries(&project.root, work, &build);
        (entries, work.join(faultlens_workspace::compilations::DIR))
    } else {
        let db = build.join("compile_commands.json");
        let entries = compile_db::entries(&db).map_err(|e| {
            not(format!(
                "{e} (faultlens's {} coverage build writes it; re-run `faultlens localize`)",
                system.name()
            ))
        })?;
        (entries, db)
    };
    let linked = objects::entries_of(&entries, &objects::gcda_paths(&bytes));
    if linked.is_empty() {
        let advice = match system {
            // A Makefile that sets CC itself compiles past the record.
            BuildSystem::Make => "faultlens records the compilations of its make check build through CC; a Makefile that sets CC itself bypasses the record, and a build made before faultlens kept it has none: delete .faultlens/shadow and re-run `faultlens localize`",
            _ => "was it built by faultlens's coverage build?",
        };
        return Err(not(format!(
            "none of the objects of {executable} is in {} ({advice})",
            record.display()
        )));
    }
    let texts: Vec<String> = linked
        .iter()
        .map(|e| crate::c_text::read_source(&project.root, &e.file))
        .collect();
    // A framework the executable links whose header its sources include
    // (a project's own `check.h` is not Check's).
    let framework =
        Framework::built_into(&bytes).filter(|f| texts.iter().any(|t| f.included_by(t)));
    // The framework's own sources (vendored Unity) give way to its model.
    let (linked, texts): (Vec<&Entry>, Vec<String>) = linked
        .into_iter()
        .zip(texts)
        .filter(|(e, _)| {
            !framework.is_some_and(|f| {
                e.file
                    .file_name()
                    .is_some_and(|n| f.own_sources().iter().any(|s| n == *s))
            })
        })
        .unzip();
    // Each source with its own flags (a test target's mock headers or
    // definitions must not reach the library's sources).
    let mut spec = compile_db::spec_of(build.clone(), linked.iter().copied());
    if system == BuildSystem::Make {
        // Its sources are the project's own, not the shadow copy's.
        spec.root = project.root.clone();
    }
    spec.cflags.clear();
    for e in &linked {
        spec.source_flags.push((e.file.clone(), e.flags.clone()));
    }
    // Test code, headers included (a test's own helpers), is trusted by
    // the project's globs; a source that includes the framework, and the
    // framework's model, by name.
    let mut trusted = project.test_code_globs();
    let exact = |p: &Path| glob::Pattern::escape(&crate::locate::relative(&project.root, p));
    let header = match framework {
        Some(f) => {
            let (header, runner) = write_model(work, f, cases, &texts)?;
            trusted.push(exact(&runner));
            spec.sources.push(runner);
            Some(header)
        }
        None => None,
    };
    for (e, text) in linked.iter().zip(&texts) {
        let includes_framework = framework.is_some_and(|f| f.included_by(text));
        if includes_framework {
            trusted.push(exact(&e.file));
        }
        if let (true, Some(h)) = (includes_framework, &header) {
            spec.source_flags.push((
                e.file.clone(),
                vec!["-include".into(), h.display().to_string()],
            ));
        }
    }
    let expecting_exit = match framework {
        Some(Framework::Criterion) => texts
            .iter()
            .flat_map(|t| frameworks::criterion_expecting_exit(t))
            .collect(),
        _ => Vec::new(),
    };
    Ok(ExecutableProgram {
        spec,
        trusted,
        framework,
        expecting_exit,
    })
}

/// Writes framework `f`'s model to `.faultlens/harness/`: `(header, runner)`.
fn write_model(
    work: &faultlens_confine::WorkDir,
    f: Framework,
    cases: &[String],
    texts: &[String],
) -> Result<(std::path::PathBuf, std::path::PathBuf), DiagnoseError> {
    let (header, runner) = f.model();
    let mut runner = runner.to_string();
    if f == Framework::Criterion {
        let suites: Vec<String> = texts
            .iter()
            .flat_map(|t| frameworks::criterion_suites(t))
            .collect();
        runner.push_str(&frameworks::criterion_main(cases, &suites));
    }
    if f == Framework::Unity {
        runner.push_str(&frameworks::unity_fixtures(texts));
    }
    let written = |name: String, text: &str| {
        work.write_atomic(&format!("{MODELS}/{name}"), text.as_bytes())
            .map_err(WorkspaceError::from)
    };
    work.dir(MODELS).map_err(WorkspaceError::from)?;
    let model = f.model_name();
    Ok((
        written(format!("{model}.h"), header)?,
        written(format!("{model}.c"), &runner)?,
    ))
}
