//! `[runner]`: any runner that lists its tests and runs one by name.

use crate::build::Built;
use crate::command::{run_step, Steps};
use crate::error::{PipelineError, Result};
use crate::project::Project;
use crate::testspec::{Expectation, Invocation, TestSpec};
use std::process::Command;
use std::time::Duration;

pub fn discover(
    project: &Project,
    built: &Built,
    timeout: Duration,
    steps: &Steps,
) -> Result<Vec<TestSpec>> {
    let runner = project
        .config
        .runner
        .clone()
        .ok_or_else(|| PipelineError::Discovery("[runner] is missing".into()))?;
    // `faultlens.toml` was checked to hold `{name}` unquoted in `run`.
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(&runner.list);
    let step = run_step(cmd, &built.run_dir, &built.env, steps)?;
    if !step.success {
        return Err(PipelineError::Discovery(format!(
            "the [runner] list command `{}` failed:\n{}",
            runner.list, step.output
        )));
    }
    Ok(names(&step.output)
        .into_iter()
        .map(|name| TestSpec {
            invocation: Invocation::Shell(runner.run.replace("{name}", &shell_words::quote(&name))),
            name,
            cwd: built.run_dir.clone(),
            env: built.env.clone(),
            stdin: Vec::new(),
            expect: Expectation {
                exit: Some(0),
                ..Expectation::default()
            },
            timeout,
            location: None,
        })
        .collect())
}

/// One name per non-empty line; duplicates are dropped (first wins).
fn names(output: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| seen.insert(l.to_string()))
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_trimmed_non_empty_unique_lines() {
        assert_eq!(super::names(" a\n\nb \na\n"), vec!["a", "b"]);
    }
}
