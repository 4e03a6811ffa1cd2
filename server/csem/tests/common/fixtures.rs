//! The io fixtures' tests as plain data, for the differential tests and the
//! benchmark, read by the pipeline's own discovery so the two never disagree
//! on what a fixture's tests are.
#![allow(dead_code)]

use faultlens_workspace::config::Kind;
use faultlens_workspace::declared::{discover_declared, DEFAULT_TIMEOUT};
use faultlens_workspace::testspec::Invocation;
use faultlens_workspace::Project;
use std::path::{Path, PathBuf};

/// The io fixtures under `fixtures/`, sorted.
pub fn fixture_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixtures/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

pub struct FixtureTest {
    pub name: String,
    pub args: Vec<String>,
    pub stdin: Vec<u8>,
    /// Expected stdout; not checked when absent.
    pub expected_stdout: Option<Vec<u8>>,
    pub expected_exit: i32,
    /// The files the test may open: each argument that names a path under
    /// the fixture, read from there, or `None` where nothing is (what
    /// faultlens's bridge would read when the run opens them; these
    /// fixtures open no file their arguments do not name).
    pub files: faultlens_csem::Files,
}

impl FixtureTest {
    /// The test as the model runs it.
    pub fn input(&self) -> faultlens_csem::TestInput {
        faultlens_csem::TestInput {
            args: self.args.clone(),
            stdin: self.stdin.clone(),
            files: self.files.clone(),
            ..faultlens_csem::TestInput::default()
        }
    }
}

fn files_named_by(dir: &Path, args: &[String]) -> faultlens_csem::Files {
    args.iter()
        .filter(|a| !a.is_empty() && !a.starts_with('/') && !a.contains(".."))
        .map(|a| (a.clone(), std::fs::read(dir.join(a)).ok()))
        .collect()
}

/// Sources, extra compiler flags and tests of an io fixture, as the
/// pipeline reads them (`faultlens.toml` or auto-detection); None for CTest
/// and runner fixtures.
pub fn fixture(dir: &Path) -> Option<(Vec<PathBuf>, Vec<String>, Vec<FixtureTest>)> {
    let project = Project::load(dir).expect("the fixture's configuration loads");
    if project.kind != Kind::Io {
        return None;
    }
    let build = &project.config.build;
    let sources = match &build.sources {
        Some(listed) => listed.iter().map(PathBuf::from).collect(),
        // A `command` build (make): every top-level C file, with C11 like its Makefile.
        None => top_level_c(dir),
    };
    let mut cflags = build.cflags.clone();
    if build.command.is_some() {
        cflags.push("-std=c11".into());
    }
    let specs = discover_declared(&project, DEFAULT_TIMEOUT)?.expect("the fixture's tests load");
    let tests = specs
        .into_iter()
        .map(|spec| {
            let Invocation::Argv(argv) = &spec.invocation else {
                panic!("io test {} is not a program invocation", spec.name)
            };
            FixtureTest {
                files: files_named_by(dir, &argv[1..]),
                args: argv[1..].to_vec(),
                stdin: spec.stdin.clone(),
                expected_stdout: spec.expect.stdout.clone(),
                expected_exit: spec.expect.exit.unwrap_or(0),
                name: spec.name,
            }
        })
        .collect();
    Some((sources, cflags, tests))
}

fn top_level_c(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| PathBuf::from(e.file_name()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    files
}

/// A copy of the fixture with every ground-truth `fix` substituted for its
/// `lines` (as `fixtures/check.py` builds the fixed program); None when the
/// fixture has no ground truth.
pub fn fixed_copy(dir: &Path) -> Option<tempfile::TempDir> {
    let truth = std::fs::read_to_string(dir.join("ground-truth.json")).ok()?;
    let truth: serde_json::Value = serde_json::from_str(&truth).expect("ground-truth.json parses");
    let copy = tempfile::tempdir().unwrap();
    copy_tree(dir, copy.path());
    let mut faults: Vec<&serde_json::Value> = truth["faults"].as_array()?.iter().collect();
    // Bottom-up, so an earlier fix cannot move a later fix's lines.
    faults.sort_by_key(|f| std::cmp::Reverse(first_line(f)));
    for fault in faults {
        let path = copy.path().join(fault["file"].as_str()?);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.split('\n').collect();
        let lines_of: Vec<usize> = fault["lines"]
            .as_array()?
            .iter()
            .filter_map(|l| l.as_u64().map(|l| l as usize))
            .collect();
        let (first, last) = (*lines_of.iter().min()?, *lines_of.iter().max()?);
        lines.splice(
            first.checked_sub(1)?..last,
            fault["fix"].as_str()?.split('\n'),
        );
        std::fs::write(&path, lines.join("\n")).unwrap();
    }
    Some(copy)
}

fn first_line(fault: &serde_json::Value) -> u64 {
    fault["lines"]
        .as_array()
        .and_then(|l| l.iter().filter_map(|x| x.as_u64()).min())
        .unwrap_or(0)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().filter_map(|e| e.ok()) {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_name() == ".faultlens" {
            continue;
        }
        if src.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}
