//! `faultlens interpret`: one configured test, run in the C model
//! (`faultlens-csem`) instead of the compiled program. The program's output
//! goes to stdout and stderr and its exit status becomes ours, exactly as
//! the real program's would; what the model cannot run is reported with
//! exit status 125.

use super::root_or_cwd;
use anyhow::{anyhow, Context};
use faultlens_csem::{describe_outcome, load, render_trace, Outcome, RunOptions, TestInput};
use faultlens_diagnose::files::run_with_files;
use faultlens_workspace::declared::{discover_declared, DEFAULT_TIMEOUT};
use faultlens_workspace::testspec::Invocation;
use faultlens_workspace::Project;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status when the model cannot run the test (unsupported C, undefined
/// behaviour, step limit), distinct from any status the program chose.
const MODEL_CANNOT_RUN: u8 = 125;

pub fn run(path: Option<PathBuf>, name: &str, trace: bool) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(path)?;
    let project = Project::load(&root)?;
    let spec = faultlens_diagnose::source_spec(&project).map_err(|e| anyhow!(e))?;
    let tests = discover_declared(&project, DEFAULT_TIMEOUT)
        .ok_or_else(|| anyhow!("`interpret` runs input/output tests (faultlens.toml [[test]] or [tests]); this is a {:?} project", project.kind))??;
    let test = tests.iter().find(|t| t.name == name).ok_or_else(|| {
        let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).take(10).collect();
        anyhow!(
            "no test named {name:?}; some tests of this project: {} (`faultlens tests` lists all)",
            names.join(", ")
        )
    })?;
    let Invocation::Argv(argv) = &test.invocation else {
        return Err(anyhow!(
            "test {name:?} is a shell command, which the model cannot run"
        ));
    };
    let mut input = TestInput {
        args: argv[1..].to_vec(),
        stdin: test.stdin.clone(),
        ..TestInput::default()
    };
    let options = RunOptions {
        program_name: argv[0].clone(),
        trace,
        ..RunOptions::default()
    };
    let program = match load(&spec) {
        Ok(program) => program,
        Err(e) => {
            eprintln!("faultlens interpret: {e}");
            return Ok(ExitCode::from(MODEL_CANNOT_RUN));
        }
    };
    // The files the run opens are read from the test's directory and
    // given to the model, which does no I/O itself.
    let result = match run_with_files(&program, &project.root, &test.cwd, &mut input, &options) {
        Ok(result) => result,
        Err(reason) => {
            eprintln!("faultlens interpret: the model cannot run test {name:?}: {reason}");
            return Ok(ExitCode::from(MODEL_CANNOT_RUN));
        }
    };
    std::io::stdout()
        .write_all(&result.stdout)
        .context("writing the program's output")?;
    std::io::stderr()
        .write_all(&result.stderr)
        .context("writing the program's errors")?;
    if trace {
        eprint!(
            "--- trace ({} statement instances) ---\n{}",
            result.trace.len(),
            render_trace(&program, &result)
        );
    }
    Ok(match result.outcome {
        Outcome::Exited(code) => ExitCode::from(code as u8),
        Outcome::Signaled(signal) => {
            eprintln!(
                "faultlens interpret: the program would be {}",
                describe_outcome(&result.outcome)
            );
            ExitCode::from((128 + signal) as u8)
        }
        Outcome::RuntimeError { .. } | Outcome::StepLimit => {
            eprintln!("faultlens interpret: {}", describe_outcome(&result.outcome));
            ExitCode::from(MODEL_CANNOT_RUN)
        }
    })
}
