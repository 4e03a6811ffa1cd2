//! `make check` projects (automake's convention, in a generated or a plain
//! Makefile): the user's Makefile runs in the shadow copy with the coverage
//! environment; `make` builds the project (its default goal, unless that is
//! `check`), then the test programs (`check_PROGRAMS`, else `TESTS`) are
//! built as targets of their own, so nothing runs a test but faultlens. An
//! autotools project is configured there first (`build::autotools`), and
//! its test programs are built by automake's own `check` with `TESTS`
//! emptied, in every directory.

use super::{build_step, Built};
use crate::command::{run_step, Steps};
use crate::error::{PipelineError, Result};
use crate::paths::PathMap;
use crate::project::Project;
use faultlens_confine::WorkDir;
use faultlens_workspace::compilations;
use std::path::Path;
use std::process::Command;

pub fn build(
    project: &Project,
    jobs: usize,
    env: Vec<(String, String)>,
    steps: &Steps,
) -> Result<Built> {
    let shadow = project
        .work()?
        .dir_without_links_out(faultlens_workspace::build_dirs::SHADOW)?;
    crate::shadow::sync(&project.root, &shadow)?;
    let autotools = faultlens_workspace::detect::autotools(&project.root);
    let configured = match autotools {
        Some(how) => super::autotools::configure(project, how, &shadow, &env, steps)?,
        None => None,
    };
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
    if autotools.is_some() && faultlens_workspace::detect::automake(&project.root) {
        // Automake's `check` builds every directory's check_PROGRAMS and
        // check_SCRIPTS, then runs TESTS: emptied on the command line (and
        // so in every recursive make), it runs none.
        make(&["check".into(), "TESTS=".into(), "XFAIL_TESTS=".into()])?;
    } else {
        let mut programs = variable(project, &shadow, "check_PROGRAMS", &env, steps)?;
        if programs.is_empty() {
            programs = variable(project, &shadow, "TESTS", &env, steps)?;
        }
        if !programs.is_empty() {
            make(&programs)?;
        }
    }
    Ok(Built {
        program: None,
        run_dir: shadow.clone(),
        notes_dir: shadow,
        cmake_dir: None,
        paths,
        env,
        said: configured
            .map(crate::note::Note::Chose)
            .into_iter()
            .collect(),
    })
}

/// `env` with its `CC` replaced by a script that records each compiler
/// invocation in `.faultlens/compilations/` and runs the compiler: a
/// Makefile writes no compilation database, and the diagnosis needs the
/// sources and flags of each object. The script lives next to the runtime
/// object (`runtime`), in a directory whose path `make` does not split.
pub fn recording_compilations(
    work: &WorkDir,
    runtime: &Path,
    mut env: Vec<(String, String)>,
) -> Result<Vec<(String, String)>> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let record_dir = work.dir(compilations::DIR)?;
    let Some((_, cc)) = env.iter_mut().find(|(k, _)| k == "CC") else {
        return Ok(env);
    };
    let script = runtime.with_file_name("faultlens-cc");
    let text = compilations::recorder_script(&record_dir, cc);
    // A link planted there is removed, never written through; a directory
    // there is in faultlens's own `.faultlens/rt/` or private directory.
    match std::fs::symlink_metadata(&script) {
        Ok(m) if m.is_dir() => {
            let _ = std::fs::remove_dir_all(&script);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(&script);
        }
        Err(_) => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o755)
        .open(&script)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| PipelineError::io(format!("writing {}", script.display()), e))?;
    *cc = script.to_string_lossy().into_owned();
    Ok(env)
}

fn make_command(project: &Project) -> Command {
    let mut cmd = Command::new("make");
    cmd.args(make_args(project));
    cmd
}

/// The arguments of every `make` faultlens runs in this project: `[make]
/// args`, and, for a release's autotools files, none remade.
pub fn make_args(project: &Project) -> Vec<String> {
    let mut args = Vec::new();
    // A release's configure and Makefile.in are what it ships: the copy
    // gives every file the time it was copied, which can make them look
    // older than configure.ac and Makefile.am, and automake's rules would
    // remake them with whatever autotools are installed (or fail without).
    if faultlens_workspace::detect::autotools(&project.root)
        == Some(faultlens_workspace::detect::Autotools::Configure)
    {
        args.extend(["ACLOCAL=:", "AUTOCONF=:", "AUTOMAKE=:", "AUTOHEADER=:"].map(String::from));
    }
    if let Some(section) = &project.config.make_check {
        args.extend(section.args.iter().cloned());
    }
    args
}

/// The words of a Makefile variable, as make expands it (see
/// [`variables`]).
pub fn variable(
    project: &Project,
    dir: &Path,
    name: &str,
    env: &[(String, String)],
    steps: &Steps,
) -> Result<Vec<String>> {
    let values = variables(project, dir, &[name], env, steps)?;
    Ok(values
        .get(name)
        .map(|v| v.split_whitespace().map(String::from).collect())
        .unwrap_or_default())
}

/// Makefile variables as make expands them, by name: GNU make's `--eval`
/// adds a rule whose `$(info)` prints each behind a marker of its own, so
/// nothing the Makefile itself prints (and no quote in a value) is taken
/// for one.
pub fn variables(
    project: &Project,
    dir: &Path,
    names: &[&str],
    env: &[(String, String)],
    steps: &Steps,
) -> Result<std::collections::BTreeMap<String, String>> {
    // `--eval` is read before the Makefile, and a target starting with a
    // dot never becomes the default goal (which is asked for too).
    const TARGET: &str = ".faultlens-print-variable";
    const MARK: &str = "faultlens-variable-value:";
    let infos: Vec<String> = names
        .iter()
        .map(|name| format!("$(info {MARK}{name}:$({name}))"))
        .collect();
    let mut cmd = make_command(project);
    cmd.args(["-s", "--no-print-directory", "--eval"])
        .arg(format!("{TARGET}: ; {}", infos.join(" ")))
        .arg(TARGET);
    let step = run_step(cmd, dir, env, steps)?;
    let mut values = std::collections::BTreeMap::new();
    for line in step.stdout.lines() {
        let Some(rest) = line.strip_prefix(MARK) else {
            continue;
        };
        if let Some((name, value)) = rest.split_once(':') {
            if names.contains(&name) {
                values.insert(name.to_string(), value.to_string());
            }
        }
    }
    if !step.success || values.len() < names.len() {
        return Err(PipelineError::Discovery(format!(
            "asking make in {} for {} failed (faultlens reads them with GNU make's --eval, make 3.82 or later):\n{}",
            dir.display(),
            names.join(", "),
            step.output.trim_end()
        )));
    }
    Ok(values)
}
