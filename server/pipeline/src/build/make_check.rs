//! `make check` projects (automake's convention, in a generated or a plain
//! Makefile): the user's Makefile runs in the shadow copy with the coverage
//! environment; `make` builds the project (its default goal, unless that is
//! `check`), then the test programs (`check_PROGRAMS`, else `TESTS`) are
//! built as targets of their own, so nothing runs a test but faultlens.

use super::{build_step, Built};
use crate::command::{run_step, Steps};
use crate::error::{PipelineError, Result};
use crate::paths::PathMap;
use crate::project::Project;
use std::path::Path;
use std::process::Command;

pub fn build(
    project: &Project,
    jobs: usize,
    env: Vec<(String, String)>,
    steps: &Steps,
) -> Result<Built> {
    let shadow = project.work()?.dir_without_links("shadow")?;
    crate::shadow::sync(&project.root, &shadow)?;
    let paths = PathMap::new(project.root.clone(), Some(shadow.clone()));
    let make = |targets: &[String]| -> Result<()> {
        let mut cmd = make_command(project);
        cmd.arg(format!("-j{}", jobs.max(1))).args(targets);
        let what = if targets.is_empty() {
            "`make` failed:".to_string()
        } else {
            format!("`make {}` (the test programs) failed:", targets.join(" "))
        };
        build_step(cmd, &what, &shadow, &env, &shadow, &paths, steps)
    };
    // A Makefile whose first rule is `check` would run the tests as its
    // default goal: then only the test programs are built.
    let default_goal = variable(project, &shadow, ".DEFAULT_GOAL", &env, steps)?;
    if default_goal.first().is_none_or(|goal| goal != "check") {
        make(&[])?;
    }
    let mut programs = variable(project, &shadow, "check_PROGRAMS", &env, steps)?;
    if programs.is_empty() {
        programs = variable(project, &shadow, "TESTS", &env, steps)?;
    }
    if !programs.is_empty() {
        make(&programs)?;
    }
    Ok(Built {
        program: None,
        run_dir: shadow.clone(),
        notes_dir: shadow,
        cmake_dir: None,
        paths,
        env,
    })
}

fn make_command(project: &Project) -> Command {
    let mut cmd = Command::new("make");
    if let Some(section) = &project.config.make_check {
        cmd.args(&section.args);
    }
    cmd
}

/// The words of a Makefile variable, as make expands it: GNU make's
/// `--eval` adds a rule whose `$(info)` prints it behind a marker, so
/// nothing the Makefile itself prints (and no quote in the value) is taken
/// for it.
pub fn variable(
    project: &Project,
    dir: &Path,
    name: &str,
    env: &[(String, String)],
    steps: &Steps,
) -> Result<Vec<String>> {
    // `--eval` is read before the Makefile, and a target starting with a
    // dot never becomes the default goal (which is asked for too).
    const TARGET: &str = ".faultlens-print-variable";
    const MARK: &str = "faultlens-variable-value:";
    let mut cmd = make_command(project);
    cmd.args(["-s", "--no-print-directory", "--eval"])
        .arg(format!("{TARGET}: ; $(info {MARK}$({name}))"))
        .arg(TARGET);
    let step = run_step(cmd, dir, env, steps)?;
    let value = step.stdout.lines().find_map(|line| line.strip_prefix(MARK));
    match value {
        Some(value) if step.success => Ok(value.split_whitespace().map(String::from).collect()),
        _ => Err(PipelineError::Discovery(format!(
            "asking make for {name} failed (faultlens reads it with GNU make's --eval, make 3.82 or later):\n{}",
            step.output.trim_end()
        ))),
    }
}
