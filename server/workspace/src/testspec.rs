//! A discovered test, ready to run: what to execute, with what input, and
//! what counts as passing. Every suite kind lowers its tests to this.

use crate::config::Compare;
use faultlens_core::results::Location;
use regex::Regex;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct TestSpec {
    pub name: String,
    pub invocation: Invocation,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    pub stdin: Vec<u8>,
    pub expect: Expectation,
    pub timeout: Duration,
    pub location: Option<Location>,
}

#[derive(Debug, Clone)]
pub enum Invocation {
    /// A program and its arguments, run directly.
    Argv(Vec<String>),
    /// A shell command line, run with `sh -c`.
    Shell(String),
}

#[derive(Debug, Clone, Default)]
pub struct Expectation {
    /// Expected exit status; `None` accepts any normal exit (CTest with regexes).
    pub exit: Option<i32>,
    pub stdout: Option<Vec<u8>>,
    pub compare: Compare,
    /// CTest `WILL_FAIL`: the verdict is inverted (a crash still fails).
    pub will_fail: bool,
    /// CTest `PASS_REGULAR_EXPRESSION`: output must match one; exit status ignored.
    pub pass_regex: Vec<Regex>,
    /// CTest `FAIL_REGULAR_EXPRESSION`: output matching one fails.
    pub fail_regex: Vec<Regex>,
    /// The exit status with which a test says it skipped itself (77 for
    /// automake and Meson, CTest's `SKIP_RETURN_CODE`). It counts as
    /// passing: faultlens has no "skipped" verdict, and such a run covers
    /// little.
    pub skip_exit: Option<i32>,
}

impl Invocation {
    pub fn describe(&self) -> String {
        match self {
            Invocation::Argv(argv) => shell_words::join(argv),
            Invocation::Shell(cmd) => cmd.clone(),
        }
    }
}
