//! Test discovery: every suite kind lowers its tests to [`TestSpec`]s.

pub mod cases;
mod ctest;
mod make_check;
mod make_targets;
mod meson;
mod runner;

pub use crate::note::Note;
pub use faultlens_workspace::declared::DEFAULT_TIMEOUT;

use crate::build::Built;
use crate::command::Steps;
use crate::config::Kind;
use crate::error::{PipelineError, Result};
use crate::localize::Progress;
use crate::project::Project;
use crate::testspec::TestSpec;
use faultlens_workspace::config::{SplitCases, CONFIG_FILE};
use faultlens_workspace::declared;
use std::time::Duration;

pub fn discover(
    project: &Project,
    built: &Built,
    timeout: Duration,
    steps: &Steps,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Vec<TestSpec>> {
    let tests = match project.kind {
        Kind::Io => {
            let program = built.program.clone().ok_or_else(|| PipelineError::Config {
                path: project.root.join(CONFIG_FILE),
                message:
                    "input/output tests need [build] program: the path of the program they run"
                        .into(),
            })?;
            declared::declared(project, &program, &built.run_dir, timeout)?
        }
        Kind::Ctest => ctest::discover(project, built, timeout, steps)?,
        Kind::Runner => runner::discover(project, built, timeout, steps)?,
        Kind::Meson => meson::discover(project, built, timeout, steps)?,
        Kind::Make => make_check::discover(project, built, timeout, steps)?,
    };
    let split = project.config.run.split_cases.as_ref();
    let tests = if project.kind != Kind::Io && split != Some(&SplitCases::All(false)) {
        let mut notes = Vec::new();
        let scratch = project.work()?.dir("listing")?;
        let tests = cases::expand(
            tests,
            |name| SplitCases::splits(split, name),
            steps,
            &scratch,
            &mut notes,
        )?;
        Note::grouped(notes)
            .into_iter()
            .for_each(|note| progress(Progress::Note(note)));
        tests
    } else {
        tests
    };
    if tests.is_empty() {
        return Err(PipelineError::NoTests(match project.kind {
            Kind::Io => "faultlens.toml declares no tests ([[test]] tables, [tests] inputs or table) or the globs match no files".into(),
            Kind::Ctest => "ctest lists no tests; add add_test() calls to CMakeLists.txt".into(),
            Kind::Runner => "the [runner] list command printed no test names".into(),
            Kind::Meson => "meson lists no tests; add test() calls to meson.build".into(),
            Kind::Make => "no Makefile lists TESTS, and none has a check or test target that runs anything".into(),
        }));
    }
    Ok(tests)
}
