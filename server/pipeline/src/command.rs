//! Running a build step (compiler, make, cmake, a runner's list command)
//! and keeping what it printed, under the build timeout and the run's
//! cancellation (see [`crate::process`]).

use crate::error::{PipelineError, Result};
use crate::process::{self, Job, RunScope};
use faultlens_cancel::CancelToken;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Output kept of a step, per stream: compiler errors come first, and a
/// step that prints without end must not fill the memory.
const STEP_OUTPUT_LIMIT: usize = 8 << 20;

/// The limits every build step of a run shares.
#[derive(Clone, Copy)]
pub struct Steps<'a> {
    pub cancel: &'a CancelToken,
    pub scope: &'a RunScope,
    /// `[build] timeout`: how long one step may take.
    pub timeout: Duration,
}

pub struct StepOutput {
    pub success: bool,
    /// stdout and stderr, interleaved as far as two pipes allow.
    pub output: String,
    /// stdout alone, for steps whose answer is data (a JSON document, a
    /// variable's value) that warnings on stderr must not garble.
    pub stdout: String,
}

/// Runs `command` in `cwd` with extra `env`, returning its status and output.
/// Failing to start at all is an error naming the program; so are the
/// timeout and a cancellation.
pub fn run_step(
    mut command: Command,
    cwd: &Path,
    env: &[(String, String)],
    steps: &Steps,
) -> Result<StepOutput> {
    // Plain ASCII messages in English, so compiler diagnostics parse the
    // same under every locale.
    command.current_dir(cwd).env("LC_ALL", "C");
    for (k, v) in env {
        command.env(k, v);
    }
    let program = command.get_program().to_string_lossy().into_owned();
    let described = describe(&command);
    let ended = process::run(Job {
        command,
        stdin: Vec::new(),
        output_limit: STEP_OUTPUT_LIMIT,
        timeout: steps.timeout,
        cancel: steps.cancel,
        scope: steps.scope,
    });
    if let Some(why) = ended.spawn_error {
        return Err(PipelineError::MissingTool {
            tool: format!("`{program}`"),
            why,
            hint: "install it or fix the command in faultlens.toml".into(),
        });
    }
    if ended.cancelled {
        return Err(PipelineError::Cancelled);
    }
    let stdout = String::from_utf8_lossy(&ended.stdout).into_owned();
    let mut output = stdout.clone();
    output.push_str(&String::from_utf8_lossy(&ended.stderr));
    if ended.timed_out {
        return Err(PipelineError::Build {
            message: format!(
                "`{described}` did not finish within the build timeout of {} s and was stopped; raise [build] timeout in faultlens.toml if the build needs longer\n{}",
                steps.timeout.as_secs_f64(),
                output.trim_end()
            ),
            diagnostics: Vec::new(),
        });
    }
    if ended.stdout_cut || ended.stderr_cut {
        output.push_str(&format!(
            "\n[faultlens: the output was cut at {} MiB]",
            STEP_OUTPUT_LIMIT >> 20
        ));
    }
    Ok(StepOutput {
        success: ended.exit_code == Some(0),
        output,
        stdout,
    })
}

/// The command line, shortened for a message.
fn describe(command: &Command) -> String {
    let mut words = vec![command.get_program().to_string_lossy().into_owned()];
    words.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    let line = shell_words::join(words);
    if line.chars().count() > 200 {
        format!("{}…", line.chars().take(200).collect::<String>())
    } else {
        line
    }
}
