//! Fixture helpers shared by the diagnosis tests and the benchmark: the io
//! fixtures, their ground truth, and their failing tests as the C model
//! runs them (a test fails when the interpreter's stdout or exit status
//! differs from the expected one, as the compiled program's does; the
//! fixtures' differential tests in faultlens-csem check that they agree).
#![allow(dead_code)]

use faultlens_core::diagnosis::AngelicValue;
use faultlens_csem::ir::{ExprKind, InstrKind, StmtId};
use faultlens_csem::{run, Outcome, Program, RunOptions};
use faultlens_diagnose::bridge::{declared_tests, ModelTest};
use faultlens_workspace::Project;
#[path = "../../../csem/tests/common/parallel.rs"]
mod parallel;
#[allow(unused_imports)] // not every test or example spreads its work
pub use parallel::par_map;
use std::path::{Path, PathBuf};

pub fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

pub fn fixture(name: &str) -> PathBuf {
    fixtures_root().join(name).canonicalize().unwrap()
}

/// Ground-truth faults as `(file, lines)`.
pub fn ground_truth(dir: &Path) -> Vec<(String, Vec<u32>)> {
    let text = std::fs::read_to_string(dir.join("ground-truth.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["faults"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["lines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l.as_u64().unwrap() as u32)
                    .collect(),
            )
        })
        .collect()
}

/// Whether the test passes in the interpreter.
pub fn passes(prog: &Program, t: &ModelTest) -> bool {
    let r = faultlens_csem::run(prog, &t.input, &t.run_options());
    let code = match r.outcome {
        Outcome::Exited(c) => c,
        Outcome::Signaled(s) => 128 + s,
        _ => return false,
    };
    code == t.expected.exit
        && t.expected
            .stdout
            .as_ref()
            .is_none_or(|want| *want == r.stdout)
}

pub struct Loaded {
    pub project: Project,
    pub prog: Program,
    pub failing: Vec<ModelTest>,
    pub passing: Vec<ModelTest>,
}

/// The program and its failing tests, or the load error.
pub fn load(dir: &Path) -> Result<Loaded, String> {
    let project = Project::load(dir).map_err(|e| e.to_string())?;
    let spec = faultlens_diagnose::source_spec(&project)?;
    let prog = faultlens_csem::load(&spec).map_err(|e| e.to_string())?;
    let tests = declared_tests(&project).map_err(|e| e.to_string())?;
    let (mut failing, mut passing) = (Vec::new(), Vec::new());
    for (_, t) in tests {
        let Ok(mut t) = t else { continue };
        let opts = t.run_options();
        let Ok(r) = faultlens_diagnose::files::run_with_files(
            &prog,
            &project.root,
            &t.cwd,
            &mut t.input,
            &opts,
        ) else {
            continue;
        };
        t.observed_stdout = String::from_utf8_lossy(&r.stdout).into_owned();
        t.observed_stderr = String::from_utf8_lossy(&r.stderr).into_owned();
        match r.outcome {
            Outcome::Exited(c) => t.observed_exit = Some(c),
            Outcome::Signaled(s) => t.observed_signal = Some(s),
            _ => {}
        }
        if passes(&prog, &t) {
            passing.push(t);
        } else {
            failing.push(t);
        }
    }
    Ok(Loaded {
        project,
        prog,
        failing,
        passing,
    })
}

/// Io fixtures (directories with a faultlens.toml or auto-detected io suites).
pub fn io_fixtures() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures_root())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("ground-truth.json").is_file())
        .filter(|p| {
            Project::load(p).is_ok_and(|pr| pr.kind == faultlens_workspace::config::Kind::Io)
        })
        .map(|p| p.canonicalize().unwrap())
        .collect();
    dirs.sort();
    dirs
}

/// Copies a fixture (without `.faultlens/`) under `to`, for tests that run
/// the real pipeline, which writes into the project.
pub fn copy_fixture(name: &str, to: &Path) -> PathBuf {
    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_name() == ".faultlens" {
                continue;
            }
            let target = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &target);
            } else {
                std::fs::copy(e.path(), &target).unwrap();
            }
        }
    }
    let target = to.join(name);
    copy_dir(&fixture(name), &target);
    target
}

/// The statements of `prog` on `(file suffix, line)`.
pub fn statements_on(prog: &Program, file: &str, line: u32) -> Vec<usize> {
    let mut out = Vec::new();
    for f in &prog.funcs {
        for ins in &f.body {
            let path = prog.files[ins.range.file as usize]
                .to_string_lossy()
                .to_string();
            if ins.range.start.line == line && path.ends_with(file) && !out.contains(&ins.stmt) {
                out.push(ins.stmt);
            }
        }
    }
    out
}

/// Statements on the value's line that produce a value of its role.
pub fn candidates(prog: &Program, v: &AngelicValue) -> Vec<StmtId> {
    let mut out = Vec::new();
    for f in &prog.funcs {
        for ins in &f.body {
            let path = prog.files[ins.range.file as usize]
                .to_string_lossy()
                .to_string();
            if ins.range.start.line != v.line || !path.ends_with(&v.file) {
                continue;
            }
            let fits = match (v.role.as_str(), &ins.kind) {
                ("condition", InstrKind::Branch { .. }) => true,
                ("switch value", InstrKind::Switch { .. }) => true,
                ("return", InstrKind::Return(Some(_))) => true,
                ("value", InstrKind::Init(..)) => true,
                ("value", InstrKind::Expr(e)) => matches!(
                    e.kind,
                    ExprKind::Assign(..)
                        | ExprKind::CompoundAssign { .. }
                        | ExprKind::IncDec { .. }
                ),
                ("argument", InstrKind::Expr(e)) => matches!(e.kind, ExprKind::Builtin(..)),
                _ => false,
            };
            if fits && !out.contains(&ins.stmt) {
                out.push(ins.stmt);
            }
        }
    }
    out
}

/// Replays `test` with the listed values substituted, trying every way to
/// attach them to the statements on their lines (several statements can
/// share a line; arguments of one output call are listed in order).
pub fn replay_passes(prog: &Program, test: &ModelTest, values: &[&AngelicValue]) -> bool {
    let options: Vec<Vec<StmtId>> = values.iter().map(|v| candidates(prog, v)).collect();
    let mut choice = vec![0usize; values.len()];
    for _ in 0..256 {
        let mut opts = RunOptions {
            program_name: test.program_name.clone(),
            ..RunOptions::default()
        };
        let mut arg_counter: std::collections::BTreeMap<(StmtId, u32), u32> = Default::default();
        for (k, v) in values.iter().enumerate() {
            let Some(&stmt) = options[k].get(choice[k]) else {
                return false;
            };
            let inst = v.instance - 1;
            if v.role == "argument" {
                let n = arg_counter.entry((stmt, inst)).or_default();
                opts.output_overrides
                    .insert((stmt, inst, *n), v.value as u64);
                *n += 1;
            } else {
                opts.overrides.insert(stmt, inst, v.value as u64);
            }
        }
        let r = run(prog, &test.input, &opts);
        let code = match r.outcome {
            Outcome::Exited(c) => Some(c),
            Outcome::Signaled(s) => Some(128 + s),
            _ => None,
        };
        if r.unapplied_overrides.is_empty()
            && r.unapplied_output_overrides.is_empty()
            && code == Some(test.expected.exit)
            && test.expected.stdout.as_ref().is_none_or(|w| *w == r.stdout)
        {
            return true;
        }
        // Next combination.
        let mut k = 0;
        loop {
            if k == choice.len() {
                return false;
            }
            choice[k] += 1;
            if choice[k] < options[k].len() {
                break;
            }
            choice[k] = 0;
            k += 1;
        }
    }
    false
}

/// Loads the project at `dir` and localizes it with the real pipeline (gcc
/// --coverage build, real test processes).
pub fn localized(dir: &Path) -> (Project, faultlens_core::results::RunResults) {
    let project = Project::load(dir).unwrap();
    let results = faultlens_pipeline::localize(
        &project,
        &faultlens_pipeline::RunOptions::default(),
        &|_| {},
        &faultlens_pipeline::CancelToken::new(),
    )
    .unwrap();
    (project, results)
}
