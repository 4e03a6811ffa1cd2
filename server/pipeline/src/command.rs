//! Running a build step (compiler, make, cmake) and keeping what it printed.

use crate::error::{PipelineError, Result};
use std::path::Path;
use std::process::{Command, Stdio};

pub struct StepOutput {
    pub success: bool,
    /// stdout and stderr, interleaved as far as two pipes allow.
    pub output: String,
}

/// Runs `command` in `cwd` with extra `env`, returning its status and output.
/// Failing to start at all is an error naming the program.
pub fn run_step(mut command: Command, cwd: &Path, env: &[(String, String)]) -> Result<StepOutput> {
    // Plain ASCII messages in English, so compiler diagnostics parse the
    // same under every locale.
    command
        .current_dir(cwd)
        .stdin(Stdio::null())
        .env("LC_ALL", "C");
    for (k, v) in env {
        command.env(k, v);
    }
    let program = command.get_program().to_string_lossy().into_owned();
    let out = command.output().map_err(|e| PipelineError::MissingTool {
        tool: format!("`{program}`"),
        why: e.to_string(),
        hint: "install it or fix the command in faultlens.toml".into(),
    })?;
    let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok(StepOutput {
        success: out.status.success(),
        output,
    })
}
