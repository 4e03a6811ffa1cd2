//! `make check` projects (automake's convention, in a generated or a plain
//! Makefile): the user's Makefile runs in the shadow copy with the coverage
//! environment; `make` builds the project, then the test programs
//! (`check_PROGRAMS`, else `TESTS`) are built as targets of their own, so
//! nothing runs a test but faultlens.

use super::{failed, Built};
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
        let step = run_step(cmd, &shadow, &env, steps)?;
        if step.success {
            return Ok(());
        }
        let what = if targets.is_empty() {
            "`make` failed:".to_string()
        } else {
            format!("`make {}` (the test programs) failed:", targets.join(" "))
        };
        Err(failed(&what, &step.output, &shadow, &paths))
    };
    make(&[])?;
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

/// The words of a Makefile variable, as make expands it (GNU make's
/// `--eval` adds a rule that prints it).
pub fn variable(
    project: &Project,
    dir: &Path,
    name: &str,
    env: &[(String, String)],
    steps: &Steps,
) -> Result<Vec<String>> {
    const TARGET: &str = "faultlens-print-variable";
    let mut cmd = make_command(project);
    cmd.args(["-s", "--no-print-directory", "--eval"])
        .arg(format!("{TARGET}: ; @printf '%s\\n' '$({name})'"))
        .arg(TARGET);
    let step = run_step(cmd, dir, env, steps)?;
    if !step.success {
        return Err(PipelineError::Discovery(format!(
            "asking make for {name} failed (faultlens needs GNU make 4 or later):\n{}",
            step.output.trim_end()
        )));
    }
    Ok(step.output.split_whitespace().map(String::from).collect())
}
