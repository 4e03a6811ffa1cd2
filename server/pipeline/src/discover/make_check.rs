//! `make check` discovery: the Makefile's `TESTS`, each run by faultlens
//! from the build directory as automake's harness runs it (exit status 0
//! passes; a test in `XFAIL_TESTS` passes by failing).

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

/// The line of the Makefile that defines `TESTS`.
fn tests_defined_at(project: &Project) -> Option<Location> {
    ["GNUmakefile", "makefile", "Makefile"]
        .iter()
        .find_map(|name| {
            let bytes = faultlens_workspace::files::read_in_project(
                &project.root,
                std::path::Path::new(name),
                faultlens_confine::limits::BUILD_DESCRIPTION,
            )
            .ok()?;
            let text = String::from_utf8_lossy(&bytes);
            let line = text.lines().position(|l| {
                let l = l.trim_start();
                l.starts_with("TESTS")
                    && l["TESTS".len()..].trim_start().starts_with(['=', ':', '+'])
            })?;
            Some(Location {
                file: name.to_string(),
                line: line as u32 + 1,
            })
        })
}
