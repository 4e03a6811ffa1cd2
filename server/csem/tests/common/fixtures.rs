//! The io fixtures' tests as plain data, for the differential tests and the
//! benchmark, read by the pipeline's own discovery so the two never disagree
//! on what a fixture's tests are.
#![allow(dead_code)]

use faultlens_pipeline::config::Kind;
use faultlens_pipeline::discover::{discover_declared, DEFAULT_TIMEOUT};
use faultlens_pipeline::testspec::Invocation;
use faultlens_pipeline::Project;
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
