//! `make check` discovery: the Makefile's `TESTS`, each run by faultlens
//! from the build directory with automake's exit-status protocol (0
//! passes, 77 skipped, anything else fails; a test in `XFAIL_TESTS` passes
//! by failing). `LOG_COMPILER` and `TESTS_ENVIRONMENT` are not used: each
//! entry must be a program or an executable script.

use crate::build::{make_check, Built};
use crate::command::Steps;
use crate::error::{PipelineError, Result};
use crate::project::Project;
use crate::testspec::{Expectation, Invocation, TestSpec};
use faultlens_core::results::Location;
use std::time::Duration;

pub fn discover(
    project: &Project,
    built: &Built,
    timeout: Duration,
    steps: &Steps,
) -> Result<Vec<TestSpec>> {
    let dir = &built.run_dir;
    let tests = make_check::variable(project, dir, "TESTS", &built.env, steps)?;
    let expected_failures = make_check::variable(project, dir, "XFAIL_TESTS", &built.env, steps)?;
    let location = tests_defined_at(project);
    tests
        .into_iter()
        .map(|test| {
            let path = crate::files::checked(dir, std::path::Path::new(&test)).map_err(|e| {
                PipelineError::Discovery(format!("TESTS names {test:?}: {e}"))
            })?;
            if !path.is_file() {
                return Err(PipelineError::Discovery(format!(
                    "TESTS names {test:?}, which the build did not make ({} is missing); list it in check_PROGRAMS or give it a rule",
                    path.display()
                )));
            }
            Ok(TestSpec {
                expect: Expectation {
                    exit: Some(0),
                    will_fail: expected_failures.contains(&test),
                    skip_exit: Some(77),
                    ..Expectation::default()
                },
                name: test,
                invocation: Invocation::Argv(vec![path.to_string_lossy().into_owned()]),
                cwd: dir.clone(),
                env: Vec::new(),
                stdin: Vec::new(),
                timeout,
                location: location.clone(),
            })
        })
        .collect()
}

/// The line of the root Makefile that assigns `TESTS` (none when
/// `[make] args` names another file with `-f`).
fn tests_defined_at(project: &Project) -> Option<Location> {
    let (name, text) = faultlens_workspace::detect::makefile(&project.root)?;
    let line = text
        .lines()
        .position(faultlens_workspace::detect::assigns_tests)?;
    Some(Location {
        file: name.to_string(),
        line: line as u32 + 1,
    })
}
