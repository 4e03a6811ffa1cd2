//! The developer's own test runs: the reports CTest, Meson, Automake's
//! `make check` and JUnit-writing runners leave behind, read as facts
//! (which tests ran, which failed), and a watch that notices a finished
//! run (see [`watch`]). Reading only: nothing here starts a process.
//!
//! Every report may be hostile: reads are bounded, regular files only,
//! inside the project; a report that cannot be read says why and is
//! skipped, never fatal.

mod automake;
mod ctest;
pub mod junit;
mod meson;
pub mod watch;

use std::path::{Path, PathBuf};

/// The most of one report faultlens reads (a CTest log holds every test's
/// output, capped by CTest itself; a JUnit file is its runner's to size).
pub const REPORT_LIMIT: u64 = 32 << 20;

/// Which tool wrote a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReportKind {
    /// `Testing/Temporary/LastTest.log` of a CTest build directory.
    CTest,
    /// `meson-logs/testlog.json` of a Meson build directory.
    Meson,
    /// `test-suite.log` of Automake's parallel test harness.
    Automake,
    /// A JUnit XML file (`ctest --output-junit`, or any runner's) that
    /// `faultlens.toml`'s `[watch] reports` names.
    JUnit,
}

impl ReportKind {
    /// The command that writes it, as a developer would say it.
    pub fn command(self) -> &'static str {
        match self {
            ReportKind::CTest => "ctest",
            ReportKind::Meson => "meson test",
            ReportKind::Automake => "make check",
            ReportKind::JUnit => "a JUnit report",
        }
    }
}

/// A test's verdict in the developer's run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevVerdict {
    Passed,
    Failed,
    /// Skipped, not run, or an expected failure: no evidence either way.
    Skipped,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DevTest {
    pub name: String,
    pub verdict: DevVerdict,
}

/// One finished run of the developer's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DevRun {
    pub kind: ReportKind,
    /// The report, relative to the project root.
    pub report: PathBuf,
    /// Where the run happened (its build directory), relative to the root.
    pub dir: PathBuf,
    /// The tests the report names. Automake's log names only the tests
    /// that did not pass; the others are counted in `total`.
    pub tests: Vec<DevTest>,
    /// How many tests ran, as the report counts them.
    pub total: usize,
}

impl DevRun {
    /// The run `report` (relative to the project) tells of: `tests` by name
    /// and verdict, `total` run.
    pub fn new(
        kind: ReportKind,
        report: PathBuf,
        tests: &[(&str, DevVerdict)],
        total: usize,
    ) -> DevRun {
        DevRun {
            kind,
            dir: build_dir(&report, kind),
            report,
            tests: tests
                .iter()
                .map(|(name, verdict)| DevTest {
                    name: name.to_string(),
                    verdict: *verdict,
                })
                .collect(),
            total,
        }
    }

    /// The names of the tests that failed.
    pub fn failed(&self) -> Vec<&str> {
        self.tests
            .iter()
            .filter(|t| t.verdict == DevVerdict::Failed)
            .map(|t| t.name.as_str())
            .collect()
    }

    /// The verdict the report gives `name`; tests Automake's log does not
    /// name passed.
    pub fn verdict_of(&self, name: &str) -> Option<DevVerdict> {
        match self.tests.iter().find(|t| t.name == name) {
            Some(t) => Some(t.verdict),
            None if self.kind == ReportKind::Automake => Some(DevVerdict::Passed),
            None => None,
        }
    }

    /// What happened, in the words of a status line:
    /// "ctest in build/ failed 2 of 13 tests".
    pub fn describe(&self) -> String {
        let dir = display_dir(&self.dir);
        let failed = self.failed().len();
        let what = match self.kind {
            ReportKind::JUnit => format!("{} ({})", self.kind.command(), self.report.display()),
            _ => format!("{} in {dir}", self.kind.command()),
        };
        if failed == 0 {
            format!("{what} passed all {} tests", self.total)
        } else {
            format!(
                "{what} failed {failed} of {} test{}",
                self.total,
                if self.total == 1 { "" } else { "s" }
            )
        }
    }
}

fn display_dir(dir: &Path) -> String {
    if dir.as_os_str().is_empty() {
        "./".into()
    } else {
        format!("{}/", dir.display())
    }
}

/// Why a report was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{report}: {message}")]
pub struct ReportError {
    pub report: PathBuf,
    pub message: String,
}

/// What one report says: a finished run, or a run still going.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    Finished {
        tests: Vec<DevTest>,
        total: usize,
    },
    /// The tool is still writing it (no end marker yet).
    InProgress,
}

/// Reads and parses the report at `relative` (to `root`).
pub fn read_report(
    root: &Path,
    relative: &Path,
    kind: ReportKind,
) -> Result<Option<DevRun>, ReportError> {
    let error = |message: String| ReportError {
        report: relative.to_path_buf(),
        message,
    };
    let bytes = crate::files::read_in_project(root, relative, REPORT_LIMIT).map_err(error)?;
    let text = String::from_utf8_lossy(&bytes);
    let parsed = match kind {
        ReportKind::CTest => ctest::parse(&text),
        ReportKind::Meson => {
            let summary = relative.with_file_name("testlog.txt");
            let finished = crate::files::read_optional(root, &summary, REPORT_LIMIT)
                .map_err(error)?
                .is_some_and(|b| meson::summary_written(&String::from_utf8_lossy(&b)));
            meson::parse(&text, finished)
        }
        ReportKind::Automake => automake::parse(&text),
        ReportKind::JUnit => junit::parse(&text),
    }
    .map_err(error)?;
    Ok(match parsed {
        Parsed::InProgress => None,
        Parsed::Finished { tests, total } => Some(DevRun {
            kind,
            report: relative.to_path_buf(),
            dir: build_dir(relative, kind),
            tests,
            total,
        }),
    })
}

/// The test cases of a JUnit report the user names (an artifact of a CI
/// job, anywhere on disk): at most `REPORT_LIMIT` bytes of a regular file.
pub fn read_junit_file(path: &Path) -> Result<Vec<junit::Case>, ReportError> {
    let error = |message: String| ReportError {
        report: path.to_path_buf(),
        message,
    };
    let bytes =
        faultlens_confine::read_regular(path, REPORT_LIMIT).map_err(|e| error(e.reason()))?;
    match junit::cases(&String::from_utf8_lossy(&bytes)).map_err(error)? {
        Some(cases) => Ok(cases),
        None => Err(error(
            "the report is cut short (no closing tag): it is still being written, or was truncated"
                .into(),
        )),
    }
}

/// The build directory a report belongs to.
fn build_dir(report: &Path, kind: ReportKind) -> PathBuf {
    let up = match kind {
        ReportKind::CTest => 3,
        ReportKind::Meson => 2,
        ReportKind::Automake | ReportKind::JUnit => 1,
    };
    let mut dir = report;
    for _ in 0..up {
        dir = dir.parent().unwrap_or(Path::new(""));
    }
    dir.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: ReportKind, report: &str, tests: &[(&str, DevVerdict)], total: usize) -> DevRun {
        DevRun::new(kind, report.into(), tests, total)
    }

    #[test]
    fn a_run_says_where_it_ran_and_what_failed() {
        let ctest = run(
            ReportKind::CTest,
            "build/Testing/Temporary/LastTest.log",
            &[
                ("a", DevVerdict::Passed),
                ("b", DevVerdict::Failed),
                ("c", DevVerdict::Failed),
            ],
            3,
        );
        assert_eq!(ctest.describe(), "ctest in build/ failed 2 of 3 tests");
        let meson = run(
            ReportKind::Meson,
            "meson-logs/testlog.json",
            &[("a", DevVerdict::Passed)],
            1,
        );
        assert_eq!(meson.describe(), "meson test in ./ passed all 1 tests");
        let automake = run(
            ReportKind::Automake,
            "test-suite.log",
            &[("t", DevVerdict::Failed)],
            4,
        );
        assert_eq!(automake.verdict_of("other"), Some(DevVerdict::Passed));
        assert_eq!(ctest.verdict_of("other"), None);
        let junit = run(
            ReportKind::JUnit,
            "out/junit.xml",
            &[("x", DevVerdict::Failed)],
            1,
        );
        assert_eq!(
            junit.describe(),
            "a JUnit report (out/junit.xml) failed 1 of 1 test"
        );
    }
}
