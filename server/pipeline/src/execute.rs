//! Running one test process: its own coverage prefix, under the timeout
//! and the guarantees of [`crate::process`].

use crate::process::{self, Ended, Job, RunScope};
use crate::testspec::{Invocation, TestSpec};
use faultlens_cancel::CancelToken;
use std::path::Path;
use std::process::Command;

/// How one test process ended.
pub type Execution = Ended;

/// Runs `spec` with coverage counters written under `prefix`.
pub fn execute(
    spec: &TestSpec,
    prefix: &Path,
    output_limit: usize,
    cancel: &CancelToken,
    scope: &RunScope,
) -> Execution {
    let mut command = match &spec.invocation {
        Invocation::Argv(argv) => {
            let mut c = Command::new(&argv[0]);
            c.args(&argv[1..]);
            c
        }
        Invocation::Shell(line) => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(line);
            c
        }
    };
    command
        .current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .env("GCOV_PREFIX", prefix)
        .env("GCOV_PREFIX_STRIP", "0");
    let mut ended = process::run(Job {
        command,
        stdin: spec.stdin.clone(),
        output_limit,
        timeout: spec.timeout,
        cancel,
        scope,
    });
    if let Some(e) = ended.spawn_error.take() {
        ended.spawn_error = Some(format!(
            "cannot start `{}`: {e}",
            spec.invocation.describe()
        ));
    }
    ended
}
